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

The hot path is ``clone``/``determinize`` plus ``legal_actions`` and
``_apply`` (called directly on the copies: their actions come from their own
legal list, so validation would only cost time); node statistics live in flat
per-node lists.

Build it from the registry: ``make("mcts:sims=400:rollout=heuristic", game="kerala")``.
"""

from __future__ import annotations

import math
import time as _time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from meeplezoo.envs.core.game import REWARD_MODES, compute_returns
from meeplezoo.envs.core.rng import Rng
from meeplezoo.registry import GAMES

from .base import Agent

#: a rollout that runs this long means the engine never ends the game: a bug, reported as such
MAX_ROLLOUT_STEPS = 100_000
#: how many candidate nodes tree reuse may examine when matching the new position
REUSE_SEARCH_LIMIT = 512

#: what the spec ``mcts`` means for each game (the registry fills these in; the class's own defaults are
#: the plain search): each game's ``GAME_INFO.search_defaults`` (``envs/<game>_v0.py``), the one place they
#: are set, found by ``benchmarks/search_sweep.py`` (6 games each against the heuristic at 0.25 s per
#: decision, a small sweep; results in ``benchmarks/results/search_sweep.json``, the score of each setting
#: beside it).  Options given in the spec replace these one by one; a given ``sims`` or ``time`` replaces the
#: whole budget; ``mcts:preset=plain`` is the class defaults.  A read-only view, kept for existing readers.
TUNED: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {name: MappingProxyType(dict(info.search_defaults)) for name, info in GAMES.items() if info.search_defaults})


#: the largest prior_weight and fpu accepted (both are in units of the reward's range)
MAX_WEIGHT = 2


@dataclass
class SearchResult:
    """What one search found at the root (visit counts are the usual policy target)."""

    action: int
    player: int
    visits: np.ndarray  # int64[num_actions], visits of each root action
    values: np.ndarray  # float64[num_actions], mean return for the searching player (nan if unvisited)
    simulations: int  # iterations run by this search (reused visits not counted)
    seconds: float
    reused_visits: int = 0  # visits already in the reused subtree at the start
    tree_size: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def root_value(self) -> float:
        """Visit-weighted mean return of the searching player at the root."""
        n = self.visits.sum()
        if n == 0:
            return 0.0
        seen = self.visits > 0
        return float((self.visits[seen] * self.values[seen]).sum() / n)

    def policy(self, temperature: float = 1.0) -> np.ndarray:
        """Visit-count distribution over all actions (temperature 0: one-hot on the most visited)."""
        v = self.visits.astype(np.float64)
        out = np.zeros_like(v)
        if v.sum() == 0:
            return out
        if temperature == 0:
            out[self.action] = 1.0
            return out
        w = v ** (1.0 / temperature)
        return w / w.sum()


class MCTSAgent(Agent):
    """Information-set MCTS for any meeplezoo game (see the module docstring).

    Options (all also settable from an agent spec, ``mcts:sims=800:c=0.7``):

    * ``sims``: iterations per decision (default 400; when only ``time`` is
      given there is no iteration limit). A positional spec argument is
      ``sims`` too: ``mcts:200``.
    * ``time``: seconds per decision (wall clock; the search stops at whichever
      budget runs out first; decisions are then not reproducible).
    * ``c``: UCB exploration constant (returns lie in [-1, 1]).
    * ``rollout``: ``"random"`` (default) or any agent spec for the game
      (``"heuristic"``), or an :class:`Agent` instance.
    * ``rollout_epsilon``: probability of a uniformly random move instead of
      the rollout agent's (keeps deterministic rollout policies diverse).
    * ``rollout_depth``: rollout decisions after the leaf before the position
      is evaluated from ``scores()`` (default: play to the end).
    * ``max_depth``: decisions below the root (tree plus rollout) after which
      the position is evaluated from ``scores()`` (default: no limit).
    * ``eval_scale``: score margin that counts as a clear lead at a cut-off:
      the value is ``tanh(margin / eval_scale)`` (default ``game.score_scale / 5``).
    * ``temperature``: 0 picks the most visited action (ties: higher value,
      then lower id); above 0 samples with probability proportional to
      ``visits ** (1 / temperature)``.
    * ``reuse_tree``: keep the subtree of the position reached since the last
      decision when it can be identified from the player's own observation
      (always after a sub-decision of the same turn without chance).
    * ``reward_mode``: ``"win"`` (default), ``"rank"`` or ``"score"``: which
      terminal ``returns`` the search maximises.
    * ``prior``: None (default: UCT), ``"uniform"``, ``"heuristic"`` (a softmax
      over the game heuristic's ``action_scores`` at temperature ``prior_temp``;
      where it scores nothing, ``prior_weight`` on the move it would play and
      the rest uniform) or an :class:`Evaluator` (Python only).  The prior sees
      only the determinization being searched.
    * ``fpu``: an unvisited child's value is its parent's value for the mover
      minus this (first-play urgency).
    * ``widen``: progressive widening: at a node visited N times only the
      ``ceil(widen * (N + 1) ** widen_alpha)`` legal actions of highest prior
      are candidates (0: all).
    * ``batch``: descents per evaluator call (virtual loss keeps them apart);
      with rollouts it only changes the order of the work.

    A decision with a single legal action (given by ``action_mask``) is
    answered without a search.
    """

    uses_state = True
    name = "mcts"

    def __init__(self, *args: Any, game: Any = None, seed: int | None = None, sims: int | None = None,
                 time: float | None = None, c: float = 1.0, rollout: Any = "random", rollout_epsilon: float = 0.0,
                 rollout_depth: int | None = None, max_depth: int | None = None, eval_scale: float | None = None,
                 temperature: float = 0.0, reuse_tree: bool = False, reward_mode: str = "win",
                 prior: Any = None, prior_temp: float = 1.0, prior_weight: float = 0.5, fpu: float = 0.2,
                 widen: float = 0.0, widen_alpha: float = 0.5, batch: int = 1) -> None:
        game_name = game if isinstance(game, str) or game is None else getattr(game, "name", None)
        if len(args) > 1:
            raise ValueError(f"mcts: at most one positional option (sims), got {list(args)}")
        if args:
            if sims is not None:
                raise ValueError("mcts: sims given twice (positional and sims=)")
            try:
                sims = int(args[0])
            except ValueError:
                raise ValueError(f"mcts: the positional option is the number of simulations, got {args[0]!r}") from None
        if sims is None and time is None:
            sims = 400
        if sims is not None and (isinstance(sims, bool) or not isinstance(sims, (int, np.integer)) or sims < 1):
            raise ValueError(f"mcts: sims must be a positive int, got {sims!r}")
        if time is not None and (isinstance(time, bool) or not isinstance(time, (int, float)) or not time > 0):
            raise ValueError(f"mcts: time must be a positive number of seconds, got {time!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not c >= 0:
            raise ValueError(f"mcts: c must be a number >= 0, got {c!r}")
        if not (isinstance(rollout, str) and rollout.strip()) and not isinstance(rollout, Agent):
            raise ValueError(f"mcts: rollout must be 'random', an agent spec or an Agent, got {rollout!r}")
        if isinstance(rollout, str) and rollout.strip().split(":")[0] == "mcts":
            raise ValueError("mcts: rollout=mcts would nest searches; use 'random' or a fast agent such as 'heuristic'")
        if isinstance(rollout_epsilon, bool) or not isinstance(rollout_epsilon, (int, float)) \
                or not 0 <= rollout_epsilon <= 1:
            raise ValueError(f"mcts: rollout_epsilon must be in [0, 1], got {rollout_epsilon!r}")
        for nm, v, lo in (("rollout_depth", rollout_depth, 0), ("max_depth", max_depth, 1)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo):
                raise ValueError(f"mcts: {nm} must be an int >= {lo} (or omitted), got {v!r}")
        if eval_scale is not None and (isinstance(eval_scale, bool) or not isinstance(eval_scale, (int, float))
                                       or not eval_scale > 0):
            raise ValueError(f"mcts: eval_scale must be a positive number, got {eval_scale!r}")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature >= 0:
            raise ValueError(f"mcts: temperature must be a number >= 0, got {temperature!r}")
        if not isinstance(reuse_tree, bool):
            raise ValueError(f"mcts: reuse_tree must be true or false, got {reuse_tree!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"mcts: reward_mode must be one of {', '.join(REWARD_MODES)}, got {reward_mode!r}")
        if prior is not None and not (prior in ("uniform", "heuristic") or hasattr(prior, "evaluate")):
            raise ValueError(f"mcts: prior must be uniform, heuristic or an object with evaluate(states), "
                             f"got {prior!r}")
        for nm, v in (("prior_temp", prior_temp), ("widen_alpha", widen_alpha)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
                raise ValueError(f"mcts: {nm} must be a positive number, got {v!r}")
        for nm, v in (("prior_weight", prior_weight), ("fpu", fpu)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= MAX_WEIGHT:
                raise ValueError(f"mcts: {nm} must be a number in [0, {MAX_WEIGHT}], got {v!r}")
        if isinstance(widen, bool) or not isinstance(widen, (int, float)) or not widen >= 0:
            raise ValueError(f"mcts: widen must be a number >= 0 (0: no widening), got {widen!r}")
        if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
            raise ValueError(f"mcts: batch must be a positive int, got {batch!r}")
        self.game_id = game_name
        self.prior = prior
        self.prior_temp = float(prior_temp)
        self.prior_weight = float(prior_weight)
        self.fpu = float(fpu)
        self.widen = float(widen)
        self.widen_alpha = float(widen_alpha)
        self.batch = int(batch)
        self._prior_source: Any = prior if hasattr(prior, "evaluate") else None
        self._prior_game: str | None = None
        self.sims = None if sims is None else int(sims)
        self.time_limit = None if time is None else float(time)
        self.c = float(c)
        self.rollout = rollout.strip() if isinstance(rollout, str) else rollout
        self.rollout_epsilon = float(rollout_epsilon)
        self.rollout_depth = None if rollout_depth is None else int(rollout_depth)
        self.max_depth = None if max_depth is None else int(max_depth)
        self.eval_scale = None if eval_scale is None else float(eval_scale)
        self.temperature = float(temperature)
        self.reuse_tree = reuse_tree
        self.reward_mode = reward_mode
        self._rollout_agent: Agent | None = rollout if isinstance(rollout, Agent) else None
        self._rollout_game: str | None = None
        self.rng = Rng(seed)
        self.last_search: SearchResult | None = None
        # running totals over all decisions since construction (benchmarks read them)
        self.total_decisions = 0
        self.total_simulations = 0
        self.total_seconds = 0.0
        self._overrun = 0.0  # how far recent timed decisions ran past the budget (seconds, moving average)
        self._clear_tree()

    # -- Agent protocol -------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = Rng(seed)
            if self._rollout_agent is not None:
                self._rollout_agent.reset(self.rng.next64() >> 1)
            if isinstance(self._prior_source, HeuristicPrior):
                self._prior_source.agent.reset(self.rng.next64() >> 1)
        self._clear_tree()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        if state is None:
            raise ValueError("mcts: act() needs the engine state (state=...); this agent searches over the engine")
        result = self.search(state, observation=observation, action_mask=action_mask)
        return result.action

    # -- search ---------------------------------------------------------------------------
    def search(self, state: Any, *, observation: np.ndarray | None = None,
               action_mask: np.ndarray | None = None) -> SearchResult:
        """Search from ``state`` for its current player and return the root statistics.

        Only ``state.current_player``, ``state.game`` and
        ``state.determinize(player, rng)`` are touched.  ``observation`` (the
        player's own) lets tree reuse identify the position; ``action_mask``
        guards the final choice.
        """
        player = state.current_player
        if player is None or player < 0:
            raise ValueError("mcts: the game is over; there is no decision to search")
        game = state.game
        if self.game_id is not None and game.name != self.game_id:
            raise ValueError(f"mcts: this agent was built for {self.game_id!r}, not {game.name!r}")
        n = game.num_players
        if self.rollout != "random" and self._rollout_agent is None or (
                self._rollout_game is not None and self._rollout_game != game.name):
            self._build_rollout_agent(game.name)
        if self.prior == "heuristic" and (self._prior_source is None or self._prior_game != game.name):
            from .registry import make

            self._prior_source = HeuristicPrior(make("heuristic", game.name, seed=self.rng.next64() >> 1),
                                                self.prior_temp, self.prior_weight)
            self._prior_game = game.name
        if action_mask is not None:
            legal = np.flatnonzero(action_mask)
            if legal.size == 1:  # nothing to decide: no search, no time
                return self._forced(state, int(legal[0]), player, observation)
        if self._n_players != n:
            self._clear_tree(n)
        root, reused = self._reuse_root(player, observation) if self.reuse_tree else (-1, False)
        if not reused:
            self._clear_tree(n)
            root = self._new_node()
        reused_visits = self._N[root]
        t0 = _time.perf_counter()
        # the deadline is brought forward by the mean overrun of the recent decisions (a busy machine, uneven
        # iterations), so that decisions keep to the budget on average
        deadline = None if self.time_limit is None else t0 + self.time_limit - min(self._overrun,
                                                                                    0.5 * self.time_limit)
        sims = self.sims
        rng = self.rng
        determinize = state.determinize
        done = 0
        first = None
        if self.prior is None:
            iterate = self._iterate
            while True:
                if sims is not None and done >= sims:
                    break
                if deadline is not None and done > 0 and _time.perf_counter() >= deadline:
                    break
                d = determinize(player, rng)
                if first is None and self.reuse_tree:
                    first = d.clone()
                iterate(d, root)
                done += 1
        else:
            batch = self.batch
            while True:
                if sims is not None and done >= sims:
                    break
                # stop when the next batch could end past the deadline (twice its mean cost so far: iteration
                # costs are uneven where a prior is computed), so decisions keep to the budget on average
                if deadline is not None and done > 0 and \
                        _time.perf_counter() + 2.0 * (_time.perf_counter() - t0) * batch / done >= deadline:
                    break
                k = batch if sims is None else min(batch, sims - done)
                ds = [determinize(player, rng) for _ in range(k)]
                if first is None and self.reuse_tree:
                    first = ds[0].clone()
                self._iterate_puct(ds, root)
                done += k
        seconds = _time.perf_counter() - t0
        if self.time_limit is not None:
            self._overrun = max(0.0, 0.7 * self._overrun + 0.3 * (self._overrun + seconds - self.time_limit))

        na = game.num_actions
        visits = np.zeros(na, dtype=np.int64)
        values = np.full(na, np.nan)
        children = self._children[root]
        for a, k in children.items():
            visits[a] = self._N[k]
            if self._N[k]:
                values[a] = self._W[k][player] / self._N[k]
        if action_mask is not None:
            allowed = np.asarray(action_mask).astype(bool)
            if allowed.shape != (na,):
                raise ValueError(f"mcts: action_mask has shape {allowed.shape}, expected ({na},)")
            visits[~allowed] = 0
            values[~allowed] = np.nan
        action = self._choose(visits, values, children, action_mask)
        result = SearchResult(action=action, player=player, visits=visits, values=values, simulations=done,
                              seconds=seconds, reused_visits=reused_visits, tree_size=len(self._N))
        self.last_search = result
        self.total_decisions += 1
        self.total_simulations += done
        self.total_seconds += seconds
        if self.reuse_tree and first is not None and action in children:
            first._apply(action)
            self._pending = (player, children[action], first)
        else:
            self._pending = None
        return result

    def _forced(self, state: Any, action: int, player: int, observation: np.ndarray | None) -> SearchResult:
        """The only legal action, without a search; a reused tree moves on past it."""
        na = state.game.num_actions
        visits = np.zeros(na, dtype=np.int64)
        values = np.full(na, np.nan)
        result = SearchResult(action=action, player=player, visits=visits, values=values, simulations=0,
                              seconds=0.0, extra={"forced": True})
        self.last_search = result
        self.total_decisions += 1
        pending = None
        if self.reuse_tree and self._n_players == state.game.num_players:
            root, reused = self._reuse_root(player, observation)
            if reused and action in self._children[root]:
                d = state.determinize(player, self.rng)
                d._apply(action)
                pending = (player, self._children[root][action], d)
        self._pending = pending
        return result

    def _choose(self, visits: np.ndarray, values: np.ndarray, children: dict[int, int],
                action_mask: np.ndarray | None) -> int:
        if visits.sum() == 0:
            # nothing explored that the mask allows (cannot happen with a correct determinize): play legal
            legal = np.flatnonzero(action_mask) if action_mask is not None else np.array(sorted(children))
            if legal.size == 0:
                raise ValueError("mcts: no legal action to choose from")
            return int(legal[self.rng.randbelow(legal.size)])
        if self.temperature > 0:
            w = visits.astype(np.float64) ** (1.0 / self.temperature)
            w /= w.sum()
            u = self.rng.random()
            cum = np.cumsum(w)
            return int(min(np.searchsorted(cum, u, side="right"), len(w) - 1)) if cum[-1] > 0 else int(np.argmax(w))
        top = visits.max()
        cands = np.flatnonzero(visits == top)
        if cands.size == 1:
            return int(cands[0])
        vals = values[cands]
        return int(cands[int(np.argmax(vals))])  # argmax takes the first (lowest id) among equal values

    # -- one iteration ----------------------------------------------------------------------
    def _iterate(self, s: Any, node: int) -> None:
        """Select, expand, evaluate and back up once on the determinization ``s`` (consumed)."""
        children, N, A, W = self._children, self._N, self._A, self._W
        rng = self.rng
        c = self.c
        log, sqrt = math.log, math.sqrt
        max_depth = self.max_depth
        path = [node]
        depth = 0
        while True:
            if s.is_terminal():
                r = s.returns(self.reward_mode).tolist()
                break
            if max_depth is not None and depth >= max_depth:
                r = self._evaluate(s)
                break
            acts = s.legal_actions()
            if not acts:
                raise RuntimeError(f"{s.game.name}: no legal action in a non-terminal position (engine bug)")
            ch = children[node]
            p = s.current_player
            untried = None
            best_v = -math.inf
            best_a = best_k = -1
            for a in acts:
                k = ch.get(a)
                if k is None:
                    if untried is None:
                        untried = [a]
                    else:
                        untried.append(a)
                    continue
                av = A[k] + 1
                A[k] = av
                if untried is None:
                    nk = N[k]
                    v = W[k][p] / nk + c * sqrt(log(av) / nk)
                    if v > best_v:
                        best_v, best_a, best_k = v, a, k
            if untried is not None:
                a = untried[rng.randbelow(len(untried))] if len(untried) > 1 else untried[0]
                k = self._new_node()
                A[k] = 1
                ch[a] = k
                s._apply(a)
                path.append(k)
                depth += 1
                r = self._rollout(s, depth)
                break
            s._apply(best_a)
            node = best_k
            path.append(node)
            depth += 1
        n = len(r)
        if n == 2:  # noqa: PLR2004 - the two-player fast path of the backup
            r0, r1 = r
            for k in path:
                N[k] += 1
                w = W[k]
                w[0] += r0
                w[1] += r1
        else:
            rng_n = range(n)
            for k in path:
                N[k] += 1
                w = W[k]
                for i in rng_n:
                    w[i] += r[i]

    def _node_priors(self, node: int, s: Any, acts: list[int]) -> dict[int, float]:
        """The node's prior over ``acts`` (computed from this determinization for actions it lacks)."""
        P = self._P[node]
        if P is not None and all(a in P for a in acts):
            return P
        src = self._prior_source
        if src is None:  # uniform
            fresh = dict.fromkeys(acts, 1.0 / len(acts))
        else:
            priors, _ = src.evaluate([s])
            fresh = _normalised(priors[0], acts)
        if P is None:
            P = self._P[node] = fresh
        else:
            for a in acts:
                if a not in P:
                    P[a] = fresh[a]
        return P

    def _iterate_puct(self, states: list[Any], root: int) -> None:
        """PUCT iterations on the determinizations ``states`` (consumed), their leaves evaluated together.

        Selection: Q + c * P * sqrt(availability) / (1 + N), every player maximising its own entry of
        the reward vector; an unvisited child's Q is its parent's value for the mover less ``fpu``.
        With ``widen`` > 0 only the ``ceil(widen * visits ** widen_alpha)`` legal actions of highest
        prior compete (progressive widening).  Several states: each descent adds a virtual loss to
        its path so the next one spreads out; the leaves then go to the evaluator in one call.
        """
        children, N, W, AV = self._children, self._N, self._W, self._AV
        c, fpu = self.c, self.fpu
        widen, walpha = self.widen, self.widen_alpha
        sqrt = math.sqrt
        max_depth = self.max_depth
        n_states = len(states)
        pending: list[tuple[list[int], list[int], Any, int]] = []  # path, movers, leaf state, depth
        results: list[list[float] | None] = []
        for s in states:
            node = root
            path = [node]
            movers: list[int] = []
            depth = 0
            r = None
            while True:
                if s.is_terminal():
                    r = s.returns(self.reward_mode).tolist()
                    break
                if max_depth is not None and depth >= max_depth:
                    r = self._evaluate(s)
                    break
                acts = s.legal_actions()
                if not acts:
                    raise RuntimeError(f"{s.game.name}: no legal action in a non-terminal position (engine bug)")
                p = s.current_player
                ch = children[node]
                if len(acts) == 1:
                    a = acts[0]
                else:
                    P = self._node_priors(node, s, acts)
                    av = AV[node]
                    nn = N[node]
                    if widen > 0:
                        k = math.ceil(widen * (nn + 1) ** walpha)
                        if k < len(acts):
                            acts = sorted(acts, key=lambda x: -P[x])[:k]
                    q0 = (W[node][p] / nn if nn else 0.0) - fpu
                    best_v = -math.inf
                    a = acts[0]
                    for b in acts:
                        ab = av.get(b, 0) + 1
                        av[b] = ab
                        k = ch.get(b)
                        if k is None or not N[k]:
                            v = q0 + c * P[b] * sqrt(ab)
                        else:
                            nk = N[k]
                            v = W[k][p] / nk + c * P[b] * sqrt(ab) / (1 + nk)
                        if v > best_v:
                            best_v, a = v, b
                k = ch.get(a)
                new = k is None
                if new:
                    k = self._new_node()
                    ch[a] = k
                s._apply(a)
                node = k
                path.append(k)
                movers.append(p)
                depth += 1
                if new or not N[k]:
                    break
            if r is None and s.is_terminal():
                r = s.returns(self.reward_mode).tolist()
            if r is None and n_states > 1:
                # virtual loss: the leaf counts as a loss for every mover on its path until it is evaluated
                for k, p in zip(path[1:], movers):
                    N[k] += 1
                    W[k][p] -= 1.0
                N[root] += 1
            pending.append((path, movers, s, depth))
            results.append(r)
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            src = self._prior_source
            values = None
            if src is not None and getattr(src, "provides_values", False):
                leaf_states = [pending[i][2] for i in todo]
                priors, values = src.evaluate(leaf_states)
                for j, i in enumerate(todo):
                    leaf = pending[i][0][-1]
                    if priors is not None and priors[j] is not None and self._P[leaf] is None:
                        self._P[leaf] = _normalised(priors[j], leaf_states[j].legal_actions())
            for j, i in enumerate(todo):
                path, movers, s, depth = pending[i]
                if n_states > 1:
                    for k, p in zip(path[1:], movers):
                        N[k] -= 1
                        W[k][p] += 1.0
                    N[root] -= 1
                results[i] = [float(x) for x in values[j]] if values is not None and values[j] is not None \
                    else self._rollout(s, depth)
        for (path, _m, _s, _d), r in zip(pending, results):
            assert r is not None
            for k in path:
                N[k] += 1
                w = W[k]
                for i, x in enumerate(r):
                    w[i] += x

    def _rollout(self, s: Any, depth: int) -> list[float]:
        """Play on from ``s`` (depth = decisions below the root so far) and return the reward vector."""
        limit = MAX_ROLLOUT_STEPS
        if self.rollout_depth is not None:
            limit = self.rollout_depth
        if self.max_depth is not None:
            limit = min(limit, self.max_depth - depth)
        is_terminal, apply = s.is_terminal, s._apply
        steps = 0
        agent = self._rollout_agent
        if agent is None:
            legal_actions = s.legal_actions
            randbelow = self.rng.randbelow
            while not is_terminal():
                if steps >= limit:
                    return self._cutoff(s, steps)
                acts = legal_actions()
                apply(acts[randbelow(len(acts))])
                steps += 1
        else:
            eps = self.rollout_epsilon
            rand = self.rng.random
            randbelow = self.rng.randbelow
            with_state = agent.uses_state
            # agents that decide from the state alone may say so and save the observation encoding
            with_obs = getattr(agent, "uses_observation", True)
            agent.reset()  # a rollout is a fresh game for the agent's memory (plans of earlier rollouts)
            while not is_terminal():
                if steps >= limit:
                    return self._cutoff(s, steps)
                p = s.current_player
                mask = s.legal_mask()
                if eps and rand() < eps:
                    acts = np.flatnonzero(mask)
                    a = int(acts[randbelow(len(acts))])
                else:
                    a = int(agent.act(s.observe(p) if with_obs else None, mask, state=s if with_state else None))
                    if not (0 <= a < len(mask) and mask[a]):
                        raise RuntimeError(f"mcts: rollout agent {agent!r} chose illegal action {a} "
                                           f"({s.game.name}, player {p})")
                apply(a)
                steps += 1
        return s.returns(self.reward_mode).tolist()

    def _cutoff(self, s: Any, steps: int) -> list[float]:
        if steps >= MAX_ROLLOUT_STEPS:
            raise RuntimeError(f"{s.game.name}: a rollout ran {steps} decisions without ending the game (engine bug)")
        return self._evaluate(s)

    def _evaluate(self, s: Any) -> list[float]:
        """Value of a non-terminal position from the provisional scores (zero-sum, in [-1, 1] except 'score')."""
        game = s.game
        scores = s.scores()
        n = len(scores)
        if self.reward_mode == "score":
            return compute_returns(s.placements(), scores, "score", game.score_scale).tolist()
        scale = self.eval_scale if self.eval_scale is not None else game.score_scale / 5.0
        total = float(sum(scores))
        return [math.tanh((x - (total - x) / (n - 1)) / scale) for x in scores]

    # -- tree storage -------------------------------------------------------------------------
    def _clear_tree(self, n_players: int = 0) -> None:
        self._n_players = n_players
        self._children: list[dict[int, int]] = []
        self._N: list[int] = []  # visits
        self._A: list[int] = []  # availability (times legal when the parent was visited)
        self._W: list[list[float]] = []  # reward sums, one per player
        self._P: list[dict[int, float] | None] = []  # prior over the actions seen legal (PUCT)
        self._AV: list[dict[int, int]] = []  # availability per action (PUCT)
        self._pending: tuple[int, int, Any] | None = None

    def _new_node(self) -> int:
        self._children.append({})
        self._N.append(0)
        self._A.append(0)
        self._W.append([0.0] * self._n_players)
        self._P.append(None)
        self._AV.append({})
        return len(self._N) - 1

    def _reuse_root(self, player: int, observation: np.ndarray | None) -> tuple[int, bool]:
        """Find the node of the new position below the last decision, by the player's own observation.

        ``_pending`` holds a determinization of the last root with the chosen
        action applied.  Walking the recorded opponents' actions from there, a
        node matches when the same player is to move and sees exactly the given
        observation; the subtree is kept only if exactly one node matches.
        """
        pending, self._pending = self._pending, None
        if pending is None or observation is None:
            return -1, False
        last_player, node, d = pending
        if last_player != player:
            return -1, False
        obs = np.asarray(observation)
        matches = []
        queue = deque([(node, d)])
        examined = 0
        while queue and examined < REUSE_SEARCH_LIMIT:
            k, s = queue.popleft()
            examined += 1
            if s.is_terminal():
                continue
            if s.current_player == player:
                o = s.observe(player)
                if o.shape == obs.shape and np.array_equal(o, obs):
                    matches.append(k)
                continue
            mask = s.legal_mask()
            for a, kk in self._children[k].items():
                if mask[a]:
                    t = s.clone()
                    t._apply(a)
                    queue.append((kk, t))
        if len(matches) != 1 or queue:
            return -1, False
        return self._compact(matches[0]), True

    def _compact(self, root: int) -> int:
        """Copy the subtree under ``root`` into fresh storage (the rest is dropped); returns the new root."""
        old_children, old_N, old_A, old_W = self._children, self._N, self._A, self._W
        old_P, old_AV = self._P, self._AV
        n = self._n_players
        self._clear_tree(n)
        new_root = self._new_node()
        stack = [(root, new_root)]
        while stack:
            o, k = stack.pop()
            self._N[k] = old_N[o]
            self._A[k] = old_A[o]
            self._W[k] = old_W[o][:]
            self._P[k] = None if old_P[o] is None else dict(old_P[o])
            self._AV[k] = dict(old_AV[o])
            ch = self._children[k]
            for a, oc in old_children[o].items():
                kc = self._new_node()
                ch[a] = kc
                stack.append((oc, kc))
        return new_root

    def _build_rollout_agent(self, game_name: str) -> None:
        if isinstance(self.rollout, Agent):
            self._rollout_agent = self.rollout
        else:
            from .registry import make

            self._rollout_agent = make(self.rollout, game_name, seed=self.rng.next64() >> 1)
        self._rollout_game = game_name

    def __repr__(self) -> str:
        budget = f"sims={self.sims}" if self.time_limit is None else f"time={self.time_limit}s"
        prior = "" if self.prior is None else f" prior={self.prior if isinstance(self.prior, str) else 'object'}"
        return (f"<MCTSAgent {budget} c={self.c} rollout={self.rollout if isinstance(self.rollout, str) else 'agent'}"
                f"{prior}>")


def _normalised(prior: Any, acts: list[int]) -> dict[int, float]:
    """``prior`` (weights indexed by action id) restricted to ``acts`` and summing to 1 (uniform if all 0)."""
    w = [max(0.0, float(prior[a])) for a in acts]
    total = sum(w)
    if not total > 0:
        return dict.fromkeys(acts, 1.0 / len(acts))
    return {a: x / total for a, x in zip(acts, w)}


class Evaluator(ABC):
    """What the search asks of a prior/value source (a policy-value network, a heuristic, ...).

    ``evaluate(states)`` takes a list of engine states (determinizations: all
    they hold is what the searching player may know, or a sample of it) and
    returns ``(priors, values)``: ``priors[i]`` weights over all action ids
    (only the legal ones are read, then renormalised) or None; ``values`` is
    None or ``values[i]`` a reward vector (one entry per player, the scale of
    ``returns``) for states[i].  Set ``provides_values`` when values come back:
    the search then sends its leaves here in batches of ``batch`` (instead of
    rolling out) and stores the priors that come with them.
    """

    provides_values: bool = False

    @abstractmethod
    def evaluate(self, states: list[Any]) -> tuple[Any, Any]:
        """``(priors, values)`` for ``states`` (see the class docstring)."""


class HeuristicPrior(Evaluator):
    """The game heuristic as a prior: a softmax over its ``action_scores`` (at temperature ``temp``),
    or, in decisions where it scores nothing, ``weight`` on the move it would play and the rest uniform."""

    def __init__(self, agent: Agent, temp: float = 1.0, weight: float = 0.5) -> None:
        self.agent = agent
        self.temp = float(temp)
        self.weight = float(weight)
        self.scores = getattr(agent, "action_scores", None)

    def evaluate(self, states: list[Any]) -> tuple[list[np.ndarray], None]:
        out = []
        for s in states:
            mask = s.legal_mask()
            legal = np.flatnonzero(mask).tolist()
            pr = np.zeros(len(mask))
            sc = self.scores(s, legal) if self.scores is not None else None
            if sc is not None:
                x = np.asarray(sc, dtype=np.float64) / self.temp
                e = np.exp(x - x.max())
                pr[legal] = e / e.sum()
            else:
                a = int(self.agent.act(None, mask, state=s))
                pr[legal] = (1.0 - self.weight) / len(legal)
                pr[a] += self.weight
            out.append(pr)
        return out, None
