"""Hidden information: what one player cannot know never reaches their observation, mask or text view."""

import random

import numpy as np
import pytest

from meeplezoo.envs.asara.state import PH_AREA, AsaraGame, AsaraState
from meeplezoo.envs.core.rng import Rng

CONFIGS = [(n, v) for n in (2, 3, 4) for v in ("base", "professional")]


def perturb_hidden(s: AsaraState, observer: int, rng: random.Random) -> AsaraState:
    """A copy where everything ``observer`` cannot see is changed: others' hands and face-down
    suits (exchanged with the deck), deck and pile order, others' kept lighted windows and the
    unknown part of the lighted-window stack."""
    t = s.clone()
    n = t.game.num_players
    for q in range(n):
        if q == observer:
            continue
        mid_turn = q == t.current_player and t.phase != PH_AREA  # the pending cards are already chosen
        for field in ("laid_down",) if mid_turn else ("hand", "laid_down"):
            arr = getattr(t, field)
            for _ in range(3):
                held = [x for x in range(5) if arr[q * 5 + x]]
                swap = [i for i, c in enumerate(t.deck) if held and c not in held[:1]]
                if held and swap:
                    x = held[0]
                    i = rng.choice(swap)
                    arr[q * 5 + x] -= 1
                    arr[q * 5 + t.deck[i]] += 1
                    t.deck[i] = x
        if t.game.pro and not mid_turn:
            unknown = [i for i, b in enumerate(t.lit_seen) if not b >> observer & 1]
            for m in range(5):
                if t.lit_res[q * 5 + m] and unknown:
                    i = rng.choice(unknown)
                    t.lit_res[q * 5 + m] -= 1
                    t.lit_res[q * 5 + t.lit_stack[i]] += 1
                    t.lit_stack[i] = m
    rng.shuffle(t.deck)
    for pile in t.piles:
        rng.shuffle(pile)
    t.refresh()
    return t


@pytest.mark.parametrize("n,version", CONFIGS)
def test_other_players_hidden_holdings_do_not_change_observation_or_mask(n, version):
    g = AsaraGame(n, version=version)
    changed_something = 0
    for seed in range(6):
        rng = random.Random(seed)
        s = g.new_state(seed)
        while not s.is_terminal():
            if rng.random() < 0.15:
                for p in range(n):
                    t = perturb_hidden(s, p, rng)
                    if t.to_json() != s.to_json():
                        changed_something += 1
                    AsaraState.from_json(t.to_json())  # the perturbed world is itself a valid position
                    assert np.array_equal(t.observe(p), s.observe(p))
                    if s.current_player == p:
                        assert np.array_equal(t.legal_mask(), s.legal_mask())
            s.apply(rng.choice(s.legal_actions()))
    assert changed_something > 20


@pytest.mark.parametrize("n,version", CONFIGS)
def test_determinize_keeps_observation_and_is_consistent(n, version):
    g = AsaraGame(n, version=version)
    for seed in range(5):
        rng = random.Random(seed)
        s = g.new_state(seed)
        while not s.is_terminal():
            if rng.random() < 0.1:
                for p in range(n):
                    d = s.determinize(p, rng.randrange(2**32))
                    assert np.array_equal(d.observe(p), s.observe(p))
                    if s.current_player == p:
                        assert np.array_equal(d.legal_mask(), s.legal_mask())
                    AsaraState.from_json(d.to_json())  # counts and conservation hold
                    assert d.hand_n == s.hand_n and len(d.deck) == len(s.deck)
                    assert d.hand[p * 5: p * 5 + 5] == s.hand[p * 5: p * 5 + 5]
                    assert d.laid_up == s.laid_up and d.towers == s.towers and d.reserve == s.reserve
                    for q in range(n):
                        assert sum(d.laid_down[q * 5: q * 5 + 5]) == sum(s.laid_down[q * 5: q * 5 + 5])
                        assert sum(d.lit_res[q * 5: q * 5 + 5]) == sum(s.lit_res[q * 5: q * 5 + 5])
                    assert [sorted(x) for x in d.piles] == [sorted(x) for x in s.piles]
                    # the sampled world plays on
                    for _ in range(10):
                        if d.is_terminal():
                            break
                        d.apply(rng.choice(d.legal_actions()))
            s.apply(rng.choice(s.legal_actions()))


def test_determinize_resamples_hidden_cards_and_accepts_seed_types():
    s = AsaraGame(4).new_state(3)
    hands = set()
    for k in range(20):
        d = s.determinize(0, k)
        hands.add(tuple(d.hand[5:]))
    assert len(hands) > 10
    a = s.determinize(1, Rng(5))
    b = s.determinize(1, np.random.default_rng(5))
    c = s.determinize(1, 5)
    for d in (a, b, c):
        assert np.array_equal(d.observe(1), s.observe(1))
    assert s.determinize(1, 5).to_json() == c.to_json()


def test_text_view_shows_only_the_viewers_hand():
    s = AsaraGame(3).new_state(1)
    p = s.current_player
    text = s.render_text()
    assert f"Hand of P{p}" in text
    assert sum(f"Hand of P{q}" in text for q in range(3)) == 1
    other = (p + 1) % 3
    assert f"Hand of P{other}" in s.render_text(viewer=other)
