"""The state declared once (StateSchema): old saves load, field errors name the field, clones are independent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from meeplezoo.envs.asara.state import SCHEMA, AsaraGame, AsaraState
from meeplezoo.envs.core.game import CorruptStateError

OLD_SAVE = Path(__file__).with_name("old_save_format1.json")
#: the fields renamed since the old save was written: old name -> new name
RENAMED = {"pp": "prestige", "p_k": "pending_sections", "b_newwin": "new_windows", "sp_owner": "space_owner",
           "sp_card": "space_card"}


def _doc() -> dict:
    """The old save, written again in today's format (the new field names)."""
    return json.loads(AsaraState.from_json(OLD_SAVE.read_text()).to_json())


def test_a_save_written_before_the_schema_still_loads_to_the_same_position():
    text = OLD_SAVE.read_text().strip()
    old = json.loads(text)["state"]
    assert set(RENAMED) <= set(old)  # written under the old names
    state = AsaraState.from_json(text)
    assert json.loads(state.to_json())["state"] == {RENAMED.get(k, k): v for k, v in old.items()}
    assert state.game.pro and state.game.num_players == 3 and state.year == 3
    assert state.prestige == old["pp"] and state.space_owner == old["sp_owner"]


def test_the_old_names_are_declared_as_aliases():
    assert SCHEMA.aliases == RENAMED


def test_every_saved_field_is_declared_and_every_declared_field_is_saved():
    state = AsaraGame(2).new_state(1)
    assert set(json.loads(state.to_json())["state"]) == SCHEMA.saved_names
    assert {"hand_n", "changes", "_legal", "_mask", "_reach"}.isdisjoint(SCHEMA.saved_names)
    assert all(f.doc for f in SCHEMA.fields)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("year", 7, "year=7 is outside [1, 4]"),
    ("phase", 42, "phase=42 is outside [0, 9]"),
    ("current_player", 3, "current_player=3 is outside [-1, 2]"),
    ("caliph", True, "caliph must be an int, got True"),
    ("hand", [0] * 5, "hand must have 15 entries, got 5"),
    ("prestige", [-1, 0, 0], "prestige value -1 is outside [0, inf]"),
    ("deck", ["x"], "deck must hold ints"),
    ("space_owner", [3] * 3, "space_owner value 3 is outside [-1, 2]"),
    ("space_owner", [-1] * 3, "space_owner must have"),
    ("lit_drawn", [0] * 6, "lit_drawn must have at most 5 entries"),
    ("lit_stack", [5], "lit_stack value 5 is outside [0, 4]"),
    ("piles", [[0], [1]], "piles must have 4 entries"),
    ("piles", [[10], [], [], []], "piles [0] value 10 is outside [0, 9]"),
    ("rng", "x", "rng must be a 64-bit unsigned int"),
])
def test_a_bad_field_is_refused_naming_it(field, value, words):
    doc = _doc()
    doc["state"][field] = value
    with pytest.raises(CorruptStateError, match=re.escape(words)):
        AsaraState.from_json(json.dumps(doc))


def test_a_missing_or_unknown_field_is_named():
    doc = _doc()
    del doc["state"]["deck"]
    doc["state"]["decks"] = []
    with pytest.raises(CorruptStateError, match=r"missing \['deck'\], unexpected \['decks'\]"):
        AsaraState.from_json(json.dumps(doc))


@pytest.mark.parametrize(("edit", "words"), [
    (lambda s: s["space_owner"].__setitem__(s["space_owner"].index(-1), 0), "space owner and card disagree"),
    (lambda s: s["reserve"].__setitem__(5, s["reserve"][5] + 1), "tower sections are not conserved"),
    (lambda s: s["hand"].__setitem__(0, s["hand"][0] + 1), "suit 0 has"),
    (lambda s: s.__setitem__("current_player", -1), "current_player is -1 exactly when the game is over"),
    (lambda s: s["lit_seen"].pop(), "lit_seen does not match the stack"),
])
def test_invariants_beyond_the_schema_are_checked_by_validate(edit, words):
    doc = _doc()
    edit(doc["state"])
    with pytest.raises(CorruptStateError, match=words):
        AsaraState.from_json(json.dumps(doc))


def test_the_generated_clone_copies_every_mutable_field():
    state = AsaraState.from_json(OLD_SAVE.read_text())
    state.legal_mask()
    clone = state.clone()
    for f in SCHEMA.saved:
        v = getattr(state, f.name)
        if isinstance(v, list):
            assert getattr(clone, f.name) is not v, f.name
    assert clone.piles[0] is not state.piles[0]
    assert clone.hand_n == state.hand_n and clone.hand_n is not state.hand_n
    clone.piles[0].append(0)
    clone.prestige[0] += 1
    clone.hand_n[0] += 1
    assert state.to_json() != clone.to_json()
    assert state.to_json() == AsaraState.from_json(OLD_SAVE.read_text()).to_json()
    assert state.hand_n == AsaraState.from_json(OLD_SAVE.read_text()).hand_n


def test_a_clone_plays_the_same_future():
    state = AsaraState.from_json(OLD_SAVE.read_text())
    clone = state.clone()
    for _ in range(30):
        a = state.legal_actions()[-1]
        assert clone.legal_actions() == state.legal_actions()
        state.apply(a)
        clone.apply(a)
    assert clone.to_json() == state.to_json()


def test_from_position_sets_named_fields_and_refuses_unknown_ones():
    g = AsaraGame(2)
    s = AsaraState.from_position(g, 3, prestige=[4, 7])
    assert s.scores() == [4.0, 7.0]
    with pytest.raises(ValueError, match="unknown state field 'pp'"):
        AsaraState.from_position(g, 3, pp=[4, 7])
    with pytest.raises(ValueError, match="unknown state field 'hand_n'"):
        AsaraState.from_position(g, 3, hand_n=[0, 0])


def test_the_legal_mask_is_read_only_and_shared_until_the_state_changes():
    state = AsaraGame(3, version="professional").new_state(2)
    m = state.legal_mask()
    assert not m.flags.writeable
    assert state.legal_mask() is m
    assert state.clone().legal_mask() is m
    state.apply(state.legal_actions()[0])
    assert state.legal_mask() is not m


def test_a_bad_value_under_an_old_name_is_named_by_the_new_name():
    doc = json.loads(OLD_SAVE.read_text())
    doc["state"]["pp"] = [0, -2, 0]
    with pytest.raises(CorruptStateError, match=re.escape("prestige value -2 is outside [0, inf]")):
        AsaraState.from_json(json.dumps(doc))
