"""The information-set Monte Carlo tree search, in parts: the tree (:mod:`.tree`), the selection rules
(:mod:`.select`: UCT, PUCT), the evaluators (:mod:`.evaluators`: rollouts, score cut-offs, heuristic
priors; networks in :mod:`meeplezoo.agents.network`), the descent loop (:mod:`.search`), the lockstep driver
(:mod:`.batched`), the Gumbel root (:mod:`.gumbel`) and the settings (:mod:`.knobs`).
:class:`~meeplezoo.agents.mcts.MCTSAgent` is the agent over it."""

from .batched import Request, Steps, answer_all, drive, lockstep
from .evaluators import MAX_ROLLOUT_STEPS, Evaluator, HeuristicPrior, RolloutEvaluator, ScoreEvaluator
from .gumbel import GumbelRoot, considered_visits
from .knobs import LEAF_KINDS, MAX_WEIGHT, NETWORK_SEARCH_KNOBS, ROOT_KINDS, SEARCH_KNOBS
from .search import Search, SearchResult
from .select import PUCT, UCT, normalised
from .tree import REUSE_SEARCH_LIMIT, Tree

__all__ = ["Evaluator", "HeuristicPrior", "RolloutEvaluator", "ScoreEvaluator", "Search", "SearchResult", "UCT",
           "PUCT", "Tree", "normalised", "SEARCH_KNOBS", "NETWORK_SEARCH_KNOBS", "LEAF_KINDS", "MAX_WEIGHT",
           "MAX_ROLLOUT_STEPS", "REUSE_SEARCH_LIMIT", "ROOT_KINDS", "GumbelRoot", "considered_visits",
           "Request", "Steps", "answer_all", "drive", "lockstep"]
