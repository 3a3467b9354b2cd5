"""Every rule option (each ASSUMPTION of the rules file) changes behaviour as documented."""

from __future__ import annotations

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


def hand(**counts: int) -> list[int]:
    h = [0] * 13
    for name, n in counts.items():
        h[getattr(C, name)] = n
    return h


def receive(hds, card, options=None, variant="base", **fields):
    """P0 sails from 0 to segment 3 where he alone has a disc and ``card`` lies twice."""
    base = dict(boat=0, disc=hds.discs(p0={4: 3}), bays=hds.bays(s3=(card, card)))
    base.update(fields)
    s = hds.position(variant=variant, options=options, **base)
    s.apply(A.place(3, 0))
    return s


def trigger(hds, options=None, variant="base", **fields):
    """As ``receive`` with white pearls, and the refill takes the last 2-palm card: scoring 1."""
    base = dict(piles=[[], [C.FISH], [C.STATUE] * 6])
    base.update(fields)
    return receive(hds, C.WHITE, options, variant, **base)


def test_deck_table_reconstructed_counts():
    deck = C.DECK_TABLES["reconstructed"]
    assert [sum(r) for r in deck] == [15, 13, 14]
    assert deck[0][C.LAVA] == 0 and deck[1][C.LAVA] == deck[2][C.LAVA] == 4
    assert sum(r[f] for r in deck for f in C.BUTTERFLY_FACES) == 7
    g = HausDerSonneGame(variant="tactical")
    assert [sum(r) for r in g.deck] == [15, 9, 10]


def test_shell_value_per_card(hds):
    s = receive(hds, C.SHELL)
    assert A.buy(3) not in s.legal_actions()  # forest costs 2 shells
    s = receive(hds, C.SHELL, options={"shell_value_per_card": 2})
    assert A.buy(3) in s.legal_actions()
    s.apply(A.buy(3))
    assert s.sc_owner[3] == 0 and s.hand[0][C.SHELL] == 0


def test_majority_rule_ties_count(hds):
    st = [E] * 18
    st[0], st[6] = 0, 1  # segment 0: 1 vs 1
    for opt, pts in (("strict", 0), ("ties_count", 2)):
        s = hds.position(options={"majority_rule": opt}, statue=st, sc_owner=[E, 0, E, E, E])
        assert s.scoring_points(0, False)["majority"] == pts


def test_complete_segment_scoring_once(hds):
    st = [0, 0, E, E, E, E, 0, 0, E, E, E, E, 0, 0, E, E, E, E]  # segments 0 and 1 complete
    for opt, pts in (("per_segment", 8), ("once", 4)):
        s = hds.position(options={"complete_segment_scoring": opt}, statue=st, sc_owner=[E, E, 0, E, E])
        assert s.scoring_points(0, False)["complete"] == pts


def test_priestess_cost(hds):
    assert A.buy(5) in receive(hds, C.SHELL).legal_actions()
    assert A.buy(5) not in receive(hds, C.SHELL, options={"priestess_cost": 2}).legal_actions()


def test_priestess_board_card_single_use_per_round(hds):
    s = receive(hds, C.SHELL, options={"priestess_board_card_reusable": False})
    s.apply(A.buy(5))
    assert not s.priestess_available
    s = receive(hds, C.SHELL)
    s.apply(A.buy(5))
    assert s.priestess_available


def test_dock_and_villages():
    g = HausDerSonneGame(dock_segment=3, start_village=0, other_village=2)
    s = g.new_state(1)
    assert s.boat == 3 and s.shaman[s.start_player] == C.BEACH_NODE0 and s.shaman[1 - s.start_player] == 20


def test_diagonal_adjacency(hds):
    def dests(opts):
        s = hds.position(options=opts, phase=SHAMAN, shaman=[0, 22])
        return {a - A.SHAMAN_TO0 for a in s.legal_actions() if a < A.SHAMAN_STAY}
    assert 8 not in dests(None)  # forest 2 is three orthogonal steps away
    assert 8 in dests({"diagonal_adjacency": True}) and dests(None) < dests({"diagonal_adjacency": True})


