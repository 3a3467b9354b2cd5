"""Observation layout and the cached fast encoder, checked against the plain reference encoder."""

import random

import numpy as np
import pytest

from asara_reference_obs import encode_reference
from meeplezoo.envs.asara.state import AsaraGame

CONFIGS = [(n, v) for n in (2, 3, 4) for v in ("base", "professional")]


@pytest.mark.parametrize("n,version", CONFIGS)
def test_fast_encoder_matches_reference_along_random_games(n, version):
    g = AsaraGame(n, version=version)
    for seed in range(4):
        rng = random.Random(seed)
        s = g.new_state(seed)
        while True:
            for p in range(n):
                fast = s.observe(p)
                assert fast.dtype == np.float32 and fast.shape == g.observation_shape
                assert np.allclose(fast, encode_reference(s, p), atol=1e-6)
                assert fast.min() >= 0.0 and fast.max() <= 1.0
            if s.is_terminal():
                break
            c = s.clone()  # a clone sharing caches must not disturb the original
            c.apply(rng.choice(c.legal_actions()))
            s.apply(rng.choice(s.legal_actions()))


def test_layout_blocks_are_contiguous_and_named():
    g = AsaraGame(3, version="professional")
    lay = g.observation_layout
    stops = sorted((sl.start, sl.stop) for sl in lay.values())
    assert stops[0][0] == 0 and stops[-1][1] == g.observation_shape[0]
    assert all(a[1] == b[0] for a, b in zip(stops, stops[1:]))
    for name in ("meta", "pending", "seats", "areas", "spaces", "displays", "piles", "player_0", "player_3", "private",
                 "belief"):
        assert name in lay


def test_observation_is_egocentric_and_hides_money_on_request():
    g = AsaraGame(3)
    s = g.new_state(4)
    s.money = [11, 22, 33]
    s.refresh()
    lay = g.observation_layout
    for p in range(3):
        obs = s.observe(p)
        for i in range(3):
            q = (p + i) % 3
            assert obs[lay["seats"].start + 3 * i] == pytest.approx(s.money[q] / 100)
        assert obs[lay["player_3"]].sum() == 0 and obs[lay["seats"].start + 9] == 0  # padding seat
    h = AsaraGame(3, human_realistic_obs=True).new_state(4)
    h.money = [11, 22, 33]
    h.refresh()
    obs = h.observe(0)
    seats = lay["seats"].start
    assert obs[seats] == pytest.approx(0.11)
    assert obs[seats + 3] == 0 and obs[seats + 6] == 0
