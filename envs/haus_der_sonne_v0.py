"""Haus der Sonne as a PettingZoo AEC environment: `env(**kwargs)`, `raw_env`."""
from meeplezoo.envs.core.aec import MeeplezooAECEnv, classic_env, env_metadata
from meeplezoo.envs.core.info import GameInfo
from meeplezoo.envs.haus_der_sonne.state import HausDerSonneGame

Game = HausDerSonneGame
GAME_INFO = GameInfo.of(
    HausDerSonneGame, __name__, pettingzoo_id="meeplezoo/HausDerSonne-v0", order=1,
    heuristic="meeplezoo.agents.heuristics.haus_der_sonne:HausDerSonneHeuristic",
    # the spec "mcts" for this game, found by benchmarks/search_sweep.py (see agents/mcts.py): 1.00
    # (random rollouts to the end: 1.00)
    search_defaults=dict(time=0.5, prior="heuristic", prior_temp=0.5, c=1.5, rollout="heuristic",
                         rollout_epsilon=0.1, rollout_depth=20))


class raw_env(MeeplezooAECEnv):
    game_cls = HausDerSonneGame
    metadata = env_metadata(HausDerSonneGame)


def env(**kwargs):
    """PettingZoo classic-style env: illegal moves end the game (-1 for the mover); see raw_env for the options."""
    return classic_env(raw_env, **kwargs)