def test_takeback_tie_forbid(hds):
    fields = dict(disc=hds.discs(p0={1: 2, 3: 2}, p1={3: 2}), boat=0)
    assert A.take_back(1) in hds.position(**fields).legal_actions()
    assert A.take_back(1) not in hds.position(options={"takeback_tie": "forbid"}, **fields).legal_actions()


def test_tie_first_picker_non_active(hds):
    fields = dict(boat=0, disc=hds.discs(p0={3: 4}, p1={1: 4, 2: 4}), bays=hds.bays(s4=(C.WHITE, C.FISH)))
    s = hds.position(options={"tie_first_picker": "non_active"}, **fields)
    s.apply(A.place(4, 0))
    assert s.phase == PICK and s.current_player == 1


def test_scoring2_trigger(hds):
    fields = dict(round=2, boat=0, disc=hds.discs(p0={4: 3}), bays=hds.bays(s3=(C.WHITE, C.WHITE)),
                  piles=[[], [], [C.FISH]])
    s = hds.position(**fields)
    s.apply(A.place(3, 0))
    assert s.is_terminal()  # the 3-palm pile ran out
    s = hds.position(options={"scoring2_trigger": "refill_impossible"}, **fields)
    s.apply(A.place(3, 0))
    assert not s.is_terminal() and s.piles[2] == [] and s.bays[6] == C.FISH
    s.apply(A.place(1, 3))  # P1 sails 1 -> segment 4: nobody there, no refill needed
    assert not s.is_terminal()
    s.apply(A.place(2, 4))  # P0 sails to 0 where his disc 3 lies: he takes a card
    assert s.is_terminal() and s.phase == GAME_OVER  # the refill found no card: scoring 2


def test_priestess_optional(hds):
    s = receive(hds, C.PRIESTESS, crater=[1, 0, 0, 0, 0, 0])
    assert A.PRIESTESS_SKIP not in s.legal_actions()
    s = receive(hds, C.PRIESTESS, options={"priestess_optional": True}, crater=[1, 0, 0, 0, 0, 0])
    assert s.phase == PRIESTESS and A.PRIESTESS_SKIP in s.legal_actions()
    s.apply(A.PRIESTESS_SKIP)
    assert s.crater[0] == 1 and s.phase == MAIN


def test_nautilus_kept_after_round1(hds):
    s = trigger(hds, hand=[hand(NAUTILUS=1), [0] * 13])
    assert s.round == 2 and s.hand[0][C.NAUTILUS] == 0
    s = trigger(hds, options={"nautilus_kept_after_round1": True}, hand=[hand(NAUTILUS=1), [0] * 13])
    assert s.round == 2 and s.hand[0][C.NAUTILUS] == 1


def test_buy_window_multi(hds):
    hands = [hand(SHELL=2), hand(SHELL=1)]
    s = trigger(hds, hand=[h[:] for h in hands])
    s.apply(A.buy(0))
    assert s.current_player == 1
    s.apply(A.BUY_PASS)
    assert s.round == 2  # one decision each
    s = trigger(hds, options={"buy_window_multi": True}, hand=[h[:] for h in hands])
    s.apply(A.buy(0))
    s.apply(A.BUY_PASS)  # P1 passes
    assert s.phase == BUY_WINDOW and s.current_player == 0  # P0 may buy again
    s.apply(A.buy(1))
    assert s.round == 2 and s.hand[0][C.SHELL] == 0


def test_shaman_protects_statue_option(hds):
    for opt, survives in ((True, True), (False, False)):
        s = hds.position(options={"shaman_protects_statue": opt}, statue=[E] * 12 + [1] + [E] * 5,
                         crater=[1, 0, 0, 0, 0, 0], shaman=[12, 22])
        s.erupt()
        assert (s.statue[12] == 1) == survives


