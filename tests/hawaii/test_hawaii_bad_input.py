"""Illegal actions and corrupt saved states are refused with clear errors; the state never changes."""

import json

import numpy as np
import pytest

from meeplezoo.envs.core.game import CorruptStateError, IllegalActionError
from meeplezoo.envs.hawaii import actions as A
from meeplezoo.envs.hawaii.state import HawaiiGame, HawaiiState


def _midgame(n=3, steps=40, seed=1):
    g = HawaiiGame(n)
    s = g.new_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        la = s.legal_actions()
        s.apply(la[rng.integers(len(la))])
    return s


@pytest.mark.parametrize("bad", [-1, 10_000, 3.5, "1", None, [1]])
def test_malformed_actions_raise_and_leave_state_unchanged(bad):
    s = _midgame()
    before = s.to_json()
    with pytest.raises(IllegalActionError):
        s.apply(bad)
    assert s.to_json() == before


def test_every_illegal_action_is_refused():
    s = _midgame()
    before = s.to_json()
    mask = s.legal_mask()
    for a in np.flatnonzero(~mask)[:60]:
        with pytest.raises(IllegalActionError) as err:
            s.apply(int(a))
        assert "illegal action" in str(err.value)
    assert s.to_json() == before


def test_no_action_after_the_end():
    g = HawaiiGame(2)
    s = g.new_state(0)
    rng = np.random.default_rng(0)
    while not s.is_terminal():
        la = s.legal_actions()
        s.apply(la[rng.integers(len(la))])
    assert not s.legal_mask().any() and s.current_player == -1
    with pytest.raises(IllegalActionError):
        s.apply(A.MAIN_PASS)


def test_action_names_are_unique_and_total():
    for kw in ({}, {"fish_cost_per_fish": True}):
        g = HawaiiGame(4, **kw)
        s = g.new_state(0)
        names = [s.action_name(a) for a in range(g.num_actions)]
        assert len(set(names)) == g.num_actions
        assert "invalid" in s.action_name(g.num_actions + 3)


def _doc(s):
    return json.loads(s.to_json())


def _load(doc):
    return HawaiiState.from_json(json.dumps(doc))


def test_corrupt_saved_states_are_refused():
    s = _midgame()
    good = _doc(s)
    text = s.to_json()
    with pytest.raises(CorruptStateError):
        HawaiiState.from_json(text[: len(text) // 2])
    with pytest.raises(CorruptStateError):
        HawaiiState.from_json(b"\xff\xfe")
    cases = []

    def edit(fn):
        d = json.loads(json.dumps(good))
        fn(d)
        cases.append(d)

    edit(lambda d: d.update(game="kerala"))
    edit(lambda d: d["config"].update(num_players=9))
    edit(lambda d: d["state"].pop("bag"))
    edit(lambda d: d["state"]["bag"].append(d["state"]["bag"][0] if d["state"]["bag"] else 0))
    edit(lambda d: d["state"]["res"][0].__setitem__(0, -1))
    edit(lambda d: d["state"]["supply"].__setitem__(19, d["state"]["supply"][19] + 1))
    edit(lambda d: d["state"]["docks"].__setitem__(0, d["state"]["docks"][1]))
    edit(lambda d: d["state"].update(round=7))
    edit(lambda d: d["state"].update(order=[0, 0, 1]))
    edit(lambda d: d["state"]["rows"][0].append([2 * 7]))  # a village founded with a hula dancer
    edit(lambda d: d["state"]["vp"].__setitem__(1, d["state"]["vp"][1] + 3))
    edit(lambda d: d["state"].update(terminal="no"))
    edit(lambda d: d["state"].update(current_player=5))
    edit(lambda d: d["state"]["god_stacks"][0].append(13))
    edit(lambda d: d["state"]["boat_used"][0].append(True))
    edit(lambda d: d["state"].update(rng=-4))
    edit(lambda d: d["state"].update(circles=d["state"]["circles"][:9]))
    for d in cases:
        with pytest.raises(CorruptStateError):
            _load(d)
    assert _load(good).to_json() == text


def test_state_from_json_checks_configuration():
    s = _midgame()
    with pytest.raises(CorruptStateError):
        HawaiiGame(3, place_set="B").state_from_json(s.to_json())
    assert HawaiiGame(3).state_from_json(s.to_json()).to_json() == s.to_json()


def test_from_position_rejects_unknown_fields():
    with pytest.raises(ValueError):
        HawaiiState.from_position(HawaiiGame(2), 0, shells=[1, 2])
