"""One test per rule section of the rules file, from hand-made positions."""

import numpy as np
import pytest
from hawaii_helpers import act, boat_trip, buy, end_round, fish, fix_bag, legal_in, position, slot_of, visit

from meeplezoo.envs.core.game import IllegalActionError
from meeplezoo.envs.hawaii import actions as A
from meeplezoo.envs.hawaii.components import (
    BANANA,
    BREADFRUIT,
    COCONUT,
    EXCHANGE_HUT,
    FOOT_HUT,
    HULA,
    IRRIGATION,
    KAHUNA,
    KANALOA,
    KANE,
    KU,
    LAKA,
    LONG_HUT,
    LONO,
    PELE,
    SHELL_HUT,
    SLOT_ROW,
    SPEAR_HUT,
    SURFER,
    TARO,
    TIKI,
    TOKEN_FISH,
    TOKEN_VALUE,
)

# place ids (components.PLACE_NAMES)
HUTS_A, HUTS_B, HUTS_C, HULA_P, FRUIT_P, BOATS_P, SURF_P, KAHUNA_P, TIKI_P, GODS_P = range(10)
# token ids: value 2 + id // 5; ids with id % 5 < 2 carry spears
T2S, T2, T3S, T3, T4S, T4, T5, T6S, T6 = 0, 2, 5, 7, 10, 12, 17, 20, 22


def c(t: int, side: int = 1) -> int:
    """Village code of a tile."""
    return t * 2 + side - 1


def only_tokens(s, slot: int, tokens: list[int]) -> None:
    """Clear the board of tokens and put ``tokens`` on the circles of ``slot``."""
    for circ in s.circles:
        circ[:] = [-1, -1, -1]
    s.circles[slot][: len(tokens)] = tokens
    fix_bag(s)


# ---------------------------------------------------------------- §3.1 / §12.1 movement
def test_movement_costs_follow_the_board_graph():
    s = position(2, order=[0, 1])
    for slot in range(10):
        assert s.move_cost(0, slot) == SLOT_ROW[slot]  # from the beach: the row number
    s.loc[0] = 0  # P1
    assert s.move_cost(0, 0) == 1  # staying costs 1
    assert [s.move_cost(0, x) for x in (1, 2, 3, 4, 8, 9)] == [1, 1, 1, 2, 3, 3]
    s.loc[0] = 2  # P3
    assert s.move_cost(0, 4) == 2 and s.move_cost(0, 9) == 2
    s.rows[0] = [[0, c(PELE)]]
    s.refresh()
    assert s.move_cost(0, 4) == 2 and s.move_cost(0, 9) == 2 and s.move_cost(0, 2) == 1
    s.loc[0] = -1
    assert s.move_cost(0, 8) == 2  # Pele I caps at 2
    s.rows[0] = [[0, c(PELE, 2)]]
    s.refresh()
    assert s.move_cost(0, 8) == 1  # Pele II caps at 1


def test_move_is_paid_and_destination_needs_token_and_tile():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]])
    slot = slot_of(s, TIKI_P)
    only_tokens(s, slot, [T3, T2])
    legal_main = [a for a in s.legal_actions() if a < 10]
    assert legal_main == [slot]
    buy(s, slot, circle=1)  # the 2 token
    assert s.res[0][1] == 10 - SLOT_ROW[slot]
    assert s.res[0][0] == 18 and s.tikis[0] == 1 and s.loc[0] == slot
    # a place with a token but no tile left is not a destination
    s.supply[TIKI] = 0
    s.refresh()
    assert not s.legal_mask()[slot]
    with pytest.raises(IllegalActionError):
        act(s, A.MAIN, slot)


def test_staying_on_a_place_costs_one_foot():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]])
    slot = slot_of(s, TIKI_P)
    only_tokens(s, slot, [T3, T2])
    buy(s, slot, circle=1)
    end_round(s, 1)  # player 1 ends his round
    feet = s.res[0][1]
    buy(s, slot, circle=0)
    assert s.res[0][1] == feet - 1 + 1 and s.tikis[0] == 2  # Tiki space 2 shows a foot


# ------------------------------------------------------------------ §11.1 price-token layout
def _exhaust_all_but(s, place: int | None) -> None:
    for t in range(len(s.supply)):
        s.supply[t] = 0
    s.god_stacks = [[], []]
    if place == HULA_P:
        s.supply[HULA] = 10


def test_layout_busts_when_the_sum_exceeds_the_printed_number():
    for tokens, kept in (([T6S, T6, 21], False), ([T2S, T2, 1], True), ([T4S, T4, 11], True)):
        s = position(2, {"tokens_on_exhausted_places": False})
        _exhaust_all_but(s, HULA_P)
        s.bag = list(tokens)
        s.cove = []
        s.layout_price_tokens()
        slot = slot_of(s, HULA_P)
        circ = s.circles[slot]
        assert circ[1] in tokens
        assert (circ[0] >= 0) == kept
        assert len(s.cove) == (0 if kept else 1)
        assert sum(x >= 0 for x in s.seq) == 1  # n - 1 = 1 sequence token
    # equal to the printed number (4 + 4 = 8) busts only under bust_on_equal
    s = position(2, {"tokens_on_exhausted_places": False, "bust_on_equal": True})
    _exhaust_all_but(s, HULA_P)
    s.bag, s.cove = [T4S, T4, 11], []
    s.layout_price_tokens()
    assert s.circles[slot_of(s, HULA_P)][0] == -1 and len(s.cove) == 1


