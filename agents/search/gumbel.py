"""The Gumbel root (Danihelka, Guez, Schrittwieser & Silver, "Policy improvement by planning with Gumbel",
ICLR 2022; as in google-deepmind/mctx's ``gumbel_muzero_policy``): the search's root chooses without PUCT.

* Gumbel-top-k: each legal root action gets ``logits(a) + g(a)``, the logits the log of the root's prior and
  ``g`` Gumbel(0, 1) noise times ``gumbel_scale``; the ``k`` best are the candidates;
* sequential halving spreads the simulation budget over them: the candidates get equal visits, the better
  half by ``g + logits + sigma(q)`` goes on, and so on until two are left (:func:`considered_visits`, mctx's
  ``get_sequence_of_considered_visits``); each simulation's root action is the best of the actions with the
  visit count the schedule considers next, so that the candidates need no list of their own;
* the decision is the halving's winner: the most visited action of highest ``g + logits + sigma(q)``;
* :meth:`GumbelRoot.improved_policy` is ``softmax(logits + sigma(completed q))`` over the legal actions: the
  q of an unvisited action is completed by the mixed value (the network's value of the root mixed with the
  prior-weighted mean q of the visited actions), the completed q are rescaled to [0, 1] by their min and max,
  and ``sigma(q) = (C_VISIT + max visits) * C_SCALE * q`` (mctx's ``qtransform_completed_by_mix_value``).

Below the root the search is PUCT as before.  With determinizations (ISMCTS) every simulation samples the
hidden information anew, but the root's legal actions are the searching player's own decision, the same in
every determinization: the halving compares the same actions throughout, and :meth:`GumbelRoot.pick` checks
it (an engine whose determinizations change the searcher's legal actions is reported as a bug).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .tree import Tree

#: sigma's visit offset and scale (mctx's ``maxvisit_init`` and ``value_scale``)
C_VISIT, C_SCALE = 50.0, 0.1
#: the lowest score an action can get before the halving's mask (mctx's ``low_logit``)
LOW_LOGIT = -1e9
#: the smallest spread of the root's q that rescaling divides by
EPSILON = 1e-8


def considered_visits(k: int, sims: int) -> tuple[int, ...]:
    """Sequential halving's schedule: for each of ``sims`` simulations, the visit count an action must have
    to be chosen (``k`` candidates; after each phase the better half goes on, at least two).  With k = 4 and
    16 simulations: each candidate twice, then the better two four times more each (visits 6, 6, 2, 2)."""
    if k <= 1:
        return tuple(range(sims))
    log2k = math.ceil(math.log2(k))
    sequence: list[int] = []
    visits = [0] * k
    considered = k
    while len(sequence) < sims:
        extra = max(1, int(sims / (log2k * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:sims])


def gumbel_noise(rng: Any, n: int, scale: float) -> np.ndarray:
    """``n`` draws of Gumbel(0, 1) noise times ``scale`` from the search's ``rng`` (none drawn at scale 0)."""
    if scale == 0:
        return np.zeros(n)
    u = np.array([((rng.next64() >> 11) + 0.5) * (1.0 / 9007199254740992.0) for _ in range(n)])
    return scale * -np.log(-np.log(u))


def completed_q(q: np.ndarray, visits: np.ndarray, prior: np.ndarray, raw_value: float | None) -> np.ndarray:
    """``q`` with each unvisited action's entry replaced by the mixed value: ``(raw_value + N * mean) / (N + 1)``,
    ``mean`` the prior-weighted mean q of the visited actions, ``N`` their visits (without a ``raw_value``,
    from a source that gives no values: ``mean`` alone, 0 before any visit)."""
    seen = visits > 0
    total = float(visits.sum())
    if seen.any():
        p = np.maximum(prior[seen], np.finfo(np.float64).tiny)
        mean = float((p * q[seen]).sum() / p.sum())
    else:
        mean = 0.0
    mixed = mean if raw_value is None else (raw_value + total * mean) / (total + 1.0)
    return np.where(seen, q, mixed)


