"""One search: the descent loop shared by every selection rule and evaluator.

Single-observer ISMCTS (Cowling, Powley & Whitehouse, 2012) for 2-5 players: every iteration samples a
*determinization* of the position from the searching player's point of view
(``state.determinize(player, rng)``), descends the tree (:class:`~.tree.Tree`) by a selection rule
(:class:`~.select.UCT` or :class:`~.select.PUCT`) until it reaches a new node, a terminal position or
the depth cut-off, has the leaf valued by an evaluator (:mod:`.evaluators`: rollouts, scores, a
network) and backs the reward vector up the path.  Iterations run in batches of ``batch`` descents (kept
apart by virtual losses) whose leaves go to the evaluator in one call.

The loop is written as resumable steps (:meth:`Search.run_steps`, a generator that yields a
:class:`~.batched.Request` wherever the prior source is asked and resumes with its answer): :meth:`Search.run`
answers each request at once (:func:`~.batched.drive`), the lockstep driver (:func:`~.batched.lockstep`)
answers those of many searches with one network call.  Rollouts and cut-offs are computed in place.

The hot path is ``clone``/``determinize`` plus ``legal_actions`` and ``_apply`` (called directly on the
copies: their actions come from their own legal list, so validation would only cost time).
"""

from __future__ import annotations

import time as _time
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeplezoo.envs.core.rng import Rng

from ..base import Agent
from .batched import Request, drive
from .evaluators import Evaluator, RolloutEvaluator, ScoreEvaluator
from .gumbel import GumbelRoot
from .select import PUCT, UCT, normalised
from .tree import Tree


@dataclass
class SearchResult:
    """What one search found at the root (visit counts are the usual policy target; with ``root="gumbel"``
    ``extra["improved_policy"]`` is the Gumbel root's improved policy, :mod:`.gumbel`)."""

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


