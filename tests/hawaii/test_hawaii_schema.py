"""The state declared once (StateSchema): old saves load, field errors name the field, clones are independent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import meeplezoo
from meeplezoo.envs.core.game import CorruptStateError
from meeplezoo.envs.hawaii import queries as Q
from meeplezoo.envs.hawaii.components import SHELL_HUT, SIDE_II
from meeplezoo.envs.hawaii.state import SCHEMA, HawaiiState

OLD_SAVE = Path(__file__).with_name("old_save_format1.json")
CACHES = {"own", "own_side2", "rsum", "changes", "_placeable", "_mask"}


def _load_edited(field, value):
    doc = json.loads(OLD_SAVE.read_text())
    doc["state"][field] = value
    return HawaiiState.from_json(json.dumps(doc))


def test_a_save_written_before_the_schema_still_loads_to_the_same_position():
    text = OLD_SAVE.read_text().strip()
    state = HawaiiState.from_json(text)
    assert json.loads(state.to_json())["state"] == json.loads(text)["state"]
    assert state.payments == [(1, 1), (8, 0)] and all(isinstance(x, tuple) for x in state.payments)
    assert state.legal_mask().any()


def test_every_saved_field_is_declared_and_every_declared_field_is_saved():
    state = meeplezoo.make_game("hawaii", num_players=4).new_state(1)
    assert set(json.loads(state.to_json())["state"]) == SCHEMA.saved_names
    assert set(json.loads(OLD_SAVE.read_text())["state"]) == SCHEMA.saved_names
    assert CACHES.isdisjoint(SCHEMA.saved_names)
    assert CACHES <= set(SCHEMA.by_name)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("round", 7, "round=7 is outside [0, 4]"),
    ("circles", [[-1, -1, -1]] * 9, "circles must have 10 entries"),
    ("isl_up", [1, 0], "isl_up must be a list of bools"),
    ("rows", [[["x"]], [[0]], [[0]]], "rows [0] [0] must hold ints"),
    ("boat_used", [[1], [True], [True]], "boat_used must hold non-empty lists of bools"),
    ("payments", [[1]], "payments holds [1]"),
    ("current_player", 5, "current_player=5 is outside [-1, 2]"),
    ("passed", [-1, -1, 3], "passed value 3 is outside [-1, 2]"),
    ("god_stacks", [[13], [3]], "god_stacks [1] value 3 is outside [13, 18]"),
    ("terminal", "no", "terminal must be a bool"),
    ("rng", -4, "rng must be a 64-bit unsigned int"),
])
def test_a_bad_field_is_refused_naming_it(field, value, words):
    with pytest.raises(CorruptStateError, match=re.escape(words)):
        _load_edited(field, value)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("order", [0, 0, 1], "order is not a permutation of the players"),
    ("vp", [1, 2, 3], "vp_parts do not add up to vp"),
    ("bag", [0], "price tokens are not each in exactly one place"),
    ("boat_used", [[True, False], [False], [False, False]], "boat_used must be one bool per boat"),
    ("boat_used", [[True], [False], [False]], "boat_used must be one bool per boat"),  # too few: not padded
    ("current_player", 0, "the player to move is not the one whose turn it is"),  # not corrected either
])
def test_invariants_beyond_the_schema_are_checked_by_validate(field, value, words):
    with pytest.raises(CorruptStateError, match=re.escape(words)):
        _load_edited(field, value)


def test_from_position_refuses_unknown_fields_and_caches():
    game = meeplezoo.make_game("hawaii")
    for name in ("shells", "own2", "_plc", "own_side2"):
        with pytest.raises(ValueError, match=name):
            HawaiiState.from_position(game, 0, **{name: []})


def test_the_generated_clone_copies_every_mutable_field():
    state = HawaiiState.from_json(OLD_SAVE.read_text())
    clone = state.clone()
    for f in SCHEMA.fields:
        v = getattr(state, f.name)
        if isinstance(v, list) and f.name not in ("own", "own_side2"):  # those two are copied on write
            assert getattr(clone, f.name) is not v, f.name
    clone.rows[0][0].append(99)
    clone.res[1][0] += 1
    clone.circles[0][0] = -1
    clone.boat_used[2][1] = True
    clone.payments.append((1, 0))
    assert state.to_json() == HawaiiState.from_json(OLD_SAVE.read_text()).to_json()


def test_a_tile_placed_in_a_clone_leaves_the_original_counts_alone():
    state = HawaiiState.from_json(OLD_SAVE.read_text())
    own = [r[:] for r in state.own]
    own2 = [r[:] for r in state.own_side2]
    clone = state.clone()
    p, row = 2, Q.village_count(state, 2)
    clone.place_village_tile(p, SHELL_HUT, SIDE_II, row)
    assert Q.owned(clone, p, SHELL_HUT) == own[p][SHELL_HUT] + 1
    assert Q.owned_side2(clone, p, SHELL_HUT) == own2[p][SHELL_HUT] + 1
    assert state.own == own and state.own_side2 == own2
    clone.refresh()
    assert Q.owned(clone, p, SHELL_HUT) == own[p][SHELL_HUT] + 1  # the counts agree with the villages


def test_queries_read_the_documented_fields():
    s = HawaiiState.from_json(OLD_SAVE.read_text())
    assert Q.round_index(s) == s.round and Q.rounds_left(s) == 4 - s.round
    for p in range(3):
        assert Q.resources(s, p) == [Q.shells(s, p), Q.feet(s, p), Q.fruit(s, p)] == s.res[p]
        assert Q.village_count(s, p) == len(s.rows[p])
        assert Q.kahunas(s, p) == s.kahunas[p] and Q.tikis(s, p) == s.tikis[p]
        assert Q.round_sum(s, p) == s.round_sum(p)
    code = Q.tile_code(SHELL_HUT, SIDE_II)
    assert (Q.tile_type(code), Q.tile_side(code), Q.is_side2(code)) == (SHELL_HUT, SIDE_II, True)
    assert Q.cove_fish(s, 3) == sum(s.game.token_fish[t] for t in s.cove[:3])
