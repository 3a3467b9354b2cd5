"""Asara as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.asara.state import AsaraGame
from meeplezoo.envs.core.aec import MeeplezooAECEnv, classic_env, env_metadata

Game = AsaraGame


class raw_env(MeeplezooAECEnv):
    game_cls = AsaraGame
    metadata = env_metadata(AsaraGame)


def env(**kwargs):
    """PettingZoo classic-style env: illegal moves end the game (-1 for the mover); see raw_env for the options."""
    return classic_env(raw_env, **kwargs)
