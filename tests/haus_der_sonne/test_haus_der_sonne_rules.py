"""One test (or a few) per rule section of the Haus der Sonne rules file, from hand-made positions."""

from __future__ import annotations

import pytest

from meeplezoo.envs.core.game import IllegalActionError
from meeplezoo.envs.haus_der_sonne import actions as A
from meeplezoo.envs.haus_der_sonne import components as C
from meeplezoo.envs.haus_der_sonne.state import (
    BUY_SHELL,
    BUY_WINDOW,
    GAME_OVER,
    MAIN,
    PICK,
    PRIESTESS,
    SHAMAN,
    HausDerSonneGame,
)

E = -1
MEA = lambda s: s  # noqa: E731 - node ids of the rules file §4.2
FOR = lambda s: 6 + s  # noqa: E731
MTN = lambda s: 12 + s  # noqa: E731
BEA = lambda s: 18 + s  # noqa: E731


def dests(state) -> set[int]:
    return {a - A.SHAMAN_TO0 for a in state.legal_actions() if A.SHAMAN_TO0 <= a < A.SHAMAN_STAY}


# -- §5 setup -------------------------------------------------------------------
@pytest.mark.parametrize("variant, sizes", [("base", (3, 13, 14)), ("tactical", (3, 9, 10))])
def test_setup(variant, sizes):
    starts = set()
    for seed in range(20):
        s = HausDerSonneGame(variant=variant).new_state(seed)
        assert tuple(len(p) for p in s.piles) == sizes
        assert all(b >= 0 and b != C.LAVA for b in s.bays)
        assert s.boat == 0 and s.round == 1 and s.crater == [0] * 6 and s.statue == [E] * 18
        assert s.shaman[s.start_player] == BEA(1) and s.shaman[1 - s.start_player] == BEA(4)
        assert s.current_player == s.active == s.start_player and s.phase == MAIN
        assert C.LAVA not in s.piles[0]
        starts.add(s.start_player)
    assert starts == {0, 1}


# -- §6.1/§6.4 placing discs and the no-tie rule ------------------------------------
def test_no_tie_rule_summary_example(hds):
    s = hds.position(disc=hds.discs(p1={1: 2, 3: 2}), boat=0)
    allowed = {v for v in range(1, 6) if A.place(v, 2) in s.legal_actions()}
    assert allowed == {1, 2, 3, 5}  # the 4 would tie the opponent's 1+3
    with pytest.raises(IllegalActionError):
        s.apply(A.place(4, 2))
    assert s.disc[3] == E  # unchanged after the error


def test_no_tie_rule_with_own_discs_compares_totals(hds):
    s = hds.position(disc=hds.discs(p0={1: 2}, p1={4: 2}), boat=0)
    allowed = {v for v in range(2, 6) if A.place(v, 2) in s.legal_actions()}
    assert allowed == {2, 4, 5}  # 1+3 would equal the opponent's 4


def test_no_tie_rule_on_boat_segment(hds):
    s = hds.position(disc=hds.discs(p1={3: 2}), boat=2)
    assert A.place(3, 2) not in s.legal_actions()
    assert A.place(2, 2) in s.legal_actions()


def test_place_then_shaman_and_many_discs_on_one_beach(hds):
    s = hds.position(disc=hds.discs(p0={1: 3}, p1={2: 3}), boat=0)
    s.apply(A.place(5, 3))
    assert s.phase == SHAMAN and s.current_player == 0 and s.beach_sum[3] == 6 and s.beach_sum[9] == 2
    s.apply(A.SHAMAN_STAY)
    assert s.phase == MAIN and s.current_player == 1 and s.turn == 1


def test_take_back_any_disc_then_shaman(hds):
    s = hds.position(disc=hds.discs(p0={2: 0, 4: 3}), boat=0)
    la = s.legal_actions()
    assert A.take_back(2) in la and A.take_back(4) in la  # also from the boat's beach
    assert A.take_back(1) not in la  # disc 1 is in the supply
    s.apply(A.take_back(4))
    assert s.disc[3] == E and s.beach_sum[3] == 0 and s.phase == SHAMAN


