"""One test (or a few) per rule section of docs/rules/asara.md, from hand-made positions."""

import pytest
from asara_helpers import act, add_tower, give, names, position

from meeplezoo.envs.asara import components as C
from meeplezoo.envs.asara.state import PH_AREA, PH_BUILD, AsaraGame, award

BR, GR, RD, BK, WH = range(5)
BASE, TRUNK, WINDOW, TURRET = C.BASE, C.TRUNK, C.WINDOW, C.TURRET


# -- 3. Setup ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_money_hands_caliph_displays(n):
    for seed in range(5):
        s = AsaraGame(n).new_state(seed)
        sp = s.start_player
        assert s.caliph == sp and s.current_player == sp and s.year == 1
        assert [s.money[(sp + i) % n] for i in range(n)] == [20 + i for i in range(n)]
        assert s.hand_n == [C.HAND_SIZE[n]] * n
        assert len(s.deck) == 45 - n * C.HAND_SIZE[n]
        for t in range(4):
            assert sum(s.display[t * 10: t * 10 + 10]) == 6
            assert len(s.piles[t]) == 5 * C.SECTIONS_PER_MATERIAL[C.TYPES[t]] - 6
        assert s.lit_stack == []
    s = AsaraGame(n, version="professional").new_state(1)
    assert sorted(s.lit_stack) == sorted([m for m in range(5) for _ in range(3)])


# -- 5.1 Dispatching a buyer: follow suit and face-down pairs --------------------------------
def test_first_card_sets_lead_suit_then_follow_or_pair():
    s = position(2, hands={0: [2, 1, 0, 0, 0], 1: [0, 1, 1, 0, 0]})
    act(s, "go Bank")
    assert names(s) == {"lay S0", "lay S1"}  # empty area: any single card, no pair
    act(s, "lay S0")
    assert s.lead[C.BANK] == 0 and s.money[0] == 42
    assert s.current_player == 1
    act(s, "go Bank")  # no S0 in hand: only a face-down pair of any two cards (rulebook example)
    assert names(s) == {"lay pair S1+S2 face down"}
    act(s, "lay pair S1+S2 face down")
    assert s.money[1] == 40 and s.lead[C.BANK] == 0  # a pair never changes the lead suit
    assert s.laid_down[5 + 1] == 1 and s.laid_down[5 + 2] == 1 and s.hand_n[1] == 0


def test_pair_allowed_when_unwilling_to_follow_and_variant_only_when_lacking():
    for lacking_only, expected in ((False, {"lay S0", "lay pair S0+S1 face down", "lay pair S0+S2 face down",
                                            "lay pair S1+S2 face down"}), (True, {"lay S0"})):
        s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [1, 1, 1, 0, 0]}, pair_only_if_lacking_suit=lacking_only)
        act(s, "go Bank")
        act(s, "lay S0")
        act(s, "go Bank")
        assert names(s) == expected


def test_single_card_of_other_suit_never_legal_and_area_masked_without_option():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [0, 1, 0, 0, 0]})
    act(s, "go Bank")
    act(s, "lay S0")
    assert "go Bank" not in names(s)  # one S1 card: no follow, no pair
    assert "go Five" in names(s)  # the 5-Asari building always takes a card