def test_sequence_tokens_ascend_with_spear_above_plain():
    s = position(4, {"tokens_on_exhausted_places": False})
    _exhaust_all_but(s, None)
    s.bag, s.cove = [T3S, T3, T2S], []
    s.layout_price_tokens()
    assert s.seq == [-1, T2S, T3, T3S, -1]
    assert all(x == -1 for circ in s.circles for x in circ)


def test_default_layout_respects_printed_numbers_on_many_deals():
    from meeplezoo.envs.hawaii.components import PLACE_CIRCLES, PLACE_PRINTED

    for seed in range(40):
        s = position(3, seed=seed)
        busts = 0
        for slot, pl in enumerate(s.slot_place):
            circ = s.circles[slot]
            assert all(x >= 0 for x in circ[1:PLACE_CIRCLES[pl]])
            if circ[0] >= 0:
                assert sum(TOKEN_VALUE[x] for x in circ if x >= 0) <= PLACE_PRINTED[pl]
            else:
                busts += 1
        assert busts == len(s.cove)
        assert s.seq[0] == -1 and sum(x >= 0 for x in s.seq) == 2
        assert len(s.bag) == 25 - 21 - 2


# ------------------------------------------------------------------ §12.2 single vs double price
def test_single_and_double_price():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]])
    slot = slot_of(s, HUTS_A)
    only_tokens(s, slot, [T3, T2])
    buy(s, slot, circle=0, tile=SHELL_HUT, side=2, row=0)
    assert s.res[0][0] == 20 - 6  # double price
    assert s.rows[0] == [[0, c(SHELL_HUT, 2)]]
    assert s.held[0] == [T3] and s.round_sum(0) == 3  # the token counts its face value
    kslot = slot_of(s, KAHUNA_P)
    only_tokens(s, kslot, [T2])
    buy(s, kslot, side=2)
    assert s.kahunas[1] == 2 and s.res[1][0] == 20 - 4 + 0 + 1  # two Kahunas; space shells 0 and 1
    assert s.round_sum(1) == 2


def test_double_kahuna_needs_two_tiles_and_room_unless_option():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]], kahunas=[4, 0])
    s.supply[KAHUNA] -= 4
    kslot = slot_of(s, KAHUNA_P)
    only_tokens(s, kslot, [T2])
    act(s, A.MAIN, kslot)
    assert s.current_player == 1 and s.res[0][0] == 20 - 2 + 2  # single forced; space 5 shows 2 shells
    assert s.kahunas[0] == 5
    s2 = position(2, {"double_single_sided_needs_both": False}, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]],
                  kahunas=[4, 0])
    s2.supply[KAHUNA] -= 4
    only_tokens(s2, kslot, [T2])
    act(s2, A.MAIN, kslot)
    assert legal_in(s2, A.SIDE) == [0, 1]
    act(s2, A.SIDE, 1)
    assert s2.kahunas[0] == 5 and s2.res[0][0] == 20 - 4 + 2  # one Kahuna fits, paid double


# ------------------------------------------------------------------ §12.3 construction
def test_construction_rules():
    s = position(2, order=[0, 1])
    assert s.rows[0] == [[0]]  # the printed start hut: village 1 exists
    assert s.village_rows_for(0, HULA) == [0]
    s.rows[0] = [[0, c(SHELL_HUT)]]
    s.refresh()
    assert s.village_rows_for(0, SHELL_HUT) == [1]  # same type twice: found village 2
    assert s.village_rows_for(0, FOOT_HUT) == [0, 1]
    s.rows[0] = [[0, c(HULA)]]
    s.refresh()
    assert not s.can_place(0, HULA, False)  # only huts found villages
    s.rows[0] = [[0, c(KU)], [c(SHELL_HUT)]]
    s.refresh()
    assert s.village_rows_for(0, KANE) == [1]  # one god per village
    assert s.village_rows_for(0, KU) == []  # each god once per realm
    assert s.village_rows_for(0, FOOT_HUT) == [0, 1, 2]  # rows are never skipped
    s.rows[0] = [[0, c(SHELL_HUT)]] + [[c(SHELL_HUT)] for _ in range(4)]
    s.refresh()
    assert not s.can_place(0, SHELL_HUT, False)  # at most 5 villages
    assert s.village_rows_for(0, FOOT_HUT) == [0, 1, 2, 3, 4]


