"""Action codec of Asara: one flat Discrete space, split into phase blocks.

A turn is a sequence of decisions by the same player:

* ``area``   (17): 0-3 markets, 4 bank, 5-11 build k = 1..7 sections, 12 spies,
  13 caliph, 14 5-Asari building, 15 recruit (pro), 16 lighted windows (pro);
* ``cards``  (20): 0-4 one card of suit s, 5-19 a face-down pair {s1 <= s2};
* ``space``  (max spaces): a space index, only when a rule option lets the player
  choose the space (bank, spies, recruit) or a higher plot;
* ``market`` (11): buy kind material*2+gold, 10 = decline;
* ``spy_pile`` (5): search pile of type t, 4 = decline (no fee);
* ``spy_take`` (11): buy kind material*2+gold from the searched pile, 10 = nothing;
* ``build``: base(m, g) | turret(m, g, slot) | trunk(m, g, slot) | window(m, g, slot)
  | lit(m, slot) | stop (only with ``build_exact_k=False``);
* ``lit_offer`` (3): 0 pay 4 / see 3 / keep 1, 1 pay 10 / see 5 / keep 2, 2 decline;
* ``lit_keep`` (5): keep a drawn lighted window of material m;
* ``lit_order`` (5): with ``lit_discard_order="choose"``, put an unkept window of
  material m under the stack (the first one chosen lies lowest).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .components import (
    AREA_SHORT,
    BANK,
    CALIPH,
    CIRCLE,
    FIVE,
    LIT_HOUSE,
    MATERIAL_SHORT,
    MATERIALS,
    NUM_MARKETS,
    NUM_MATERIALS,
    NUM_PLOTS,
    NUM_SUITS,
    RECRUIT,
    SPIES,
    SUIT_NAMES,
    TYPES,
)

# area-select ids (local)
AREA_MARKET0, AREA_BANK, AREA_BUILD1, AREA_SPIES = 0, 4, 5, 12
AREA_CALIPH, AREA_FIVE, AREA_RECRUIT, AREA_LIT = 13, 14, 15, 16
NUM_AREA_ACTIONS = 17
NUM_CARD_ACTIONS = 20
PAIRS = tuple((a, b) for a in range(NUM_SUITS) for b in range(a, NUM_SUITS))  # 15 multisets
PAIR_INDEX = {p: i for i, p in enumerate(PAIRS)}
NUM_MARKET_ACTIONS = 11
MARKET_DECLINE = 10
NUM_SPY_PILE_ACTIONS = 5
SPY_DECLINE = 4
NUM_SPY_TAKE_ACTIONS = 11
SPY_NOTHING = 10
NUM_LIT_OFFER_ACTIONS = 3
LIT_DECLINE = 2
NUM_LIT_KEEP_ACTIONS = 5
NUM_LIT_ORDER_ACTIONS = 5

# build step kinds
B_BASE, B_TURRET, B_TRUNK, B_WINDOW, B_LIT, B_STOP = range(6)


def area_action_target(local: int) -> tuple[int, int]:
    """Area-select id -> (board area index, k sections for a build, else 0)."""
    if 0 <= local < NUM_AREA_ACTIONS:
        return AREA_TARGETS[local]
    return _area_action_target(local)


def _area_action_target(local: int) -> tuple[int, int]:
    if local < NUM_MARKETS:
        return local, 0
    if local == AREA_BANK:
        return BANK, 0
    if local < AREA_SPIES:
        return CIRCLE, local - AREA_BUILD1 + 1
    targets = {AREA_SPIES: SPIES, AREA_CALIPH: CALIPH, AREA_FIVE: FIVE, AREA_RECRUIT: RECRUIT, AREA_LIT: LIT_HOUSE}
    return targets[local], 0


#: area_action_target of every area-select id
AREA_TARGETS = tuple(_area_action_target(a) for a in range(NUM_AREA_ACTIONS))


@dataclass(frozen=True)
class ActionCodec:
    """Offsets of the phase blocks for one configuration (``slots`` tower slots per material).

    The offsets are cached properties: computed once, then plain attribute reads (the engine asks
    for them at every step)."""

    slots: int
    num_spaces: int

    @cached_property
    def area(self) -> int:
        return 0

    @cached_property
    def cards(self) -> int:
        return NUM_AREA_ACTIONS

    @cached_property
    def space(self) -> int:
        return self.cards + NUM_CARD_ACTIONS

    @cached_property
    def market(self) -> int:
        return self.space + self.num_spaces

    @cached_property
    def spy_pile(self) -> int:
        return self.market + NUM_MARKET_ACTIONS

    @cached_property
    def spy_take(self) -> int:
        return self.spy_pile + NUM_SPY_PILE_ACTIONS

    @cached_property
    def build(self) -> int:
        return self.spy_take + NUM_SPY_TAKE_ACTIONS

    # build sub-blocks
    @cached_property
    def b_turret(self) -> int:
        return self.build + 10

    @cached_property
    def b_trunk(self) -> int:
        return self.b_turret + 10 * self.slots

    @cached_property
    def b_window(self) -> int:
        return self.b_trunk + 10 * self.slots

    @cached_property
    def b_lit(self) -> int:
        return self.b_window + 10 * self.slots

    @cached_property
    def b_stop(self) -> int:
        return self.b_lit + NUM_MATERIALS * self.slots

    @cached_property
    def lit_offer(self) -> int:
        return self.b_stop + 1

    @cached_property
    def lit_keep(self) -> int:
        return self.lit_offer + NUM_LIT_OFFER_ACTIONS

    @cached_property
    def lit_order(self) -> int:
        return self.lit_keep + NUM_LIT_KEEP_ACTIONS

    @cached_property
    def size(self) -> int:
        return self.lit_order + NUM_LIT_ORDER_ACTIONS

    # -- build encoding -------------------------------------------------------
    def base_id(self, m: int, g: int) -> int:
        return self.build + m * 2 + g

    def placed_id(self, kind: int, m: int, g: int, slot: int) -> int:
        """turret / trunk / window of material m (gold g) into tower ``slot``."""
        if kind == B_TURRET:
            start = self.b_turret
        elif kind == B_TRUNK:
            start = self.b_trunk
        elif kind == B_WINDOW:
            start = self.b_window
        else:
            raise KeyError(kind)
        return start + (m * 2 + g) * self.slots + slot

    def lit_id(self, m: int, slot: int) -> int:
        return self.b_lit + m * self.slots + slot

    def decode_build(self, a: int) -> tuple[int, int, int, int]:
        """Build id -> (step kind, material, gold, slot); slot -1 for a base."""
        if a < self.b_turret:
            x = a - self.build
            return B_BASE, x // 2, x % 2, -1
        if a < self.b_lit:
            for kind, start in ((B_TURRET, self.b_turret), (B_TRUNK, self.b_trunk), (B_WINDOW, self.b_window)):
                if a < start + 10 * self.slots:
                    x = a - start
                    mg, slot = divmod(x, self.slots)
                    return kind, mg // 2, mg % 2, slot
        if a < self.b_stop:
            m, slot = divmod(a - self.b_lit, self.slots)
            return B_LIT, m, 0, slot
        return B_STOP, 0, 0, -1

    # -- names ------------------------------------------------------------------
    def name(self, a: int) -> str:
        """A short readable name for any id (unique within the configuration)."""
        if not 0 <= a < self.size:
            return f"invalid action {a}"
        if a < self.cards:
            area, k = area_action_target(a)
            return f"build {k}" if k else f"go {AREA_SHORT[area]}"
        if a < self.space:
            c = a - self.cards
            if c < NUM_SUITS:
                return f"lay {SUIT_NAMES[c]}"
            s1, s2 = PAIRS[c - NUM_SUITS]
            return f"lay pair {SUIT_NAMES[s1]}+{SUIT_NAMES[s2]} face down"
        if a < self.market:
            i = a - self.space
            return f"space {i + 1}" if i < NUM_PLOTS else f"space #{i + 1}"
        if a < self.spy_pile:
            x = a - self.market
            return "decline purchase" if x == MARKET_DECLINE else f"buy {kind_name(x)}"
        if a < self.spy_take:
            x = a - self.spy_pile
            return "decline spying" if x == SPY_DECLINE else f"search {TYPES[x]} pile"
        if a < self.build:
            x = a - self.spy_take
            return "take nothing" if x == SPY_NOTHING else f"bribe {kind_name(x)}"
        if a < self.lit_offer:
            kind, m, g, slot = self.decode_build(a)
            gold = " gold" if g else ""
            if kind == B_BASE:
                return f"base {MATERIAL_SHORT[m]}{gold} (new tower)"
            if kind == B_STOP:
                return "stop building"
            if kind == B_LIT:
                return f"lit window {MATERIAL_SHORT[m]} on tower {MATERIAL_SHORT[m]}{slot + 1}"
            what = {B_TURRET: "turret", B_TRUNK: "trunk", B_WINDOW: "window"}[kind]
            return f"{what} {MATERIAL_SHORT[m]}{gold} on tower {MATERIAL_SHORT[m]}{slot + 1}"
        if a < self.lit_keep:
            return ("lit offer 4/3/1", "lit offer 10/5/2", "decline lit offer")[a - self.lit_offer]
        if a < self.lit_order:
            return f"keep lit {MATERIAL_SHORT[a - self.lit_keep]}"
        return f"lit {MATERIAL_SHORT[a - self.lit_order]} to bottom"


def kind_name(x: int) -> str:
    """Kind within a type (material*2+gold) -> 'red gold'."""
    return MATERIALS[x // 2] + (" gold" if x % 2 else "")