# -- §7 shaman movement ----------------------------------------------------------------
def test_shaman_from_village_enters_meadow_with_one_upward_step(hds):
    s = hds.position(phase=SHAMAN)
    assert dests(s) == {MEA(1), MEA(0), MEA(2)}  # the entry step is the upward step
    assert A.SHAMAN_STAY in s.legal_actions()
    s.apply(A.shaman_to(MEA(2)))
    assert s.shaman[0] == MEA(2) and s.current_player == 1


def test_shaman_one_up_two_down_and_jumping_the_other_shaman(hds):
    s = hds.position(phase=SHAMAN, shaman=[MEA(0), MEA(1)])
    assert dests(s) == {MEA(2), FOR(1), MEA(5), MEA(4), FOR(5), FOR(0)}  # jumps meadow 1, never two up
    s = hds.position(phase=SHAMAN, shaman=[MTN(0), BEA(4)])
    assert dests(s) == {MTN(1), MTN(5), FOR(0), MEA(0), FOR(1), FOR(5), MTN(2), MTN(4)}  # two steps down allowed
    s = hds.position(phase=SHAMAN, shaman=[FOR(0), BEA(4)])
    assert len(s.legal_actions()) == 11  # the maximum: 10 fields + stay
    s = hds.position(phase=SHAMAN, shaman=[FOR(0), MTN(0)])
    assert MTN(0) not in dests(s) and MTN(1) in dests(s)  # never ends on the other shaman, passes it


def test_shaman_never_back_to_beach_nor_across_crater(hds):
    s = hds.position(phase=SHAMAN, shaman=[MTN(0), BEA(4)])
    assert all(d < C.NUM_FIELDS for d in dests(s))
    assert MTN(3) not in dests(s)  # the far side is 3 steps around the ring, no way through the crater


# -- §6.2 / §6.3 sailing ---------------------------------------------------------------
def test_sail_with_disc_moves_boat_and_disc_stays_on_departure_beach(hds):
    s = hds.position(boat=0)
    s.apply(A.place(3, 0))
    assert s.boat == 3 and s.disc[2] == 0 and s.beach_sum[0] == 3
    assert s.phase == MAIN and s.current_player == 1  # no shaman move after sailing; nobody at segment 3


def test_sail_one_only_with_empty_supply(hds):
    s = hds.position(disc=hds.discs(p0={1: 1, 2: 1, 3: 2, 4: 2, 5: 2}), boat=0, bays=hds.bays())
    la = s.legal_actions()
    assert A.SAIL_ONE in la and not any(a < A.TAKE_BACK0 for a in la)
    s.apply(A.SAIL_ONE)
    assert s.boat == 1
    assert s.disc[:2] == [E, E]  # landing on segment 1 sent the discs there home (nobody else)
    s2 = hds.position(boat=0)
    assert A.SAIL_ONE not in s2.legal_actions()


# -- §8 landing and card distribution ----------------------------------------------------
def test_landing_nobody_cards_stay(hds):
    s = hds.position(boat=0, bays=hds.bays(s3=(C.WHITE, C.FISH)))
    s.apply(A.place(3, 0))
    assert s.bays[6:8] == [C.WHITE, C.FISH] and s.hand == [[0] * 13, [0] * 13]


def test_landing_one_player_picks_other_card_stays(hds):
    s = hds.position(boat=0, disc=hds.discs(p1={2: 3}), bays=hds.bays(s3=(C.WHITE, C.FISH)),
                     piles=[[C.SHELL, C.STATUE], [C.STATUE] * 5, [C.STATUE] * 5])
    s.apply(A.place(3, 0))
    assert s.phase == PICK and s.current_player == 1  # only the opponent has discs there: he picks
    assert set(s.legal_actions()) == {A.pick(0), A.pick(1)}
    s.apply(A.pick(1))
    assert s.hand[1][C.FISH] == 1 and s.hand[0] == [0] * 13
    assert s.bays[6] == C.WHITE and s.bays[7] == C.STATUE  # gap refilled from the 1-palm pile
    assert s.disc[5 + 1] == E  # his disc went home
    assert s.current_player == 1 and s.active == 1 and s.phase == MAIN  # next turn: opponent of the active player


