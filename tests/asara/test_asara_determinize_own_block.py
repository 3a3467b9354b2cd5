"""Rule A-28 (docs/rules/asara.md): the windows a player sent under the lighted-window stack in random
order are known to him as materials, not as an order.  A determinization for him must reorder such a
block, also at positions where another player is to move (the block then lies under the stack while
the others play on)."""

from __future__ import annotations

import random
from itertools import permutations

import numpy as np

from meeplezoo.envs.asara.state import AsaraState
from meeplezoo.envs.core.rng import Rng
from meeplezoo.registry import make_game


def own_blocks(s: AsaraState, p: int) -> list[tuple[int, int]]:
    """The runs ``[i, j)`` of the stack that ``p`` put under and knows, holding two materials or more."""
    seen, bit, out, i = s.lit_seen, 1 << p, [], 0
    while i < len(seen):
        j = i
        while j < len(seen) and seen[j] & bit:
            j += 1
        if j - i > 1 and len(set(s.lit_stack[i:j])) > 1:
            out.append((i, j))
        i = j + 1
    return out


def positions(num_players: int, count: int, seed: int = 0):
    """(state, p) with p not to move and holding a mixed block under the stack, from random games."""
    g = make_game("asara", num_players, version="professional")
    rng = random.Random(seed)
    found = 0
    while found < count:
        s = g.new_state(rng.randrange(2**32))
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
            others = [p for p in range(num_players) if p != s.current_player and own_blocks(s, p)]
            if others and not s.is_terminal() and rng.random() < 0.2:
                found += 1
                yield s.clone(), rng.choice(others)
                break


def test_a_block_sent_under_is_reordered_when_another_player_is_to_move():
    checked = 0
    for s, p in positions(3, 24):
        assert s.current_player != p
        for i, j in own_blocks(s, p):
            true = s.lit_stack[i:j]
            orders = {tuple(s.determinize(p, Rng(k)).lit_stack[i:j]) for k in range(40)}
            assert all(sorted(o) == sorted(true) for o in orders)  # the materials are what he knows
            possible = set(permutations(true))
            # every order of the block is drawn (small blocks), never only the true one
            assert len(orders) > 1, f"block {true} keeps its true order for player {p}"
            if len(possible) <= 6:
                assert orders == possible
            checked += 1
    assert checked >= 24


def test_the_order_inside_the_block_does_not_reach_the_determinization():
    for s, p in positions(3, 12, seed=1):
        t = s.clone()
        for i, j in own_blocks(t, p):
            run = t.lit_stack[i:j]
            t.lit_stack[i:j] = run[1:] + run[:1]  # another order of the same materials
        t.refresh()
        assert np.array_equal(s.observe(p), t.observe(p))
        for k in range(3):
            assert s.determinize(p, Rng(k)).to_json() == t.determinize(p, Rng(k)).to_json()
