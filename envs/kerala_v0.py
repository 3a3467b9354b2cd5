"""Kerala as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.core.aec import MeeplezooAECEnv, classic_env, env_metadata
from meeplezoo.envs.core.info import GameInfo
from meeplezoo.envs.kerala.state import KeralaGame

Game = KeralaGame
GAME_INFO = GameInfo.of(
    KeralaGame, __name__, pettingzoo_id="meeplezoo/Kerala-v0", order=0,
    heuristic="meeplezoo.agents.heuristics.kerala:KeralaHeuristic",
    # the spec "mcts" for this game, found by benchmarks/search_sweep.py (see agents/mcts.py): 0.92
    search_defaults=dict(time=0.5, prior="heuristic", prior_temp=0.5, c=1.5, rollout_depth=0, widen=2.0))


class raw_env(MeeplezooAECEnv):
    game_cls = KeralaGame
    metadata = env_metadata(KeralaGame)


def env(**kwargs):
    """PettingZoo classic-style env: illegal moves end the game (-1 for the mover); see raw_env for the options."""
    return classic_env(raw_env, **kwargs)
