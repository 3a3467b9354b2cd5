"""Static data of Haus der Sonne: cards, decks, the island graph, scoring cards.

Everything here is data (rules file §3, §4); the logic lives in ``state.py``.
Segments are numbered 0..5 clockwise, so the boat moves ``s -> (s + v) % 6``.
"""

from __future__ import annotations

from enum import IntEnum

NUM_SEGMENTS = 6
NUM_PLAYERS = 2
#: scorings in a game (the first after the 2-palm pile, the second after the 3-palm pile)
NUM_ROUNDS = 2
FINAL_ROUND = NUM_ROUNDS
DISC_VALUES = (1, 2, 3, 4, 5)
NUM_DISCS = len(DISC_VALUES)
STATUES_PER_PLAYER = 8
LAVA_CHIPS = 4
BAYS_PER_SEGMENT = 2
NUM_BAYS = BAYS_PER_SEGMENT * NUM_SEGMENTS

# -- palm card faces (type, butterfly) ---------------------------------------
STATUE = 0
PRIESTESS = 1
SHELL = 2
SHELL_B = 3
FISH = 4
FISH_B = 5
WHITE = 6
WHITE_B = 7
BLACK = 8
BLACK_B = 9
NAUTILUS = 10
NAUTILUS_B = 11
LAVA = 12
NUM_FACES = 13

FACE_NAMES = (
    "statue", "priestess", "shell", "shell*", "fish", "fish*", "white pearl", "white pearl*",
    "black pearl", "black pearl*", "nautilus", "nautilus*", "lava",
)
FACE_SHORT = ("STA", "PRI", "SHL", "SHL*", "FSH", "FSH*", "WPL", "WPL*", "BPL", "BPL*", "NAU", "NAU*", "LAV")


class FaceType(IntEnum):
    """What a palm card face is, its butterfly aside (``FACE_TYPE[face]``)."""

    STATUE = 0
    PRIESTESS = 1
    SHELL = 2
    FISH = 3
    WHITE = 4
    BLACK = 5
    NAUTILUS = 6
    LAVA = 7


#: the face type of each face (0 statue, 1 priestess, 2 shell, 3 fish, 4 white, 5 black, 6 nautilus, 7 lava)
FACE_TYPE = (0, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7)
NUM_FACE_TYPES = len(FaceType)
FACE_TYPE_NAMES = ("statue", "priestess", "shell", "fish", "white pearl", "black pearl", "nautilus", "lava")
FACE_BUTTERFLY = (0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0)
#: faces that stay in a hand after they are received
KEPT_FACES = (SHELL, SHELL_B, FISH, FISH_B, WHITE, WHITE_B, BLACK, BLACK_B, NAUTILUS, NAUTILUS_B)
SHELL_FACES = (SHELL, SHELL_B)  # paying order: plain shells first
FISH_FACES = (FISH, FISH_B)
WHITE_FACES = (WHITE, WHITE_B)
BLACK_FACES = (BLACK, BLACK_B)
NAUTILUS_FACES = (NAUTILUS, NAUTILUS_B)
BUTTERFLY_FACES = (SHELL_B, FISH_B, WHITE_B, BLACK_B, NAUTILUS_B)

# -- deck composition per palm back: counts per face ------------------
#            STA PRI SHL SHL* FSH FSH* WPL WPL* BPL BPL* NAU NAU* LAV
DECK_RECONSTRUCTED = (
    (5, 1, 2, 1, 2, 1, 1, 0, 1, 0, 0, 1, 0),  # 1 palm: 15 cards, no lava
    (4, 1, 2, 0, 0, 1, 0, 1, 0, 0, 0, 0, 4),  # 2 palms: 13 cards
    (3, 0, 1, 1, 2, 0, 1, 0, 0, 1, 1, 0, 4),  # 3 palms: 14 cards
)
DECK_TABLES = {"reconstructed": DECK_RECONSTRUCTED}
PALM_DECKS = 3
#: the piles whose exhaustion triggers the first and the second scoring (2 and 3 palms, §11)
ROUND1_TRIGGER_PILE = 1
ROUND2_TRIGGER_PILE = 2

# -- scoring board (§3.4) -----------------------------------------------------
SC_BUTTERFLIES = 0
SC_MAJORITY = 1
SC_COMPLETE = 2
SC_FOREST = 3
SC_MOUNTAIN = 4
NUM_SCORING_CARDS = 5
SCORING_CARD_NAMES = ("butterflies", "statue majority", "complete segment", "forest statues", "mountain statues")
SCORING_CARD_SHORT = ("butterflies", "majority", "complete", "forest", "mountain")
SCORING_CARD_COST = (1, 1, 1, 2, 2)
BUY_PRIESTESS = 5  # the board's Lava-Priestess card is buy item 5
NUM_BUY_ITEMS = 6
BUY_ITEM_SHORT = SCORING_CARD_SHORT + ("priestess",)

