"""Text and picture rendering of Asara."""

import numpy as np
from asara_helpers import add_tower, position

from meeplezoo.envs.asara import components as C
from meeplezoo.envs.asara.state import AsaraGame


def test_text_shows_public_board_and_the_movers_hand():
    s = AsaraGame(3, version="professional").new_state(2)
    text = s.render_text()
    for part in ("year 1/4", "Markets", "Bank 12/10/8", "Building circle", "House of Spies", "Recruit",
                 "Lighted windows", "Players:", f"Hand of P{s.current_player}"):
        assert part in text
    s.phase, s.current_player = 9, -1  # at the end nobody's hand is shown
    assert "Hand of" not in s.render_text() and "GAME OVER" in s.render_text()


def test_picture_is_deterministic_and_draws_towers():
    s = position(2, money=[10, 10])
    blank = s.render_rgb()
    add_tower(s, 0, 3, trunks=3)  # a black tower of height 5
    pic = s.render_rgb()
    assert pic.dtype == np.uint8 and pic.ndim == 3 and pic.shape[2] == 3
    assert np.array_equal(pic, s.render_rgb())
    black = np.all(pic == np.array(C.MATERIAL_RGB[3], dtype=np.uint8), axis=2).sum()
    black_before = np.all(blank == np.array(C.MATERIAL_RGB[3], dtype=np.uint8), axis=2).sum()
    assert black > black_before + 5 * 18 * 15  # five sections of about 20 x 18 pixels
    assert len(np.unique(pic.reshape(-1, 3), axis=0)) > 10
