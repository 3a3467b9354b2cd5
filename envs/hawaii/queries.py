"""Named reads of a Hawaii position, for agents and the observation (instead of raw list indexes).

Small functions of a :class:`~meeplezoo.envs.hawaii.state.HawaiiState` (and of tile codes), in the
spirit of Catanatron's ``state_functions``: ``resources(state, p)``, ``village_count(state, p)``,
``tile_type(code)``.  They only read; lists they return are the state's own (do not modify them).

A village is a list of tile codes ``type * 2 + side - 1`` (the printed start hut is code 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .components import FEET, FRUIT, LONG_HUT, NUM_ROUNDS, SHELLS, SIDE_I, SIDE_II

if TYPE_CHECKING:  # pragma: no cover
    from .state import HawaiiState


# -- tile codes ------------------------------------------------------------------------------------
def tile_code(t: int, side: int) -> int:
    """The code of a tile of type ``t`` showing ``side`` (1 or 2)."""
    return t * 2 + side - 1


def tile_type(code: int) -> int:
    """The tile type of a village code."""
    return code >> 1


def tile_side(code: int) -> int:
    """The side (1 or 2) of a village code."""
    return (code & 1) + 1


def is_side2(code: int) -> bool:
    """Whether the tile of a village code shows side II."""
    return bool(code & 1)


def has_long_hut(village: list[int]) -> bool:
    """Whether a village holds the long hut (either side)."""
    return tile_code(LONG_HUT, SIDE_I) in village or tile_code(LONG_HUT, SIDE_II) in village


# -- the round -------------------------------------------------------------------------------------
def round_index(state: HawaiiState) -> int:
    """The round being played, 0-based."""
    return state.round


def rounds_left(state: HawaiiState) -> int:
    """Rounds after this one (income events still to come)."""
    return NUM_ROUNDS - 1 - state.round


def round_vp(state: HawaiiState) -> list[int]:
    """This round's VP for highest / second / reached target."""
    return state.game.options["round_vp"][state.round]


# -- a player's holdings ----------------------------------------------------------------------------
def resources(state: HawaiiState, p: int) -> list[int]:
    """Player ``p``'s ``[shells, feet, fruit]``."""
    return state.res[p]


def resource(state: HawaiiState, p: int, kind: int) -> int:
    """Player ``p``'s amount of resource ``kind`` (SHELLS, FEET or FRUIT)."""
    return state.res[p][kind]


def shells(state: HawaiiState, p: int) -> int:
    return state.res[p][SHELLS]


def feet(state: HawaiiState, p: int) -> int:
    return state.res[p][FEET]


def fruit(state: HawaiiState, p: int) -> int:
    return state.res[p][FRUIT]


def villages(state: HawaiiState, p: int) -> list[list[int]]:
    """Player ``p``'s villages (rows of tile codes)."""
    return state.rows[p]


def village_count(state: HawaiiState, p: int) -> int:
    return len(state.rows[p])


def village_length(state: HawaiiState, p: int, r: int) -> int:
    """Tiles in player ``p``'s village ``r``."""
    return len(state.rows[p][r])


def kahunas(state: HawaiiState, p: int) -> int:
    """Kahunas on player ``p``'s board."""
    return state.kahunas[p]


def tikis(state: HawaiiState, p: int) -> int:
    """Tikis on player ``p``'s board."""
    return state.tikis[p]


def boat_count(state: HawaiiState, p: int) -> int:
    """Boats player ``p`` bought (the printed fishing boat not counted)."""
    return len(state.boats[p])


def owned(state: HawaiiState, p: int, t: int) -> int:
    """Tiles of type ``t`` in player ``p``'s villages."""
    return state.own[p][t]


def owned_side2(state: HawaiiState, p: int, t: int) -> int:
    """Those of them showing side II."""
    return state.own_side2[p][t]


def fishing_boat_used(state: HawaiiState, p: int) -> bool:
    """Whether player ``p``'s printed fishing boat was launched this turn."""
    return state.boat_used[p][0]


def exchange_huts_used(state: HawaiiState, p: int, side: int) -> int:
    """Player ``p``'s exchange huts of ``side`` (1 or 2) used this turn."""
    return state.exch_used[p][side - 1]


def position(state: HawaiiState, p: int) -> int:
    """Player ``p``'s chieftain's slot, or -1 on the beach."""
    return state.loc[p]


def sequence_space(state: HawaiiState, p: int) -> int:
    """The sequence space (0-based) player ``p`` ended the round on, or -1."""
    return state.passed[p]


def victory_points(state: HawaiiState, p: int) -> int:
    return state.vp[p]


def round_sum(state: HawaiiState, p: int) -> int:
    """Player ``p``'s round sum (price-token values plus fish taken this round)."""
    return state.rsum[p]


# -- the board ---------------------------------------------------------------------------------------
def circles(state: HawaiiState, slot: int) -> list[int]:
    """The price tokens on the circles of ``slot`` (circle 0 = printed), -1 where none."""
    return state.circles[slot]


def sequence_token(state: HawaiiState, space: int) -> int:
    """The price token on sequence space ``space`` (0-based), or -1."""
    return state.seq[space]


def dock_island(state: HawaiiState, d: int) -> int:
    """The island tile at dock ``d``, or -1."""
    return state.docks[d]


def cove_fish(state: HawaiiState, k: int) -> int:
    """Fish on the ``k`` best fish tokens of the cove (all of them if fewer)."""
    fish = state.game.token_fish
    return sum(fish[t] for t in state.cove[:k])
