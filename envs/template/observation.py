"""The template game's observation: a flat float32 vector of named blocks, egocentric, in [0, 1].

Blocks (``game.observation_layout``):

* ``my_hand`` (9): 0.5 per copy of each value in the observer's hand;
* ``scores`` (n): every score, the observer first, mapped from [-45, 45] to [0, 1];
* ``phase`` (2): one-hot, play a card / bank or attack;
* ``deck`` (1): cards left in the deck, over the deck size;
* ``pending`` (9): one-hot, the card played and not yet banked or used.

Other players' hands and the deck order are not in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.game import Layout
from .components import CARD_VALUES, COPIES, DECK, SCORE_BOUND

if TYPE_CHECKING:
    from .state import TemplateState


def build_layout(num_players: int) -> dict[str, slice]:
    lay = Layout()
    lay.add("my_hand", len(CARD_VALUES))
    lay.add("scores", num_players)
    lay.add("phase", 2)
    lay.add("deck", 1)
    lay.add("pending", len(CARD_VALUES))
    return lay.slices


def encode(state: TemplateState, player: int) -> np.ndarray:
    game = state.game
    lay = game.observation_layout
    o = np.zeros(game.observation_shape, dtype=np.float32)
    hand = o[lay["my_hand"]]
    for c in state.hands[player]:
        hand[c - 1] += 1.0 / COPIES
    n = game.num_players
    o[lay["scores"]] = [(state.score[(player + k) % n] + SCORE_BOUND) / (2 * SCORE_BOUND) for k in range(n)]
    o[lay["phase"].start + (1 if state.pending else 0)] = 1.0
    o[lay["deck"]] = len(state.deck) / len(DECK)
    if state.pending:
        o[lay["pending"].start + state.pending - 1] = 1.0
    return o