def sigma(completed: np.ndarray, visits: np.ndarray) -> np.ndarray:
    """``(C_VISIT + max visits) * C_SCALE * q``, ``q`` the completed values rescaled to [0, 1] by their min/max."""
    lo, hi = float(completed.min()), float(completed.max())
    scaled = (completed - lo) / max(hi - lo, EPSILON)
    return (C_VISIT + float(visits.max())) * C_SCALE * scaled


class GumbelRoot:
    """One decision's Gumbel root over the searching player's ``legal`` actions: their ``prior`` (a mapping
    action -> probability), the ``raw_value`` of the root for the searcher (None: the source gives no
    values), ``sims`` simulations, ``k`` candidates, the noise drawn from ``rng`` at ``scale``."""

    def __init__(self, legal: list[int], prior: Mapping[int, float], raw_value: float | None, sims: int, k: int,
                 scale: float, rng: Any) -> None:
        self.legal = list(legal)
        self.sorted_legal = sorted(self.legal)
        self.prior = np.array([float(prior[a]) for a in self.legal])
        self.logits = np.log(np.maximum(self.prior, np.finfo(np.float64).tiny))
        self.logits -= self.logits.max()
        self.raw_value = raw_value
        self.g = gumbel_noise(rng, len(self.legal), scale)
        self.schedule = considered_visits(min(k, len(self.legal)), sims)
        self.count = np.zeros(len(self.legal), dtype=np.int64)  # the simulations sent to each action

    def statistics(self, tree: Tree, root: int, player: int) -> tuple[np.ndarray, np.ndarray]:
        """The visits and mean values (0 where unvisited) of the legal actions at ``root`` for ``player``."""
        N, W, children = tree.N, tree.W, tree.children[root]
        visits = np.zeros(len(self.legal), dtype=np.int64)
        q = np.zeros(len(self.legal))
        for i, a in enumerate(self.legal):
            k = children.get(a)
            if k is not None and N[k]:
                visits[i] = N[k]
                q[i] = W[k][player] / N[k]
        return visits, q

    def sigma_q(self, tree: Tree, root: int, player: int) -> np.ndarray:
        """sigma of the completed q of the legal actions (see the module docstring)."""
        visits, q = self.statistics(tree, root, player)
        return sigma(completed_q(q, visits, self.prior, self.raw_value), visits)

    def _best(self, considered: int, score: np.ndarray) -> int:
        """The index of the best ``score`` among the actions sent ``considered`` simulations."""
        masked = np.where(self.count == considered, np.maximum(LOW_LOGIT, score), -np.inf)
        return int(np.argmax(masked))

    def pick(self, tree: Tree, root: int, player: int, acts: list[int]) -> int:
        """The root action of the next simulation (``acts``: the legal actions of its determinization)."""
        if acts != self.legal and sorted(acts) != self.sorted_legal:
            raise RuntimeError(f"a determinization changed the searching player's legal actions at the root "
                               f"({self.sorted_legal} became {sorted(acts)}): an engine bug")
        done = int(self.count.sum())
        considered = self.schedule[done] if done < len(self.schedule) else int(self.count.max())
        i = self._best(considered, self.g + self.logits + self.sigma_q(tree, root, player))
        self.count[i] += 1
        return self.legal[i]

    def choose(self, tree: Tree, root: int, player: int) -> int:
        """The decision: among the most visited actions, the one of highest ``g + logits + sigma(q)``."""
        return self.legal[self._best(int(self.count.max()), self.g + self.logits + self.sigma_q(tree, root, player))]

    def improved_policy(self, tree: Tree, root: int, player: int, num_actions: int) -> np.ndarray:
        """``softmax(logits + sigma(completed q))`` over the legal actions, 0 elsewhere (``num_actions`` long)."""
        x = self.logits + self.sigma_q(tree, root, player)
        e = np.exp(x - x.max())
        out = np.zeros(num_actions)
        out[self.legal] = e / e.sum()
        return out