def test_landing_both_higher_sum_picks_first_other_gets_rest(hds):
    s = hds.position(boat=0, disc=hds.discs(p0={4: 3}, p1={1: 3, 2: 3}), bays=hds.bays(s3=(C.WHITE, C.FISH)),
                     piles=[[C.SHELL, C.STATUE], [C.STATUE] * 5, [C.STATUE] * 5])
    s.apply(A.place(3, 0))
    assert s.phase == PICK and s.current_player == 0
    s.apply(A.pick(0))
    assert s.hand[0][C.WHITE] == 1 and s.hand[1][C.FISH] == 1
    assert s.bays[6:8] == [C.STATUE, C.SHELL]  # both gaps refilled, bay 0 first
    assert s.disc == [E, E, 0, E, E] + [E] * 5  # all discs on beach 3 went home; the sailing disc stays on 0
    assert s.current_player == 1


def test_landing_higher_sum_of_the_opponent_picks_first(hds):
    s = hds.position(boat=0, disc=hds.discs(p0={1: 3}, p1={5: 3}), bays=hds.bays(s3=(C.WHITE, C.FISH)))
    s.apply(A.place(3, 0))
    assert s.phase == PICK and s.current_player == 1
    s.apply(A.pick(0))
    assert s.hand[1][C.WHITE] == 1 and s.hand[0][C.FISH] == 1


def test_landing_identical_cards_second_gets_nothing(hds):
    s = hds.position(boat=0, disc=hds.discs(p0={4: 3}, p1={1: 3}), bays=hds.bays(s3=(C.FISH, C.FISH)),
                     piles=[[C.SHELL], [C.STATUE] * 5, [C.STATUE] * 5])
    s.apply(A.place(3, 0))  # no PICK: both cards are the same
    assert s.hand[0][C.FISH] == 1 and s.hand[1][C.FISH] == 0
    assert s.bays[6:8] == [C.SHELL, C.FISH]
    # a butterfly makes the cards differ: the second player gets the other one
    s = hds.position(boat=0, disc=hds.discs(p0={4: 3}, p1={1: 3}), bays=hds.bays(s3=(C.FISH, C.FISH_B)))
    s.apply(A.place(3, 0))
    assert s.phase == PICK
    s.apply(A.pick(1))
    assert s.hand[0][C.FISH_B] == 1 and s.hand[1][C.FISH] == 1


def test_landing_one_card_left_only_first_gets_it(hds):
    s = hds.position(boat=0, disc=hds.discs(p0={4: 3}, p1={1: 3}), bays=hds.bays(s3=(E, C.FISH)),
                     options={"refill_gaps_at_round2_start": False})
    s.apply(A.place(3, 0))
    assert s.hand[0][C.FISH] == 1 and sum(s.hand[1]) == 0


def test_landing_equal_sums_active_player_first(hds):
    s = hds.position(boat=0, disc=hds.discs(p0={3: 4}, p1={1: 4, 2: 4}), bays=hds.bays(s4=(C.WHITE, C.FISH)))
    s.apply(A.place(4, 0))
    assert s.boat == 4 and s.phase == PICK and s.current_player == 0


# -- §9 refill, lava cards, scoring 1 trigger -----------------------------------------------
def test_refill_from_next_pile_and_lava_card_puts_chip_at_boat(hds):
    s = hds.position(boat=0, disc=hds.discs(p0={4: 3}, p1={1: 3}), bays=hds.bays(s3=(C.WHITE, C.FISH)),
                     piles=[[C.SHELL], [C.STATUE, C.STATUE, C.FISH, C.LAVA], [C.STATUE] * 5])
    s.apply(A.place(3, 0))
    s.apply(A.pick(0))
    assert s.bays[6] == C.SHELL  # last 1-palm card
    assert s.bays[7] == C.FISH  # 2-palm: the lava card was resolved, drawing went on for the same bay
    assert s.crater == [0, 0, 0, 1, 0, 0] and s.discard[C.LAVA] == 1 and s.round == 1


def test_scoring1_triggers_when_2palm_pile_empties(hds):
    # both bays emptied; the first refill takes the last 2-palm card -> scoring 1 at once, the other gap stays
    s = hds.position(boat=0, disc=hds.discs(p0={4: 3}, p1={1: 3}), bays=hds.bays(s3=(C.WHITE, C.FISH)),
                     piles=[[], [C.NAUTILUS], [C.STATUE, C.STATUE, C.BLACK, C.SHELL]],
                     hand=[[0] * 13, [0] * 13])
    s.apply(A.place(3, 0))
    s.apply(A.pick(0))
    assert s.round == 2 and len(s.scorings) == 1
    assert s.score == [1, 3]  # white pearl; fish majority; nobody could buy (no shells): no buy window
    assert s.bays[6] == C.NAUTILUS and s.bays[7] == C.SHELL  # round 2 refill from the 3-palm pile
    assert s.current_player == 1 and s.phase == MAIN


