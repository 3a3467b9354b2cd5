"""Pictures (``State.render_rgb``) of every registered game.

Every position of a few random games renders without error as uint8 (H, W, 3);
the same position gives the same picture (after a clone, a JSON round trip, in
another process with another hash seed); distinct positions give distinct
pictures; rendering changes nothing.  Games whose module does not import yet
are skipped.  The speed figures live in ``benchmarks/render_speed.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import meeplezoo
from meeplezoo.envs.core import State
from toygame import ToyGame

SEEDS = (0, 1)  # every position of seed 0's game is drawn; seed 1's game gives a second mid-game position


def landed_class(name: str):
    try:
        return meeplezoo.game_class(name)
    except ImportError as e:
        pytest.skip(f"{name} has not landed yet (its module does not import: {e})")


def configs() -> list[tuple[str, int]]:
    """Every game at its smallest and largest player count (names only: imports happen in the tests)."""
    out = []
    for name in meeplezoo.list_envs():
        try:
            cls = meeplezoo.game_class(name)
            counts = sorted({cls.min_players, cls.max_players})
        except ImportError:
            counts = [0]  # skipped inside the test, with the reason
        out += [(name, n) for n in counts]
    return out


def make(name: str, players: int):
    if name == "toy":
        return ToyGame(players)
    cls = landed_class(name)
    return cls(players)


def random_game(game, seed: int) -> tuple[list[State], list[int]]:
    rng = np.random.default_rng(seed)
    state = game.new_state(seed)
    states, actions = [state.clone()], []
    while not state.is_terminal():
        a = int(rng.choice(state.legal_actions()))
        state.apply(a)
        actions.append(a)
        states.append(state.clone())
    return states, actions


def digest(rgb: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(rgb).tobytes() + str(rgb.shape).encode()).hexdigest()


CASES = configs() + [("toy", 2), ("toy", 4)]


@pytest.fixture(scope="module")
def played():
    """(name, players) -> ((states, actions, pictures) of one random game, the states of another game)."""
    cache: dict = {}

    def get(name: str, players: int):
        if (name, players) not in cache:
            game = make(name, players)
            states, actions = random_game(game, SEEDS[0])
            other, _ = random_game(game, SEEDS[1])
            cache[name, players] = (states, actions, [s.render_rgb() for s in states]), other
        return cache[name, players]

    return get


@pytest.mark.parametrize("name,players", CASES)
def test_every_position_renders(played, name, players):
    if players == 0:
        landed_class(name)
    (states, _, pictures), _ = played(name, players)
    check_pictures(name, pictures)
    assert states[-1].is_terminal()


def check_pictures(name: str, pictures: list[np.ndarray]) -> None:
    for i, rgb in enumerate(pictures):
        assert isinstance(rgb, np.ndarray) and rgb.dtype == np.uint8, f"{name} position {i}: {type(rgb)}"
        assert rgb.ndim == 3 and rgb.shape[2] == 3 and min(rgb.shape[:2]) >= 16, f"{name}: shape {rgb.shape}"
        assert rgb.std() > 0, f"{name} position {i}: a blank picture"


@pytest.mark.slow
@pytest.mark.parametrize("name", meeplezoo.list_envs())
def test_every_position_of_many_games_renders(name):
    """Five random games at every player count (and every rule option's non-default choice)."""
    cls = landed_class(name)
    games = [cls(n) for n in range(cls.min_players, cls.max_players + 1)]
    for o in cls.options_spec:
        for choice in o.choices or ():
            if choice != o.default:
                games.append(cls(cls.default_players, **{o.name: choice}))
    for game in games:
        for seed in range(5):
            states, _ = random_game(game, seed)
            check_pictures(f"{name} {game!r} seed {seed}", [s.render_rgb() for s in states])


@pytest.mark.parametrize("name,players", CASES)
def test_rendering_is_deterministic_and_pure(played, name, players):
    if players == 0:
        landed_class(name)
    (states, _, pictures), _ = played(name, players)
    for i in range(0, len(states), max(1, len(states) // 12)):
        s = states[i]
        before = s.to_json()
        again = s.render_rgb()
        assert np.array_equal(again, pictures[i]), f"{name} position {i}: two renders differ"
        assert s.to_json() == before, f"{name} position {i}: rendering changed the state"
        assert np.array_equal(s.clone().render_rgb(), pictures[i]), f"{name} position {i}: clone renders differently"
        loaded = type(s).from_json(before)
        assert np.array_equal(loaded.render_rgb(), pictures[i]), f"{name} position {i}: JSON round trip differs"


@pytest.mark.parametrize("name,players", CASES)
def test_distinct_positions_give_distinct_pictures(played, name, players):
    if players == 0:
        landed_class(name)
    (states, actions, pictures), other = played(name, players)
    assert not np.array_equal(pictures[0], pictures[-1]), f"{name}: start and end of a game look the same"
    changed = [not np.array_equal(a, b) for a, b in zip(pictures, pictures[1:])]
    same = [states[i].action_name(actions[i]) for i, c in enumerate(changed) if not c]
    # a decision whose effect is not drawn (a sub-decision awaiting its continuation) is tolerated,
    # but most decisions must show: a picture that ignores the play is useless for watching games
    assert sum(changed) >= len(changed) / 2, (
        f"{name}: the picture changed after only {sum(changed)} of {len(changed)} decisions; "
        f"unchanged after e.g. {same[:5]}")
    # two different games are told apart in mid-game
    k = min(len(states), len(other)) // 2
    if states[k].to_json() != other[k].to_json():
        assert not np.array_equal(pictures[k], other[k].render_rgb()), (
            f"{name}: two different mid-game positions look the same")


@pytest.mark.parametrize("name,players", CASES)
def test_action_regions_lie_on_the_picture_and_name_legal_actions(played, name, players):
    """A renderer's ``action_regions(state)`` (the clickable places of ``meeplezoo serve``): at every position
    of a game, boxes inside the picture that name only legal actions; most decisions of a board game have
    some (a place, cell or field they name)."""
    if players == 0:
        landed_class(name)
    if name == "toy" or not hasattr(meeplezoo.game_class(name).renderer(), "action_regions"):
        pytest.skip(f"{name} draws no clickable places")
    regions = meeplezoo.game_class(name).renderer().action_regions
    (states, _, pictures), _ = played(name, players)
    with_regions = 0
    for i, (s, rgb) in enumerate(zip(states, pictures)):
        boxes = regions(s)
        h, w = rgb.shape[:2]
        legal = set(s.legal_actions()) if not s.is_terminal() else set()
        assert set(boxes) <= legal, f"{name} position {i}: regions for illegal actions {set(boxes) - legal}"
        for a, (x0, y0, x1, y1) in boxes.items():
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h, (
                f"{name} position {i}: {s.action_name(a)} at {(x0, y0, x1, y1)} outside the {w}x{h} picture")
        with_regions += bool(boxes)
    assert with_regions >= (len(states) - 1) / 4, (
        f"{name}: only {with_regions} of {len(states) - 1} decisions have a place to click")


_SUBPROCESS = r"""
import hashlib, json, sys
import numpy as np
import meeplezoo
sys.path.insert(0, sys.argv[1])
from test_render import random_game, digest
out = {}
for name, players in json.loads(sys.argv[2]):
    states, _ = random_game(meeplezoo.make_game(name, players), 0)
    out[f"{name}/{players}"] = [digest(states[i].render_rgb()) for i in (0, len(states) // 2, len(states) - 1)]
print(json.dumps(out))
"""


def test_same_picture_in_another_process(played):
    """No dependence on hash seeds, caches or import order: a fresh interpreter draws the same bytes."""
    cases = []
    for name, players in configs():
        try:
            meeplezoo.game_class(name)
        except ImportError:
            continue
        cases.append((name, players))
    if not cases:
        pytest.skip("no game has landed yet (none of the registered modules imports)")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    proc = subprocess.run([sys.executable, "-c", _SUBPROCESS, os.path.dirname(__file__), json.dumps(cases)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, players in cases:
        (_, _, pictures), _ = played(name, players)
        ours = [digest(pictures[i]) for i in (0, len(pictures) // 2, len(pictures) - 1)]
        assert theirs[f"{name}/{players}"] == ours, f"{name} ({players} players): pictures differ between processes"


@pytest.mark.parametrize("name", meeplezoo.list_envs())
def test_rgb_array_through_pettingzoo(name):
    """``render_mode="rgb_array"`` of the AEC env is the engine's picture."""
    landed_class(name)
    env = meeplezoo.make(name, render_mode="rgb_array")
    env.reset(seed=3)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3
    assert np.array_equal(frame, env.unwrapped.game_state.render_rgb())
    env.close()
