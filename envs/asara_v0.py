"""Asara as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.asara.state import AsaraGame
from meeplezoo.envs.core.aec import MeeplezooAECEnv, classic_env, env_metadata
from meeplezoo.envs.core.info import GameInfo

Game = AsaraGame
GAME_INFO = GameInfo.of(
    AsaraGame, __name__, pettingzoo_id="meeplezoo/Asara-v0", order=3,
    heuristic="meeplezoo.agents.heuristics.asara:AsaraHeuristic")


class raw_env(MeeplezooAECEnv):
    game_cls = AsaraGame
    metadata = env_metadata(AsaraGame)


def env(**kwargs):
    """PettingZoo classic-style env: illegal moves end the game (-1 for the mover); see raw_env for the options."""
    return classic_env(raw_env, **kwargs)