def test_pair_in_empty_area_option():
    s = position(2, hands={0: [1, 1, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, allow_pair_in_empty_area=True)
    act(s, "go Bank")
    assert "lay pair S0+S1 face down" in names(s)
    act(s, "lay pair S0+S1 face down")
    assert s.lead[C.BANK] == -1  # the first face-up card will set it
    act(s, "go Bank")
    act(s, "lay S0")
    assert s.lead[C.BANK] == 0 and s.money[1] == 40


def test_five_asari_building_any_single_card_face_down_unlimited():
    s = position(2, hands={0: [1, 1, 1, 1, 0], 1: [0, 0, 0, 3, 0]})
    for _ in range(3):
        act(s, "go Five")
        assert all(not x.startswith("lay pair") for x in names(s))
        act(s, s.action_name(s.legal_actions()[0]))
        act(s, "go Five")
        act(s, "lay S3")
    assert s.money == [45, 45] and s.five_by == [3, 3]
    assert s.lead[C.FIVE] == -1 and sum(s.laid_up) == 0 and sum(s.laid_down) == 6


# -- 5.7 / A-14 Bank order ----------------------------------------------------------------
def test_bank_pays_12_10_8_then_full():
    s = position(2, hands={0: [3, 0, 0, 0, 0], 1: [3, 0, 0, 0, 0]}, money=[0, 0])
    act(s, "go Bank")
    act(s, "lay S0")
    act(s, "go Bank")
    act(s, "lay S0")
    act(s, "go Bank")
    act(s, "lay S0")
    assert s.money == [20, 10]
    assert "go Bank" not in names(s)


def test_bank_space_choice_option():
    s = position(2, hands={0: [3, 0, 0, 0, 0], 1: [3, 0, 0, 0, 0]}, money=[0, 0], bank_auto_highest=False)
    act(s, "go Bank")
    act(s, "lay S0")
    assert names(s) == {"space 1", "space 2", "space 3"}
    act(s, "space 3")
    assert s.money[0] == 8
    act(s, "go Bank")
    act(s, "lay S0")
    assert names(s) == {"space 1", "space 2"}


# -- 5.3 Markets --------------------------------------------------------------------------------
def _market(s, t, kinds):
    s.display[t * 10: t * 10 + 10] = [0] * 10
    for x in kinds:
        s.display[t * 10 + x] += 1


def test_market_black_trunk_costs_6_and_display_not_refilled():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    _market(s, TRUNK, [2 * BK, 2 * BK + 1, 2 * BR])
    act(s, "go TrunkMkt")
    act(s, "lay S0")
    assert names(s) == {"buy black", "buy black gold", "buy brown", "decline purchase"}
    act(s, "buy black")
    assert s.money[0] == 24 and s.reserve[TRUNK * 10 + 2 * BK] == 1
    assert sum(s.display[10:20]) == 2  # bought tiles are not replaced during the year
    act(s, "go TrunkMkt")
    act(s, "lay S0")
    act(s, "buy black gold")  # gold costs the same
    assert s.money[1] == 24 and s.reserve[C.NUM_KINDS + TRUNK * 10 + 2 * BK + 1] == 1


def test_market_only_affordable_tiles_and_decline_option():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, money=[5, 2])
    _market(s, BASE, [2 * BK, 2 * WH, 2 * BR])
    act(s, "go BaseMkt")
    act(s, "lay S0")
    assert names(s) == {"buy brown", "decline purchase"}
    s2 = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, money=[2, 2], allow_decline_market=False)
    _market(s2, BASE, [2 * BK])
    assert "go BaseMkt" not in names(s2)
    s2.money[0] = 6
    s2.refresh()
    act(s2, "go BaseMkt")
    act(s2, "lay S0")
    assert names(s2) == {"buy black"}


def test_market_has_four_card_spaces():
    s = position(2, hands={0: [3, 0, 0, 0, 0], 1: [3, 0, 0, 0, 0]}, money=[0, 0])
    for _ in range(2):
        for _p in range(2):
            act(s, "go WinMkt")
            act(s, "lay S0")
            act(s, "decline purchase")
    assert "go WinMkt" not in names(s)


# -- 5.4 Building circle: plot choice -------------------------------------------------------------
def test_plot_k_then_next_higher_plot_costs_more_but_builds_k():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    for p in (0, 1):
        give(s, p, BASE, BR)
        give(s, p, TURRET, BR)
    act(s, "build 2")
    act(s, "lay S0")
    assert s.money[0] == 28 and s.phase == PH_BUILD
    act(s, "base Br (new tower)")
    act(s, "turret Br on tower Br1")
    assert s.prestige[0] == 2 and s.current_player == 1
    act(s, "build 2")
    act(s, "lay S0")
    assert s.money[1] == 27  # plot 2 taken: plot 3 is used and paid
    act(s, "base Br (new tower)")
    act(s, "turret Br on tower Br1")
    assert s.prestige[1] == 2
    st = s.game.area_start[C.CIRCLE]
    assert s.space_owner[st + 1] == 0 and s.space_owner[st + 2] == 1


def test_build_masked_without_vacant_plot_or_money():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    give(s, 0, BASE, BR)
    give(s, 0, TURRET, BR)
    st = s.game.area_start[C.CIRCLE]
    for i in range(1, 7):
        s.space_owner[st + i] = 1
        s.space_card[st + i] = 0
    s.lead[C.CIRCLE] = 0
    s.refresh()
    assert "build 2" not in names(s)
    s.space_owner[st + 6] = -1
    s.refresh()
    assert "build 2" in names(s)  # moves up to plot 7
    s.money[0] = 6
    s.refresh()
    assert "build 2" not in names(s)  # plot 7 costs 7


