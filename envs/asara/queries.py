"""Named questions about an Asara position, for agents and the observation.

The state keeps every per-player quantity in flat int lists (``player * width + i``, see
``state.py``) so that a clone is a few list copies.  These small functions say what an index
means, so readers of a position (the heuristic, the observer) never spell an offset:
``reserve(state, p, C.TURRET, m)`` instead of ``state.reserve[p * 40 + 30 + 2 * m] + ...``.

A tile *kind* within one section type is ``material * 2 + gold`` (``C.KINDS_PER_TYPE`` of them);
a global kind is ``type * C.KINDS_PER_TYPE + kind``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import components as C

if TYPE_CHECKING:  # pragma: no cover
    from .state import AsaraGame, AsaraState

GOLD_VARIANTS = C.GOLD_VARIANTS


# -- tile kinds ------------------------------------------------------------------------------
def kind(material: int, gold: int) -> int:
    """The kind of a tile within its type: ``material * 2 + gold``."""
    return material * GOLD_VARIANTS + gold


def material_of(kind_: int) -> int:
    """The material of a tile kind."""
    return kind_ // GOLD_VARIANTS


def is_gold(kind_: int) -> int:
    """1 for a gold-decorated tile kind, else 0."""
    return kind_ % GOLD_VARIANTS


def global_kind(type_: int, kind_: int) -> int:
    """The index of (section type, kind) in the 40-entry kind lists (display, reserves)."""
    return type_ * C.KINDS_PER_TYPE + kind_


def price(game: AsaraGame, kind_: int) -> int:
    """What a tile of this kind costs (gold costs the same as plain)."""
    return game.price[material_of(kind_)]


# -- screens (reserves) -------------------------------------------------------------------------
def reserve_kind(state: AsaraState, player: int, type_: int, kind_: int) -> int:
    """Unbuilt sections of one type and kind behind ``player``'s screen."""
    return state.reserve[player * C.NUM_KINDS + global_kind(type_, kind_)]


def reserve(state: AsaraState, player: int, type_: int, material: int) -> int:
    """Unbuilt sections of one type and material (plain and gold) behind ``player``'s screen."""
    i = player * C.NUM_KINDS + global_kind(type_, kind(material, 0))
    return state.reserve[i] + state.reserve[i + 1]


def reserves_by_type(state: AsaraState, player: int) -> list[list[int]]:
    """``[type][material]``: :func:`reserve` for every section type and material."""
    return [[reserve(state, player, t, m) for m in range(C.NUM_MATERIALS)] for t in range(C.NUM_TYPES)]


def lit_reserve(state: AsaraState, player: int) -> list[int]:
    """Kept lighted windows not yet built, per material."""
    o = player * C.NUM_MATERIALS
    return state.lit_res[o: o + C.NUM_MATERIALS]


# -- the markets --------------------------------------------------------------------------------
def display_kind(state: AsaraState, type_: int, kind_: int) -> int:
    """Face-up tiles of one type and kind in that type's market display."""
    return state.display[global_kind(type_, kind_)]


def display(state: AsaraState, type_: int, material: int) -> int:
    """Face-up tiles of one type and material (plain and gold) in the market display."""
    i = global_kind(type_, kind(material, 0))
    return state.display[i] + state.display[i + 1]


def spy_fee(state: AsaraState) -> int:
    """The fee of the House of Spies space the player to move has taken this turn."""
    g = state.game
    return g.spy_fees[state.p_space - g.area_start[C.SPIES]]


def vacant_bank_value(state: AsaraState) -> int:
    """The money the bank space a buyer would take now pays (the highest vacant value)."""
    st = state.game.area_start[C.BANK]
    return next(v for i, v in enumerate(C.BANK_VALUES) if state.space_owner[st + i] < 0)


# -- cards ----------------------------------------------------------------------------------------
def hand(state: AsaraState, player: int) -> list[int]:
    """Buyer cards in ``player``'s hand, per suit (a copy)."""
    o = player * C.NUM_SUITS
    return state.hand[o: o + C.NUM_SUITS]


def laid_up(state: AsaraState, player: int) -> list[int]:
    """``player``'s face-up cards this year, per suit (a copy)."""
    o = player * C.NUM_SUITS
    return state.laid_up[o: o + C.NUM_SUITS]


def laid_down(state: AsaraState, player: int) -> list[int]:
    """``player``'s face-down cards this year, per suit (a copy)."""
    o = player * C.NUM_SUITS
    return state.laid_down[o: o + C.NUM_SUITS]


# -- towers -----------------------------------------------------------------------------------------
def tower_record(state: AsaraState, player: int, material: int, slot: int) -> list[int]:
    """The ``C.TOWER_FIELDS`` ints of one tower slot (all 0 when no tower stands there)."""
    i = state.tower_index(player, material, slot)
    return state.towers[i: i + C.TOWER_FIELDS]


def tower_height(rec: list[int]) -> int:
    """Rules 5.4: sections of a tower record; lit windows add no height (they cover windows)."""
    return ((rec[C.T_BASE] > 0) + (rec[C.T_TURRET] > 0) + rec[C.T_TRUNK_P] + rec[C.T_TRUNK_G] + rec[C.T_WIN_P]
            + rec[C.T_WIN_G] + rec[C.T_LIT_P] + rec[C.T_LIT_G])


def tower_gold(rec: list[int]) -> int:
    """Gold decorations still visible (a lit window hides the gold of its window)."""
    return (rec[C.T_BASE] == C.GOLD_CODE) + (rec[C.T_TURRET] == C.GOLD_CODE) + rec[C.T_TRUNK_G] + rec[C.T_WIN_G]


def tower_lit(rec: list[int]) -> int:
    """Lighted windows built into a tower."""
    return rec[C.T_LIT_P] + rec[C.T_LIT_G]


def uncovered_windows(rec: list[int]) -> int:
    """Windows of a tower that a lighted window could still cover."""
    return rec[C.T_WIN_P] + rec[C.T_WIN_G]


def towers_per_material(state: AsaraState, player: int) -> list[int]:
    """How many towers ``player`` has of each material."""
    out = [0] * C.NUM_MATERIALS
    for m, _slot, _rec in state.towers_of(player):
        out[m] += 1
    return out


def tallest_per_material(state: AsaraState, player: int) -> list[int]:
    """The height of ``player``'s tallest tower of each material (0 without one)."""
    out = [0] * C.NUM_MATERIALS
    for m, _slot, rec in state.towers_of(player):
        out[m] = max(out[m], tower_height(rec))
    return out