def test_illegal_placement_cannot_be_chosen():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]])
    s.rows[0] = [[0, c(HULA)]]
    s.refresh()
    slot = slot_of(s, HULA_P)
    only_tokens(s, slot, [T2, T3])
    assert not s.legal_mask()[slot]
    with pytest.raises(IllegalActionError):
        act(s, A.MAIN, slot)
    before = s.to_json()
    with pytest.raises(IllegalActionError):
        act(s, A.ROW, 0)
    assert s.to_json() == before


def test_start_hut_option_and_column_limit():
    s = position(2, {"printed_start_hut": False}, order=[0, 1])
    assert s.rows[0] == []
    assert not s.can_place(0, HULA, False)
    assert s.village_rows_for(0, SHELL_HUT) == [0]
    s = position(2, {"max_village_columns": 3}, order=[0, 1])
    s.rows[0] = [[0, c(SHELL_HUT), c(HULA)]]
    s.refresh()
    assert s.village_rows_for(0, FOOT_HUT) == [1]
    assert s.village_rows_for(0, SURFER) == []


def test_row_decision_places_the_tile_in_the_chosen_village():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]])
    s.rows[0] = [[0], [c(FOOT_HUT)]]
    s.refresh()
    slot = slot_of(s, HULA_P)
    only_tokens(s, slot, [T2, T3])
    buy(s, slot, circle=1, side=1, row=1)
    assert s.rows[0] == [[0], [c(FOOT_HUT), c(HULA)]]


# ------------------------------------------------------------------ §8 Kahuna / Tiki spaces
def test_kahuna_and_tiki_space_bonuses_and_no_help_paying():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]], kahunas=[1, 0], tikis=[0, 1])
    s.supply[KAHUNA] -= 1
    s.supply[TIKI] -= 1
    kslot = slot_of(s, KAHUNA_P)
    only_tokens(s, kslot, [T3])
    buy(s, kslot)
    assert s.kahunas[0] == 2 and s.res[0][0] == 20 - 3 + 1  # space 2 shows one shell
    tslot = slot_of(s, TIKI_P)
    only_tokens(s, tslot, [T2])
    buy(s, tslot)
    assert s.tikis[1] == 2 and s.res[1][1] == 10 - SLOT_ROW[tslot] + 1  # Tiki space 2 shows one foot
    # the space's shells cannot pay for the Kahuna that fills it
    s = position(2, order=[0, 1], res=[[2, 10, 0], [20, 10, 0]], kahunas=[1, 0])
    s.supply[KAHUNA] -= 1
    only_tokens(s, kslot, [T3])
    assert not s.legal_mask()[kslot]


# ------------------------------------------------------------------ §12.4 fishing and boats
def test_fishing_takes_most_fish_and_uses_boat_capacity():
    s = position(2, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]], cove=[T6, T4, T2])
    assert [TOKEN_FISH[t] for t in s.cove] == [3, 2, 1]
    act(s, A.MAIN, A.MAIN_FISH)
    assert legal_in(s, A.FISH) == [0, 1]  # the fishing boat carries 2
    act(s, A.FISH, 1)
    assert s.fished[0] == [T6, T4] and s.res[0][1] == 3 and s.boat_used[0][0]
    assert s.round_sum(0) == 5 and s.cove == [T2] and s.loc[0] == -1
    end_round(s, 1)
    assert not s.legal_mask()[A.MAIN_FISH]  # fishing boat turned over for the round


def test_bought_boats_side_two_printed_foot_and_reset():
    s = position(2, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]], cove=[T6, T4, T2], boats=[[1, 2], []],
                 boat_used=[[False, False, False], [False]])
    s.supply[21] -= 2
    act(s, A.MAIN, A.MAIN_FISH)
    assert legal_in(s, A.FISH) == [0, 1, 2]
    act(s, A.FISH, 1)  # 2 tokens
    assert sorted(legal_in(s, A.BOATS)) == [0, 1, 2]
    boat_trip(s, [2], (0, 0))  # side-II boat: its printed foot carries one, one foot paid
    assert s.res[0][1] == 4 and s.boat_used[0] == [False, False, True]
    assert s.boat_units(1, 1, 0, 1) == -1  # two boats may not carry a single paid unit
    assert s.boat_units(1, 0, 0, 1) == 1  # the printed foot is wasted, one unit paid
    assert s.boat_units(7, 1, 1, 0) == -1  # 2 + 3 paid units at most


def test_boat_options():
    s = position(2, {"allow_empty_boat_launch": True})
    assert s.boat_units(1, 1, 0, 1) == 1
    s = position(2, {"boat2_allow_surplus_payment": False})
    assert s.boat_units(1, 0, 0, 1) == -1 and s.boat_units(3, 0, 0, 1) == 2
    s = position(2, {"fish_cost_per_fish": True}, order=[0, 1], res=[[5, 2, 0], [5, 5, 0]], cove=[T6, T4, T2])
    assert s.fish_cost(1) == 3 and not s.legal_mask()[A.MAIN_FISH]  # 3 feet, fishing boat holds 2