def test_scoring1_triggers_also_when_last_2palm_card_is_lava(hds):
    s = hds.position(boat=0, disc=hds.discs(p0={4: 3}), bays=hds.bays(s3=(C.WHITE, C.FISH)),
                     piles=[[], [C.LAVA], [C.STATUE, C.BLACK, C.SHELL]],
                     statue=[E] * 12 + [1, 1, 1, 1, 1, 1])
    s.apply(A.place(3, 0))
    s.apply(A.pick(1))
    assert s.round == 2 and s.statue[MTN(3)] == E  # the chip erupted at once onto mountain 3
    assert s.crater == [0] * 6 and s.bays[6] == C.WHITE and s.bays[7] == C.SHELL


# -- §10 card effects ---------------------------------------------------------------------
def _receive_position(hds, card, **fields):
    """Player 0 lands alone at segment 3 where ``card`` lies beside a statue card."""
    base = dict(boat=0, disc=hds.discs(p0={4: 3}), bays=hds.bays(s3=(card, card)))
    base.update(fields)
    s = hds.position(**base)
    s.apply(A.place(3, 0))
    return s


@pytest.mark.parametrize("shaman, statue, expected", [
    (MTN(2), [E] * 18, True),  # free building field: built
    (BEA(1), [E] * 18, False),  # still on the beach
    (MTN(2), [E] * 14 + [1] + [E] * 3, False),  # field taken
    (MTN(2), [0] * 8 + [E] * 10, False),  # no statue left in supply
])
def test_statue_card(hds, shaman, statue, expected):
    s = _receive_position(hds, C.STATUE, shaman=[shaman, BEA(4)], statue=list(statue))
    built = shaman < 18 and s.statue[shaman] == 0 and statue[shaman if shaman < 18 else 0] == E
    assert built == expected
    assert s.discard[C.STATUE] >= 1 and s.hand[0][C.STATUE] == 0


def test_priestess_card_is_mandatory_chip_move(hds):
    s = _receive_position(hds, C.PRIESTESS, crater=[0, 0, 1, 0, 0, 0])
    assert s.phase == PRIESTESS and s.current_player == 0
    assert set(s.legal_actions()) == {A.priestess(2, 0), A.priestess(2, 1)}
    s.apply(A.priestess(2, 1))
    assert s.crater == [0, 0, 0, 1, 0, 0] and s.current_player == 1
    s = _receive_position(hds, C.PRIESTESS)  # no chip on the crater: no effect, no decision
    assert s.phase == MAIN and s.current_player == 1 and s.discard[C.PRIESTESS] >= 1


def test_priestess_moves_top_chip_of_a_stack_onto_a_stack(hds):
    s = _receive_position(hds, C.PRIESTESS, crater=[2, 1, 0, 0, 0, 0])
    s.apply(A.priestess(0, 1))
    assert s.crater == [1, 2, 0, 0, 0, 0]
    s = _receive_position(hds, C.PRIESTESS, crater=[2, 0, 0, 0, 0, 0])
    s.apply(A.priestess(0, 0))
    assert s.crater == [1, 0, 0, 0, 0, 1]


def test_shell_buy_at_receipt_with_kept_shells(hds):
    hand0 = [0] * 13
    hand0[C.SHELL_B] = 1
    s = _receive_position(hds, C.SHELL, hand=[hand0, [0] * 13], sc_owner=[E, 1, E, E, E])
    assert s.phase == BUY_SHELL and s.current_player == 0
    la = set(s.legal_actions())
    assert la == {A.buy(0), A.buy(2), A.buy(3), A.buy(4), A.buy(5), A.BUY_PASS}  # majority belongs to P1
    s.apply(A.buy(4))  # mountain statues, 2 shells: the new plain one and the kept butterfly one
    assert s.sc_owner[4] == 0 and s.hand[0][C.SHELL] == 0 and s.hand[0][C.SHELL_B] == 0