def test_voluntary_higher_plot_option():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, allow_voluntary_higher_plot=True)
    give(s, 0, BASE, BR)
    give(s, 0, TURRET, BR)
    act(s, "build 2")
    act(s, "lay S0")
    assert names(s) == {f"space {i}" for i in range(2, 8)}
    act(s, "space 5")
    assert s.money[0] == 25


# -- 5.4 Tower rules ----------------------------------------------------------------------------
def test_rulebook_build_example_white_tower_and_black_window():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    add_tower(s, 0, BK)
    for t, m in ((BASE, WH), (TURRET, WH), (WINDOW, BK), (TRUNK, RD)):
        give(s, 0, t, m)
    assert "build 3" in names(s) and "build 4" not in names(s)  # the red trunk cannot be used
    act(s, "build 3")
    act(s, "lay S0")
    assert s.money[0] == 27
    assert names(s) == {"base Wh (new tower)", "window Bk on tower Bk1"}
    act(s, "base Wh (new tower)")
    assert names(s) == {"turret Wh on tower Wh1", "window Bk on tower Bk1"}
    act(s, "window Bk on tower Bk1")
    assert names(s) == {"turret Wh on tower Wh1"}
    act(s, "turret Wh on tower Wh1")
    assert s.prestige[0] == 3 and s.phase == PH_AREA and s.current_player == 1
    heights = sorted(s.tower_height(rec) for _m, _s, rec in s.towers_of(0))
    assert heights == [2, 3]
    assert s.reserve[TRUNK * 10 + 2 * RD] == 1


def test_build_mask_avoids_dead_end_green_base_masked_at_k3():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    for t, m in ((BASE, RD), (TURRET, RD), (TRUNK, RD), (BASE, GR), (TURRET, GR)):
        give(s, 0, t, m)
    assert {"build 2", "build 3", "build 4", "build 5"} <= names(s) and "build 1" not in names(s)
    act(s, "build 3")
    act(s, "lay S0")
    assert names(s) == {"base Rd (new tower)"}


def test_one_turret_cannot_close_two_towers_and_no_parts_across_materials():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    give(s, 0, BASE, RD, count=2)
    give(s, 0, TURRET, RD)
    assert "build 2" in names(s) and "build 3" not in names(s) and "build 4" not in names(s)
    s2 = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    add_tower(s2, 0, BK)
    give(s2, 0, TRUNK, RD)  # a red middle part has no red tower to go into
    assert not any(x.startswith("build") for x in names(s2))


def test_middles_inserted_into_complete_towers_and_chosen_tower_of_same_material():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    add_tower(s, 0, RD)
    add_tower(s, 0, RD, trunks=2)
    give(s, 0, TRUNK, RD, gold=1)
    act(s, "build 1")
    act(s, "lay S0")
    assert names(s) == {"trunk Rd gold on tower Rd1", "trunk Rd gold on tower Rd2"}
    act(s, "trunk Rd gold on tower Rd1")
    hs = [s.tower_height(rec) for _m, _s, rec in s.towers_of(0)]
    assert hs == [3, 4] and s.prestige[0] == 1 and s.money[0] == 29


def test_open_tower_must_get_its_turret_within_the_action():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    for t in (BASE, TURRET, TRUNK, WINDOW):
        give(s, 0, t, RD)
    act(s, "build 3")
    act(s, "lay S0")
    act(s, "base Rd (new tower)")
    act(s, "trunk Rd on tower Rd1")
    assert names(s) == {"turret Rd on tower Rd1"}  # the last step must close the tower
    act(s, "turret Rd on tower Rd1")
    assert s.reserve[WINDOW * 10 + 2 * RD] == 1 and s.prestige[0] == 3


def test_build_up_to_k_option_allows_stop():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, build_exact_k=False)
    give(s, 0, BASE, RD)
    give(s, 0, TURRET, RD)
    assert "build 3" in names(s)
    act(s, "build 3")
    act(s, "lay S0")
    act(s, "base Rd (new tower)")
    assert "stop building" not in names(s)  # the open tower needs its turret first
    act(s, "turret Rd on tower Rd1")
    act(s, "stop building")
    assert s.prestige[0] == 2 and s.money[0] == 27 and s.current_player == 1