# ------------------------------------------------------------------ §12.5 islands
def test_island_visit_scores_dock_vp_reward_then_payment():
    s = position(2, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]], docks=[7, 0, 2, 8],
                 isl_stack=[1, 3, 4, 5, 6, 9], isl_up=[False] * 6, boats=[[1, 1], []],
                 boat_used=[[False, False, False], [False]])
    s.supply[21] -= 1
    visit(s, 0, boats=[1], pay=(3, 0))  # FRUIT4 at D1: 2 VP, 4 fruit, pays 3 fruit (boat 1 carries 3)
    assert s.vp[0] == 2 and s.res[0] == [5, 5, 1]
    assert s.docks[0] == -1 and s.isl_stack[-1] == 7 and s.isl_up[-1]
    end_round(s, 1)
    # player 0 again: D2 holds a 5-VP island (cost 4 needs the bought boat)
    visit(s, 1, pay=(0, 0))  # fishing boat 2 + boat 2 carry 4 feet
    assert s.vp[0] == 2 + 3 + 5 and s.res[0][1] == 1 and s.boat_used[0] == [True, True, True]


def test_island_reward_cannot_fund_payment_under_option():
    s = position(2, {"island_reward_funds_payment": False}, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]],
                 docks=[7, 0, 2, 8], isl_stack=[1, 3, 4, 5, 6, 9], isl_up=[False] * 6,
                 boats=[[1], []], boat_used=[[False, False], [False]])
    act(s, A.MAIN, A.MAIN_ISLAND)
    assert s.phase == A.BOATS and s.res[0][2] == 0  # the 4 fruit wait until the visit is paid
    boat_trip(s, [1], (0, 0))
    assert s.res[0][1] == 2 and s.res[0][2] == 4  # paid with feet alone; the fruit came afterwards


def test_unplaceable_island_reward_scores_dock_vp_only():
    s = position(2, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]], docks=[2, 0, 7, 8],
                 isl_stack=[1, 3, 4, 5, 6, 9], isl_up=[False] * 6,
                 boats=[[1], []], boat_used=[[False, False], [False]])
    s.supply[SHELL_HUT] = 0
    s.refresh()
    visit(s, 0)
    assert s.vp[0] == 2 and s.rows[0] == [[0]] and s.res[0][1] == 2
    s = position(2, {"island_requires_placeable_reward": True}, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]],
                 docks=[2, 0, 7, 8], isl_stack=[1, 3, 4, 5, 6, 9], isl_up=[False] * 6,
                 boats=[[1], []], boat_used=[[False, False], [False]])
    s.supply[SHELL_HUT] = 0
    s.refresh()
    assert not s.legal_mask()[A.MAIN_ISLAND]


def test_island_tiles_come_side_two_and_two_kahunas_fill_what_fits():
    s = position(2, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]], docks=[2, 6, 7, 8],
                 isl_stack=[0, 1, 3, 4, 5, 9], isl_up=[False] * 6, kahunas=[4, 0],
                 boats=[[1], []], boat_used=[[False, False], [False]])
    s.supply[KAHUNA] -= 4
    visit(s, 0)
    assert s.rows[0] == [[0, c(SHELL_HUT, 2)]]
    end_round(s, 1)
    s.res[0][1] = 10
    s.boats[0] = [1, 1]
    s.boat_used[0] = [False, False, False]
    s.refresh()
    visit(s, 3, pay=(0, 0))  # 2 Kahunas at D4 (cost 6): only space 5 is free
    assert s.kahunas[0] == 5 and s.res[0][0] == 5 + 2  # space 5 shows 2 shells


def test_fruit_tile_island_lets_the_visitor_choose_the_kind():
    s = position(2, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]], docks=[6, 0, 7, 8],
                 isl_stack=[1, 2, 3, 4, 5, 9], isl_up=[False] * 6,
                 boats=[[1], []], boat_used=[[False, False], [False]])
    act(s, A.MAIN, A.MAIN_ISLAND)
    assert legal_in(s, A.TILE) == [BREADFRUIT, TARO, COCONUT, BANANA]
    act(s, A.TILE, COCONUT)
    boat_trip(s, None, (0, 0))
    assert s.rows[0] == [[0, c(COCONUT, 2)]]


def test_islands_slide_left_and_refill_at_round_end():
    s = position(2, order=[0, 1], res=[[5, 5, 0], [5, 5, 0]], docks=[7, 0, 2, 8],
                 isl_stack=[1, 3, 4, 5, 6, 9], isl_up=[False] * 6,
                 boats=[[1], []], boat_used=[[False, False], [False]])
    visit(s, 0)
    end_round(s, 1)
    end_round(s, 0)
    assert s.round == 1
    assert s.docks[:3] == [0, 2, 8] and s.docks[3] == 1  # slid left, D4 refilled from the top
    assert s.isl_stack[-1] == 7 and s.isl_up[-1]


