"""Invariants over many random games, serialisation, clones, determinization and bad input."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from meeplezoo.envs.core.game import CorruptStateError, IllegalActionError
from meeplezoo.envs.haus_der_sonne import actions as A
from meeplezoo.envs.haus_der_sonne import components as C
from meeplezoo.envs.haus_der_sonne.state import GAME_OVER, HausDerSonneGame, HausDerSonneState

GAMES = 300


def check_conservation(s: HausDerSonneState) -> None:
    g = s.game
    for f in range(C.NUM_FACES):
        n = sum(p.count(f) for p in s.piles) + s.bays.count(f) + s.hand[0][f] + s.hand[1][f] + s.discard[f]
        assert n == g.face_totals[f], (f, n)
    assert sum(len(p) for p in s.piles) + sum(1 for b in s.bays if b >= 0) + sum(map(sum, s.hand)) + \
        sum(s.discard) == sum(map(sum, g.deck))
    assert sum(s.crater) + s.chips_in_supply() == C.LAVA_CHIPS and 0 <= s.chips_in_supply() <= C.LAVA_CHIPS
    for p in (0, 1):
        assert s.statue.count(p) + s.statues_in_supply(p) == C.STATUES_PER_PLAYER
        assert 0 <= s.statues_in_supply(p) <= C.STATUES_PER_PLAYER
    assert all(o in (-1, 0, 1) for o in s.sc_owner)
    assert s.shaman[0] != s.shaman[1]
    # beach sums match the discs (the cache is right)
    for p in (0, 1):
        for seg in range(6):
            assert s.beach_sum[p * 6 + seg] == sum(v + 1 for v in range(5) if s.disc[p * 5 + v] == seg)


def reference_points(round_: int, statue, shaman, hands, owners, p: int) -> int:
    """An independent reading of §11.3 with the default options."""
    h, q = hands[p], hands[1 - p]
    pts = 0
    fish = lambda x: x[C.FISH] + x[C.FISH_B]  # noqa: E731
    if fish(h) > fish(q):
        pts += 3
    w, b = h[C.WHITE] + h[C.WHITE_B], h[C.BLACK] + h[C.BLACK_B]
    while w and b:
        pts, w, b = pts + 4, w - 1, b - 1
    pts += w + 2 * b + 3 * (h[C.NAUTILUS] + h[C.NAUTILUS_B])
    if owners[0] == p:
        pts += h[C.SHELL_B] + h[C.FISH_B] + h[C.WHITE_B] + h[C.BLACK_B] + h[C.NAUTILUS_B]
    for seg in range(6):
        mine = [statue[lv * 6 + seg] == p for lv in range(3)]
        theirs = [statue[lv * 6 + seg] == 1 - p for lv in range(3)]
        if owners[1] == p and sum(mine) > sum(theirs):
            pts += 2
        if owners[2] == p and all(mine):
            pts += 4
        if owners[3] == p and mine[1]:
            pts += 2
        if owners[4] == p and mine[2]:
            pts += 3
    if round_ == 2:
        pts += h[C.SHELL] + h[C.SHELL_B]
    return pts


@pytest.mark.parametrize("variant", ["base", "tactical"])
def test_random_games_invariants(variant):
    game = HausDerSonneGame(variant=variant)
    r = random.Random(7)
    lengths = []
    for seed in range(GAMES):
        s = game.new_state(seed)
        steps = 0
        while not s.is_terminal():
            mask = s.legal_mask()
            la = s.legal_actions()
            assert mask.any() and mask.sum() == len(la) and all(mask[a] for a in la)
            if steps % 7 == 0:
                check_conservation(s)
            s.apply(la[r.randrange(len(la))])
            steps += 1
        check_conservation(s)
        assert s.phase == GAME_OVER and s.round == 2 and len(s.scorings) == 2
        assert s.turn < game.options["turn_limit"]
        # score recomputation from the two scoring snapshots matches the engine
        for p in (0, 1):
            assert s.score[p] == sum(e[5][p] for e in s.scorings)
            assert s.score[p] == sum(reference_points(*e[:5], p) for e in s.scorings)
        assert s.returns().sum() == 0 and sorted(s.returns()) == [-1.0, 1.0]
        lengths.append(steps)
    assert max(lengths) < 2000


NON_DEFAULT = [
    {"variant": "base", "buy_window_multi": True, "priestess_optional": True, "takeback_tie": "forbid",
     "scoring2_trigger": "refill_impossible", "refill_gaps_at_round2_start": False, "shells_kept_after_round1": False,
     "purchases_per_shell": "many", "lava_card_refill": "leave_gap", "priestess_board_card_reusable": False,
     "shell_value_per_card": 2, "dock_segment": 2, "start_village": 0, "other_village": 3},
    {"variant": "tactical", "lava_disc_return": "any_landing", "tactical_priestess_buy_at_scoring": True,
     "tactical_chip_timing": "after_distribution", "placement_tie_rule": "value", "takeback_on_boat_segment": False,
     "lava_disc_without_chip": "allowed", "diagonal_adjacency": True, "entry_step_is_upward": False,
     "no_tie_on_boat_segment": False, "tie_first_picker": "non_active"},
]


@pytest.mark.parametrize("options", NON_DEFAULT, ids=["base", "tactical"])
def test_random_games_with_non_default_options(options):
    game = HausDerSonneGame(**options)
    r = random.Random(11)
    for seed in range(100):
        s = game.new_state(seed)
        while not s.is_terminal():
            la = s.legal_actions()
            assert la and s.legal_mask().sum() == len(la)
            s.apply(la[r.randrange(len(la))])
            if r.random() < 0.02:
                check_conservation(s)
                assert HausDerSonneState.from_json(s.to_json()).to_json() == s.to_json()
        check_conservation(s)
        assert s.turn < game.options["turn_limit"] and len(s.scorings) == 2
        assert s.score[0] == sum(e[5][0] for e in s.scorings) and s.score[1] == sum(e[5][1] for e in s.scorings)


@pytest.mark.parametrize("variant", ["base", "tactical"])
def test_json_round_trip_and_identical_future(variant):
    game = HausDerSonneGame(variant=variant)
    r = random.Random(3)
    for seed in range(30):
        s = game.new_state(seed)
        while not s.is_terminal():
            if r.random() < 0.05:
                t = HausDerSonneState.from_json(s.to_json())
                assert t.to_json() == s.to_json()
                assert np.array_equal(t.legal_mask(), s.legal_mask())
                for p in (0, 1):
                    assert np.array_equal(t.observe(p), s.observe(p))
                u = s.clone()
                fut = random.Random(seed)
                while not u.is_terminal():
                    la = u.legal_actions()
                    a = la[fut.randrange(len(la))]
                    u.apply(a)
                    t.apply(a)
                assert t.to_json() == u.to_json()
            la = s.legal_actions()
            s.apply(la[r.randrange(len(la))])
        assert HausDerSonneState.from_json(s.to_json()).to_json() == s.to_json()


def test_clone_independence():
    game = HausDerSonneGame()
    r = random.Random(1)
    for seed in range(20):
        s = game.new_state(seed)
        for _ in range(r.randrange(0, 150)):
            if s.is_terminal():
                break
            la = s.legal_actions()
            s.apply(la[r.randrange(len(la))])
        before = s.to_json()
        c = s.clone()
        while not c.is_terminal():
            la = c.legal_actions()
            c.apply(la[r.randrange(len(la))])
        assert s.to_json() == before


def test_replay_from_seed_and_actions():
    game = HausDerSonneGame(variant="tactical")
    s = game.new_state(42)
    acts = []
    r = random.Random(5)
    while not s.is_terminal():
        la = s.legal_actions()
        a = la[r.randrange(len(la))]
        acts.append(a)
        s.apply(a)
    t = game.new_state(42)
    for a in acts:
        t.apply(a)
    assert t.to_json() == s.to_json()


def test_determinize_reshuffles_piles_only_and_hides_nothing_else():
    game = HausDerSonneGame()
    s = game.new_state(11)
    r = random.Random(2)
    for _ in range(60):
        la = s.legal_actions()
        s.apply(la[r.randrange(len(la))])
    before = s.to_json()
    changed = False
    for k in range(5):
        d = s.determinize(s.current_player, k)
        assert [sorted(p) for p in d.piles] == [sorted(p) for p in s.piles]
        changed |= d.piles != s.piles
        assert d.bays == s.bays and d.hand == s.hand and d.score == s.score
        for p in (0, 1):  # the pile order is hidden from both players: observations do not change
            assert np.array_equal(d.observe(p), s.observe(p))
        assert np.array_equal(d.legal_mask(), s.legal_mask())
    assert changed and s.to_json() == before
    d = s.determinize(0, np.random.default_rng(0))
    assert isinstance(d, HausDerSonneState)


def test_observation_shape_range_and_egocentric():
    game = HausDerSonneGame(variant="tactical")
    s = game.new_state(3)
    r = random.Random(0)
    lay = game.observation_layout
    while not s.is_terminal():
        for p in (0, 1):
            o = s.observe(p)
            assert o.shape == game.observation_shape and o.dtype == np.float32
            assert o.min() >= 0.0 and o.max() <= 1.0
        o0, o1 = s.observe(0), s.observe(1)
        assert np.array_equal(o0[lay["my_discs"]], o1[lay["opp_discs"]])
        assert np.array_equal(o0[lay["scores"]], o1[lay["scores"]][::-1])
        la = s.legal_actions()
        s.apply(la[r.randrange(len(la))])


# -- bad input ----------------------------------------------------------------------
def test_illegal_actions_raise_and_leave_state_unchanged():
    s = HausDerSonneGame().new_state(0)
    before = s.to_json()
    for bad in (-1, 83, 1000, 42, 61, 1.5, "3", None):
        with pytest.raises(IllegalActionError):
            s.apply(bad)
        assert s.to_json() == before
    s.apply(s.legal_actions()[0])
    while not s.is_terminal():
        s.apply(s.legal_actions()[-1])
    with pytest.raises(IllegalActionError):
        s.apply(0)


def test_bad_options_and_player_counts():
    with pytest.raises(ValueError, match="variant"):
        HausDerSonneGame(variant="expert")
    with pytest.raises(ValueError, match="unknown option"):
        HausDerSonneGame(lava=True)
    with pytest.raises(ValueError, match="num_players"):
        HausDerSonneGame(num_players=3)
    with pytest.raises(ValueError, match="priestess_cost"):
        HausDerSonneGame(priestess_cost=3)
    with pytest.raises(ValueError, match="start_village"):
        HausDerSonneGame(start_village=4)
    with pytest.raises(ValueError, match="shaman_protects_statue"):
        HausDerSonneGame(shaman_protects_statue="yes")


def _corrupt(text: str, edit) -> str:
    doc = json.loads(text)
    edit(doc["state"])
    return json.dumps(doc)


@pytest.mark.parametrize("edit", [
    lambda d: d["bays"].__setitem__(0, 2),  # one card too many / too few
    lambda d: d["piles"][1].append(0),  # an extra statue card
    lambda d: d["crater"].__setitem__(0, 5),
    lambda d: d["statue"].__setitem__(slice(0, 9), [0] * 9),
    lambda d: d["shaman"].__setitem__(1, d["shaman"][0]),
    lambda d: d["disc"].__setitem__(0, 6),
    lambda d: d["lava_disc"].__setitem__(0, 2),  # lava disc in the base game
    lambda d: d.__setitem__("phase", 9),
    lambda d: d.__setitem__("boat", "3"),
    lambda d: d.pop("hand"),
    lambda d: d["hand"][0].__setitem__(0, 1),  # a statue card kept in hand
    lambda d: d.__setitem__("current_player", -1),
])
def test_corrupt_saved_states_are_rejected(edit):
    s = HausDerSonneGame().new_state(4)
    r = random.Random(0)
    for _ in range(40):
        la = s.legal_actions()
        s.apply(la[r.randrange(len(la))])
    text = s.to_json()
    with pytest.raises(CorruptStateError):
        HausDerSonneState.from_json(_corrupt(text, edit))
    with pytest.raises(CorruptStateError):
        HausDerSonneState.from_json(text[: len(text) // 2])
    with pytest.raises(CorruptStateError):
        HausDerSonneState.from_json(text.replace('"haus_der_sonne"', '"kerala"'))
    assert HausDerSonneState.from_json(text).to_json() == text


def test_hand_made_position_round_trips(hds):
    h0 = [0] * 13
    h0[C.FISH] = 1
    s = hds.position(hand=[h0, [0] * 13], crater=[1, 0, 0, 0, 0, 0], statue=[0] + [-1] * 17)
    hds.balanced(s)
    assert HausDerSonneState.from_json(s.to_json()).to_json() == s.to_json()


def test_action_codec_and_names():
    s = HausDerSonneGame(variant="tactical").new_state(0)
    names = [s.action_name(a) for a in range(s.game.num_actions)]
    assert len(set(names)) == s.game.num_actions == 83
    assert s.action_name(-1).startswith("invalid") and s.action_name(500).startswith("invalid")
    for a in range(83):
        assert A.encode(A.decode(a)) == a
    assert s.action_name(A.place(2, s.boat)).endswith(f"(sail 2 to segment {(s.boat + 2) % 6})")
    with pytest.raises(ValueError):
        A.decode(83)