# -- 5.5 House of Spies --------------------------------------------------------------------------
def test_spies_rulebook_example_fee_3_and_black_turret_6():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]})
    s.piles[TURRET] = [2 * BK, 2 * BR, 2 * RD]
    s.piles[BASE] = []
    act(s, "go Spies")
    act(s, "lay S0")
    assert "search base pile" not in names(s)  # an empty pile cannot be searched
    assert "decline spying" in names(s)
    act(s, "search turret pile")
    assert s.money[0] == 27
    act(s, "bribe black")
    assert s.money[0] == 21 and s.reserve[TURRET * 10 + 2 * BK] == 1
    assert sorted(s.piles[TURRET]) == [2 * BR, 2 * RD]
    act(s, "go Spies")  # second space costs 5
    act(s, "lay S0")
    act(s, "search turret pile")
    act(s, "take nothing")
    assert s.money[1] == 25  # the fee is not refunded
    assert "go Spies" not in names(s)


def test_spies_empty_pile_option():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, spy_allow_empty_pile=True)
    s.piles[BASE] = []
    act(s, "go Spies")
    act(s, "lay S0")
    act(s, "search base pile")
    assert names(s) == {"take nothing"} and s.money[0] == 27


def test_spies_decline_before_fee_and_option():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, money=[2, 30])
    act(s, "go Spies")
    act(s, "lay S0")
    assert names(s) == {"decline spying"}  # fee 3 unaffordable
    act(s, "decline spying")
    assert s.money[0] == 2
    s2 = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, money=[2, 30], allow_decline_spies=False)
    assert "go Spies" not in names(s2)


# -- 5.6 Caliph, 6 end of year, 7 new year -----------------------------------------------------------
def test_caliph_moves_at_once_turn_order_changes_next_year():
    s = position(3, hands={0: [1, 0, 0, 0, 0], 1: [1, 0, 0, 0, 0], 2: [1, 0, 0, 0, 0]}, money=[0, 0, 0])
    s.caliph = 0
    s.start_player = 0
    act(s, "go Five")
    act(s, "lay S0")
    act(s, "go Caliph")
    act(s, "lay S0")
    assert s.caliph == 1 and s.current_player == 2  # this year's order is unchanged
    act(s, "go Five")
    act(s, "lay S0")
    # year over: +1 PP for the Caliph; the new year starts with him
    assert s.year == 2 and s.prestige == [0, 1, 0]
    assert s.current_player == 1 and s.start_player == 1
    assert s.money == [25, 20, 25]  # +5 from the building, +20 income each
    assert s.hand_n == [8, 8, 8] and len(s.deck) == 45 - 24
    assert all(x == -1 for x in s.space_owner) and all(x == -1 for x in s.lead)
    for t in range(4):
        assert sum(s.display[t * 10: t * 10 + 10]) == 6


def test_caliph_retake_option():
    s = position(2, hands={0: [1, 0, 0, 0, 0], 1: [1, 0, 0, 0, 0]})
    s.caliph = 0
    assert "go Caliph" in names(s)
    s2 = position(2, hands={0: [1, 0, 0, 0, 0], 1: [1, 0, 0, 0, 0]}, caliph_holder_may_retake=False)
    s2.caliph = 0
    assert "go Caliph" not in names(s2)


def test_year_end_rulebook_example_two_towers_two_gold_caliph_is_5():
    s = position(2, hands={0: [1, 0, 0, 0, 0], 1: [1, 0, 0, 0, 0]}, money=[0, 0])
    add_tower(s, 0, RD, base_gold=1, trunks=3)
    add_tower(s, 0, WH, gold_windows=1)
    give(s, 0, BASE, BK, gold=1)  # unbuilt gold does not count
    s.caliph = 0
    assert s.year_end_points(0) == 5
    act(s, "go Five")
    act(s, "lay S0")
    act(s, "go Five")
    act(s, "lay S0")
    assert s.prestige == [5, 0] and s.year_pts[0] == 5 and s.year == 2
    assert s.reserve[BASE * 10 + 2 * BK + 1] == 1  # unbuilt sections are kept