def test_island_reshuffle_when_a_visited_island_comes_up():
    # face-down islands on top are drawn as they lie
    s = position(2, docks=[-1, -1, -1, -1], isl_stack=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                 isl_up=[False] * 6 + [True] * 4)
    s.refill_docks()
    assert s.docks == [0, 1, 2, 3] and s.isl_up == [False, False, True, True, True, True]
    # on_draw: the next island is face up, so the whole stack is shuffled face down first
    s = position(2, docks=[-1, 0, 1, 2], isl_stack=[6, 7, 8, 9, 3, 4, 5], isl_up=[True] * 7)
    s.refill_docks()
    assert s.docks[:3] == [0, 1, 2] and s.docks[3] in (3, 4, 5, 6, 7, 8, 9)
    assert all(not u for u in s.isl_up) and len(s.isl_stack) == 6


def test_island_reshuffle_on_top_option():
    s = position(2, {"island_reshuffle": "on_top"}, docks=[-1, 0, 1, 2], isl_stack=[3, 4, 5, 6, 7, 8, 9],
                 isl_up=[False, True, True, True, True, True, True])
    s.refill_docks()
    assert s.docks[3] == 3 and all(not u for u in s.isl_up)


# ------------------------------------------------------------------ §13 payments: fruit and exchange huts
def test_fruit_replaces_a_payment_but_never_mixes():
    s = position(2, order=[0, 1], res=[[2, 5, 3], [5, 5, 0]])
    slot = slot_of(s, HULA_P)
    only_tokens(s, slot, [T3, -1])
    buy(s, slot)
    assert s.res[0] == [2, 5 - SLOT_ROW[slot], 0]  # 3 shells owed: paid wholly in fruit
    s = position(2, order=[0, 1], res=[[2, 5, 2], [5, 5, 0]])
    only_tokens(s, slot, [T3, -1])
    assert not s.legal_mask()[slot]  # 2 shells + 2 fruit cannot pay 3 without an exchange hut


def test_exchange_hut_allows_one_unit_of_another_resource():
    s = position(2, order=[0, 1], res=[[2, 5, 0], [5, 5, 0]])
    slot = slot_of(s, HULA_P)
    only_tokens(s, slot, [T3, -1])
    assert not s.legal_mask()[slot]  # 2 shells cannot pay 3
    s.rows[0] = [[0, c(EXCHANGE_HUT)]]
    s.refresh()
    assert s.legal_mask()[slot]
    buy(s, slot)  # the only way: 2 shells and 1 foot through the hut
    assert s.res[0] == [0, 5 - SLOT_ROW[slot] - 1, 0]
    s = position(2, order=[0, 1], res=[[3, 5, 0], [5, 5, 0]], loc=[slot, -1])
    s.rows[0] = [[0, c(EXCHANGE_HUT)]]
    s.refresh()
    only_tokens(s, slot, [T3, -1])
    act(s, A.MAIN, slot)
    if s.phase == A.PAY and len(s.payments) == 2:
        act(s, A.PAY, 0)
    if s.phase == A.SPLIT and len(s.payments) == 2:
        act(s, A.SPLIT, 0)
    assert s.phase == A.SPLIT and legal_in(s, A.SPLIT) == [0, 1]
    act(s, A.SPLIT, 1)
    assert s.res[0] == [1, 5 - 1 - 1, 0]
    assert s.hut_use(1, 1, 1) == (1, 0) and s.hut_use(2, 2, 1) == (0, 1) and s.hut_use(3, 1, 1) == (1, 1)
    assert s.hut_use(3, 1, 0) is None


@pytest.mark.parametrize("limit,free_after_move,free_next_turn", [
    ("per_turn", (0, 0), (1, 0)), ("per_payment", (1, 0), (1, 0)), ("per_round", (0, 0), (0, 0))])
def test_exchange_limit(limit, free_after_move, free_next_turn):
    s = position(2, {"exchange_limit": limit}, order=[0, 1], res=[[6, 0, 3], [5, 5, 0]])
    slot = slot_of(s, HULA_P)
    s.loc[0] = slot  # staying costs one foot: a fruit, or a shell through the hut
    s.rows[0] = [[0, c(EXCHANGE_HUT)]]
    s.refresh()
    only_tokens(s, slot, [T2, T3])
    act(s, A.MAIN, slot)
    act(s, A.TOKEN, 1)
    act(s, A.SIDE, 0)
    assert legal_in(s, A.PAY) == [0, 1] and len(s.payments) == 2
    act(s, A.PAY, 0)  # no fruit: the hut turns a shell into the foot
    assert s.res[0] == [5, 0, 3] and len(s.payments) == 1
    assert s.huts_free(0) == free_after_move
    act(s, A.PAY, 0)
    if s.phase == A.SPLIT:
        act(s, A.SPLIT, 0)
    assert s.res[0] == [2, 0, 3] and s.current_player == 1
    end_round(s, 1)
    assert s.current_player == 0 and s.huts_free(0) == free_next_turn


def test_hut_bought_this_turn_is_not_used_for_its_own_price():
    s = position(2, order=[0, 1], res=[[2, 5, 0], [5, 5, 0]])
    slot = slot_of(s, HUTS_B)
    only_tokens(s, slot, [T3, -1])
    assert not s.legal_mask()[slot]


