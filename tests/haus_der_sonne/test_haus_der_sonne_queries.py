"""The named accessors (``envs/haus_der_sonne/queries.py``) read what the rules say they read."""

from __future__ import annotations

import meeplezoo
from meeplezoo.envs.haus_der_sonne import components as C
from meeplezoo.envs.haus_der_sonne import queries as Q


def test_discs_beaches_and_bays_by_name():
    game = meeplezoo.make_game("haus_der_sonne")
    state = game.new_state(3)
    disc = [-1] * (C.NUM_PLAYERS * C.NUM_DISCS)
    disc[0 * C.NUM_DISCS + 2 - 1] = 4  # player 0's 2 on beach 4
    disc[0 * C.NUM_DISCS + 5 - 1] = 4  # player 0's 5 on beach 4
    disc[1 * C.NUM_DISCS + 3 - 1] = 1  # player 1's 3 on beach 1
    bays = list(state.bays)
    bays[2 * 3], bays[2 * 3 + 1] = C.FISH, -1
    state = type(state).from_position(game, disc=disc, bays=bays)
    assert Q.disc_segment(state, 0, 2) == 4 and Q.disc_in_supply(state, 0, 1)
    assert Q.discs_on_segment(state, 0, 4) == [2, 5]
    assert Q.discs_in_supply(state, 1) == [1, 2, 4, 5]
    assert Q.beach_sum(state, 0, 4) == 7 and Q.beach_sum(state, 1, 1) == 3 and Q.beach_sum(state, 1, 4) == 0
    assert Q.bay_pair(state, 3) == (C.FISH, -1) and Q.bay(state, 3, 0) == C.FISH
    assert Q.bay_cards(state, 3) == [C.FISH]
