"""The state declared once (StateSchema): old saves load, field errors name the field, clones are independent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import meeplezoo
from meeplezoo.envs.core.game import CorruptStateError
from meeplezoo.envs.haus_der_sonne.state import SCHEMA, HausDerSonneState

OLD_SAVE = Path(__file__).with_name("old_save_format1.json")


def test_a_save_written_before_the_schema_still_loads_to_the_same_position():
    text = OLD_SAVE.read_text().strip()
    state = HausDerSonneState.from_json(text)
    assert json.loads(state.to_json())["state"] == json.loads(text)["state"]
    assert state.game.tactical


def test_every_saved_field_is_declared_and_every_declared_field_is_saved():
    state = meeplezoo.make_game("haus_der_sonne").new_state(1)
    assert set(json.loads(state.to_json())["state"]) == SCHEMA.saved_names
    assert {"beach_sum", "_legal", "_mask"}.isdisjoint(SCHEMA.saved_names)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("boat", 9, "boat=9 is outside [0, 5]"),
    ("disc", [0] * 3, "disc must have 10 entries"),
    ("statue", ["x"] * 18, "statue must hold ints"),
    ("win_passed", [1, 0], "win_passed must be a list of bools"),
    ("piles", [[0], [1]], "piles must have 3 entries"),
])
def test_a_bad_field_is_refused_naming_it(field, value, words):
    doc = json.loads(OLD_SAVE.read_text())
    doc["state"][field] = value
    with pytest.raises(CorruptStateError, match=words.replace("[", r"\[").replace("]", r"\]")):
        HausDerSonneState.from_json(json.dumps(doc))


def test_invariants_beyond_the_schema_are_checked_by_validate():
    doc = json.loads(OLD_SAVE.read_text())
    doc["state"]["shaman"] = [3, 3]
    with pytest.raises(CorruptStateError, match="both shamans on one node"):
        HausDerSonneState.from_json(json.dumps(doc))


def test_the_generated_clone_copies_every_mutable_field():
    state = HausDerSonneState.from_json(OLD_SAVE.read_text())
    clone = state.clone()
    for f in SCHEMA.fields:
        v = getattr(state, f.name)
        if isinstance(v, list) and f.name not in ("_legal",):
            assert getattr(clone, f.name) is not v, f.name
    clone.hand[0][0] += 1
    clone.piles[0].append(0)
    assert state.to_json() != clone.to_json()
    assert state.to_json() == HausDerSonneState.from_json(OLD_SAVE.read_text()).to_json()


def test_the_legal_mask_is_read_only_and_shared_until_the_state_changes():
    state = meeplezoo.make_game("haus_der_sonne").new_state(2)
    m = state.legal_mask()
    assert not m.flags.writeable
    assert state.legal_mask() is m
    state.apply(state.legal_actions()[0])
    assert state.legal_mask() is not m