# ------------------------------------------------------------------ §9 gods
def test_ku_scores_spear_tokens_and_gives_a_foot():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]], seq=[-1, T4S, -1, -1, -1])
    s.rows[0] = [[0, c(KU)]]
    s.refresh()
    end_round(s, 1)  # the sequence-track token has spears
    assert s.vp[0] == 1
    assert s.income(0)[1] == s.game.options["base_income"][0][1] + 1


def test_kane_income_and_tiki_offer():
    s = position(2, order=[0, 1], res=[[20, 10, 3], [20, 10, 0]], god_stacks=[[KU, KANE], [LONO]])
    slot = slot_of(s, GODS_P)
    only_tokens(s, slot, [T2, -1])
    act(s, A.MAIN, slot)
    assert legal_in(s, A.TILE) == [KANE, LONO]  # only the two visible tops
    act(s, A.TILE, KANE)
    while s.phase != A.KANE:
        act(s, s.phase, legal_in(s, s.phase)[0])
    assert legal_in(s, A.KANE) == [0, 1, 2, 3, 4, 5, 6]
    act(s, A.KANE, 5)  # pay one foot and one fruit
    assert s.tikis[0] == 1 and s.res[0][2] == 2 and s.god_stacks == [[KU], [LONO]]
    assert s.current_player == 1
    assert s.income(0)[0] == s.game.options["base_income"][0][0] + 1


def test_lono_scores_only_when_the_target_is_reached():
    s = position(2, order=[0, 1], held=[[T6, T4], [T6, T4]])
    s.rows[0] = [[0, c(LONO, 2)]]
    s.rows[1] = [[0, c(LONO)]]
    s.refresh()
    s.round_scoring()  # both reach 10 >= 9 and tie for first
    assert s.vp == [8 + 4, 8 + 2]
    s = position(2, order=[0, 1], held=[[T4], [T6, T4]])
    s.rows[0] = [[0, c(LONO, 2)]]
    s.refresh()
    s.round_scoring()
    assert s.vp == [0, 8]


def _final_example_1():
    s = position(2, tikis=[3, 0], kahunas=[3, 0], boats=[[1, 1, 1], []],
                 boat_used=[[False] * 4, [False]])
    s.rows[0] = [
        [0, c(SHELL_HUT)],
        [c(FOOT_HUT), c(HULA), c(BREADFRUIT), c(TARO), c(COCONUT), c(IRRIGATION), c(KANALOA)],
        [c(SHELL_HUT), c(LAKA, 2), c(BANANA), c(SURFER), c(SPEAR_HUT), c(EXCHANGE_HUT), c(FOOT_HUT)],
    ]
    s.refresh()
    return s


def test_final_scoring_rulebook_example_1_is_44():
    s = _final_example_1()
    assert s.scored_rows(0) == [1, 2]
    assert s.final_village_vp(0) == 15 + 8 + 8 + 7 + 6


def test_final_scoring_rulebook_example_2_is_42():
    s = position(2, tikis=[5, 0], kahunas=[2, 0])
    s.rows[0] = [
        [0, c(SHELL_HUT), c(HULA, 2), c(LAKA), c(FOOT_HUT)],
        [c(SPEAR_HUT), c(HULA), c(IRRIGATION), c(BREADFRUIT), c(TARO), c(COCONUT), c(BANANA), c(SURFER)],
        [c(EXCHANGE_HUT), c(KANALOA)],
    ]
    s.refresh()
    assert s.scored_rows(0) == [0, 1]  # Kanaloa's village misses the Tikis and is lost
    assert s.final_village_vp(0) == 10 + 4 + 10 + 8 + 10


def test_kanaloa_counts_starting_boat_option():
    s = _final_example_1()
    base = s.final_village_vp(0)
    t = position(2, {"kanaloa_counts_starting_boat": True}, tikis=[3, 0], kahunas=[3, 0],
                 boats=[[1, 1, 1], []], boat_used=[[False] * 4, [False]], rows=[s.rows[0], [[0]]])
    assert t.final_village_vp(0) == base + 2


def test_god_stacks_only_offer_their_tops():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]], god_stacks=[[KU, PELE], []])
    slot = slot_of(s, GODS_P)
    only_tokens(s, slot, [T2, -1])
    assert s.offered_tiles(slot) == [PELE]
    buy(s, slot)
    assert s.god_stacks == [[KU], []] and s.side_of(0, PELE) == 1


# ------------------------------------------------------------------ §9 tiles at the right time
def test_spear_hut_scores_later_spear_tokens_but_not_its_own():
    s = position(2, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]], seq=[-1, T4S, -1, -1, -1])
    slot = slot_of(s, HUTS_B)
    only_tokens(s, slot, [T3S, -1])
    buy(s, slot, tile=SPEAR_HUT, row=0)
    assert s.vp[0] == 0 and s.side_of(0, SPEAR_HUT) == 1  # its own spear token does not count
    end_round(s, 0)
    end_round(s, 1)  # player 0 takes the spear token of space 2: now the hut scores
    assert s.vp[0] == 1 and s.vp[1] == 0  # round sums 7 and 0 miss the target 9
    s = position(2, {"spear_bonus_on_buying_token": True}, order=[0, 1], res=[[20, 10, 0], [20, 10, 0]])
    only_tokens(s, slot, [T3S, -1])
    buy(s, slot, tile=SPEAR_HUT, row=0)
    assert s.vp[0] == 1


