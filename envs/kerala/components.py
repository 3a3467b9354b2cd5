"""Kerala static data: colours, tile kinds, tile compositions, setup counts, directions.

Nothing here changes during a game.  The per-colour tile composition is not
printed in the rulebook (rules file §1.2, ASSUMPTION A-01), so it is a table
selected by the ``tile_composition`` option, never a literal in the rules code.
"""

from __future__ import annotations

from enum import IntEnum

# -- colours ------------------------------------------------------------------
COLOURS: tuple[str, ...] = ("blue", "black", "green", "purple", "red")
NUM_COLOURS = 5
#: one-letter codes for text rendering
COLOUR_LETTERS: tuple[str, ...] = ("B", "K", "G", "P", "R")
#: RGB of each colour for the picture
COLOUR_RGB: tuple[tuple[int, int, int], ...] = (
    (52, 101, 200),
    (45, 45, 45),
    (60, 160, 70),
    (140, 70, 170),
    (210, 50, 45),
)

# -- tile kinds -----------------------------------------------------------------
KIND_SYM0 = 0  # elephant tile without symbols (only in the "with_blanks" composition)
KIND_SYM1 = 1
KIND_SYM2 = 2
KIND_SYM3 = 3
KIND_EDGE = 4  # colored-edge (semicircle) tile: +5 if its edge touches its second colour
KIND_MOVE_ELEPHANT = 5
KIND_MOVE_TILE = 6
KIND_START = 7  # a player's start tile (never in the bag)
NUM_KINDS_IN_BAG = 7
KIND_NAMES: tuple[str, ...] = ("sym0", "sym1", "sym2", "sym3", "edge", "move-elephant", "move-tile", "start")
#: symbols printed on each kind (the start tile's symbol count is the option start_tile_symbols)
KIND_SYMBOLS: tuple[int, ...] = (0, 1, 2, 3, 0, 0, 0, 1)

# -- tile types: 10 per colour, 50 in all (rules file §1.2) ----------------------------
# type = colour * 10 + k with k: 0-3 symbol tiles sym0..sym3, 4-7 colored-edge tile whose
# second colour is the (k-4)-th colour other than its own, 8 move-elephant, 9 move-tile.
TYPES_PER_COLOUR = 10
NUM_TILE_TYPES = NUM_COLOURS * TYPES_PER_COLOUR
TYPE_KIND: tuple[int, ...] = (0, 1, 2, 3, 4, 4, 4, 4, 5, 6)


def other_colours(colour: int) -> tuple[int, ...]:
    """The four colours different from ``colour``, in colour order (second colours of its edge tiles)."""
    return tuple(c for c in range(NUM_COLOURS) if c != colour)


# Per-colour composition: count of each of the 10 per-colour tile types.  Identical for every
# colour (rules file §1.1).  Keys are the values of the option ``tile_composition``.
TILE_COMPOSITIONS: dict[str, tuple[int, ...]] = {
    # A-01 default: 8x1, 4x2, 2x3 symbols, one edge tile per other colour, one of each action.
    "default": (0, 8, 4, 2, 1, 1, 1, 1, 1, 1),
    # The previous reading (with blank tiles, ÖSM "0 bis 3"): 2x0, 6x1, 4x2, 2x3.
    "with_blanks": (2, 6, 4, 2, 1, 1, 1, 1, 1, 1),
}
TILES_PER_COLOUR = 20
NUM_GAME_TILES = NUM_COLOURS * TILES_PER_COLOUR
#: start tiles have ids NUM_GAME_TILES + colour
START_TILE_BASE = NUM_GAME_TILES
#: tile codes ``tile_id * 4 + orientation`` of the game tiles and the start tiles
NUM_TILE_CODES = (START_TILE_BASE + NUM_COLOURS) * 4

# -- setup ------------------------------------------------------------------------
#: tiles removed at setup (random, only of colours nobody plays), by player count [R]
SETUP_REMOVALS: dict[int, int] = {2: 20, 3: 10, 4: 4, 5: 0}
ELEPHANTS_PER_PLAYER = 2
MAX_PASSES = 2

# -- scoring [R] ---------------------------------------------------------------------
POINTS_PER_REMOVED_TILE = -2
POINTS_PER_MISSING_COLOUR = -5
POINTS_PER_STANDING_ELEPHANT = 1
POINTS_PER_EDGE_BONUS = 5
#: areas of one colour a player may keep (own colour: option own_colour_areas)
AREAS_KEPT_OTHER_COLOUR = 1
#: above this many kept-area combinations the optimal search falls back to greedy + ascent
KEEP_ENUMERATION_LIMIT = 100_000

# -- geometry ------------------------------------------------------------------------
#: directions N, E, S, W as (row, col) steps; a colored edge's orientation uses the same order
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))
DIRECTION_NAMES: tuple[str, ...] = ("N", "E", "S", "W")

# -- decision phases (rules file §13.2) ---------------------------------------------------
class Phase(IntEnum):
    """The decision phases; the state stores the plain int."""

    PICK = 0
    MOVE_ELEPHANT = 1
    MOVE_TILE_SRC = 2
    MOVE_TILE_DST = 3
    MOVE_TILE_ROT = 4
    END = 5


PHASE_PICK, PHASE_MOVE_ELEPHANT, PHASE_MOVE_TILE_SRC, PHASE_MOVE_TILE_DST, PHASE_MOVE_TILE_ROT, PHASE_END = (
    int(p) for p in Phase)
PHASE_NAMES: tuple[str, ...] = ("pick", "move-elephant", "move-tile source", "move-tile destination",
                                "move-tile rotation", "end")
#: the phases in which a player decides (all but END)
NUM_PHASES = int(Phase.END)
