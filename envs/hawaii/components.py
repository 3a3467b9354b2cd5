"""Static data of Hawaii: tile types, places, price tokens, islands, round indicators, board graph.

Every number comes from the rules file (``docs/rules/hawaii.md``); numbers marked there as
ASSUMPTION are defaults of rule options in ``state.HawaiiGame.options_spec``.
"""

from __future__ import annotations

from enum import IntEnum

# --- tile types (global index, rules file §17.2) -------------------------------------------
START_HUT = 0
SHELL_HUT, FOOT_HUT, SPEAR_HUT, EXCHANGE_HUT, LONG_HUT = 1, 2, 3, 4, 5
IRRIGATION, HULA = 6, 7
BREADFRUIT, TARO, COCONUT, BANANA = 8, 9, 10, 11
SURFER = 12
KU, KANE, PELE, LONO, LAKA, KANALOA = 13, 14, 15, 16, 17, 18
KAHUNA, TIKI, BOAT = 19, 20, 21
NUM_TYPES = 22
# the sides of a tile (a double purchase of a one-sided Kahuna or Tiki counts as side II)
SIDE_I, SIDE_II = 1, 2
#: tiles a double purchase of a one-sided Kahuna or Tiki takes
DOUBLE_TILES = 2

TYPE_NAMES = (
    "start hut", "shell hut", "foot hut", "spear hut", "exchange hut", "long hut", "irrigation",
    "hula dancer", "breadfruit", "taro", "coconut", "banana", "surfer", "Ku", "Kane", "Pele", "Lono",
    "Laka", "Kanaloa", "Kahuna", "Tiki", "boat",
)
TYPE_SHORT = (
    "St", "Sh", "Ft", "Sp", "Ex", "Lg", "Ir", "Hu", "Br", "Ta", "Co", "Ba", "Su", "Ku", "Ke", "Pe", "Lo",
    "La", "Kn", "KH", "TK", "Bt",
)
HUT_TYPES = frozenset((SHELL_HUT, FOOT_HUT, SPEAR_HUT, EXCHANGE_HUT, LONG_HUT))
FRUIT_TYPES = (BREADFRUIT, TARO, COCONUT, BANANA)
GOD_TYPES = (KU, KANE, PELE, LONO, LAKA, KANALOA)
VILLAGE_TYPES = tuple(t for t in range(1, 19))

# Tile supply at setup [R] (gods: per kind, see option gods_per_kind).
SUPPLY = {
    SHELL_HUT: 5, FOOT_HUT: 5, SPEAR_HUT: 5, EXCHANGE_HUT: 5, LONG_HUT: 5, IRRIGATION: 5, HULA: 10,
    BREADFRUIT: 4, TARO: 4, COCONUT: 4, BANANA: 4, SURFER: 10, KAHUNA: 25, TIKI: 15, BOAT: 8,
}

# --- resources ---------------------------------------------------------------------------------
SHELLS, FEET, FRUIT = 0, 1, 2
NUM_RESOURCES = 3
RESOURCE_NAMES = ("shells", "feet", "fruit")
RESOURCE_SHORT = ("S", "F", "R")

