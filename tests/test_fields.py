"""envs/core/fields.py: a state declared once gives clone, save/load with checks, and from_position."""

from __future__ import annotations

import pytest

from meeplezoo.envs.core.fields import Bool, Cache, Custom, FieldError, Int, IntList, Nested, RngField, StateSchema
from meeplezoo.envs.core.rng import Rng


class Obj:
    pass


class FakeGame:
    num_players = 3
    name = "fake"


SCHEMA = StateSchema("fake", [
    Int("turn", 0, 9),
    IntList("score", lambda g: g.num_players, 0, 99, aliases=("pts",)),
    Nested("hands", (lambda g: g.num_players, None), 1, 9),
    Nested("cube", (2, 2, 2), 0, 1),
    Bool("done"),
    RngField(),
    Custom("log", copy=list.copy, save=list, load=lambda v, g: [str(x) for x in v]),
    Cache("_mask"),
    Cache("_scratch", share=False, reset=None),
    Cache("_sums", copy=list.copy),
])


def make() -> Obj:
    o = Obj()
    o.game = FakeGame()
    o.turn, o.score, o.hands = 3, [1, 2, 3], [[1], [2, 3], []]
    o.cube = [[[0, 1], [1, 0]], [[1, 1], [0, 0]]]
    o.done, o.rng, o.log = False, Rng(5), ["a"]
    o._mask, o._scratch, o._sums = ("m",), [9], [4]
    return o


def test_the_generated_clone_copies_lists_shares_immutable_caches_and_resets_the_others():
    clone_fn = SCHEMA.bind(Obj)
    a = make()
    b = clone_fn(a)
    assert b.game is a.game and b.score == a.score and b.score is not a.score
    assert b.hands[1] is not a.hands[1] and b.cube[0][1] is not a.cube[0][1] and b.cube == a.cube
    assert b.log is not a.log and b._sums is not a._sums and b._sums == [4]
    assert b._mask is a._mask and b._scratch is None
    assert b.rng is not a.rng and b.rng.s == a.rng.s


def test_save_and_load_round_trip_and_caches_are_not_saved():
    a = make()
    data = SCHEMA.dump(a)
    assert set(data) == {"turn", "score", "hands", "cube", "done", "rng", "log"}
    b = Obj()
    b.game = a.game
    SCHEMA.load_into(b, data, ValueError)
    assert SCHEMA.dump(b) == data and b._mask is None


def test_an_old_name_is_accepted_when_loading():
    data = SCHEMA.dump(make())
    data["pts"] = data.pop("score")
    b = Obj()
    b.game = FakeGame()
    SCHEMA.load_into(b, data, ValueError)
    assert b.score == [1, 2, 3]


@pytest.mark.parametrize(("name", "value", "words"), [
    ("turn", 10, "turn=10 is outside [0, 9]"),
    ("turn", True, "turn must be an int"),
    ("score", [1, 2], "score must have 3 entries"),
    ("hands", [[1], [0], []], "hands [1] value 0 is outside [1, 9]"),
    ("cube", [[[0, 1], [1, 0]], [[1, 1], [0]]], "cube [1] [1] must have 2 entries"),
    ("done", 0, "done must be a bool"),
    ("rng", -1, "rng must be a 64-bit unsigned int"),
])
def test_a_bad_value_is_refused_naming_the_field(name, value, words):
    data = SCHEMA.dump(make())
    data[name] = value
    b = Obj()
    b.game = FakeGame()
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        SCHEMA.load_into(b, data, ValueError)


def test_missing_or_unexpected_keys_are_named():
    data = SCHEMA.dump(make())
    del data["done"]
    data["extra"] = 1
    with pytest.raises(ValueError, match=r"missing \['done'\], unexpected \['extra'\]"):
        SCHEMA.load_into(Obj(), data, ValueError)


def test_assign_copies_lists_and_refuses_unknown_names_and_caches():
    a = make()
    hands = [[5], [6], [7]]
    SCHEMA.assign(a, {"hands": hands, "turn": 4})
    hands[0].append(1)
    assert a.hands == [[5], [6], [7]] and a.turn == 4
    for bad in ("nope", "_mask"):
        with pytest.raises(ValueError, match=f"unknown state field '{bad}'"):
            SCHEMA.assign(a, {bad: 1})


def test_a_field_declared_twice_is_refused():
    with pytest.raises(ValueError, match="declared twice: turn"):
        StateSchema("x", [Int("turn"), Int("turn")])
    with pytest.raises(FieldError):
        Int("t", 0, 1).check(2, FakeGame())
