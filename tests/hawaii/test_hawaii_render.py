"""Text and picture rendering of Hawaii positions."""


import numpy as np

from meeplezoo.agents.base import act_on_state
from meeplezoo.agents.heuristics.hawaii import HawaiiHeuristic
from meeplezoo.envs.hawaii.state import HawaiiGame


def _played(n=4, steps=120, seed=3):
    g = HawaiiGame(n)
    s = g.new_state(seed)
    agents = [HawaiiHeuristic(seed=k) for k in range(n)]
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(act_on_state(agents[s.current_player], s))
    return s


def test_text_shows_board_players_and_round():
    s = _played()
    text = s.render_text()
    assert text.startswith("Hawaii, round ")
    for word in ("Main island", "fishing cove", "docks", "sequence track", "Player 0", "Player 3", "Tikis",
                 "village 1", "round sum"):
        assert word in text
    for slot in range(1, 11):
        assert f"P{slot} " in text


def test_picture_is_deterministic_and_sized():
    s = _played(5)
    a = s.render_rgb()
    b = s.clone().render_rgb()
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3
    assert a.shape[0] == 330 + 130 * 5 + 0 * 1 and a.shape[1] == 1000
    assert np.array_equal(a, b)
    assert len(np.unique(a.reshape(-1, 3), axis=0)) > 20  # a real picture, not a blank canvas


def test_terminal_rendering_names_the_winner():
    s = _played(2, steps=100_000)
    assert s.is_terminal()
    assert "GAME OVER" in s.render_text()
    assert s.render_rgb().shape == (330 + 260, 1000, 3)