def test_spear_huts_add_up_on_the_pass_token_and_options():
    s = position(2, order=[0, 1], seq=[-1, T4S, -1, -1, -1])
    s.rows[0] = [[0, c(SPEAR_HUT, 2)], [c(SPEAR_HUT)]]
    s.refresh()
    end_round(s, 1)
    assert s.vp[0] == 3
    s = position(2, {"spear_bonus_on_pass_token": False}, order=[0, 1], seq=[-1, T4S, -1, -1, -1])
    s.rows[0] = [[0, c(SPEAR_HUT, 2)]]
    s.refresh()
    end_round(s, 1)
    assert s.vp[0] == 0
    s = position(2, {"spear_bonus_on_fish_token": True}, order=[0, 1], cove=[T6S, T2], res=[[5, 5, 0], [5, 5, 0]])
    s.rows[0] = [[0, c(SPEAR_HUT)]]
    s.refresh()
    fish(s, 1)
    assert s.vp[0] == 1
    s = position(2, order=[0, 1], cove=[T6S, T2], res=[[5, 5, 0], [5, 5, 0]])
    s.rows[0] = [[0, c(SPEAR_HUT)]]
    s.refresh()
    fish(s, 1)
    assert s.vp[0] == 0


def test_long_hut_width_and_side_two_bonus():
    s = position(2, tikis=[1, 0])
    s.rows[0] = [[0, c(LONG_HUT, 2), c(SHELL_HUT), c(FOOT_HUT), c(HULA), c(SURFER), c(TARO), c(BANANA)]]
    s.refresh()
    assert s.row_columns(s.rows[0][0]) == 9  # the long hut takes 2 columns
    assert s.scored_rows(0) == [0]  # 9 + 1 Tiki reaches column 9
    assert s.final_village_vp(0) == 5 + 8  # long hut II + hula I over 8 tiles
    t = position(2, {"long_hut_width": 1}, tikis=[1, 0], rows=[s.rows[0], [[0]]])
    assert t.scored_rows(0) == []


def test_surfers_lower_the_target_and_stack():
    s = position(2, held=[[T3, T2], [T6]])
    s.rows[0] = [[0, c(SURFER, 2)], [c(SHELL_HUT), c(SURFER)]]
    s.refresh()
    assert s.target_of(0) == 9 - 6
    s.round_scoring()
    assert s.vp == [8, 0]  # 5 >= 3 while player 1's 6 misses 9
    t = position(2, {"surfers_stack": False}, rows=[s.rows[0], [[0]]])
    assert t.target_of(0) == 9 - 4


def test_income_of_tiles_and_irrigation_choice():
    s = position(2, order=[0, 1])
    s.rows[0] = [[0, c(SHELL_HUT, 2), c(BREADFRUIT), c(TARO, 2), c(IRRIGATION, 2)], [c(FOOT_HUT), c(KANE, 2)]]
    s.refresh()
    base = s.game.options["base_income"][0]
    assert s.income(0) == [base[0] + 2 + 2, base[1] + 1, 3]
    res0 = list(s.res[0])
    end_round(s, 0)
    end_round(s, 1)
    assert s.phase == A.IRRIG and s.current_player == 0
    act(s, A.IRRIG, 2)  # take a fruit
    assert s.round == 1 and s.phase == A.MAIN
    assert s.res[0] == [res0[0] + base[0] + 4, res0[1] + base[1] + 1, res0[2] + 3 + 1]


def test_irrigation_and_hula_scoring():
    s = position(2, tikis=[6, 0])
    s.rows[0] = [[0, c(IRRIGATION), c(BREADFRUIT), c(TARO)], [c(FOOT_HUT), c(HULA, 2), c(IRRIGATION), c(SURFER)],
                 [c(SHELL_HUT), c(HULA)]]
    s.refresh()
    assert s.scored_rows(0) == [0, 1]  # 4 columns + 6 Tikis; the 2-column village misses
    assert s.final_village_vp(0) == 3 + (2 * 4 + 0)


# ------------------------------------------------------------------ §14.1 round scoring
def _round(n, sums, options=None, **fields):
    held = []
    for v in sums:
        held.append([{2: T2, 3: T3, 4: T4, 5: T5, 6: T6}[x] for x in v])
    s = position(n, options, held=held, **fields)
    s.round_scoring()
    return s.vp


def test_round_scoring_first_second_and_reached():
    assert _round(3, [[6, 6], [6, 4], [5, 4]]) == [8, 5, 2]
    assert _round(3, [[6, 4], [6, 4], [5, 4]]) == [8, 8, 2]  # tie for first: nobody second
    assert _round(4, [[6, 6], [6, 4], [6, 4], [4, 4]]) == [8, 5, 5, 0]  # tie for second, 8 misses 9
    assert _round(2, [[4, 4], [2]]) == [0, 0]


