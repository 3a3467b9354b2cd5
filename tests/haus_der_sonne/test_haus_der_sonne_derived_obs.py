"""The observation option ``derived_features``: the boat-relative view and the landing details
(``envs/haus_der_sonne/observation.py``), checked on hand-made positions."""

from __future__ import annotations

import numpy as np
import pytest

from meeplezoo.envs.haus_der_sonne import actions as A
from meeplezoo.envs.haus_der_sonne import components as C
from meeplezoo.envs.haus_der_sonne.observation import AHEAD_COLS, RECEIVER_FLAGS, SIZE, SIZE_DERIVED
from meeplezoo.envs.haus_der_sonne.state import PICK

DERIVED = {"derived_features": True}


def blocks(state, player: int) -> dict[str, np.ndarray]:
    return state.game.observer.observe_dict(state, player)


def test_option_adds_two_blocks_and_keeps_the_base_layout(hds):
    base = hds.position()
    der = hds.position(options=DERIVED)
    assert base.game.observation_shape == (SIZE,)
    assert der.game.observation_shape == (SIZE_DERIVED,)
    assert SIZE_DERIVED == SIZE + 6 * AHEAD_COLS + 18 + RECEIVER_FLAGS
    # the base part is the base observation, value for value
    for p in (0, 1):
        assert np.array_equal(der.observe(p)[:SIZE], base.observe(p))


def test_ahead_rows_are_the_segments_the_boat_reaches(hds):
    # boat on segment 4: sailing 1 lands on 5, sailing 2 on 0, sailing 3 on 1
    s = hds.balanced(hds.position(options=DERIVED, boat=4, bays=hds.bays(s1=(C.NAUTILUS, C.FISH_B)),
                          disc=hds.discs({2: 1, 5: 3}, {4: 1, 1: 5})))
    ahead = blocks(s, 0)["ahead"]
    assert ahead.shape == (6, AHEAD_COLS)
    row = ahead[3]  # (4 + 3) % 6 == 1
    assert row[0] == pytest.approx(2 / 15) and row[1] == pytest.approx(4 / 15)
    # the opponent has more there: he picks first, I get the rest
    assert list(row[2:2 + RECEIVER_FLAGS]) == [0, 1, 1, 0]
    bay0 = row[2 + RECEIVER_FLAGS:2 + RECEIVER_FLAGS + 9]
    bay1 = row[2 + RECEIVER_FLAGS + 9:2 + RECEIVER_FLAGS + 18]
    assert bay0[1 + C.FACE_TYPE[C.NAUTILUS]] == 1 and bay0[8] == 0 and bay0.sum() == 1
    assert bay1[1 + C.FACE_TYPE[C.FISH_B]] == 1 and bay1[8] == 1 and bay1.sum() == 2
    # my discs 2 and 5 are on the beaches: rows 2 and 5 say not in supply; the opponent lacks 1 and 4
    assert [ahead[r][-2] for r in range(1, 6)] == [1, 0, 1, 1, 0]
    assert [ahead[r][-1] for r in range(1, 6)] == [0, 1, 1, 0, 1]
    assert ahead[0][-2:].tolist() == [0, 0]
    # segment 5 (row 1): only the opponent's disc 1 lies there: he alone receives
    assert list(ahead[1][2:2 + RECEIVER_FLAGS]) == [0, 0, 1, 0]
    # the other player sees the same rows from his side
    other = blocks(s, 1)["ahead"][3]
    assert other[0] == pytest.approx(4 / 15) and list(other[2:2 + RECEIVER_FLAGS]) == [1, 0, 0, 1]


def test_sail_action_and_ahead_row_share_the_index(hds):
    s = hds.balanced(hds.position(options=DERIVED, boat=2))
    for v in range(1, 6):
        a = A.place(v, 2)  # a disc on the boat's own beach sails v
        assert s.legal_mask()[a]
        dest = (2 + v) % 6
        row = blocks(s, 0)["ahead"][v]
        seg_bays = s.bays[2 * dest:2 * dest + 2]
        for k, face in enumerate(seg_bays):
            cell = row[2 + RECEIVER_FLAGS + 9 * k:2 + RECEIVER_FLAGS + 9 * (k + 1)]
            assert cell[0 if face < 0 else 1 + C.FACE_TYPE[face]] == 1


def test_landing_detail_during_the_pick(hds):
    # player 0 sails 3 from segment 0 onto segment 3 where he leads: he picks, the opponent gets the rest
    s = hds.balanced(hds.position(options=DERIVED, boat=0, bays=hds.bays(s3=(C.WHITE, C.SHELL)),
                          disc=hds.discs({4: 3}, {1: 3})))
    assert not blocks(s, 0)["landing_detail"].any()  # no distribution under way
    s.apply(A.place(3, 0))
    assert s.phase == PICK and s.current_player == 0 and s.land == 3
    for p, flags in ((0, [1, 0, 0, 1]), (1, [0, 1, 1, 0])):
        det = blocks(s, p)["landing_detail"]
        assert det[1 + C.FACE_TYPE[C.WHITE]] == 1 and det[9 + 1 + C.FACE_TYPE[C.SHELL]] == 1
        assert list(det[18:]) == flags


def test_values_in_range_over_random_games(hds):
    s = hds.balanced(hds.position(options=DERIVED))
    for seed in range(3):
        t = s.clone()
        rng = np.random.default_rng(seed)
        while not t.is_terminal():
            for p in (0, 1):
                o = t.observe(p)
                assert o.shape == (SIZE_DERIVED,) and o.min() >= 0 and o.max() <= 1
            t.apply(int(rng.choice(np.flatnonzero(t.legal_mask()))))