def test_new_year_refills_only_empty_display_spaces_and_keeps_unbought_tiles():
    s = position(2, hands={0: [1, 0, 0, 0, 0], 1: [1, 0, 0, 0, 0]})
    _market(s, WINDOW, [2 * WH + 1, 2 * WH + 1])
    pile_before = len(s.piles[WINDOW])
    act(s, "go Five")
    act(s, "lay S0")
    act(s, "go Five")
    act(s, "lay S0")
    assert s.display[WINDOW * 10 + 2 * WH + 1] >= 2
    assert sum(s.display[20:30]) == 6 and len(s.piles[WINDOW]) == pile_before - 4


def test_pile_running_out_leaves_display_spaces_empty():
    s = position(2, hands={0: [1, 0, 0, 0, 0], 1: [1, 0, 0, 0, 0]})
    _market(s, BASE, [])
    s.piles[BASE] = [0, 2]
    for _ in range(2):
        act(s, "go Five")
        act(s, "lay S0")
    assert sum(s.display[0:10]) == 2 and s.piles[BASE] == []


# -- 8. Final evaluation ---------------------------------------------------------------------------
def test_award_rulebook_tie_examples():
    assert award([(4, (4,), 0), (4, (4,), 1)], 10, 5, True) == {0: 8, 1: 8}  # 7.5 -> 8, no 2nd
    assert award([(3, (3,), 0), (3, (3,), 1), (3, (3,), 2)], 8, 4, True) == {0: 4, 1: 4, 2: 4}
    assert award([(5, (5,), 0), (3, (3,), 1), (3, (3,), 2)], 12, 6, True) == {0: 12, 1: 3, 2: 3}
    assert award([(4, (4,), 0), (4, (4,), 1)], 10, 5, False) == {0: 7, 1: 7}
    assert award([], 10, 5, True) == {}


def test_final_awards_materials_overall_most_towers_money():
    s = position(2, money=[25, 9])
    add_tower(s, 0, BR, trunks=1)  # h3
    add_tower(s, 1, BR)  # h2
    add_tower(s, 1, GR)  # h2
    # brown 4/2, green 6, overall 8 + tied 2nd 2+2, most towers 12/6, money 2/0
    assert s.final_awards() == [4 + 8 + 6 + 2, 2 + 6 + 4 + 12]


def test_two_tied_black_towers_get_8_each_and_one_player_can_take_first_and_second():
    s = position(2, money=[0, 0])
    add_tower(s, 0, BK, trunks=2)
    add_tower(s, 1, BK, trunks=2)
    # black (10+5)/2 = 7.5 -> 8 each, no 2nd; overall (8+4)/2 = 6 each; most towers (12+6)/2 = 9 each
    assert s.final_awards() == [8 + 6 + 9, 8 + 6 + 9]
    s2 = position(2, money=[0, 0])
    add_tower(s2, 0, BR, trunks=1)
    add_tower(s2, 0, BR)
    add_tower(s2, 1, GR, trunks=5)
    # brown: P0 takes both places (4 + 2); green: P1 6; overall: P1 8, P0 4; most towers: P0 12, P1 6
    assert s2.final_awards() == [6 + 4 + 12, 6 + 8 + 6]
    s3 = position(2, money=[0, 0], height_rank_unit="player_best_tower")
    add_tower(s3, 0, BR, trunks=1)
    add_tower(s3, 0, BR)
    add_tower(s3, 1, GR, trunks=5)
    assert s3.final_awards() == [4 + 4 + 12, 6 + 8 + 6]


def test_no_towers_no_place_and_options_for_overall_and_rounding():
    s = position(2, money=[39, 0])
    add_tower(s, 0, WH)
    assert s.final_awards() == [12 + 8 + 12 + 3, 0]
    s2 = position(2, money=[0, 0], final_highest_overall=[10, 5], tie_rounding="down")
    add_tower(s2, 0, BK, trunks=2)
    add_tower(s2, 1, BK, trunks=2)
    assert s2.final_awards() == [7 + 7 + 9, 7 + 7 + 9]


def test_game_ends_after_year_4_with_final_evaluation():
    s = position(2, hands={0: [1, 0, 0, 0, 0], 1: [1, 0, 0, 0, 0]}, money=[0, 0])
    s.year = 4
    add_tower(s, 0, WH)
    s.caliph = 1
    act(s, "go Five")
    act(s, "lay S0")
    act(s, "go Five")
    act(s, "lay S0")
    assert s.is_terminal() and s.current_player == -1
    assert s.final_pts == [12 + 8 + 12, 0]
    assert s.prestige == [1 + 32, 1]  # year end (1 tower / Caliph) + final; 5 Asari give no point
    assert s.winners() == [0]
    assert list(s.returns("win")) == [1.0, -1.0]