def test_round_scoring_ranks_only_players_who_reached_their_target():
    rows = [[[0]], [[0, c(SURFER, 2)]], [[0]]]
    assert _round(3, [[4, 4], [4, 3], [2]], rows=rows) == [0, 8, 0]
    assert _round(3, [[4, 4], [4, 3], [2]], {"rank_among_eligible_only": False}, rows=rows) == [0, 5, 0]


def test_round_five_bonus_for_sequence_space_one():
    assert _round(2, [[2], [2]], round=4, passed=[0, 1]) == [2, 0]
    assert _round(2, [[2], [2]], {"final_bonus_pass_pos1": 0}, round=4, passed=[0, 1]) == [0, 0]
    assert _round(2, [[2], [2]], {"pass_pos1_bonus_requires_target": True}, round=4, passed=[0, 1]) == [0, 0]
    assert _round(2, [[2], [6, 6, 6]], round=4, passed=[1, 0]) == [0, 12 + 2]


# ------------------------------------------------------------------ §11.3 / §14.2 end of round and income
def test_end_of_round_income_order_and_new_layout():
    s = position(3, order=[0, 1, 2], res=[[1, 1, 0], [1, 1, 0], [1, 1, 0]])
    s.rows[1] = [[0, c(FOOT_HUT, 2)]]
    s.refresh()
    end_round(s, 2)
    end_round(s, 0)
    end_round(s, 1)
    assert s.round == 1 and s.order == [1, 2, 0]
    base = s.game.options["base_income"][0]
    assert s.res[0] == [1 + base[0], 1 + base[1], 0] and s.res[1][1] == 1 + base[1] + 2
    assert s.passed == [-1, -1, -1] and s.current_player == 1
    assert all(not h for h in s.held) and sum(x >= 0 for x in s.seq) == 2
    assert s.round_sum(0) == 0


def test_no_income_after_round_five_and_game_end():
    s = position(2, order=[0, 1], round=4, res=[[1, 1, 0], [1, 1, 0]])
    end_round(s, 0)
    end_round(s, 1)
    assert s.is_terminal() and s.res == [[1, 1, 0], [1, 1, 0]]
    s = position(2, {"income_after_round5": True}, order=[0, 1], round=4, res=[[1, 1, 0], [1, 1, 0]])
    end_round(s, 0)
    end_round(s, 1)
    assert s.is_terminal() and s.res[0] == [1, 1, 0]  # no base income listed for round 5
    s.rows[0] = [[0, c(SHELL_HUT)]]
    s.refresh()
    assert s.income(0)[0] == 1


# ------------------------------------------------------------------ §8 village qualification
def test_villages_score_only_under_a_tiki():
    s = position(2)
    s.rows[0] = [[0, c(SHELL_HUT), c(HULA)], [c(FOOT_HUT)] + [c(t) for t in (BREADFRUIT, TARO, COCONUT, BANANA,
                                                                               SURFER, HULA)]]
    s.refresh()
    assert s.scored_rows(0) == []  # no Tiki: nothing scores
    s.tikis[0] = 3
    assert s.scored_rows(0) == [1]  # 7 columns + 3 Tikis reach column 9
    s.tikis[0] = 6
    assert s.scored_rows(0) == [1]  # 3 columns + 6 < 10
    s.rows[0][0].append(c(SURFER))
    assert s.scored_rows(0) == [0, 1]
    t = position(2, {"tiki_space1_column": 5}, tikis=[1, 0], rows=[s.rows[0], [[0]]])
    assert t.scored_rows(0) == [1]


# ------------------------------------------------------------------ §15 winner and tie-break
def test_tie_break_by_remaining_resources_then_shared():
    s = position(3, vp=[30, 30, 10], vp_parts=[[30, 0, 0, 0], [30, 0, 0, 0], [10, 0, 0, 0]],
                 res=[[1, 2, 3], [2, 2, 3], [9, 9, 9]])
    s.terminal, s.current_player = True, -1
    assert s.winners() == [1] and s.placements() == [1, 0, 2]
    s.res[1] = [1, 2, 3]
    assert s.winners() == [0, 1]
    assert np.allclose(s.returns("win"), [0.5, 0.5, -1.0])
    t = position(3, {"tiebreak_remaining_resources": False}, vp=[30, 30, 10], res=[[1, 2, 3], [2, 2, 3], [9, 9, 9]])
    t.terminal, t.current_player = True, -1
    assert t.winners() == [0, 1]


def test_turn_order_follows_the_sequence_track_and_skips_ended_players():
    s = position(3, order=[2, 0, 1])
    assert s.current_player == 2
    end_round(s, 0)
    assert s.current_player == 0
    fish_ok = s.legal_mask()[A.MAIN_FISH]
    end_round(s, 2)
    assert s.current_player == 1
    end_round(s, 1)
    assert s.round == 1 and s.order == [2, 1, 0]
    assert isinstance(fish_ok, np.bool_)
