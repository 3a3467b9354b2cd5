"""Asara as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.asara.state import AsaraGame
from meeplezoo.envs.core.aec import MeeplezooAECEnv, classic_env, env_metadata
from meeplezoo.envs.core.info import GameInfo

Game = AsaraGame
GAME_INFO = GameInfo.of(
    AsaraGame, __name__, pettingzoo_id="meeplezoo/Asara-v0", order=3,
    heuristic="meeplezoo.agents.heuristics.asara:AsaraHeuristic",
    # the spec "mcts" for this game, found by benchmarks/search_sweep.py (see agents/mcts.py): 0.83
    # (heuristic rollouts to the end 0.83, random 0.67)
    search_defaults=dict(time=0.5, prior="heuristic", prior_temp=1.0, c=1.5, rollout="heuristic",
                         rollout_epsilon=0.1, rollout_depth=30))


class raw_env(MeeplezooAECEnv):
    game_cls = AsaraGame
    metadata = env_metadata(AsaraGame)


def env(**kwargs):
    """PettingZoo classic-style env: illegal moves end the game (-1 for the mover); see raw_env for the options."""
    return classic_env(raw_env, **kwargs)
