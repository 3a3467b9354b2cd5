"""The template game's observation: a flat float32 vector of named blocks, egocentric, in [0, 1].

The blocks, their shapes and meanings are declared once, in :data:`BLOCKS` (``game.observation_spec``
and ``game.observation_layout`` follow from it; ``obs_format="dict"`` shows each block by name).
Other players' hands and the deck order are not in it.

The game points to :class:`TemplateObserver` with ``TemplateGame.observer_ref``, so the rules
module (``state.py``) never imports this one.  The vector is cheap, so the observer keeps no cache;
a game whose observation is costly keeps its caches in its observer, keyed by the tokens of the
state's :class:`~meeplezoo.envs.core.observation.Changes` (see ``envs/kerala/observation.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.observation import ObservationSpec, Observer
from .components import CARD_VALUES, COPIES, DECK, SCORE_BOUND

if TYPE_CHECKING:
    from .state import TemplateGame, TemplateState

# name, shape (``"players"``: one per player), meaning; every value in [0, 1]
BLOCKS = (
    ("my_hand", len(CARD_VALUES), f"1/{COPIES} per copy of each value 1..9 in my hand"),
    ("scores", "players", f"every score, mine first, mapped from [-{SCORE_BOUND}, {SCORE_BOUND}] to [0, 1]"),
    ("phase", 2, "one-hot: play a card / bank or attack"),
    ("deck", 1, f"cards left in the deck / {len(DECK)}"),
    ("pending", len(CARD_VALUES), "one-hot: the card played and not yet banked or used"),
)


def declare(num_players: int) -> ObservationSpec:
    """The blocks of :data:`BLOCKS`, in order, for ``num_players`` players."""
    spec = ObservationSpec()
    for name, shape, doc in BLOCKS:
        spec.add(name, num_players if shape == "players" else shape, doc)
    return spec


class TemplateObserver(Observer):
    """Builds template observations (nothing is cached: the whole vector is cheap)."""

    @classmethod
    def declare(cls, game: TemplateGame) -> ObservationSpec:
        return declare(game.num_players)

    def observe(self, state: TemplateState, player: int) -> np.ndarray:
        return encode(state, player, self.spec.layout)


def encode(state: TemplateState, player: int, lay: dict[str, slice]) -> np.ndarray:
    """A new vector with ``player``'s view of ``state`` (``lay``: the block slices)."""
    o = np.zeros(state.game.observation_shape, dtype=np.float32)
    hand = o[lay["my_hand"]]
    for c in state.hands[player]:
        hand[c - 1] += 1.0 / COPIES
    n = state.game.num_players
    o[lay["scores"]] = [(state.score[(player + k) % n] + SCORE_BOUND) / (2 * SCORE_BOUND) for k in range(n)]
    o[lay["phase"].start + (1 if state.pending else 0)] = 1.0
    o[lay["deck"]] = len(state.deck) / len(DECK)
    if state.pending:
        o[lay["pending"].start + state.pending - 1] = 1.0
    return o