def test_statue_base_points(hds):
    st = [0] + [E] * 6 + [0] + [E] * 5 + [0] + [E] * 4  # meadow 0, forest 1, mountain 1
    assert "statues" not in hds.position(statue=st).scoring_points(0, False)
    s = hds.position(options={"statue_base_points": "by_level"}, statue=st)
    assert s.scoring_points(0, False)["statues"] == 6


def test_refill_gaps_at_round2_start(hds):
    kw = dict(disc=hds.discs(p0={4: 3}, p1={1: 3}), bays=hds.bays(s3=(C.WHITE, C.FISH)),
              piles=[[], [C.FISH], [C.STATUE] * 6])
    s = hds.position(boat=0, **kw)
    s.apply(A.place(3, 0))
    s.apply(A.pick(0))
    assert s.round == 2 and s.bays[7] == C.STATUE
    s = hds.position(boat=0, options={"refill_gaps_at_round2_start": False}, **kw)
    s.apply(A.place(3, 0))
    s.apply(A.pick(0))
    assert s.round == 2 and s.bays[7] == E


def test_placement_tie_rule_value(hds):
    fields = dict(disc=hds.discs(p0={1: 2}, p1={4: 2}), boat=0)
    s = hds.position(options={"placement_tie_rule": "value"}, **fields)
    la = s.legal_actions()
    assert A.place(3, 2) in la and A.place(4, 2) not in la  # only the placed value is compared
    s = hds.position(**fields)
    assert A.place(3, 2) not in s.legal_actions() and A.place(4, 2) in s.legal_actions()


def test_shells_kept_after_round1(hds):
    s = trigger(hds, hand=[hand(SHELL=1), [0] * 13])
    s.apply(A.BUY_PASS)
    assert s.round == 2 and s.hand[0][C.SHELL] == 1
    s = trigger(hds, options={"shells_kept_after_round1": False}, hand=[hand(SHELL=1), [0] * 13])
    s.apply(A.BUY_PASS)
    assert s.round == 2 and s.hand[0][C.SHELL] == 0


def test_lava_disc_return_any_landing(hds):
    for opt, back in (("owner_landing", False), ("any_landing", True)):
        s = hds.position(variant="tactical", options={"lava_disc_return": opt}, boat=2, lava_disc=[E, 5])
        s.apply(A.place(3, 2))  # P0 lands on P1's lava disc
        assert (s.lava_disc[1] == E) == back


def test_tactical_priestess_buy_at_scoring(hds):
    s = trigger(hds, variant="tactical", hand=[hand(SHELL=2), [0] * 13], piles=[[], [C.FISH], [C.STATUE] * 4])
    assert s.round == 2  # no window at all
    s = trigger(hds, variant="tactical", options={"tactical_priestess_buy_at_scoring": True},
                hand=[hand(SHELL=2), [0] * 13], piles=[[], [C.FISH], [C.STATUE] * 4])
    assert s.phase == BUY_WINDOW and set(s.legal_actions()) == {A.buy(5), A.BUY_PASS}


def test_takeback_on_boat_segment(hds):
    fields = dict(disc=hds.discs(p0={2: 0}), boat=0)
    assert A.take_back(2) in hds.position(**fields).legal_actions()
    s = hds.position(options={"takeback_on_boat_segment": False}, **fields)
    assert A.take_back(2) not in s.legal_actions()


def test_entry_step_is_upward(hds):
    s = hds.position(options={"entry_step_is_upward": False}, phase=SHAMAN)
    assert A.shaman_to(7) in s.legal_actions()  # beach -> meadow 1 -> forest 1
    assert A.shaman_to(7) not in hds.position(phase=SHAMAN).legal_actions()


def test_identical_cards_by_type(hds):
    fields = dict(boat=0, disc=hds.discs(p0={4: 3}, p1={1: 3}), bays=hds.bays(s3=(C.FISH, C.FISH_B)))
    s = hds.position(options={"identical_cards": "type"}, **fields)
    s.apply(A.place(3, 0))
    assert s.phase == PICK  # the first picker still chooses between them
    s.apply(A.pick(1))
    assert s.hand[0][C.FISH_B] == 1 and sum(s.hand[1]) == 0


