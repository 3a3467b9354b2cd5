"""Hawaii as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.core.aec import MeeplezooAECEnv, classic_env, env_metadata
from meeplezoo.envs.core.info import GameInfo
from meeplezoo.envs.hawaii.state import HawaiiGame

Game = HawaiiGame
GAME_INFO = GameInfo.of(
    HawaiiGame, __name__, pettingzoo_id="meeplezoo/Hawaii-v0", order=2,
    heuristic="meeplezoo.agents.heuristics.hawaii:HawaiiHeuristic",
    # the spec "mcts" for this game, found by benchmarks/search_sweep.py (see agents/mcts.py): plain UCT 1.00,
    # with the heuristic prior 0.83
    search_defaults=dict(time=0.5, rollout_depth=20))


class raw_env(MeeplezooAECEnv):
    game_cls = HawaiiGame
    metadata = env_metadata(HawaiiGame)


def env(**kwargs):
    """PettingZoo classic-style env: illegal moves end the game (-1 for the mover); see raw_env for the options."""
    return classic_env(raw_env, **kwargs)