def test_shell_payment_plain_first_and_keeping(hds):
    hand0 = [0] * 13
    hand0[C.SHELL_B] = 1
    s = _receive_position(hds, C.SHELL, hand=[hand0, [0] * 13])
    s.apply(A.buy(1))
    assert s.hand[0][C.SHELL] == 0 and s.hand[0][C.SHELL_B] == 1
    s = _receive_position(hds, C.SHELL)
    s.apply(A.BUY_PASS)
    assert s.hand[0][C.SHELL] == 1 and s.current_player == 1  # kept for later


def test_shell_cannot_be_spent_when_receiving_another_card(hds):
    hand0 = [0] * 13
    hand0[C.SHELL] = 3
    s = _receive_position(hds, C.FISH, hand=[hand0, [0] * 13])
    assert s.phase == MAIN and s.current_player == 1 and s.hand[0][C.SHELL] == 3


def test_buy_board_priestess_moves_chip_and_returns(hds):
    s = _receive_position(hds, C.SHELL, crater=[0, 0, 0, 0, 1, 0])
    s.apply(A.buy(5))
    assert s.phase == PRIESTESS and s.current_player == 0 and s.priestess_available
    s.apply(A.priestess(4, 0))
    assert s.crater[3] == 1 and s.current_player == 1


def test_first_receiver_resolves_before_second(hds):
    # P0 picks a priestess and moves a chip before P1 receives the shell and may buy
    s = hds.position(boat=0, disc=hds.discs(p0={4: 3}, p1={1: 3}), bays=hds.bays(s3=(C.PRIESTESS, C.SHELL)),
                     crater=[1, 0, 0, 0, 0, 0])
    s.apply(A.place(3, 0))
    s.apply(A.pick(0))
    assert s.phase == PRIESTESS and s.current_player == 0 and s.hand[1][C.SHELL] == 0
    s.apply(A.priestess(0, 1))
    assert s.phase == BUY_SHELL and s.current_player == 1 and s.hand[1][C.SHELL] == 1
    s.apply(A.BUY_PASS)
    assert s.phase == MAIN and s.current_player == 1


# -- §11 scoring phase -----------------------------------------------------------------
def _trigger_position(hds, **fields):
    """P0 lands alone at segment 3 and the refill takes the last 2-palm card: scoring 1."""
    base = dict(boat=0, disc=hds.discs(p0={4: 3}), bays=hds.bays(s3=(C.WHITE, C.WHITE)),
                piles=[[], [C.FISH], [C.STATUE] * 6])
    base.update(fields)
    s = hds.position(**base)
    s.apply(A.place(3, 0))
    return s


def test_buy_window_trigger_player_first_then_other(hds):
    h0, h1 = [0] * 13, [0] * 13
    h0[C.SHELL], h1[C.SHELL] = 2, 1
    statue = [E] * 18
    statue[MTN(0)] = statue[MTN(1)] = 1
    s = _trigger_position(hds, hand=[h0, h1], statue=statue)
    assert s.phase == BUY_WINDOW and s.current_player == 0
    s.apply(A.buy(4))  # P0 takes the mountain card
    assert s.phase == BUY_WINDOW and s.current_player == 1
    assert A.buy(4) not in s.legal_actions() and A.buy(3) not in s.legal_actions()  # gone / too dear
    s.apply(A.buy(1))  # P1: statue majority
    assert s.round == 2 and s.phase == MAIN and s.current_player == 1
    assert s.score == [1, 4]  # P0 white pearl; P1 majority in two segments; P0 has no mountain statue
    assert s.sc_owner == [E] * 5  # scoring cards back on the board after scoring 1


def test_eruption_with_one_two_three_and_four_chips(hds):
    s = hds.position(statue=[0] * 18, crater=[1, 2, 3, 4, 0, 0], shaman=[BEA(1), BEA(4)])
    destroyed = set(s.erupt())
    assert destroyed == {MTN(0), MTN(1), FOR(1), MTN(2), FOR(2), MEA(2), MTN(3), FOR(3), MEA(3)}
    assert s.crater == [0] * 6 and s.chips_in_supply() == 4


def test_eruption_shaman_protects_statue(hds):
    s = hds.position(statue=[1] * 18, crater=[0, 2, 0, 0, 0, 0], shaman=[FOR(1), BEA(4)])
    assert set(s.erupt()) == {MTN(1)} and s.statue[FOR(1)] == 1


