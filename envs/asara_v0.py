"""Asara as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.asara.state import AsaraGame
from meeplezoo.envs.core.aec import MeeplezooAECEnv, env_metadata, wrap_env

Game = AsaraGame


class raw_env(MeeplezooAECEnv):
    game_cls = AsaraGame
    metadata = env_metadata(AsaraGame)


def env(**kwargs):
    return wrap_env(raw_env(**kwargs))