class Search:
    """The search with validated ``settings`` (the knobs of :data:`~.knobs.SEARCH_KNOBS`), drawing from
    ``Rng(seed)``.  ``prior`` None is UCT; otherwise PUCT with :attr:`source` as the prior (None: uniform,
    until :meth:`set_prior`).  Leaves are valued by the prior when it ``provides_values``, else by
    :attr:`rollout`.  Running totals over all decisions are kept for benchmarks."""

    def __init__(self, settings: Mapping[str, Any], seed: int | None = None) -> None:
        self.sims: int | None = settings["sims"]
        self.time_limit: float | None = settings["time"]
        self.temperature = settings["temperature"]
        self.reuse_tree = settings["reuse_tree"]
        self.reward_mode = settings["reward_mode"]
        self.max_depth: int | None = settings["max_depth"]
        self.batch = settings["batch"]
        self.rng = Rng(seed)
        self.tree = Tree()
        self.cutoff = ScoreEvaluator(settings["reward_mode"], settings["eval_scale"])
        rollout = settings["rollout"]
        self.rollout = RolloutEvaluator(self.rng, self.cutoff, agent=rollout if isinstance(rollout, Agent) else None,
                                        epsilon=settings["rollout_epsilon"], rollout_depth=settings["rollout_depth"],
                                        max_depth=settings["max_depth"])
        prior = settings["prior"]
        self.source: Evaluator | None = prior if hasattr(prior, "evaluate") else None
        self.rule: UCT | PUCT = UCT(settings["c"], self.rng) if prior is None else PUCT(
            settings["c"], self.source, fpu=settings["fpu"], widen=settings["widen"],
            widen_alpha=settings["widen_alpha"])
        self.root_kind: str = settings["root"]
        self.gumbel_k: int = settings["gumbel_k"]
        self.gumbel_scale: float = settings["gumbel_scale"]
        if self.root_kind == "gumbel" and prior is None:
            raise ValueError("mcts: root=gumbel needs a prior (its logits are the prior's): prior=uniform, "
                             "prior=heuristic or an evaluator such as a network")
        self._gumbel: GumbelRoot | None = None  # the Gumbel root of the decision under way
        self.last_search: SearchResult | None = None
        self.total_decisions = 0
        self.total_simulations = 0
        self.total_seconds = 0.0
        self._overrun = 0.0  # how far recent timed decisions ran past the budget (seconds, moving average)

    def reseed(self, seed: int) -> None:
        """Draw from ``Rng(seed)`` from now on (the rule's and the rollouts' draws too)."""
        self.rng = self.rollout.rng = Rng(seed)
        if isinstance(self.rule, UCT):
            self.rule.rng = self.rng

    def set_prior(self, source: Evaluator) -> None:
        """Use ``source`` as the PUCT prior (and leaf value, if it provides values)."""
        self.source = source
        if isinstance(self.rule, PUCT):
            self.rule.source = source

    def set_rollout_agent(self, agent: Agent | None) -> None:
        """Roll out with ``agent``'s moves (None: uniformly random ones)."""
        self.rollout.agent = agent

    # -- one decision ---------------------------------------------------------------------------
    def run(self, state: Any, player: int, observation: np.ndarray | None = None,
            action_mask: np.ndarray | None = None) -> SearchResult:
        """Search from ``state`` for ``player`` (its current player) and return the root statistics."""
        return drive(self.run_steps(state, player, observation, action_mask))

    def run_steps(self, state: Any, player: int, observation: np.ndarray | None = None,
                  action_mask: np.ndarray | None = None) -> Generator[Request, Any, SearchResult]:
        """:meth:`run` as resumable steps: yields a :class:`~.batched.Request` wherever the prior source is
        asked, resumes with its answer ``(priors, values)``, and returns the :class:`SearchResult`."""
        n = state.game.num_players
        if hasattr(self.source, "searching_player"):  # a prior that models the other seats apart
            self.source.searching_player = player
        if action_mask is not None:
            legal = np.flatnonzero(action_mask)
            if legal.size == 1:  # nothing to decide: no search, no time
                return self._forced(state, int(legal[0]), player, observation)
        tree = self.tree
        if tree.n_players != n:
            tree.clear(n)
        root, reused = tree.reuse_root(player, observation) if self.reuse_tree else (-1, False)
        if not reused:
            tree.clear(n)
            root = tree.new_node()
        reused_visits = tree.N[root]
        t0 = _time.perf_counter()
        self._gumbel = (yield from self._gumbel_root(state, player, root)) if self.root_kind == "gumbel" else None
        done, first = yield from self._iterate(state, player, root, t0)
        seconds = _time.perf_counter() - t0
        if self.time_limit is not None:
            self._overrun = max(0.0, 0.7 * self._overrun + 0.3 * (self._overrun + seconds - self.time_limit))
        visits, values = self._root_statistics(state.game.num_actions, root, player, action_mask)
        children = tree.children[root]
        gumbel, self._gumbel = self._gumbel, None
        extra = {}
        if gumbel is None:
            action = self._choose(visits, values, children, action_mask)
        else:
            action = gumbel.choose(tree, root, player)
            extra["improved_policy"] = gumbel.improved_policy(tree, root, player, state.game.num_actions)
        result = SearchResult(action=action, player=player, visits=visits, values=values, simulations=done,
                              seconds=seconds, reused_visits=reused_visits, tree_size=len(tree), extra=extra)
        self._record(result, done, seconds)
        if self.reuse_tree and first is not None and action in children:
            first._apply(action)
            tree.pending = (player, children[action], first)
        else:
            tree.pending = None
        return result

    def _gumbel_root(self, state: Any, player: int, root: int) -> Generator[Request, Any, GumbelRoot]:
        """This decision's Gumbel root: the root's prior (and, from a source that gives values, its value for
        ``player``) from one determinization (a request), and the noise.  The root's legal actions are the
        searching player's own, the same in every determinization (:meth:`GumbelRoot.pick` checks it)."""
        d = state.determinize(player, self.rng)
        acts = d.legal_actions()
        priors, values = (yield Request(self.source, [d])) if self.source is not None else (None, None)
        prior = self.rule.fill(self.tree, root, acts, None if priors is None else priors[0])
        raw = None if values is None or values[0] is None else float(values[0][player])
        return GumbelRoot(acts, prior, raw, self.sims, self.gumbel_k, self.gumbel_scale, self.rng)

    def _iterate(self, state: Any, player: int, root: int, t0: float) -> Generator[Request, Any, tuple[int, Any]]:
        """Run batches of iterations until the budget is spent: ``(iterations, first determinization)``."""
        # the deadline is brought forward by the mean overrun of the recent decisions (a busy machine, uneven
        # iterations), so that decisions keep to the budget on average
        deadline = None if self.time_limit is None else t0 + self.time_limit - min(self._overrun,
                                                                                    0.5 * self.time_limit)
        sims, rng, determinize = self.sims, self.rng, state.determinize
        batch = 1 if isinstance(self.rule, UCT) else self.batch
        lookahead = self.rule.lookahead
        perf_counter = _time.perf_counter
        done = 0
        first = None
        while True:
            if sims is not None and done >= sims:
                break
            if deadline is not None and done > 0:
                now = perf_counter()
                if now + lookahead * (now - t0) * batch / done >= deadline:
                    break
            k = batch if sims is None else min(batch, sims - done)
            ds = [determinize(player, rng) for _ in range(k)]
            if first is None and self.reuse_tree:
                first = ds[0].clone()
            yield from self.simulate_steps(ds, root)
            done += k
        return done, first

    # -- iterations -------------------------------------------------------------------------------
    def simulate(self, states: list[Any], root: int) -> None:
        """One iteration per determinization in ``states`` (consumed): descend, evaluate the leaves
        together, back up.  With several, each descent adds a virtual loss to its path until its leaf
        is valued, so that the next one spreads out."""
        drive(self.simulate_steps(states, root))

    def simulate_steps(self, states: list[Any], root: int) -> Generator[Request, Any, None]:
        """:meth:`simulate` as resumable steps (see :meth:`run_steps`)."""
        N, W = self.tree.N, self.tree.W
        virtual = len(states) > 1
        leaves: list[tuple[list[int], list[int], Any, int]] = []  # path, movers, leaf state, depth
        results: list[list[float] | None] = []
        for s in states:
            path, movers, depth, r = yield from self._descend(s, root)
            if r is None and virtual:  # the leaf counts as a loss for every mover on its path for now
                for k, p in zip(path[1:], movers):
                    N[k] += 1
                    W[k][p] -= 1.0
                N[root] += 1
            leaves.append((path, movers, s, depth))
            results.append(r)
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            values = yield from self._evaluate([leaves[i][2] for i in todo], [leaves[i][3] for i in todo],
                                    [leaves[i][0][-1] for i in todo])
            for j, i in enumerate(todo):
                if virtual:
                    path, movers = leaves[i][0], leaves[i][1]
                    for k, p in zip(path[1:], movers):
                        N[k] -= 1
                        W[k][p] += 1.0
                    N[root] -= 1
                results[i] = values[j]
        for (path, _m, _s, _d), r in zip(leaves, results):
            self._backup(path, r)

    def _descend(self, s: Any, node: int) -> Generator[Request, Any, tuple[list[int], list[int], int, Any]]:
        """Follow the selection rule from ``node`` on ``s`` to a leaf: ``(path, movers, depth, value)``,
        the value None when the leaf still needs the evaluator.  A node whose prior lacks an action legal
        in ``s`` asks the prior source first (a request), as PUCT would at that point."""
        select, tree, max_depth = self.rule.select, self.tree, self.max_depth
        rule = self.rule
        source = rule.source if isinstance(rule, PUCT) else None
        ask = source is not None
        N = tree.N
        path = [node]
        movers: list[int] = []
        depth = 0
        descending = True
        if self._gumbel is not None:  # the root's action from sequential halving, PUCT below it
            node, descending = self._gumbel_step(s, node, path, movers)
            depth = 1
        while descending:
            if s.is_terminal():
                return path, movers, depth, s.returns(self.reward_mode).tolist()
            if max_depth is not None and depth >= max_depth:
                return path, movers, depth, self.cutoff.value(s)
            acts = s.legal_actions()
            if not acts:
                raise RuntimeError(f"{s.game.name}: no legal action in a non-terminal position (engine bug)")
            p = s.current_player
            if ask and len(acts) > 1 and rule.missing(tree, node, acts):  # PUCT's priors(), as a request
                priors = (yield Request(source, [s]))[0]
                rule.fill(tree, node, acts, None if priors is None else priors[0])
            a, k, new = select(tree, node, s, acts, p)
            s._apply(a)
            node = k
            path.append(k)
            movers.append(p)
            depth += 1
            if new or not N[k]:
                break
        if s.is_terminal():
            return path, movers, depth, s.returns(self.reward_mode).tolist()
        return path, movers, depth, None

    def _gumbel_step(self, s: Any, root: int, path: list[int], movers: list[int]) -> tuple[int, bool]:
        """Play the Gumbel root's next action on ``s`` (path and movers extended): ``(node, whether the
        descent goes on)``, as after a selection step."""
        tree, p = self.tree, s.current_player
        a = self._gumbel.pick(tree, root, p, s.legal_actions())
        ch = tree.children[root]
        k = ch.get(a)
        new = k is None
        if new:
            k = ch[a] = tree.new_node()
        s._apply(a)
        path.append(k)
        movers.append(p)
        return k, not (new or not tree.N[k])

    def _evaluate(self, states: list[Any], depths: list[int],
                  nodes: list[int]) -> Generator[Request, Any, list[list[float]]]:
        """The leaves' reward vectors from the prior when it provides values (its priors kept at the leaf
        nodes; a request), else from the rollouts; a value the prior leaves out (None) is rolled out, and a
        prior with a ``leaf_mix`` m > 0 gets ``(1 - m) * its value + m * the rollout's``."""
        src = self.source
        if src is None or not src.provides_values:
            return self.rollout.evaluate_leaves(states, depths)[1]
        priors, values = yield Request(src, states, depths)
        P = self.tree.P
        for j, leaf in enumerate(nodes):
            if priors is not None and priors[j] is not None and P[leaf] is None:
                P[leaf] = normalised(priors[j], states[j].legal_actions())
        mix = src.leaf_mix
        if mix > 0:  # the prior's values blended with the plain search's (the states are not needed after)
            return [[(1.0 - mix) * float(x) + mix * y for x, y in zip(v, self.rollout.rollout(s, d))]
                    if v is not None else self.rollout.rollout(s, d) for v, s, d in zip(values, states, depths)]
        return [[float(x) for x in v] if v is not None else self.rollout.rollout(s, d)
                for v, s, d in zip(values, states, depths)]

    def _backup(self, path: list[int], r: list[float]) -> None:
        N, W = self.tree.N, self.tree.W
        if len(r) == 2:  # noqa: PLR2004 - the two-player fast path
            r0, r1 = r
            for k in path:
                N[k] += 1
                w = W[k]
                w[0] += r0
                w[1] += r1
        else:
            rng_n = range(len(r))
            for k in path:
                N[k] += 1
                w = W[k]
                for i in rng_n:
                    w[i] += r[i]

    # -- the decision -----------------------------------------------------------------------------
    def _root_statistics(self, na: int, root: int, player: int,
                         action_mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Visits and mean values of the root's actions (those the mask forbids zeroed)."""
        N, W = self.tree.N, self.tree.W
        visits = np.zeros(na, dtype=np.int64)
        values = np.full(na, np.nan)
        for a, k in self.tree.children[root].items():
            visits[a] = N[k]
            if N[k]:
                values[a] = W[k][player] / N[k]
        if action_mask is not None:
            allowed = np.asarray(action_mask).astype(bool)
            if allowed.shape != (na,):
                raise ValueError(f"mcts: action_mask has shape {allowed.shape}, expected ({na},)")
            visits[~allowed] = 0
            values[~allowed] = np.nan
        return visits, values

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

    def _record(self, result: SearchResult, done: int, seconds: float) -> None:
        self.last_search = result
        self.total_decisions += 1
        self.total_simulations += done
        self.total_seconds += seconds

    def _forced(self, state: Any, action: int, player: int, observation: np.ndarray | None) -> SearchResult:
        """The only legal action, without a search; a reused tree moves on past it."""
        na = state.game.num_actions
        result = SearchResult(action=action, player=player, visits=np.zeros(na, dtype=np.int64),
                              values=np.full(na, np.nan), simulations=0, seconds=0.0, extra={"forced": True})
        self.last_search = result
        self.total_decisions += 1
        pending = None
        tree = self.tree
        if self.reuse_tree and tree.n_players == state.game.num_players:
            root, reused = tree.reuse_root(player, observation)
            if reused and action in tree.children[root]:
                d = state.determinize(player, self.rng)
                d._apply(action)
                pending = (player, tree.children[root][action], d)
        tree.pending = pending
        return result
