"""Named accessors of a Haus der Sonne position, for agents, observers and renderers.

The state keeps flat lists for speed (``disc[p * NUM_DISCS + v - 1]``, ``beach_sum[p * NUM_SEGMENTS + s]``,
``bays[BAYS_PER_SEGMENT * s + k]``); code outside the engine reads them through these functions, so a
change of representation is made here once and no agent breaks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import components as C

if TYPE_CHECKING:  # pragma: no cover
    from .state import HausDerSonneState


def disc_segment(state: HausDerSonneState, player: int, value: int) -> int:
    """The segment of ``player``'s disc of ``value`` (1..5), -1 while it is in the supply."""
    return state.disc[player * C.NUM_DISCS + value - 1]


def disc_in_supply(state: HausDerSonneState, player: int, value: int) -> bool:
    """Whether ``player``'s disc of ``value`` (1..5) is still in the supply."""
    return state.disc[player * C.NUM_DISCS + value - 1] < 0


def discs_in_supply(state: HausDerSonneState, player: int) -> list[int]:
    """The values of ``player``'s discs still in the supply, ascending."""
    base = player * C.NUM_DISCS
    return [v for v in C.DISC_VALUES if state.disc[base + v - 1] < 0]


def discs_on_segment(state: HausDerSonneState, player: int, segment: int) -> list[int]:
    """The values of ``player``'s discs on the beach of ``segment``, ascending."""
    base = player * C.NUM_DISCS
    return [v for v in C.DISC_VALUES if state.disc[base + v - 1] == segment]


def beach_sum(state: HausDerSonneState, player: int, segment: int) -> int:
    """The sum of ``player``'s discs on the beach of ``segment``."""
    return state.beach_sum[player * C.NUM_SEGMENTS + segment]


def bay(state: HausDerSonneState, segment: int, k: int) -> int:
    """The card face in bay ``k`` (0 or 1) of ``segment``, -1 when the bay is empty."""
    return state.bays[C.BAYS_PER_SEGMENT * segment + k]


def bay_pair(state: HausDerSonneState, segment: int) -> tuple[int, int]:
    """Both bays of ``segment`` (faces, -1 for an empty bay)."""
    b = C.BAYS_PER_SEGMENT * segment
    return state.bays[b], state.bays[b + 1]


def bay_cards(state: HausDerSonneState, segment: int) -> list[int]:
    """The cards lying in the bays of ``segment`` (empty bays left out)."""
    return [f for f in bay_pair(state, segment) if f >= 0]