# -- 9. Professional version -----------------------------------------------------------------------
def test_recruit_pays_fee_and_draws_two_cards():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional")
    deck = len(s.deck)
    act(s, "go Recruit")
    act(s, "lay S0")
    assert s.money[0] == 27 and s.hand_n[0] == 3 and len(s.deck) == deck - 2
    act(s, "go Recruit")
    act(s, "lay S0")
    assert s.money[1] == 25  # the second space costs 5
    s.deck = []
    s.refresh()
    assert "go Recruit" not in names(s)
    assert "go Recruit" not in names(position(2, hands={0: [1, 0, 0, 0, 0]}, version="base"))


def test_recruit_needs_the_fee():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional", money=[2, 2])
    assert "go Recruit" not in names(s)


def test_lit_house_offers_keep_and_rest_to_bottom():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional")
    s.lit_stack = [BR, BR, BR, GR, GR, GR, RD, RD, RD, BK, BK, BK, WH, WH, WH]
    s.lit_seen = [0] * 15
    act(s, "go LitHouse")
    act(s, "lay S0")
    assert names(s) == {"lit offer 4/3/1", "lit offer 10/5/2"}
    act(s, "lit offer 4/3/1")
    assert s.money[0] == 26 and sorted(s.lit_drawn) == [WH, WH, WH]
    assert names(s) == {"keep lit Wh"}
    act(s, "keep lit Wh")
    assert s.lit_res[WH] == 1 and len(s.lit_stack) == 14
    assert s.lit_stack[:2] == [WH, WH] and s.lit_seen[:2] == [1, 1]  # P0 knows what lies at the bottom
    act(s, "go LitHouse")
    act(s, "lay S0")
    act(s, "lit offer 10/5/2")
    assert s.money[1] == 20
    drawn = sorted(s.lit_drawn)
    assert drawn == [RD, RD, BK, BK, BK]
    act(s, "keep lit Bk")
    act(s, "keep lit Rd")
    assert s.lit_res[5 + BK] == 1 and s.lit_res[5 + RD] == 1 and len(s.lit_stack) == 12
    assert s.lit_seen[:3] == [2, 2, 2]


def test_lit_discard_order_choose_option():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional",
                 lit_discard_order="choose")
    s.lit_stack = [BR, BR, BR, GR, GR, GR, RD, RD, RD, BK, BK, BK, WH, WH, RD]
    s.lit_seen = [0] * 15
    act(s, "go LitHouse")
    act(s, "lay S0")
    act(s, "lit offer 4/3/1")  # draws RD, WH, WH
    act(s, "keep lit Rd")
    assert s.current_player == 1 and s.lit_stack[:2] == [WH, WH]  # two alike: nothing to order
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional",
                 lit_discard_order="choose")
    s.lit_stack = [BR, BR, BR, GR, GR, GR, RD, RD, RD, BK, BK, BK, WH, GR, RD]
    s.lit_seen = [0] * 15
    act(s, "go LitHouse")
    act(s, "lay S0")
    act(s, "lit offer 4/3/1")  # draws RD, GR, WH
    act(s, "keep lit Rd")
    assert names(s) == {"lit Gr to bottom", "lit Wh to bottom"} and s.current_player == 0
    act(s, "lit Wh to bottom")
    assert s.lit_stack[:2] == [WH, GR] and s.lit_seen[:2] == [1, 1] and s.current_player == 1
    assert len(s.lit_stack) == 14 and s.lit_drawn == []


def test_lit_house_needs_money_and_short_stack_rules():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional", money=[3, 30])
    assert "go LitHouse" not in names(s)
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional")
    s.lit_stack, s.lit_seen = [RD], [0]
    act(s, "go LitHouse")
    act(s, "lay S0")
    assert names(s) == {"lit offer 4/3/1"}  # draw what remains; the 10-offer keeps 2
    act(s, "lit offer 4/3/1")
    act(s, "keep lit Rd")
    assert s.lit_stack == [] and "go LitHouse" not in names(s)
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional",
                 lit_short_stack="require_full")
    s.lit_stack, s.lit_seen = [RD, GR], [0, 0]
    assert "go LitHouse" not in names(s)
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional", money=[0, 0],
                 allow_decline_lit_house=True)
    act(s, "go LitHouse")
    act(s, "lay S0")
    assert names(s) == {"decline lit offer"}


