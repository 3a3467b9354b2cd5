"""Selection rules: which child the descent follows at a node.

A rule's ``select(tree, node, s, acts, player)`` returns ``(action, child, new)``: the action to play in
the determinization ``s`` (whose legal actions are ``acts``, ``player`` to move), the child node it leads
to, and whether that child was just created (the descent then stops there and the leaf is evaluated).

* :class:`UCT`: plain UCB1 with availability counts; untried actions first, picked at random;
* :class:`PUCT`: ``Q + c * P * sqrt(availability) / (1 + N)`` with a prior ``P`` from an evaluator
  (Silver et al., 2017), first-play urgency for unvisited children and progressive widening.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .evaluators import Evaluator
from .tree import Tree


def normalised(prior: Any, acts: list[int]) -> dict[int, float]:
    """``prior`` (weights indexed by action id) restricted to ``acts`` and summing to 1 (uniform if all 0)."""
    if isinstance(prior, np.ndarray) and prior.ndim == 1:  # one gather, not an indexing per action
        w = [x if x > 0 else 0.0 for x in prior[acts].tolist()]
    else:
        w = [max(0.0, float(prior[a])) for a in acts]
    total = sum(w)
    if not total > 0:
        return dict.fromkeys(acts, 1.0 / len(acts))
    return {a: x / total for a, x in zip(acts, w)}


class UCT:
    """UCB1 over availability counts: ``W/N + c * sqrt(log(availability) / N)``; while a node has untried
    legal actions one of them (uniformly at random) is expanded instead."""

    #: how far ahead of the deadline a timed search stops (in mean batch costs): UCT iterations are even
    lookahead = 0.0

    def __init__(self, c: float, rng: Any) -> None:
        self.c = c
        self.rng = rng

    def select(self, tree: Tree, node: int, s: Any, acts: list[int], p: int) -> tuple[int, int, bool]:
        ch = tree.children[node]
        N, A, W = tree.N, tree.A, tree.W
        c = self.c
        log, sqrt = math.log, math.sqrt
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
        if untried is None:
            return best_a, best_k, False
        a = untried[self.rng.randbelow(len(untried))] if len(untried) > 1 else untried[0]
        k = tree.new_node()
        A[k] = 1
        ch[a] = k
        return a, k, True


class PUCT:
    """PUCT with availability counts: ``Q + c * P * sqrt(availability) / (1 + N)``, every player maximising
    its own entry of the reward vector.  An unvisited child's Q is its parent's value for the mover less
    ``fpu``; with ``widen`` > 0 only the ``ceil(widen * (visits + 1) ** widen_alpha)`` legal actions of
    highest prior compete.  ``source`` gives the priors (None: uniform); a node's prior is computed from
    the first determinization that reaches it, extended for actions it did not have."""

    #: stop a timed search when the next batch could end past the deadline (twice its mean cost so far:
    #: iteration costs are uneven where a prior is computed)
    lookahead = 2.0

    def __init__(self, c: float, source: Evaluator | None, *, fpu: float = 0.2, widen: float = 0.0,
                 widen_alpha: float = 0.5) -> None:
        self.c = c
        self.source = source
        self.fpu = fpu
        self.widen = widen
        self.widen_alpha = widen_alpha

    def priors(self, tree: Tree, node: int, s: Any, acts: list[int]) -> dict[int, float]:
        """The node's prior over ``acts`` (computed from this determinization for actions it lacks)."""
        if not self.missing(tree, node, acts):
            return tree.P[node]
        priors = None if self.source is None else self.source.evaluate([s])[0]
        return self.fill(tree, node, acts, None if priors is None else priors[0])

    @staticmethod
    def missing(tree: Tree, node: int, acts: list[int]) -> bool:
        """Whether the node's prior lacks one of ``acts`` (so the source must be asked)."""
        P = tree.P[node]
        return P is None or not all(map(P.__contains__, acts))  # map: no generator frame per action

    @staticmethod
    def fill(tree: Tree, node: int, acts: list[int], prior: Any) -> dict[int, float]:
        """Extend the node's prior by ``acts`` it lacks, from ``prior`` (weights by action id; None:
        uniform), and return it."""
        P = tree.P[node]
        fresh = dict.fromkeys(acts, 1.0 / len(acts)) if prior is None else normalised(prior, acts)
        if P is None:
            P = tree.P[node] = fresh
        else:
            for a in acts:
                if a not in P:
                    P[a] = fresh[a]
        return P

    def select(self, tree: Tree, node: int, s: Any, acts: list[int], p: int) -> tuple[int, int, bool]:
        ch = tree.children[node]
        if len(acts) == 1:
            a = acts[0]
        else:
            a = self._best(tree, node, s, acts, p)
        k = ch.get(a)
        if k is None:
            k = tree.new_node()
            ch[a] = k
            return a, k, True
        return a, k, False

    def _best(self, tree: Tree, node: int, s: Any, acts: list[int], p: int) -> int:
        P = self.priors(tree, node, s, acts)
        N, W = tree.N, tree.W
        chget = tree.children[node].get
        c, sqrt = self.c, math.sqrt
        av = tree.AV[node]
        avget = av.get
        nn = N[node]
        if self.widen > 0:
            k = math.ceil(self.widen * (nn + 1) ** self.widen_alpha)
            if k < len(acts):
                acts = sorted(acts, key=lambda x: -P[x])[:k]
        q0 = (W[node][p] / nn if nn else 0.0) - self.fpu
        best_v = -math.inf
        a = acts[0]
        for b in acts:
            ab = avget(b, 0) + 1
            av[b] = ab
            k = chget(b)
            if k is None or not N[k]:
                v = q0 + c * P[b] * sqrt(ab)
            else:
                nk = N[k]
                v = W[k][p] / nk + c * P[b] * sqrt(ab) / (1 + nk)
            if v > best_v:
                best_v, a = v, b
        return a
