"""Counts the observer knows are never clipped away: larger counts stay distinct and below 1."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.envs.core.game import scaled_count
from meeplezoo.registry import make_game


def test_scaled_count_keeps_the_plain_scale_below_the_cap_and_stays_injective():
    assert scaled_count(0, 30) == 0.0 and scaled_count(29, 30) == 29 / 30
    values = [scaled_count(x, 30) for x in range(5000)]
    assert all(a < b for a, b in zip(values, values[1:])) and values[-1] < 1.0
    assert np.float32(scaled_count(3000, 30)) < np.float32(scaled_count(3001, 30))


def _differs(name, n, edit_a, edit_b, observer=0):
    s = make_game(name, n).new_state(1)
    a, b = s.clone(), s.clone()
    edit_a(a)
    edit_b(b)
    for t in (a, b):
        if hasattr(t, "refresh"):
            t.refresh()
    oa, ob = a.observe(observer), b.observe(observer)
    assert oa.max() <= 1.0 and ob.max() <= 1.0
    return np.flatnonzero(oa != ob)


@pytest.mark.parametrize("lo,hi", [(100, 200), (150, 151)])
def test_asara_money_and_pp_stay_distinct(lo, hi):
    def money(x):
        return lambda s: (s.money.__setitem__(slice(None), [x] * len(s.money)),
                          s.prestige.__setitem__(slice(None), [x] * len(s.prestige)))
    assert len(_differs("asara", 2, money(lo), money(hi))) >= 4  # own and other's money and PP


@pytest.mark.parametrize("lo,hi", [(80, 160), (150, 300)])
def test_haus_der_sonne_turns_and_scores_stay_distinct(lo, hi):
    def edit(x):
        def f(s):
            s.turn = x
            s.score = [x, x]
        return f
    assert len(_differs("haus_der_sonne", 2, edit(lo), edit(hi))) >= 3  # turn, my score, opponent's score
