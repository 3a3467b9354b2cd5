"""Every rule option (each ASSUMPTION of the rules file) changes behaviour as documented; bad values are refused."""

import json

import numpy as np
import pytest
from hawaii_helpers import buy, end_round, position, slot_of

from meeplezoo.envs.hawaii.components import (
    BOAT,
    FRUIT_TYPES,
    GOD_TYPES,
    IRRIGATION,
    KAHUNA,
    LONG_HUT,
    PLACE_OFFERS,
    SHELL_HUT,
    TIKI,
)
from meeplezoo.envs.hawaii.state import OPTIONS, HawaiiGame

T2, T3 = 2, 7


def c(t, side=1):
    return t * 2 + side - 1


def test_every_option_has_a_default_and_a_doc():
    g = HawaiiGame(2)
    assert {o.name for o in OPTIONS} == set(g.options)
    for o in OPTIONS:
        assert o.doc
    assert g.non_default_options == {}
    assert HawaiiGame(**g.config) == g


def test_place_set_b_separates_long_hut_and_irrigation():
    s = position(2, {"place_set": "B"})
    offers = {PLACE_OFFERS[p] for p in s.slot_place}
    assert (LONG_HUT,) in offers and (IRRIGATION,) in offers and (KAHUNA, TIKI) in offers
    s = position(2)
    offers = {PLACE_OFFERS[p] for p in s.slot_place}
    assert (LONG_HUT, IRRIGATION) in offers and (KAHUNA,) in offers and (TIKI,) in offers


def test_gods_per_kind():
    s = position(2, {"gods_per_kind": 1})
    assert sorted(s.god_stacks[0] + s.god_stacks[1]) == sorted(GOD_TYPES)
    s = position(2)
    assert len(s.god_stacks[0]) == len(s.god_stacks[1]) == 6


def test_fruit_kind_choice_on_purchase():
    s = position(2, order=[0, 1])
    slot = slot_of(s, 4)
    assert s.offered_tiles(slot) == list(FRUIT_TYPES)
    s.supply[FRUIT_TYPES[0]] = 1
    t = position(2, {"fruit_kind_choice_on_purchase": False}, order=[0, 1])
    t.supply[FRUIT_TYPES[0]] = 1
    assert t.offered_tiles(slot) == [FRUIT_TYPES[1]]  # the kind with most tiles left


def test_round_data_options():
    opts = {"round_targets": [3, 4, 5, 6, 7], "round_vp": [[1, 1, 1]] * 5, "base_income": [[1, 2], [0, 0], [0, 0],
                                                                                          [0, 0]]}
    s = position(2, opts, order=[0, 1], held=[[T3], [T2]], res=[[0, 0, 0], [0, 0, 0]])
    s.round_scoring()
    assert s.vp == [1, 0]
    assert s.income(0) == [1, 2, 0]


def test_start_resources_and_docks():
    g = HawaiiGame(3, start_shells=5, start_feet=2, start_fruit_by_position=[1, 1, 1, 1, 1],
                   dock_cost=[1, 1, 1, 1], dock_vp=[9, 9, 9, 9])
    s = g.new_state(0)
    assert s.res == [[5, 2, 1]] * 3
    assert s.legal_mask()[11:15].all()  # the fishing boat carries a 1-foot visit anywhere


def test_max_boats():
    s = position(2, {"max_boats": 1}, order=[0, 1], boats=[[1], []], boat_used=[[False, False], [False]])
    assert not s.can_place(0, BOAT, False)
    s = position(2, order=[0, 1], boats=[[1], []], boat_used=[[False, False], [False]])
    assert s.can_place(0, BOAT, False)


def test_beach_as_waypoint_never_shortens_this_board():
    for slot_from in range(10):
        a = position(2, loc=[slot_from, -1])
        b = position(2, {"beach_as_waypoint": True}, loc=[slot_from, -1])
        assert [a.move_cost(0, x) for x in range(10)] == [b.move_cost(0, x) for x in range(10)]


def test_kahuna_tiki_and_irrigation_tables():
    s = position(2, {"kahuna_vp": [1, 2, 3, 4, 6], "irrigation_vp": [0, 2, 4, 6, 8],
                     "kahuna_bonus_shells": [3, 0, 0, 0, 0], "tiki_bonus_feet": [4, 0, 0, 0, 0, 0]},
                 tikis=[6, 0], kahunas=[1, 0], order=[0, 1], res=[[20, 10, 0], [20, 10, 0]])
    s.rows[0] = [[0, c(IRRIGATION), c(FRUIT_TYPES[0]), c(SHELL_HUT)]]
    s.refresh()
    assert s.final_village_vp(0) == 1 + 2
    t = position(2, {"kahuna_bonus_shells": [3, 0, 0, 0, 0], "tiki_bonus_feet": [4, 0, 0, 0, 0, 0]}, order=[0, 1],
                 res=[[20, 10, 0], [20, 10, 0]])
    kslot = slot_of(t, 7)
    for circ in t.circles:
        circ[:] = [-1, -1, -1]
    t.circles[kslot][0] = T2
    t.refresh()
    buy(t, kslot)
    assert t.res[0][0] == 20 - 2 + 3


