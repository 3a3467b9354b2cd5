"""Static data of Asara: components, board areas, prices, scoring tables.

Everything here is data; the rules that use it live in ``state.py``.  Where the
rulebook is silent the rules file's ASSUMPTION defaults are given here and the
matching rule options (``state.AsaraGame.options_spec``) can override them.
"""

from __future__ import annotations

from enum import IntEnum

# -- card suits (colours of buyer cards; unrelated to tower materials) ------
NUM_SUITS = 5
SUIT_NAMES = ("S0", "S1", "S2", "S3", "S4")
CARDS_PER_SUIT = 9
HAND_SIZE = {2: 9, 3: 8, 4: 7}
PAIR_SIZE = 2  # cards in a face-down pair

# -- tower materials (tower colours), cheapest first -------------------------
NUM_MATERIALS = 5
MATERIALS = ("brown", "green", "red", "black", "white")
MATERIAL_SHORT = ("Br", "Gr", "Rd", "Bk", "Wh")
PRICES = {"brown": 3, "green": 4, "red": 5, "black": 6, "white": 8}

# -- section types ---------------------------------------------------------------
BASE, TRUNK, WINDOW, TURRET = 0, 1, 2, 3
NUM_TYPES = 4
TYPES = ("base", "trunk", "window", "turret")
SECTIONS_PER_MATERIAL = {"base": 4, "trunk": 4, "window": 5, "turret": 4}
GOLD_PER_TYPE_MATERIAL = {"base": 1, "trunk": 1, "window": 1, "turret": 1}
LIT_PER_MATERIAL = 3  # A-02b
#: a tile "kind" within one type: material * 2 + gold; a global kind: type * 10 + that
GOLD_VARIANTS = 2  # plain and gold-decorated
KINDS_PER_TYPE = NUM_MATERIALS * GOLD_VARIANTS
NUM_KINDS = NUM_TYPES * KINDS_PER_TYPE

# -- money ------------------------------------------------------------------------
START_MONEY = 20  # start player; each next player clockwise gets 1 more
YEAR_INCOME = 20
COIN_TOTAL = 25 * 1 + 16 * 5 + 11 * 10  # 215 Asari, used when coins are limited
NUM_YEARS = 4

# -- board areas ----------------------------------------------------------------------
# Area indices (the building circle is one area; the 5-Asari building has no lead suit).
MARKET_AREAS = (0, 1, 2, 3)  # base, trunk, window, turret market
NUM_MARKETS = len(MARKET_AREAS)  # areas 0..3, one per section type
BANK, CIRCLE, SPIES, CALIPH, FIVE, RECRUIT, LIT_HOUSE = 4, 5, 6, 7, 8, 9, 10
NUM_AREAS = 11
AREA_NAMES = (
    "base market", "trunk market", "window market", "turret market", "bank", "building circle",
    "house of spies", "caliph", "5-asari building", "recruit buyers", "lighted windows",
)
AREA_SHORT = ("BaseMkt", "TrunkMkt", "WinMkt", "TurMkt", "Bank", "Circle", "Spies", "Caliph", "Five", "Recruit",
              "LitHouse")
PRO_AREAS = (RECRUIT, LIT_HOUSE)

MARKET_CARD_SPACES = {"base": 4, "trunk": 4, "window": 4, "turret": 4}
DISPLAY_SIZE = {"base": 6, "trunk": 6, "window": 6, "turret": 6}
BANK_VALUES = (12, 10, 8)
FIVE_VALUE = 5
NUM_PLOTS = 7  # building circle plots cost 1..7
SPY_SPACE_FEES = (3, 5)
RECRUIT_SPACE_FEES = (3, 5)
RECRUIT_DRAW = 2
LIT_HOUSE_SPACES = 2
# lighted-window offers: (fee, windows shown, windows kept)
LIT_OFFERS = ((4, 3, 1), (10, 5, 2))

# bounds of the numeric rule options (fees, prices, award points; card spaces per area)
OPTION_MAX_VALUE = 50
OPTION_MAX_SPACES = 7

# -- final evaluation ---------------------------------------------------------------
MATERIAL_AWARDS = ((4, 2), (6, 3), (8, 4), (10, 5), (12, 6))  # per material, 1st / 2nd
HIGHEST_OVERALL = (8, 4)  # A-22 (1st place digit missing in the rulebook text)
MOST_TOWERS = (12, 6)
MONEY_PER_POINT = 10

# -- tower record layout (one flat block of ints per tower slot) -------------------
T_BASE, T_TURRET, T_TRUNK_P, T_TRUNK_G, T_WIN_P, T_WIN_G, T_LIT_P, T_LIT_G = range(8)
TOWER_FIELDS = 8
NO_SECTION, PLAIN_CODE, GOLD_CODE = 0, 1, 2
MIN_TOWER_SECTIONS = 2  # a base and its turret
#: T_BASE / T_TURRET hold NO_SECTION, PLAIN_CODE or GOLD_CODE;
# T_LIT_P / T_LIT_G count windows (plain / gold) covered by a lighted window.
MAX_HEIGHT_NORM = 11.0

# -- colours for the picture --------------------------------------------------------------
MATERIAL_RGB = ((139, 90, 43), (60, 140, 60), (200, 40, 40), (35, 35, 35), (240, 240, 235))
SUIT_RGB = ((40, 90, 200), (140, 60, 170), (40, 160, 80), (220, 160, 30), (200, 80, 60))


class Phase(IntEnum):
    """The phases of a turn (the observation carries them); the state stores the plain int."""

    AREA = 0
    CARDS = 1
    SPACE = 2
    MARKET = 3
    SPY_PILE = 4
    SPY_TAKE = 5
    BUILD = 6
    LIT_OFFER = 7
    LIT_KEEP = 8
    DONE = 9