def test_eruption_before_points(hds):
    statue = [E] * 18
    statue[MTN(3)] = 0
    statue[MTN(4)] = 0
    h0 = [0] * 13
    h0[C.SHELL] = 2
    s = _trigger_position(hds, hand=[h0, [0] * 13], statue=statue, crater=[0, 0, 0, 0, 1, 0])
    s.apply(A.buy(4))  # P1 has no shells: the window closes
    assert s.statue[MTN(4)] == E and s.statue[MTN(3)] == 0
    assert s.score[0] == 1 + 3  # white pearl + one surviving mountain statue


def _points(hds, p=0, final=False, **fields):
    s = hds.position(**fields)
    return s.scoring_points(p, final)


def test_scoring_card_butterflies(hds):
    h = [0] * 13
    h[C.SHELL_B] = h[C.FISH_B] = h[C.WHITE] = 1
    assert _points(hds, hand=[h, [0] * 13], sc_owner=[0, E, E, E, E])["butterflies"] == 2
    assert "butterflies" not in _points(hds, hand=[h, [0] * 13])


def test_scoring_card_majority(hds):
    st = [E] * 18
    st[MEA(0)], st[FOR(0)], st[MTN(0)] = 0, 0, 1  # seg 0: 2 vs 1
    st[MEA(1)], st[FOR(1)] = 0, 1  # seg 1: tie
    st[MTN(2)] = 0  # seg 2: 1 vs 0
    st[MTN(3)] = 1  # seg 3: opponent only
    assert _points(hds, statue=st, sc_owner=[E, 0, E, E, E])["majority"] == 4
    assert _points(hds, p=1, statue=st, sc_owner=[E, 1, E, E, E])["majority"] == 2


def test_scoring_card_complete_segment(hds):
    st = [E] * 18
    for s in (0, 4):
        st[MEA(s)] = st[FOR(s)] = st[MTN(s)] = 0
    st[MEA(2)] = st[FOR(2)] = 0
    assert _points(hds, statue=st, sc_owner=[E, E, 0, E, E])["complete"] == 8


def test_scoring_cards_forest_and_mountain(hds):
    st = [E] * 18
    st[FOR(0)] = st[FOR(2)] = st[MTN(5)] = 0
    st[FOR(1)] = 1
    pts = _points(hds, statue=st, sc_owner=[E, E, E, 0, 0])
    assert pts["forest"] == 4 and pts["mountain"] == 3


@pytest.mark.parametrize("white, black, points", [(1, 0, 1), (0, 1, 2), (1, 1, 4), (2, 1, 5), (1, 2, 6), (2, 2, 8)])
def test_pearl_pairs(hds, white, black, points):
    h = [0] * 13
    h[C.WHITE], h[C.BLACK_B] = white, black
    assert _points(hds, hand=[h, [0] * 13])["pearls"] == points


@pytest.mark.parametrize("mine, theirs, points", [(2, 1, 3), (1, 1, 0), (0, 0, 0), (1, 2, 0)])
def test_fish_majority(hds, mine, theirs, points):
    h0, h1 = [0] * 13, [0] * 13
    h0[C.FISH], h1[C.FISH_B] = mine, theirs
    assert _points(hds, hand=[h0, h1])["fish"] == points


def test_nautilus_and_shells_at_second_scoring_only(hds):
    h = [0] * 13
    h[C.NAUTILUS], h[C.SHELL], h[C.SHELL_B] = 1, 1, 1
    assert _points(hds, hand=[h, [0] * 13])["nautilus"] == 3
    assert "shells" not in _points(hds, hand=[h, [0] * 13])
    assert _points(hds, final=True, hand=[h, [0] * 13])["shells"] == 2


def test_after_scoring1_hands_cleaned_and_opponent_of_trigger_moves(hds):
    h0 = [0] * 13
    h0[C.NAUTILUS_B] = h0[C.FISH] = h0[C.BLACK] = h0[C.SHELL] = 1
    s = _trigger_position(hds, hand=[h0, [0] * 13], active=0)
    s.apply(A.BUY_PASS)
    assert s.round == 2 and s.score[0] == 3 + 3 + 4  # nautilus, fish majority, black + white pair
    assert s.hand[0][C.NAUTILUS_B] == 0 and s.hand[0][C.FISH] == 1 and s.hand[0][C.BLACK] == 1
    assert s.hand[0][C.SHELL] == 1 and s.hand[0][C.WHITE] == 1  # shells kept
    assert s.current_player == 1 and s.active == 1


