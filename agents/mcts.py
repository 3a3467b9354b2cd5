"""Information-set Monte Carlo tree search over the engine protocol, for every game.

Single-observer ISMCTS (Cowling, Powley & Whitehouse, 2012) for 2-5 players:

* every iteration samples a *determinization* of the position from the
  searching player's point of view (``state.determinize(player, rng)``), so the
  search never reads what the player could not know, and the hidden future
  (deck order, opponents' hands) is re-drawn each time;
* the tree is keyed by action sequences from the root (one node per
  information set of the searching player, chance folded into ``apply``);
  a node's children are the actions legal in the *current* determinization,
  and UCB uses availability counts (how often a child was legal when its parent
  was visited) instead of the parent's visit count;
* each node keeps a reward vector (one entry per player) and every player
  maximises its own entry (the max^n idea), so 3-5 players need nothing special;
* sub-decisions of one turn are ordinary tree levels where the same player
  moves again, so any action decomposition works without game-specific code;
* leaves are evaluated by a rollout (uniformly random, or any agent spec such as
  ``heuristic``) to the end, or to an optional depth cut-off where the
  provisional ``scores()`` give a heuristic value, or by an evaluator's values;
* with a ``prior`` the selection is PUCT (Silver et al., 2017) with
  availability counts: ``Q + c * P * sqrt(availability) / (1 + N)``, the prior
  coming from the game heuristic's action scores (``prior="heuristic"``) or
  from any object with a batched ``evaluate(states) -> (priors, values)``
  (:class:`Evaluator`, the hook for a policy-value network); progressive
  widening (``widen``) lets only the actions of highest prior compete until a
  node has been visited often enough; the leaves of ``batch`` descents (kept
  apart by virtual losses) go to the evaluator in one call.  Without a prior
  the search is plain UCT as before.

``make("mcts", game=...)`` is the tuned setting of the game (its ``GameInfo.search_defaults``, :data:`TUNED`).

The search itself lives in :mod:`meeplezoo.agents.search` (tree, selection rules, evaluators, the
descent loop, the settings table :data:`SEARCH_KNOBS`); this module is the agent over it.

Build it from the registry: ``make("mcts:sims=400:rollout=heuristic", game="kerala")``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from meeplezoo.registry import GAMES

from .base import Agent
from .registry import make
from .search import (  # noqa: F401 - re-exported: the names this module had before the search was split
    MAX_ROLLOUT_STEPS,
    MAX_WEIGHT,
    REUSE_SEARCH_LIMIT,
    SEARCH_KNOBS,
    Evaluator,
    HeuristicPrior,
    Search,
    SearchResult,
    Steps,
    drive,
)
from .search import normalised as _normalised  # noqa: F401
from .search.knobs import check_root

#: what the spec ``mcts`` means for each game (the registry fills these in; the class's own defaults are
#: the plain search): each game's ``GAME_INFO.search_defaults`` (``envs/<game>_v0.py``), the one place they
#: are set, found by ``benchmarks/search_sweep.py`` (6 games each against the heuristic at 0.25 s per
#: decision, a small sweep; results in ``benchmarks/results/search_sweep.json``, the score of each setting
#: beside it).  Options given in the spec replace these one by one; a given ``sims`` or ``time`` replaces the
#: whole budget; ``mcts:preset=plain`` is the class defaults.  A read-only view, kept for existing readers.
TUNED: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {name: MappingProxyType(dict(info.search_defaults)) for name, info in GAMES.items() if info.search_defaults})


def search_settings(args: tuple[Any, ...] = (), options: Mapping[str, Any] | None = None,
                    knobs: Any = SEARCH_KNOBS) -> dict[str, Any]:
    """The validated settings of a search from a positional ``sims`` and keyword ``options`` (every knob
    filled in; ``sims`` is None, no iteration limit, when only ``time`` is given)."""
    opts = dict(options or {})
    who = knobs.who
    if len(args) > 1:
        raise ValueError(f"{who}: at most one positional option (sims), got {list(args)}")
    if args:
        if opts.get("sims") is not None:
            raise ValueError(f"{who}: sims given twice (positional and sims=)")
        try:
            opts["sims"] = int(args[0])
        except ValueError:
            raise ValueError(f"{who}: the positional option is the number of simulations, got {args[0]!r}") from None
    if opts.get("sims") is None:
        opts.pop("sims", None)
        if opts.get("time") is not None:
            opts["sims"] = None
    settings = knobs.validate(opts)
    check_root(settings, who)
    return settings


class MCTSAgent(Agent):
    """Information-set MCTS for any meeplezoo game (see the module docstring): an agent over
    :class:`~meeplezoo.agents.search.Search`.

    Options are the knobs of :data:`SEARCH_KNOBS` (``SEARCH_KNOBS.markdown()`` lists them with their
    defaults and ranges), all also settable from an agent spec, ``mcts:sims=800:c=0.7``; a positional
    option is ``sims`` (``mcts:200``).  When only ``time`` is given there is no iteration limit.
    ``rollout`` and ``prior`` also take objects (an :class:`Agent`, an :class:`Evaluator`).  Each setting
    is readable as an attribute (``agent.sims``, ``agent.c``; ``time`` as ``agent.time_limit``).

    A decision with a single legal action (given by ``action_mask``) is answered without a search.
    """

    uses_state = True
    name = "mcts"
    knobs = SEARCH_KNOBS

    def __init__(self, *args: Any, game: Any = None, seed: int | None = None, **options: Any) -> None:
        self.settings = search_settings(args, options)
        self.__dict__.update(self.settings)
        self.time_limit = self.settings["time"]
        self.game_id = game if isinstance(game, str) or game is None else getattr(game, "name", None)
        self.engine = Search(self.settings, seed)
        self._rollout_game: str | None = None
        self._prior_game: str | None = None

    # -- what the search holds, read through the agent ----------------------------------------------
    @property
    def rng(self) -> Any:
        return self.engine.rng

    @property
    def last_search(self) -> SearchResult | None:
        return self.engine.last_search

    @property
    def total_decisions(self) -> int:
        return self.engine.total_decisions

    @property
    def total_simulations(self) -> int:
        return self.engine.total_simulations

    @property
    def total_seconds(self) -> float:
        return self.engine.total_seconds

    @property
    def _prior_source(self) -> Evaluator | None:
        return self.engine.source

    @property
    def _rollout_agent(self) -> Agent | None:
        return self.engine.rollout.agent

    # -- Agent protocol -------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        engine = self.engine
        if seed is not None:
            engine.reseed(seed)
            if engine.rollout.agent is not None:
                engine.rollout.agent.reset(engine.rng.next64() >> 1)
            if isinstance(engine.source, HeuristicPrior):
                engine.source.agent.reset(engine.rng.next64() >> 1)
            blended = getattr(engine.source, "heuristic", None)  # a network's prior blended with the heuristic's
            if isinstance(blended, HeuristicPrior):
                blended.agent.reset(engine.rng.next64() >> 1)
        engine.tree.clear()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        if state is None:
            raise ValueError("mcts: act() needs the engine state (state=...); this agent searches over the engine")
        return self.search(state, observation=observation, action_mask=action_mask).action

    def search(self, state: Any, *, observation: np.ndarray | None = None,
               action_mask: np.ndarray | None = None) -> SearchResult:
        """Search from ``state`` for its current player and return the root statistics.

        Only ``state.current_player``, ``state.game`` and
        ``state.determinize(player, rng)`` are touched.  ``observation`` (the
        player's own) lets tree reuse identify the position; ``action_mask``
        guards the final choice.
        """
        return drive(self.search_steps(state, observation=observation, action_mask=action_mask))

    def search_steps(self, state: Any, *, observation: np.ndarray | None = None,
                     action_mask: np.ndarray | None = None) -> Steps:
        """:meth:`search` as resumable steps (:meth:`Search.run_steps
        <meeplezoo.agents.search.Search.run_steps>`), for the lockstep driver
        (:func:`~meeplezoo.agents.search.lockstep`): yields the evaluator requests, returns the
        :class:`SearchResult`."""
        player = state.current_player
        if player is None or player < 0:
            raise ValueError("mcts: the game is over; there is no decision to search")
        game = state.game
        if self.game_id is not None and game.name != self.game_id:
            raise ValueError(f"mcts: this agent was built for {self.game_id!r}, not {game.name!r}")
        self._prepare(game.name)
        return (yield from self.engine.run_steps(state, player, observation, action_mask))

    def _prepare(self, game_name: str) -> None:
        """Build the rollout agent and the heuristic prior named by spec for ``game_name`` (once per game)."""
        engine = self.engine
        if self.rollout != "random" and engine.rollout.agent is None or (
                self._rollout_game is not None and self._rollout_game != game_name):
            agent = self.rollout if isinstance(self.rollout, Agent) else make(
                self.rollout, game_name, seed=engine.rng.next64() >> 1)
            engine.set_rollout_agent(agent)
            self._rollout_game = game_name
        if self.prior == "heuristic" and (engine.source is None or self._prior_game != game_name):
            engine.set_prior(HeuristicPrior(make("heuristic", game_name, seed=engine.rng.next64() >> 1),
                                            self.prior_temp, self.prior_weight))
            self._prior_game = game_name

    def __repr__(self) -> str:
        budget = f"sims={self.sims}" if self.time_limit is None else f"time={self.time_limit}s"
        prior = "" if self.prior is None else f" prior={self.prior if isinstance(self.prior, str) else 'object'}"
        return (f"<MCTSAgent {budget} c={self.c} rollout={self.rollout if isinstance(self.rollout, str) else 'agent'}"
                f"{prior}>")