# --- places (rules file §4): (name, offered types, circles, printed number) ----------------------
PLACE_NAMES = (
    "HUTS_A", "HUTS_B", "HUTS_C", "HULA", "FRUIT", "BOATS", "SURF", "KAHUNA", "TIKI", "GODS",
    "LONG", "IRRIGATION", "KAHUNA_TIKI",
)
PLACE_OFFERS = (
    (SHELL_HUT, FOOT_HUT), (SPEAR_HUT, EXCHANGE_HUT), (LONG_HUT, IRRIGATION), (HULA,), FRUIT_TYPES,
    (BOAT,), (SURFER,), (KAHUNA,), (TIKI,), GOD_TYPES, (LONG_HUT,), (IRRIGATION,), (KAHUNA, TIKI),
)
PLACE_CIRCLES = (2, 2, 2, 2, 3, 1, 2, 3, 2, 2, 2, 2, 3)
MAX_CIRCLES = max(PLACE_CIRCLES)
PLACE_PRINTED = (6, 8, 8, 8, 12, 5, 8, 12, 8, 8, 8, 8, 12)
GODS_PLACE = 9
PLACE_SETS = {
    "A": (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    "B": (0, 1, 10, 11, 3, 4, 5, 6, 12, 9),
}
NUM_PLACE_KINDS = len(PLACE_NAMES)

# --- main board graph (rules file §3.1): slots P1..P10 are indices 0..9 ---------------------------
NUM_SLOTS = 10
SLOT_ROW = (1, 1, 2, 2, 2, 3, 3, 3, 4, 4)
SLOT_ADJ = (
    (1, 2, 3), (0, 3, 4), (0, 3, 5, 6), (0, 1, 2, 4, 5, 6, 7), (1, 3, 6, 7),
    (2, 3, 6, 8), (2, 3, 4, 5, 7, 8, 9), (3, 4, 6, 9), (5, 6, 9), (6, 7, 8),
)
BEACH_ADJ = (0, 1)


def board_distances(adj: tuple[tuple[int, ...], ...] | list, beach: tuple[int, ...] = BEACH_ADJ
                    ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Place-to-place step counts and beach-to-place step counts (-1 where unreachable)."""
    n = len(adj)

    def bfs(starts: list[int], first: int) -> list[int]:
        d = [-1] * n
        frontier = []
        for a in starts:
            d[a] = first
            frontier.append(a)
        while frontier:
            nxt = []
            for a in frontier:
                for b in adj[a]:
                    if d[b] < 0:
                        d[b] = d[a] + 1
                        nxt.append(b)
            frontier = nxt
        return d

    return tuple(tuple(bfs([s], 0)) for s in range(n)), tuple(bfs(list(beach), 1))


SLOT_DIST, BEACH_DIST = board_distances(SLOT_ADJ)
assert BEACH_DIST == SLOT_ROW  # with §3.1's graph the beach distance is the row number

# --- price tokens (rules file §5, ASSUMPTION mix) ------------------------------------------------
NUM_TOKENS = 25
TOKEN_VALUE = tuple(2 + t // 5 for t in range(NUM_TOKENS))
TOKENS_PER_VALUE = 5
SPEAR_TOKENS_PER_VALUE = 2  # the default of option spear_tokens_per_value
TOKEN_SPEAR = tuple((t % TOKENS_PER_VALUE) < SPEAR_TOKENS_PER_VALUE for t in range(NUM_TOKENS))
FISH_BY_VALUE = {2: 1, 3: 1, 4: 2, 5: 2, 6: 3}
TOKEN_FISH = tuple(FISH_BY_VALUE[v] for v in TOKEN_VALUE)
SEQ_SPACES = 5

# --- islands (rules file §7) -------------------------------------------------------------------------
(ISL_VP5, ISL_SHELL_HUT, ISL_FOOT_HUT, ISL_HULA, ISL_SURFER, ISL_FRUIT_TILE, ISL_FRUIT4, ISL_KAHUNA2,
 ISL_TIKI2) = range(9)
NUM_ISLAND_KINDS = 9
ISLAND_KIND_NAMES = ("5 VP", "shell hut II", "foot hut II", "hula II", "surfer II", "fruit tile II", "4 fruit",
                     "2 Kahunas", "2 Tikis")
ISLAND_KIND = (0, 0, 1, 2, 3, 4, 5, 6, 7, 8)  # island tile id -> kind (the 5-VP island twice)
NUM_ISLANDS = len(ISLAND_KIND)
ISLAND_TILE = {ISL_SHELL_HUT: SHELL_HUT, ISL_FOOT_HUT: FOOT_HUT, ISL_HULA: HULA, ISL_SURFER: SURFER}
NUM_DOCKS = 4
ISLAND_VP = 5
ISLAND_FRUIT = 4

# --- boats ----------------------------------------------------------------------------------------
FISHING_BOAT_CAPACITY = 2
BOAT_PAID_CAPACITY = 3
MAX_BOATS = 8

# --- player board -----------------------------------------------------------------------------------
NUM_ROWS = 5
KAHUNA_SPACES = 5
TIKI_SPACES = 6
START_FRUIT_BY_POSITION = (0, 2, 3, 4, 5)
SURFER_REDUCTION = (2, 4)
SPEAR_VP = (1, 2)  # spear hut and Ku, side I / II
LONG_HUT_II_VP = 5
LONO_VP = (2, 4)
LAKA_VP = (1, 2)
KANALOA_VP = (2, 4)
HULA_VP = (1, 2)
PELE_CAP = (2, 1)
EXCHANGE_CAPACITY = (1, 2)
KANE_TIKI_COST = 2
NUM_ROUNDS = 5

# Kane's Tiki payments (any 2 units): index 1..6 of the KANE decision.
KANE_PAYMENTS = ((2, 0, 0), (1, 1, 0), (1, 0, 1), (0, 2, 0), (0, 1, 1), (0, 0, 2))
KANE_PAYMENT_NAMES = ("SS", "SF", "SR", "FF", "FR", "RR")


class Phase(IntEnum):
    """The decision phases of a turn (sub-decisions after MAIN); the state stores the plain int."""

    MAIN = 0
    TOKEN = 1
    TILE = 2
    SIDE = 3
    ROW = 4
    PAY = 5
    SPLIT = 6
    KANE = 7
    FISH = 8
    BOATS = 9
    IRRIG = 10

