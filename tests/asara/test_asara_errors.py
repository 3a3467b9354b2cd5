"""Bad input: illegal actions, bad options and player counts, corrupt saved states; names of actions."""

import json

import pytest

from meeplezoo.envs.asara.state import AsaraGame, AsaraState
from meeplezoo.envs.core.game import CorruptStateError, IllegalActionError


def test_illegal_actions_raise_and_leave_state_unchanged():
    s = AsaraGame(3).new_state(1)
    before = s.to_json()
    illegal = [a for a in range(s.game.num_actions) if not s.legal_mask()[a]][:20]
    for a in illegal + [-1, s.game.num_actions, 10**9]:
        with pytest.raises(IllegalActionError):
            s.apply(a)
        assert s.to_json() == before
    for bad in ("3", 2.5, None, [1]):
        with pytest.raises(IllegalActionError):
            s.apply(bad)
        assert s.to_json() == before


def test_no_action_after_the_end():
    import random

    s = AsaraGame(2).new_state(0)
    rng = random.Random(0)
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    assert not s.legal_mask().any() and s.legal_actions() == []
    with pytest.raises(IllegalActionError):
        s.apply(0)


@pytest.mark.parametrize("kwargs,word", [
    ({"num_players": 1}, "num_players"),
    ({"num_players": 5}, "num_players"),
    ({"version": "expert"}, "version"),
    ({"colour_blind": True}, "colour_blind"),
    ({"cards_per_suit": "9"}, "cards_per_suit"),
    ({"cards_per_suit": 3}, "cards_per_suit"),
    ({"build_exact_k": 1}, "build_exact_k"),
    ({"sections_per_material": {"base": 4}}, "sections_per_material"),
    ({"gold_per_type_material": {"base": 9, "trunk": 1, "window": 1, "turret": 1}}, "gold_per_type_material"),
    ({"prices": {"brown": 3}}, "prices"),
    ({"spy_space_fees": []}, "spy_space_fees"),
    ({"final_highest_overall": [8]}, "final_highest_overall"),
    ({"height_rank_unit": "player"}, "height_rank_unit"),
    ({"lit_short_stack": "never"}, "lit_short_stack"),
    ({"board_by_player_count": {"2": "x"}}, "board_by_player_count"),
])
def test_bad_options_raise_value_error_naming_the_option(kwargs, word):
    with pytest.raises(ValueError, match=word):
        AsaraGame(**kwargs)


def _doc(s):
    return json.loads(s.to_json())


@pytest.mark.parametrize("edit", [
    lambda d: d["state"]["hand"].__setitem__(0, d["state"]["hand"][0] + 1),  # a card too many
    lambda d: d["state"]["money"].__setitem__(0, -3),
    lambda d: d["state"]["reserve"].__setitem__(5, 2),  # tile from nowhere
    lambda d: d["state"]["piles"][0].pop(),  # tile lost
    lambda d: d["state"].__setitem__("year", 7),
    lambda d: d["state"].__setitem__("phase", 42),
    lambda d: d["state"].__setitem__("current_player", 9),
    lambda d: d["state"]["towers"].pop(),
    lambda d: d["state"].__delitem__("deck"),
    lambda d: d["state"].__setitem__("rng", "x"),
    lambda d: d["state"]["space_owner"].__setitem__(0, 0),  # a card-less occupied space
    lambda d: d["state"].__setitem__("lit_stack", [0, 1]),
    lambda d: d.__setitem__("game", "kerala"),
    lambda d: d["config"].__setitem__("num_players", 7),
    lambda d: d.__setitem__("format", 99),
])
def test_corrupt_saved_states_are_rejected(edit):
    s = AsaraGame(3, version="professional").new_state(2)
    d = _doc(s)
    edit(d)
    with pytest.raises(CorruptStateError):
        AsaraState.from_json(json.dumps(d))


def test_truncated_and_non_json_text():
    text = AsaraGame(2).new_state(0).to_json()
    for bad in (text[: len(text) // 2], "", "null", "[1,2]", b"\xff\xfe"):
        with pytest.raises(CorruptStateError):
            AsaraState.from_json(bad)


def test_state_from_json_of_another_configuration():
    s = AsaraGame(2).new_state(0)
    with pytest.raises(CorruptStateError):
        AsaraGame(3).state_from_json(s.to_json())
    assert AsaraGame(2).state_from_json(s.to_json()).to_json() == s.to_json()


@pytest.mark.parametrize("opts", [{}, {"version": "professional"}, {"spy_space_fees": [1, 2, 3, 4, 5, 6, 7]}])
def test_action_names_unique_and_total(opts):
    g = AsaraGame(4, **opts)
    s = g.new_state(0)
    all_names = [s.action_name(a) for a in range(g.num_actions)]
    assert len(set(all_names)) == g.num_actions
    assert all(isinstance(x, str) and x for x in all_names)
    assert "invalid" in s.action_name(-1) and "invalid" in s.action_name(g.num_actions)
