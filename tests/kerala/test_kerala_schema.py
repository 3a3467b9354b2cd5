"""The state declared once (StateSchema): old saves load, field errors name the field, clones are independent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import meeplezoo
from meeplezoo.envs.core.game import CorruptStateError
from meeplezoo.envs.kerala import components as C
from meeplezoo.envs.kerala.state import SCHEMA, KeralaGame, KeralaState

OLD_SAVE = Path(__file__).with_name("old_save_format1.json")


def _renamed(old_state: dict) -> dict:
    """A format-1 state dict under today's field names."""
    return {SCHEMA.aliases.get(k, k): v for k, v in old_state.items()}


def test_a_save_written_before_the_schema_still_loads_to_the_same_position():
    text = OLD_SAVE.read_text().strip()
    state = KeralaState.from_json(text)
    assert json.loads(state.to_json())["state"] == _renamed(json.loads(text)["state"])
    assert state.phase == C.PHASE_MOVE_TILE_DST and state.move_tile_cell in state.platforms[state.current_player]
    assert state.game.options["first_start_player"] == "random" and state.first_start_seat == 1
    assert KeralaState.from_json(state.to_json()).to_json() == state.to_json()


def test_a_format1_save_without_a_move_tile_cell_still_loads():
    """Format 1 wrote ``"pending": null`` outside the move-tile phases (and the old field names)."""
    state = meeplezoo.make_game("kerala", num_players=3).new_state(4)
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    doc = json.loads(state.to_json())
    old_names = {v: k for k, v in SCHEMA.aliases.items()}
    assert doc["state"]["move_tile_cell"] == []
    doc["state"] = {old_names.get(k, k): v for k, v in doc["state"].items()}
    doc["state"]["pending"] = None
    loaded = KeralaState.from_json(json.dumps(doc))
    assert loaded.to_json() == state.to_json()
    assert loaded.move_tile_cell == -1


def test_every_saved_field_is_declared_and_every_declared_field_is_saved():
    state = meeplezoo.make_game("kerala").new_state(1)
    assert set(json.loads(state.to_json())["state"]) == SCHEMA.saved_names
    caches = {"unseen", "_mask", "_legal", "_legal_cells", "_pairs", "_sources", "_score", "_areas", "_area_dirty",
              "changes", "_lookahead"}
    assert caches.isdisjoint(SCHEMA.saved_names)
    assert caches | SCHEMA.saved_names == {f.name for f in SCHEMA.fields}


@pytest.mark.parametrize(("field", "value", "words"), [
    ("passes", [3, 0, 0], "passes value 3 is outside [0, 2]"),
    ("passes", [0, 0], "passes must have 3 entries"),
    ("bag", [0, 1, "x"], "bag must hold ints"),
    ("turn_in_round", 7, "turn_in_round=7 is outside [0, 3]"),
    ("phase", 9, "phase=9 is outside [0, 5]"),
    ("offer", [5, 0], "offer is not in canonical order"),
    ("rng", "12x", "rng must be a 64-bit unsigned int"),
    ("platforms", [[], []], "platforms must hold 3 platforms"),
    ("platforms", [[[0, 0, []]], [], []], "platforms [0] stack at [0, 0] must be a non-empty list of tile codes"),
    ("platforms", [[[0, 0, [400]], [0, 0, [4]]], [], []], "platforms [0] holds two stacks at [0, 0]"),
    ("elephants", [[[0, 0]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]], "elephants [0] must hold 2 positions"),
    ("move_tile_cell", [99, 0], "move_tile_cell position (99,0) is outside the window of radius 10"),
    ("move_tile_cell", [1, "a"], "move_tile_cell must be a position [row, col]"),
])
def test_a_bad_field_is_refused_naming_it(field, value, words):
    doc = json.loads(OLD_SAVE.read_text())
    doc["state"] = _renamed(doc["state"])
    doc["state"][field] = value
    with pytest.raises(CorruptStateError, match=words.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")
                       .replace(")", r"\)")):
        KeralaState.from_json(json.dumps(doc))


@pytest.mark.parametrize(("edit", "words"), [
    (lambda st: st["bag"].append(st["bag"][0]), "tiles are not conserved"),
    (lambda st: st["elephants"][1].__setitem__(0, [9, 9]), "an elephant of player 1 is not on a tile"),
    (lambda st: st.__setitem__("current_player", (st["current_player"] + 1) % 3), "does not follow the turn order"),
])
def test_invariants_beyond_the_schema_are_checked_by_validate(edit, words):
    doc = json.loads(OLD_SAVE.read_text())
    edit(doc["state"])
    with pytest.raises(CorruptStateError, match=words):
        KeralaState.from_json(json.dumps(doc))


def test_the_generated_clone_copies_every_mutable_field():
    state = KeralaState.from_json(OLD_SAVE.read_text())
    state.platform_score(0)
    clone = state.clone()
    for f in SCHEMA.fields:
        v = getattr(state, f.name)
        if isinstance(v, (list, dict)) and f.name not in ("_legal_cells", "_pairs", "_sources"):
            assert getattr(clone, f.name) is not v, f.name
    for mine, theirs in zip(state.platforms, clone.platforms):
        assert mine is not theirs and mine == theirs
    for mine, theirs in zip(state.elephants, clone.elephants):
        assert mine is not theirs and mine == theirs
    before = state.to_json()
    clone.platforms[0][next(iter(clone.platforms[0]))] += (4,)
    clone.elephants[1][0] = 0
    clone.passes[0] = 0
    clone.bag.pop()
    clone.unseen[0] += 1
    clone.rng.next64()
    assert state.to_json() == before
    assert state.unseen == KeralaState.from_json(before).unseen


def test_a_clone_plays_on_like_the_original():
    state = KeralaState.from_json(OLD_SAVE.read_text())
    clone = state.clone()
    while not state.is_terminal():
        a = state.legal_actions()[-1]
        state.apply(a)
        clone.apply(a)
        assert np.array_equal(state.legal_mask(), clone.legal_mask())
    assert state.to_json() == clone.to_json() and state.scores() == clone.scores()


def test_from_position_takes_fields_by_name_and_refuses_unknown_ones():
    game = KeralaGame(2)
    s = KeralaState.from_position(game, 3, passes=[1, 0], offer=[0, 30], turn_in_round=0)
    assert s.passes == [1, 0] and s.rng.s == 3
    with pytest.raises(ValueError, match="no_such_field"):
        KeralaState.from_position(game, 0, no_such_field=1)