def test_lit_window_covers_plain_window_first_adds_no_height_scores_at_year_end():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional")
    add_tower(s, 0, BK, windows=1, gold_windows=1)
    s.lit_res[BK] = 2
    s.caliph = 1
    assert s.year_end_points(0) == 1 + 1
    act(s, "build 1")
    act(s, "lay S0")
    act(s, "lit window Bk on tower Bk1")
    rec = s.towers_of(0)[0][2]
    assert s.tower_height(rec) == 4 and s.tower_lit(rec) == 1 and s.tower_gold(rec) == 1
    assert s.prestige[0] == 1 and s.year_end_points(0) == 1 + 1 + 1
    act(s, "go Five")
    act(s, "lay S0")
    act(s, "build 1")
    act(s, "lay S0")
    act(s, "lit window Bk on tower Bk1")  # now the gold window is covered: its gold no longer scores
    rec = s.towers_of(0)[0][2]
    assert s.tower_gold(rec) == 0 and s.tower_lit(rec) == 2 and s.year_end_points(0) == 1 + 2


def test_lit_window_needs_an_uncovered_window_of_its_material():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional")
    add_tower(s, 0, BK, trunks=2)
    s.lit_res[BK] = 1
    assert "build 1" not in names(s)
    give(s, 0, WINDOW, BK)
    assert "build 2" in names(s)  # window then lit window in the same action


def test_lit_window_only_on_older_windows_option():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional",
                 lit_on_new_window=False)
    add_tower(s, 0, BK, trunks=2)
    s.lit_res[BK] = 1
    give(s, 0, WINDOW, BK)
    assert "build 2" not in names(s) and "build 1" in names(s)
    s2 = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, version="professional",
                  lit_on_new_window=False)
    add_tower(s2, 0, BK, gold_windows=1)  # an older gold window
    s2.lit_res[BK] = 1
    give(s2, 0, WINDOW, BK)
    act(s2, "build 2")
    act(s2, "lay S0")
    act(s2, "window Bk on tower Bk1")  # a new plain window: the lit window must go on the old gold one
    act(s2, "lit window Bk on tower Bk1")
    rec = s2.towers_of(0)[0][2]
    assert rec[C.T_WIN_P] == 1 and rec[C.T_LIT_G] == 1 and rec[C.T_WIN_G] == 0


def test_lit_windows_break_award_ties():
    s = position(2, money=[0, 0], version="professional")
    add_tower(s, 0, BK, windows=1, lit=0)
    add_tower(s, 1, BK, windows=0, lit=0)
    s.towers[s.tower_index(1, BK, 0) + C.T_LIT_P] = 1  # P1: same height, one lit window
    s.refresh()
    # black: P1 10, P0 5; overall: P1 8, P0 4; most towers (1, 0) vs (1, 1): P1 12, P0 6
    assert s.final_awards() == [5 + 4 + 6, 10 + 8 + 12]
    s2 = position(2, money=[0, 0], version="professional", lit_tiebreak_count_unbuilt=True)
    add_tower(s2, 0, BK, windows=1)
    add_tower(s2, 1, BR, windows=1)
    s2.lit_res[RD] = 1  # P0 holds an unbuilt lit window: counts only with the option
    assert s2.final_awards()[0] == 10 + 6 + 12  # black; overall tie (3, 0) = (3, 0); most towers won
    s3 = position(2, money=[0, 0], version="professional")
    add_tower(s3, 0, BK, windows=1)
    add_tower(s3, 1, BR, windows=1)
    s3.lit_res[RD] = 1
    assert s3.final_awards()[0] == 10 + 6 + 9


# -- A-04 limited coins ---------------------------------------------------------------------------
def test_limited_coin_supply_caps_income():
    s = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, money=[100, 110], unlimited_coins=False)
    act(s, "go Bank")
    act(s, "lay S0")
    assert s.money[0] == 105
    s2 = position(2, hands={0: [2, 0, 0, 0, 0], 1: [2, 0, 0, 0, 0]}, money=[100, 110])
    act(s2, "go Bank")
    act(s2, "lay S0")
    assert s2.money[0] == 112
