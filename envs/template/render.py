"""Text views of the template game (the picture is the core's default: the text drawn on a canvas)."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
