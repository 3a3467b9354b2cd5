"""Saved documents edited by hand (or by a bug) either load into a game or are refused by name.

Every single-field edit of a saved document must be refused with a ``CorruptStateError`` or load
into a state that is a game: it saves back to the same document, a position that is not over has
a legal action, every observation stays inside the observation space, and play goes on from it.
The cases first found this way are pinned below; the fuzz itself runs small by default and
large under ``-m slow``.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import meeplezoo
from meeplezoo.envs.core import CorruptStateError
from meeplezoo.registry import game_class, make_game


def saved_doc(name: str, num_players: int, seed: int, moves: int, **options: Any) -> dict:
    """The save of a position ``moves`` random decisions into a game (fewer if it ends)."""
    rng = random.Random(seed)
    s = make_game(name, num_players, **options).new_state(seed)
    for _ in range(moves):
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))
    return json.loads(s.to_json())


def load(doc: dict):
    return game_class(doc["game"]).state_class.from_json(json.dumps(doc))


def edited(doc: dict, field: str, value: Any, *path: int) -> dict:
    out = copy.deepcopy(doc)
    if not path:
        out["state"][field] = value
        return out
    target = out["state"][field]
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    return out


# -- the cases found by the fuzz ---------------------------------------------------------------------
def hawaii_doc_in(phase_name: str, num_players: int = 3) -> dict:
    """A Hawaii save whose decision is ``phase_name``, from random games."""
    from meeplezoo.envs.hawaii import actions as A

    phase = A.PHASE_NAMES.index(phase_name)
    for seed in range(200):
        rng = random.Random(seed)
        s = make_game("hawaii", num_players).new_state(seed)
        while not s.is_terminal():
            if s.phase == phase:
                return json.loads(s.to_json())
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError(f"no {phase_name} decision reached")


def test_hawaii_a_decision_the_turn_did_not_ask_is_refused_naming_phase_and_kind():
    from meeplezoo.envs.hawaii import actions as A

    main = hawaii_doc_in("main")
    assert load(main).legal_mask().any()
    # a price-token decision with no purchase begun: it played into an empty mask two steps later
    with pytest.raises(CorruptStateError, match=r"kind=0 .*phase=1 \(token\)"):
        load(edited(main, "phase", A.TOKEN))
    with pytest.raises(CorruptStateError, match=r"kind=0 .*phase=8 \(fish\)"):
        load(edited(main, "phase", A.FISH))
    token = hawaii_doc_in("token")  # a purchase begun
    with pytest.raises(CorruptStateError, match=r"kind=0 .*phase=1 \(token\)"):
        load(edited(token, "kind", 0))
    with pytest.raises(CorruptStateError, match=r"kind=2 \(fishing\) .*phase=1"):
        load(edited(token, "kind", 2))
    with pytest.raises(CorruptStateError, match=r"kind=1 \(purchase\) does not fit phase=0 \(main\)"):
        load(edited(main, "kind", 1))


def test_hawaii_exchange_huts_used_beyond_those_owned_are_refused():
    doc = hawaii_doc_in("main")
    with pytest.raises(CorruptStateError, match="exch_used: player 1 used 2 exchange huts of side I, he owns 0"):
        load(edited(doc, "exch_used", 2, 1, 0))


def test_hawaii_turn_costs_beyond_the_configuration_are_refused_by_the_schema():
    doc = hawaii_doc_in("token")
    with pytest.raises(CorruptStateError, match=r"c_move=9 is outside \[0, 4\]"):
        load(edited(doc, "c_move", 9))
    with pytest.raises(CorruptStateError, match=r"c_price=13 is outside \[0, 12\]"):
        load(edited(doc, "c_price", 13))


def test_kerala_a_document_that_would_not_save_back_to_itself_is_refused_naming_the_field():
    doc = saved_doc("kerala", 2, seed=3, moves=14)
    assert load(doc).to_json() == json.dumps(doc, separators=(",", ":"))
    # the rng is saved as a decimal string; a plain number loaded but saved back as text
    with pytest.raises(CorruptStateError, match="rng is not in its saved form"):
        load(edited(doc, "rng", int(doc["state"]["rng"])))
    # elephants are saved smaller cell first: a coordinate of -1 that swaps them would be saved otherwise
    (a, b) = doc["state"]["elephants"][0]
    swapped = edited(doc, "elephants", [b, a], 0)
    with pytest.raises(CorruptStateError, match="elephants is not in its saved form"):
        load(swapped)


def test_a_position_that_is_not_over_must_have_a_legal_action(monkeypatch):
    """The rule every game owes (no decision ever has an empty mask), checked on load for every game."""
    from meeplezoo.envs.haus_der_sonne.state import HausDerSonneState

    doc = saved_doc("haus_der_sonne", 2, seed=1, moves=6)
    assert load(doc).legal_mask().any()
    monkeypatch.setattr(HausDerSonneState, "legal_mask", lambda self: np.zeros(self.game.num_actions, bool))
    with pytest.raises(CorruptStateError, match="not over and has no legal action"):
        load(doc)


# -- the fuzz ------------------------------------------------------------------------------------------
def single_edits(value: Any, rng: random.Random, per_list: int = 3) -> Iterator[tuple[tuple[int, ...], Any]]:
    """(path, new value) for a few single edits of one JSON value: ints moved by small steps and to
    -1/0/1/2, bools flipped, decimal strings changed or given as numbers, list entries edited."""
    if isinstance(value, bool):
        yield (), not value
    elif isinstance(value, int):
        for new in (value + 1, value - 1, -1, 0, 1, 2, value + 7):
            if new != value:
                yield (), new
    elif isinstance(value, str):
        yield (), "0"
        if value.isdigit():
            yield (), str(int(value) + 1)
            yield (), int(value)
    elif isinstance(value, list):
        if not value:
            yield (), [0]
            return
        for i in rng.sample(range(len(value)), min(per_list, len(value))):
            for path, new in single_edits(value[i], rng, per_list):
                yield (i, *path), new


#: decisions played from a loaded edited document
PLAYOUT = 12


def check_edit(doc: dict, field: str, path: tuple[int, ...], new: Any, rng: random.Random) -> str | None:
    """None when the edited document is refused by name or loads into a game; else what went wrong."""
    bad = edited(doc, field, new, *path)
    try:
        s = load(bad)
    except CorruptStateError:
        return None
    except Exception as e:  # noqa: BLE001 - anything else is the finding
        return f"{type(e).__name__}: {e}"
    if json.loads(s.to_json())["state"] != bad["state"]:
        return "loads but saves as another document"
    g = s.game
    low, high = g.observation_spec.low, g.observation_spec.high
    try:
        for _ in range(PLAYOUT):  # play goes on: no empty mask, no error, observations inside the space
            if s.is_terminal():
                return None
            if not s.legal_mask().any():
                return "a position that is not over without a legal action"
            for p in range(g.num_players):
                o = s.observe(p)
                if (o < low).any() or (o > high).any():
                    return f"player {p}'s observation leaves the observation space"
            s.apply(rng.choice(s.legal_actions()))
    except Exception as e:  # noqa: BLE001
        return f"play from it fails: {type(e).__name__}: {e}"
    return None


def fuzz(name: str, num_players: int, positions: int, seed: int, per_list: int = 3) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    tried, found = 0, []
    for k in range(positions):
        doc = saved_doc(name, num_players, seed=seed * 1000 + k, moves=rng.randrange(0, 250))
        for field, value in doc["state"].items():
            for path, new in single_edits(value, rng, per_list):
                tried += 1
                problem = check_edit(doc, field, path, new, rng)
                if problem:
                    found.append(f"{name} {num_players}p position {k}: {field}{list(path)} = {new!r:.40}: {problem}")
    return tried, found


@pytest.mark.parametrize("name", meeplezoo.list_envs())
def test_single_field_edits_are_refused_or_load_into_a_game(name):
    n = game_class(name).max_players
    tried, found = fuzz(name, n, positions=1, seed=7, per_list=1)
    assert tried > 50
    assert not found, "\n".join(found[:10])


@pytest.mark.slow
@pytest.mark.parametrize("name", meeplezoo.list_envs())
def test_single_field_edits_are_refused_or_load_into_a_game_at_every_player_count(name):
    cls = game_class(name)
    found: list[str] = []
    for n in range(cls.min_players, cls.max_players + 1):
        tried, f = fuzz(name, n, positions=12, seed=n)
        assert tried > 1000
        found += f
    assert not found, "\n".join(found[:10])