def test_scoring2_ends_the_game_with_shells(hds):
    h0 = [0] * 13
    h0[C.SHELL] = 2
    s = hds.position(round=2, boat=0, disc=hds.discs(p0={4: 3}), bays=hds.bays(s3=(C.WHITE, C.WHITE)),
                     piles=[[], [], [C.FISH]], hand=[h0, [0] * 13])
    s.apply(A.place(3, 0))
    assert s.phase == BUY_WINDOW
    s.apply(A.BUY_PASS)
    assert s.is_terminal() and s.phase == GAME_OVER and s.current_player == -1
    assert s.score == [1 + 2, 0]  # white pearl + two shells
    assert s.winners() == [0] and list(s.returns()) == [1.0, -1.0]


# -- §11.5 tie-break ---------------------------------------------------------------------
@pytest.mark.parametrize("start, winner", [(0, 1), (1, 0)])
def test_tie_goes_to_the_player_who_did_not_start(hds, start, winner):
    s = hds.position(phase=GAME_OVER, current_player=-1, start_player=start, score=[12, 12])
    assert s.winners() == [winner]
    r = s.returns()
    assert r[winner] == 1.0 and r[1 - winner] == -1.0


# -- §14 tactical variant -------------------------------------------------------------------
def test_tactical_lava_disc_puts_chip_where_the_boat_lands(hds):
    s = hds.position(variant="tactical", boat=0)
    assert A.place_lava(3) in s.legal_actions()
    s.apply(A.place_lava(3))
    assert s.boat == 3 and s.crater == [0, 0, 0, 1, 0, 0]
    assert s.lava_disc == [0, E] and s.disc[2] == 0  # both discs on the departure beach
    s2 = hds.position(variant="tactical", boat=0, lava_disc=[0, E], active=0)
    assert not any(A.PLACE_LAVA0 <= a < A.TAKE_BACK0 for a in s2.legal_actions())  # disc not in supply


def test_tactical_lava_disc_not_when_chips_are_gone_nor_in_base(hds):
    s = hds.position(variant="tactical", boat=0, crater=[1, 1, 1, 1, 0, 0])
    assert not any(A.PLACE_LAVA0 <= a < A.TAKE_BACK0 for a in s.legal_actions())
    s = hds.position(variant="base", boat=0)
    assert not any(A.PLACE_LAVA0 <= a < A.TAKE_BACK0 for a in s.legal_actions())


def test_tactical_lava_disc_returns_when_owner_lands_there(hds):
    s = hds.position(variant="tactical", boat=2, lava_disc=[5, E])
    s.apply(A.place(3, 2))  # P0 sails to 5 where his lava disc lies
    assert s.lava_disc[0] == E
    s = hds.position(variant="tactical", boat=2, lava_disc=[E, 5])
    s.apply(A.place(3, 2))  # P0 lands on P1's lava disc: it stays (A-49)
    assert s.lava_disc[1] == 5


def test_tactical_lava_disc_returns_with_priestess(hds):
    s = hds.position(variant="tactical", boat=0, lava_disc=[2, E], disc=hds.discs(p0={4: 3}),
                     bays=hds.bays(s3=(C.PRIESTESS, C.PRIESTESS)))
    s.apply(A.place(3, 0))
    assert s.lava_disc[0] == E
    s = hds.position(variant="tactical", boat=0, lava_disc=[2, E], disc=hds.discs(p0={4: 3}),
                     bays=hds.bays(s3=(C.SHELL, C.SHELL)), crater=[0, 1, 0, 0, 0, 0])
    s.apply(A.place(3, 0))
    s.apply(A.buy(5))  # buying the board's priestess also returns it
    assert s.lava_disc[0] == E and s.phase == PRIESTESS


def test_tactical_no_buying_at_scoring(hds):
    h0 = [0] * 13
    h0[C.SHELL] = 3
    s = _trigger_position(hds, variant="tactical", hand=[h0, [0] * 13], piles=[[], [C.FISH], [C.STATUE] * 4])
    assert s.round == 2 and s.phase == MAIN and s.sc_owner == [E] * 5 and s.hand[0][C.SHELL] == 3


def test_tactical_shell_receipt_may_buy(hds):
    s = _receive_position(hds, C.SHELL, variant="tactical")
    assert s.phase == BUY_SHELL
