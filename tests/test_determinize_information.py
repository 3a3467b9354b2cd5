"""A determinization depends only on what its observer can see.

For every hidden-information game, every observer and every phase reached in random games, a
second "true" state is built that differs from the first only in what the observer cannot see
(checked: the observer's observation is identical); the two must give identical
determinizations for the same rng.  Each game's perturbation changes everything its rules file
calls hidden from that observer.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from meeplezoo.envs.asara.state import PH_BUILD, PH_CARDS, PH_SPACE, area_action_target
from meeplezoo.envs.core.rng import Rng
from meeplezoo.registry import make_game


def _perturb_asara(s, observer: int, rng: random.Random):
    """Other players' hands and face-down cards and the deck re-dealt from their common pool (a
    pending card choice of another player redrawn from his new hand), tile piles reordered,
    (pro) lighted windows the observer has not seen redistributed among the stack and the other
    players, and the windows he sent to the bottom in random order reordered among themselves."""
    t = s.clone()
    g = t.game
    n = g.num_players
    cur = t.current_player
    pool = list(t.deck)
    for q in range(n):
        if q != observer:
            for x in range(5):
                pool += [x] * (t.hand[q * 5 + x] + t.laid_down[q * 5 + x])
    rng.shuffle(pool)
    for q in range(n):
        if q == observer:
            continue
        for arr in (t.hand, t.laid_down):
            k = sum(arr[q * 5: q * 5 + 5])
            arr[q * 5: q * 5 + 5] = [0] * 5
            for _ in range(k):
                arr[q * 5 + pool.pop()] += 1
    t.deck = pool
    t.refresh()
    if cur != observer and t.phase == PH_SPACE:
        choices = t.card_choices(cur, area_action_target(t.p_area)[0])
        if choices:
            t.p_cards = rng.choice(choices)
    for pile in t.piles:
        rng.shuffle(pile)
    if g.pro:
        bit = 1 << observer
        unknown = [i for i, b in enumerate(t.lit_seen) if not b & bit]
        lpool = [t.lit_stack[i] for i in unknown]
        others = [q for q in range(n) if q != observer]
        for q in others:
            for m in range(5):
                lpool += [m] * t.lit_res[q * 5 + m]
        hidden_drawn = bool(t.lit_drawn) and cur != observer
        if hidden_drawn:
            lpool += t.lit_drawn
        rng.shuffle(lpool)
        for i in unknown:
            t.lit_stack[i] = lpool.pop()
        for q in others:
            k = sum(t.lit_res[q * 5: q * 5 + 5])
            t.lit_res[q * 5: q * 5 + 5] = [0] * 5
            for _ in range(k):
                t.lit_res[q * 5 + lpool.pop()] += 1
        if hidden_drawn:
            t.lit_drawn = [lpool.pop() for _ in t.lit_drawn]
        if g.options["lit_discard_order"] == "random":
            i = 0
            while i < len(t.lit_seen):  # each run of windows the observer put under
                j = i
                while j < len(t.lit_seen) and t.lit_seen[j] & bit:
                    j += 1
                run = t.lit_stack[i:j]
                rng.shuffle(run)
                t.lit_stack[i:j] = run
                i = j + 1
    t.rng = Rng(rng.randrange(2**64))
    t.refresh()
    return t


def _perturb_hawaii(s, observer: int, rng: random.Random):
    """God tiles below the two visible tops, the face-down islands and the token bag reordered,
    new chance."""
    t = s.clone()
    rng.shuffle(t.bag)
    st0, st1 = t.god_stacks
    below = st0[:-1] + st1[:-1]
    rng.shuffle(below)
    n0 = max(len(st0) - 1, 0)
    if st0:
        t.god_stacks[0] = below[:n0] + [st0[-1]]
    if st1:
        t.god_stacks[1] = below[n0:] + [st1[-1]]
    down = [i for i, up in enumerate(t.isl_up) if not up]
    ids = [t.isl_stack[i] for i in down]
    rng.shuffle(ids)
    for i, isl in zip(down, ids):
        t.isl_stack[i] = isl
    t.rng = Rng(rng.randrange(2**64))
    t._mask = None
    return t


def _perturb_kerala(s, observer: int, rng: random.Random):
    """Bag order and which unseen tiles of non-player colours were removed at setup, new chance."""
    t = s.clone()
    players = set(t.game.player_colours)
    colour = t.game.tile_colour
    pool = t.bag + t.setup_removed
    own = [x for x in pool if colour[x] in players]
    other = [x for x in pool if colour[x] not in players]
    rng.shuffle(other)
    k = len(t.bag) - len(own)
    t.bag = own + other[:k]
    t.setup_removed = other[k:]
    rng.shuffle(t.bag)
    t.rng = Rng(rng.randrange(2**64))
    return t


def _perturb_haus_der_sonne(s, observer: int, rng: random.Random):
    """Palm pile order, new chance."""
    t = s.clone()
    for pile in t.piles:
        rng.shuffle(pile)
    t.rng = Rng(rng.randrange(2**64))
    return t


PERTURB = {"asara": _perturb_asara, "hawaii": _perturb_hawaii, "kerala": _perturb_kerala,
           "haus_der_sonne": _perturb_haus_der_sonne}
CASES = [
    ("asara", 2, {}), ("asara", 4, {}), ("asara", 2, {"version": "professional"}),
    ("asara", 3, {"version": "professional", "bank_auto_highest": False, "spy_auto_cheapest": False}),
    ("asara", 2, {"version": "professional", "lit_discard_order": "choose"}),
    ("hawaii", 2, {}), ("hawaii", 4, {}),
    ("kerala", 2, {}), ("kerala", 4, {}),
    ("haus_der_sonne", 2, {}), ("haus_der_sonne", 2, {"variant": "tactical"}),
]


def test_every_hidden_information_game_is_covered():
    import meeplezoo
    from meeplezoo.registry import game_class

    hidden = {g for g in meeplezoo.list_envs() if game_class(g).hidden_information}
    assert hidden <= set(PERTURB)


@pytest.mark.parametrize("name,n,options", CASES, ids=lambda v: str(v))
def test_determinization_depends_only_on_the_observation(name, n, options):
    game = make_game(name, n, **options)
    perturb = PERTURB[name]
    rng = random.Random(11)
    phases: set = set()
    checked = 0
    for seed in range(3 if name == "asara" else 2):
        s = game.new_state(seed)
        step = 0
        while not s.is_terminal():
            if step % 3 == 0:
                for p in range(n):
                    t = perturb(s, p, rng)
                    assert np.array_equal(t.observe(p), s.observe(p)), "the perturbation must be invisible to p"
                    k = rng.randrange(2**32)
                    a, b = s.determinize(p, k), t.determinize(p, k)
                    assert a.to_json() == b.to_json(), (
                        f"{name}: observer {p}'s determinization depends on what he cannot see "
                        f"(phase {getattr(s, 'phase', '?')}, player {s.current_player} to move, step {step})")
                    checked += 1
                    phases.add((getattr(s, "phase", None), s.current_player == p))
            s.apply(rng.choice(s.legal_actions()))
            step += 1
    assert checked > 50 and len(phases) >= 2
    if name == "asara":  # another player's begun turn, the states the engine used to keep true holdings in
        assert (PH_CARDS, False) in phases
        if not options.get("bank_auto_highest", True):
            assert (PH_SPACE, False) in phases
        if options.get("version") == "professional":
            assert (PH_BUILD, False) in phases
