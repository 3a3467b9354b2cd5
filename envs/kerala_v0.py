"""Kerala as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.core.aec import MeeplezooAECEnv, env_metadata, wrap_env
from meeplezoo.envs.kerala.state import KeralaGame

Game = KeralaGame


class raw_env(MeeplezooAECEnv):
    game_cls = KeralaGame
    metadata = env_metadata(KeralaGame)


def env(**kwargs):
    return wrap_env(raw_env(**kwargs))
