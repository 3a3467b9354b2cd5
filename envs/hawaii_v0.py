"""Hawaii as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.core.aec import MeeplezooAECEnv, env_metadata, wrap_env
from meeplezoo.envs.hawaii.state import HawaiiGame

Game = HawaiiGame


class raw_env(MeeplezooAECEnv):
    game_cls = HawaiiGame
    metadata = env_metadata(HawaiiGame)


def env(**kwargs):
    return wrap_env(raw_env(**kwargs))