def test_no_tie_on_boat_segment(hds):
    fields = dict(disc=hds.discs(p1={3: 2}), boat=2)
    assert A.place(3, 2) not in hds.position(**fields).legal_actions()
    assert A.place(3, 2) in hds.position(options={"no_tie_on_boat_segment": False}, **fields).legal_actions()


def test_tactical_chip_timing(hds):
    fields = dict(boat=0, bays=hds.bays(s3=(C.PRIESTESS, C.PRIESTESS)), disc=hds.discs(p0={4: 3}))
    s = hds.position(variant="tactical", **fields)
    s.apply(A.place_lava(3))
    assert s.phase == PRIESTESS  # the new chip is there before the card distribution
    s = hds.position(variant="tactical", options={"tactical_chip_timing": "after_distribution"}, **fields)
    s.apply(A.place_lava(3))
    assert s.phase == MAIN and s.crater[3] == 1


def test_turn_limit_stops_the_game(hds):
    s = HausDerSonneGame(turn_limit=4).new_state(0)
    while not s.is_terminal():
        s.apply(s.legal_actions()[0])
    assert s.turn == 4 and s.phase == GAME_OVER and len(s.winners()) == 1


def test_buy_shell_phase_in_tactical_game(hds):
    s = receive(hds, C.SHELL, variant="tactical")
    assert s.phase == BUY_SHELL and A.buy(0) in s.legal_actions()


def test_lava_card_refill(hds):
    kw = dict(boat=0, disc=hds.discs(p0={4: 3}), bays=hds.bays(s3=(C.WHITE, C.WHITE)),
              piles=[[], [C.STATUE, C.FISH, C.LAVA], [C.STATUE] * 4])
    s = hds.position(**kw)
    s.apply(A.place(3, 0))
    assert s.bays[6] == C.FISH and s.crater[3] == 1
    s = hds.position(options={"lava_card_refill": "leave_gap"}, **kw)
    s.apply(A.place(3, 0))
    assert s.bays[6] == E and s.crater[3] == 1 and s.piles[1] == [C.STATUE, C.FISH]


def test_purchases_per_shell(hds):
    s = receive(hds, C.SHELL, hand=[hand(SHELL=1), [0] * 13])
    s.apply(A.buy(0))
    assert s.phase == MAIN and s.hand[0][C.SHELL] == 1
    s = receive(hds, C.SHELL, options={"purchases_per_shell": "many"}, hand=[hand(SHELL=1), [0] * 13])
    s.apply(A.buy(0))
    assert s.phase == BUY_SHELL and s.current_player == 0
    s.apply(A.buy(1))
    assert s.sc_owner[:2] == [0, 0] and s.hand[0][C.SHELL] == 0 and s.phase == MAIN


def test_pearl_pairs_option(hds):
    h = hand(WHITE=2, BLACK=2)
    assert hds.position(hand=[h, [0] * 13]).scoring_points(0, False)["pearls"] == 8
    s = hds.position(options={"pearl_pairs": "one_pair"}, hand=[h, [0] * 13])
    assert s.scoring_points(0, False)["pearls"] == 4 + 1 + 2


def test_nautilus_scoring_option(hds):
    h = hand(NAUTILUS=1, NAUTILUS_B=1)
    assert hds.position(hand=[h, [0] * 13]).scoring_points(0, False)["nautilus"] == 6
    s = hds.position(options={"nautilus_scoring": "once"}, hand=[h, [0] * 13])
    assert s.scoring_points(0, False)["nautilus"] == 3


def test_lava_disc_without_chip(hds):
    kw = dict(boat=0, crater=[1, 1, 1, 1, 0, 0])
    assert A.place_lava(2) not in hds.position(variant="tactical", **kw).legal_actions()
    s = hds.position(variant="tactical", options={"lava_disc_without_chip": "allowed"}, **kw)
    s.apply(A.place_lava(2))
    assert s.lava_disc[0] == 0 and s.crater == [1, 1, 1, 1, 0, 0]
