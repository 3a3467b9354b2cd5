"""Named reads of a Kerala position, for agents and encoders (instead of raw indexes into the state).

Small typed functions over :class:`~meeplezoo.envs.kerala.state.KeralaState` and its game: a
platform is a dict ``padded cell -> stack`` (tuple of tile codes, bottom first, a code being
``tile_id * 4 + orientation``); window cells (``0 .. side*side-1``) are what actions and
observations name.  They read, never change, the state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .state import KeralaGame, KeralaState

Platform = dict[int, tuple[int, ...]]


# -- players --------------------------------------------------------------------------------------
def platform(state: KeralaState, player: int) -> Platform:
    """``player``'s platform (the state's own dict: copy it before changing it)."""
    return state.platforms[player]


def elephant_cells(state: KeralaState, player: int) -> list[int]:
    """The padded cells of ``player``'s two elephants, the smaller first."""
    return state.elephants[player]


def colour(state: KeralaState, player: int) -> int:
    """The colour ``player`` plays (seat i plays colour i)."""
    return state.game.player_colours[player]


def passes_used(state: KeralaState, player: int) -> int:
    """How often ``player`` passed (each pass lays an elephant down)."""
    return state.passes[player]


def tiles_on_platform(state: KeralaState, player: int) -> int:
    """Tiles of ``player``'s platform in all layers."""
    return sum(map(len, state.platforms[player].values()))


# -- the table --------------------------------------------------------------------------------------
def offer_tile(state: KeralaState, slot: int) -> int:
    """The tile id in offer slot ``slot`` (slots in canonical order)."""
    return state.offer[slot]


def bag_size(state: KeralaState) -> int:
    """Tiles still to be drawn."""
    return len(state.bag)


def move_tile_cell(state: KeralaState) -> int:
    """The padded cell of the move-tile stack being decided on (source or moved stack), or -1."""
    return state.move_tile_cell


# -- tiles and cells (facts of the game) -----------------------------------------------------------
def tile_type(game: KeralaGame, tile: int) -> int:
    """The type of a game tile (identical tiles share it)."""
    return game.tile_type[tile]


def is_edge(game: KeralaGame, code: int) -> bool:
    """Whether the tile code is a colored-edge tile."""
    return game.code_edge_target[code] >= 0


def edge_facing(game: KeralaGame, cell: int, code: int) -> int:
    """The padded cell the colored edge of tile ``code`` at ``cell`` faces."""
    return cell + game.delta[code & 3]


def neighbours(game: KeralaGame, cell: int) -> tuple[int, ...]:
    """The four orthogonal neighbours of a padded cell (N, E, S, W)."""
    return tuple(cell + d for d in game.delta)


def step(game: KeralaGame, cell: int, direction: int) -> int:
    """The padded cell next to ``cell`` in ``direction`` (0-3: N, E, S, W)."""
    return cell + game.delta[direction]


def window_cell(game: KeralaGame, cell: int) -> int:
    """The window cell (as actions and observations name it) of a padded cell."""
    return game.pad_to_cell[cell]


def padded_cell(game: KeralaGame, window: int) -> int:
    """The padded cell of a window cell."""
    return game.cell_to_pad[window]


# -- platforms ----------------------------------------------------------------------------------------
def occupied_neighbours(game: KeralaGame, plat: Platform, cell: int) -> int:
    """How many of the four neighbours of ``cell`` hold a stack on ``plat``."""
    return sum(1 for d in game.delta if cell + d in plat)


def free_cells_around(game: KeralaGame, plat: Platform, cells: tuple[int, ...]) -> set[int]:
    """The empty cells of ``plat`` next to any of ``cells``."""
    delta = game.delta
    return {c + d for c in cells for d in delta if c + d not in plat}


def open_edges(game: KeralaGame, plat: Platform) -> int:
    """Colored-edge tiles on top whose edge faces an empty cell (their bonus may still come)."""
    edge, delta = game.code_edge_target, game.delta
    n = 0
    for cell, st in plat.items():
        code = st[-1]
        if edge[code] >= 0 and cell + delta[code & 3] not in plat:
            n += 1
    return n
