"""The search tree: node statistics in flat per-node lists, and tree reuse between decisions.

The tree is keyed by action sequences from the root: one node per information set of the searching
player, chance folded into ``apply``.  A node's children are the actions legal in the determinization
being searched; each node keeps a reward vector (one entry per player, the max^n idea) and availability
counts (how often a child was legal when its parent was visited) that take the place of the parent's
visit count in UCB.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

#: how many candidate nodes tree reuse may examine when matching the new position
REUSE_SEARCH_LIMIT = 512


class Tree:
    """Node statistics: ``children`` (action -> node), ``N`` visits, ``A`` availability of the node (UCT),
    ``W`` reward sums (one per player), ``P`` the prior over the actions seen legal and ``AV`` availability
    per action (PUCT).  ``pending`` is what tree reuse keeps of the last decision."""

    def __init__(self, n_players: int = 0) -> None:
        self.clear(n_players)

    def clear(self, n_players: int = 0) -> None:
        """Drop every node (fresh lists: the selection rules read them anew each step)."""
        self.n_players = n_players
        self.children: list[dict[int, int]] = []
        self.N: list[int] = []
        self.A: list[int] = []
        self.W: list[list[float]] = []
        self.P: list[dict[int, float] | None] = []
        self.AV: list[dict[int, int]] = []
        self.pending: tuple[int, int, Any] | None = None

    def new_node(self) -> int:
        """Append an empty node; its index."""
        self.children.append({})
        self.N.append(0)
        self.A.append(0)
        self.W.append([0.0] * self.n_players)
        self.P.append(None)
        self.AV.append({})
        return len(self.N) - 1

    def __len__(self) -> int:
        return len(self.N)

    def reuse_root(self, player: int, observation: np.ndarray | None) -> tuple[int, bool]:
        """Find the node of the new position below the last decision, by the player's own observation.

        ``pending`` holds a determinization of the last root with the chosen action applied.  Walking the
        recorded opponents' actions from there, a node matches when the same player is to move and sees
        exactly the given observation; the subtree is kept (see :meth:`compact`) only if exactly one node
        matches.  Returns ``(root, reused)``.
        """
        pending, self.pending = self.pending, None
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
            for a, kk in self.children[k].items():
                if mask[a]:
                    t = s.clone()
                    t._apply(a)
                    queue.append((kk, t))
        if len(matches) != 1 or queue:
            return -1, False
        return self.compact(matches[0]), True

    def compact(self, root: int) -> int:
        """Copy the subtree under ``root`` into fresh storage (the rest is dropped); returns the new root."""
        old_children, old_N, old_A, old_W = self.children, self.N, self.A, self.W
        old_P, old_AV = self.P, self.AV
        self.clear(self.n_players)
        new_root = self.new_node()
        stack = [(root, new_root)]
        while stack:
            o, k = stack.pop()
            self.N[k] = old_N[o]
            self.A[k] = old_A[o]
            self.W[k] = old_W[o][:]
            self.P[k] = None if old_P[o] is None else dict(old_P[o])
            self.AV[k] = dict(old_AV[o])
            ch = self.children[k]
            for a, oc in old_children[o].items():
                kc = self.new_node()
                ch[a] = kc
                stack.append((oc, kc))
        return new_root
