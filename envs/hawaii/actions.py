"""Hawaii action codec: one flat Discrete space made of decision blocks (rules file §17.2).

A turn is a sequence of decisions of the same player; the block of an action index says which
decision it answers:

========== ===================================================================== ==========
block      meaning of the index inside the block                                 size
========== ===================================================================== ==========
MAIN       buy at slot P1..P10 (0-9), fish (10), island at dock D1..D4 (11-14),   20
           end the round on sequence space 1..5 (15-19)
TOKEN      circle of the chosen place: 0 printed, 1-2 blank                        3
TILE       global tile type (components.TYPE_NAMES)                               22
SIDE       0 = pay the value (side I / one Kahuna or Tiki), 1 = double             2
ROW        village row 1..5                                                        5
PAY        step 1 of a payment: number of fruit units                              pay_size
SPLIT      step 2 of a payment: units of the third resource                        pay_size
KANE       0 decline, 1-6 pay SS, SF, SR, FF, FR, RR for a Tiki                    7
FISH       take k = index + 1 fish tokens (those with most fish first)             10
BOATS      launch boat i (0 fishing boat, 1-8 bought boats), 9 = done             10
IRRIG      irrigation-II income: 0 shell, 1 foot, 2 fruit                          3
========== ===================================================================== ==========
"""

from __future__ import annotations

from .components import (
    FRUIT,
    GOD_TYPES,
    KANE_PAYMENT_NAMES,
    NUM_DOCKS,
    NUM_SLOTS,
    NUM_TYPES,
    RESOURCE_NAMES,
    SEQ_SPACES,
    TYPE_NAMES,
    Phase,
)

MAIN, TOKEN, TILE, SIDE, ROW, PAY, SPLIT, KANE, FISH, BOATS, IRRIG = (int(p) for p in Phase)
PHASE_NAMES = ("main", "token", "tile", "side", "row", "pay", "split", "kane", "fish", "boats", "irrigation")
NUM_PHASES = len(PHASE_NAMES)

MAIN_FISH = NUM_SLOTS
MAIN_ISLAND = NUM_SLOTS + 1
MAIN_PASS = MAIN_ISLAND + NUM_DOCKS
MAIN_SIZE = MAIN_PASS + SEQ_SPACES
MAX_FISH_TAKE = 10
BOAT_DONE = 9


class ActionCodec:
    """Offsets of the decision blocks for one configuration (the payment blocks depend on it)."""

    def __init__(self, pay_size: int) -> None:
        self.pay_size = pay_size
        sizes = (MAIN_SIZE, 3, NUM_TYPES, 2, 5, pay_size, pay_size, 7, MAX_FISH_TAKE, 10, 3)
        self.sizes = sizes
        self.offsets: list[int] = []
        off = 0
        for s in sizes:
            self.offsets.append(off)
            off += s
        self.num_actions = off
        self.names = [self._name(a) for a in range(off)]
        self.table = [self.decode(a) for a in range(off)]

    def encode(self, phase: int, index: int) -> int:
        if not 0 <= index < self.sizes[phase]:
            raise ValueError(f"hawaii: index {index} outside decision {PHASE_NAMES[phase]}")
        return self.offsets[phase] + index

    def decode(self, action: int) -> tuple[int, int]:
        """(phase, index) of a flat action."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"hawaii: action {action} outside 0..{self.num_actions - 1}")
        for ph in range(NUM_PHASES - 1, -1, -1):
            if action >= self.offsets[ph]:
                return ph, action - self.offsets[ph]
        raise AssertionError("unreachable")

    def name(self, action: int) -> str:
        if 0 <= action < self.num_actions:
            return self.names[action]
        return f"invalid action {action}"

    def _name(self, action: int) -> str:
        ph, i = self.decode(action)
        if ph == MAIN:
            if i < NUM_SLOTS:
                return f"buy at P{i + 1}"
            if i == MAIN_FISH:
                return "fish"
            if i < MAIN_PASS:
                return f"visit island at D{i - MAIN_ISLAND + 1}"
            return f"end round on space {i - MAIN_PASS + 1}"
        if ph == TOKEN:
            return "token on printed circle" if i == 0 else f"token on blank circle {i}"
        if ph == TILE:
            return f"tile {TYPE_NAMES[i]}" + (" (god)" if i in GOD_TYPES else "")
        if ph == SIDE:
            return "pay single (side I)" if i == 0 else "pay double (side II)"
        if ph == ROW:
            return f"village row {i + 1}"
        if ph == PAY:
            return f"pay with {i} fruit"
        if ph == SPLIT:
            return f"pay {i} of the third resource"
        if ph == KANE:
            return "decline Kane's Tiki" if i == 0 else f"Kane's Tiki paying {KANE_PAYMENT_NAMES[i - 1]}"
        if ph == FISH:
            return f"take {i + 1} fish token{'s' if i else ''}"
        if ph == BOATS:
            if i == BOAT_DONE:
                return "boats done"
            return "launch fishing boat" if i == 0 else f"launch boat {i}"
        return f"irrigation income: 1 {RESOURCE_NAMES[i].rstrip('s') if i < FRUIT else 'fruit'}"
