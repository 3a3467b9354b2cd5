"""The template game's renderer (``TemplateGame.renderer_ref``): the text views, and the picture as the
text drawn on a canvas."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.render import text_to_rgb

if TYPE_CHECKING:
    from .state import TemplateState


def render_text(state: TemplateState) -> str:
    lines = [f"deck {len(state.deck)}  to move: {state.current_player}  pending: {state.pending}"]
    for p in range(state.game.num_players):
        lines.append(f"player {p}: score {state.score[p]:3d}  hand {state.hands[p]}")
    return "\n".join(lines)


def observation_string(state: TemplateState, player: int) -> str:
    """What ``player`` may know: their hand, every score, the deck size and the card in play."""
    lines = [f"deck {len(state.deck)}  to move: {state.current_player}  pending: {state.pending}"]
    for p in range(state.game.num_players):
        hand = sorted(state.hands[p]) if p == player else f"{len(state.hands[p])} cards"
        lines.append(f"player {p}: score {state.score[p]:3d}  hand {hand}")
    return "\n".join(lines)


def render_rgb(state: TemplateState) -> np.ndarray:
    return text_to_rgb(render_text(state))