def test_income_after_round_five_option():
    for flag, shells in ((False, 1), (True, 2)):
        s = position(2, {"income_after_round5": flag}, order=[0, 1], round=4, res=[[1, 1, 0], [1, 1, 0]])
        s.rows[0] = [[0, c(SHELL_HUT)]]
        s.refresh()
        end_round(s, 0)
        end_round(s, 1)
        assert s.is_terminal() and s.res[0][0] == shells


@pytest.mark.parametrize("bad", [
    {"place_set": "C"}, {"exchange_limit": "never"}, {"gods_per_kind": 3}, {"round_targets": [9, 11]},
    {"round_vp": [[1, 2, 3]] * 4}, {"dock_cost": [3, 4, 5, "6"]}, {"kahuna_vp": [5, 5, 10, 10, -1]},
    {"printed_start_hut": 1}, {"island_reshuffle": "sometimes"}, {"tiki_bonus_feet": [0, 1]},
    {"max_boats": 9}, {"no_such_option": True},
])
def test_bad_options_are_refused_naming_the_option(bad):
    with pytest.raises(ValueError) as err:
        HawaiiGame(2, **bad)
    assert next(iter(bad)) in str(err.value)


@pytest.mark.parametrize("n", [1, 6, 0, "2", 2.0, True])
def test_bad_player_counts(n):
    with pytest.raises(ValueError):
        HawaiiGame(n)


def test_list_options_survive_json():
    g = HawaiiGame(3, round_targets=(8, 10, 12, 14, 16), dock_vp=[1, 2, 3, 4])
    s = g.new_state(2)
    back = type(s).from_json(s.to_json())
    assert back.game == g and back.game.options["round_targets"] == [8, 10, 12, 14, 16]
    assert json.loads(s.to_json())["config"]["dock_vp"] == [1, 2, 3, 4]
    assert np.array_equal(back.observe(0), s.observe(0))


def test_token_mix_options():
    g = HawaiiGame(2)
    assert sum(g.token_spear) == 10 and [g.token_fish[t] for t in (0, 5, 10, 15, 20)] == [1, 1, 2, 2, 3]
    g = HawaiiGame(2, spear_tokens_per_value=0, token_fish_by_value=[3, 3, 1, 1, 1])
    assert not any(g.token_spear) and [g.token_fish[t] for t in (0, 5, 10, 15, 20)] == [3, 3, 1, 1, 1]
    s = position(2, {"token_fish_by_value": [3, 3, 1, 1, 1]}, order=[0, 1], cove=[22, 2], res=[[5, 5, 0], [5, 5, 0]])
    assert s.cove == [22, 2]  # as set; a new layout sorts by fish
    s.cove.sort(key=lambda t: -s.game.token_fish[t])
    assert s.cove == [2, 22]
    # without spear tokens a spear hut never scores
    s = position(2, {"spear_tokens_per_value": 0}, order=[0, 1], seq=[-1, 10, -1, -1, -1])
    s.rows[0] = [[0, c(3)]]
    s.refresh()
    end_round(s, 1)
    assert s.vp[0] == 0


def test_pass_positions_option():
    s = position(2)
    assert [a - 15 for a in s.legal_actions() if a >= 15] == [0, 1]
    s = position(2, {"pass_positions": "all"}, order=[0, 1])
    assert [a - 15 for a in s.legal_actions() if a >= 15] == [0, 1, 2, 3, 4]
    end_round(s, 4)
    end_round(s, 2)
    assert s.round == 1 and s.order == [1, 0]
    assert type(s).from_json(s.to_json()).to_json() == s.to_json()


def test_board_adjacency_option_changes_movement_costs():
    from meeplezoo.envs.hawaii.components import SLOT_ADJ

    adj = [list(a) for a in SLOT_ADJ]
    adj[0].append(8)  # a path from P1 straight up to P9
    adj[8].append(0)
    s = position(2, {"board_adjacency": adj}, loc=[0, -1])
    assert s.move_cost(0, 8) == 1 and s.move_cost(1, 8) == 2  # from the beach: P1, then P9
    # a chain P1-P3-P4-...: P1 and P2 far apart, unless the beach may be crossed
    chain = [[2], [9], [0, 3], [2, 4], [3, 5], [4, 6], [5, 7], [6, 8], [7, 9], [8, 1]]
    a = position(2, {"board_adjacency": chain}, loc=[0, -1])
    b = position(2, {"board_adjacency": chain, "beach_as_waypoint": True}, loc=[0, -1])
    assert a.move_cost(0, 1) == 9 and b.move_cost(0, 1) == 2


@pytest.mark.parametrize("adj", [
    [[1]] * 10,  # not symmetric
    [[1], [0], [3], [2], [5], [4], [7], [6], [9], [8]],  # P3..P10 unreachable from the beach
    [[0]] + [[]] * 9,  # a slot next to itself
    [[1, 2]] * 9,  # 9 slots
])
def test_bad_board_adjacency_is_refused(adj):
    with pytest.raises(ValueError, match="board_adjacency"):
        HawaiiGame(2, board_adjacency=adj)
