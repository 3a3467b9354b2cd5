"""Hawaii observation scales: nothing the observer knows is lost to clipping, nothing leaves [0, 1]."""

from __future__ import annotations

import numpy as np
import pytest
from hawaii_helpers import position

from meeplezoo.envs.hawaii.observation import PLAYER_W, over


def _player_block(s, observer: int, seat: int) -> np.ndarray:
    start = s.game.observation_layout["players"].start + seat * PLAYER_W
    return s.observe(observer)[start:start + PLAYER_W]


@pytest.mark.parametrize("amounts", [(30, 60), (29, 30), (60, 500)])
def test_large_resource_counts_stay_distinct(amounts):
    """30 and 60 shells (feet, fruit, VP) used to show as the same clipped 1.0, also to their owner."""
    seen = []
    for x in amounts:
        s = position(2, res=[[x, x, x], [x, x, x]], vp=[5 * x, 5 * x])
        own, other = _player_block(s, 0, 0), _player_block(s, 0, 1)
        assert 0.0 <= own[:4].min() and own[:4].max() < 1.0
        seen.append((own[:6].copy(), other[:6].copy()))
    (own_a, other_a), (own_b, other_b) = seen
    for k in (0, 1, 2, 3):  # VP, shells, feet, fruit
        assert own_a[k] < own_b[k], k
        assert other_a[k] < other_b[k], k


def test_over_keeps_the_plain_scale_below_the_cap():
    assert over(0, 30) == 0.0 and over(29, 30) == 29 / 30
    values = [over(x, 30) for x in range(0, 2000)]
    assert all(a < b for a, b in zip(values, values[1:])) and values[-1] < 1.0


def test_option_dependent_indicators_scale_by_configured_maxima():
    s = position(2, {"dock_cost": [3, 4, 5, 7], "base_income": [[30, 6], [7, 5], [4, 4], [0, 3]],
                     "round_targets": [-1, 11, 13, 15, 17], "round_vp": [[50, 5, 2], [9, 6, 3], [10, 7, 4],
                                                                           [11, 8, 5], [12, 9, 6]]})
    o = s.observe(0)
    assert 0.0 <= o.min() and o.max() <= 1.0
    ind = o[s.game.observation_layout["indicators"]]
    assert ind[0] == 0.0  # a negative target is always reached, like 0
    assert ind[1] == 1.0 and ind[4] == 1.0


def test_default_scales_are_the_documented_ones():
    s = position(2)
    ind = s.observe(0)[s.game.observation_layout["indicators"]]
    assert ind[0] == pytest.approx(9 / 20) and ind[1] == pytest.approx(8 / 15) and ind[4] == pytest.approx(10 / 10)