# -- points -------------------------------------------------------------------
FISH_MAJORITY_POINTS = 3
WHITE_POINTS = 1
BLACK_POINTS = 2
PEARL_PAIR_POINTS = 4
NAUTILUS_POINTS = 3
SHELL_END_POINTS = 1
MAJORITY_POINTS = 2
COMPLETE_POINTS = 4
FOREST_POINTS = 2
MOUNTAIN_POINTS = 3
#: intrinsic statue points per level (meadow, forest, mountain) under statue_base_points="by_level" (A-37)
STATUE_LEVEL_POINTS = (1, 2, 3)

# -- island graph (§4.2) ----------------------------------------------------------
MEADOW, FOREST, MOUNTAIN, BEACH = 1, 2, 3, 0
LEVEL_NAMES = {BEACH: "beach", MEADOW: "meadow", FOREST: "forest", MOUNTAIN: "mountain"}
NUM_FIELDS = 18  # building fields 0..17: meadow s, forest 6+s, mountain 12+s
BEACH_NODE0 = 18  # beach of segment s is node 18+s (shaman start spaces)
NUM_SHAMAN_NODES = 24


def field_id(level: int, seg: int) -> int:
    """Building field id of ``level`` (1 meadow .. 3 mountain) in segment ``seg``."""
    return (level - 1) * NUM_SEGMENTS + seg


def node_level(node: int) -> int:
    return BEACH if node >= NUM_FIELDS else node // NUM_SEGMENTS + 1


def node_segment(node: int) -> int:
    return node % NUM_SEGMENTS


def node_name(node: int) -> str:
    return f"{LEVEL_NAMES[node_level(node)]} {node_segment(node)}"


FIELD_LEVEL = tuple(node_level(f) for f in range(NUM_FIELDS))
FIELD_SEGMENT = tuple(node_segment(f) for f in range(NUM_FIELDS))
NODE_LEVEL = tuple(node_level(n) for n in range(NUM_SHAMAN_NODES))
#: fields reached by lava from crater s: 1st chip mountain, 2nd forest, 3rd meadow (A-33: 4 = 3)
LAVA_PATH = tuple((field_id(MOUNTAIN, s), field_id(FOREST, s), field_id(MEADOW, s)) for s in range(NUM_SEGMENTS))
SEGMENT_FIELDS = tuple((field_id(MEADOW, s), field_id(FOREST, s), field_id(MOUNTAIN, s)) for s in range(NUM_SEGMENTS))


def shaman_neighbors(diagonal: bool = False) -> tuple[tuple[int, ...], ...]:
    """Adjacency of the 24 shaman nodes (A-11): rings per level, radial steps, beach -> own meadow.

    ``diagonal`` adds the links to the next level in the neighbouring segments.
    A beach node leads only to its own meadow (the first step of the summary),
    and there is no way back to a beach.
    """
    nb: list[set[int]] = [set() for _ in range(NUM_SHAMAN_NODES)]
    for lv in (MEADOW, FOREST, MOUNTAIN):
        for s in range(NUM_SEGMENTS):
            a, b = field_id(lv, s), field_id(lv, (s + 1) % NUM_SEGMENTS)
            nb[a].add(b)
            nb[b].add(a)
    for s in range(NUM_SEGMENTS):
        for lv in (MEADOW, FOREST):
            ups = [s] + ([(s + 1) % NUM_SEGMENTS, (s - 1) % NUM_SEGMENTS] if diagonal else [])
            for t in ups:
                a, b = field_id(lv, s), field_id(lv + 1, t)
                nb[a].add(b)
                nb[b].add(a)
        nb[BEACH_NODE0 + s].add(field_id(MEADOW, s))
    return tuple(tuple(sorted(x)) for x in nb)


class Phase(IntEnum):
    """Who decides what: the decision points of a turn (the state stores the plain int)."""

    MAIN = 0  # place a disc, take one back, or sail
    SHAMAN = 1  # walk the shaman up to two fields
    PICK = 2  # the higher sum picks a card of the landing segment
    PRIESTESS = 3  # move a lava chip
    BUY_SHELL = 4  # buy with shells after a landing
    BUY_WINDOW = 5  # the buy window before a scoring
    GAME_OVER = 6


class Stage(IntEnum):
    """Where an automatic landing or scoring sequence resumes after a sub-decision."""

    NONE = 0
    SECOND = 1  # the second receiver's cards
    FINISH = 2  # discs home, bays refilled
    WINDOW = 3  # the buy window of a scoring

