"""The flat action space of Haus der Sonne (rules file §16.4): 83 ids, the same in both variants.

| ids   | action                                   | phase                  |
|-------|------------------------------------------|------------------------|
| 0-29  | PLACE(v, s): id = 6(v-1) + s             | MAIN (s = boat: sail v)|
| 30-34 | PLACE_WITH_LAVA(v) on the boat segment   | MAIN (tactical only)   |
| 35-39 | TAKE_BACK(v)                             | MAIN                   |
| 40    | SAIL_ONE (number-disc supply empty)      | MAIN                   |
| 41    | PASS (only when nothing else is legal)   | MAIN                   |
| 42-59 | SHAMAN_TO(field 0..17)                   | SHAMAN                 |
| 60    | SHAMAN_STAY                              | SHAMAN                 |
| 61-62 | PICK_BAY(k) of the landing segment       | PICK                   |
| 63-74 | PRIESTESS(c, dir): 63 + 2c + dir         | PRIESTESS              |
| 75    | PRIESTESS_SKIP (priestess_optional only) | PRIESTESS              |
| 76-81 | BUY(item): 5 scoring cards, priestess    | BUY_SHELL / BUY_WINDOW |
| 82    | BUY_PASS                                 | BUY_SHELL / BUY_WINDOW |
"""

from __future__ import annotations

from typing import NamedTuple

from .components import BUY_ITEM_SHORT, NUM_BUY_ITEMS, NUM_FIELDS, NUM_SEGMENTS, node_name

PLACE0 = 0
PLACE_LAVA0 = 30
TAKE_BACK0 = 35
SAIL_ONE = 40
PASS = 41
SHAMAN_TO0 = 42
SHAMAN_STAY = 60
PICK0 = 61
PRIESTESS0 = 63
PRIESTESS_SKIP = 75
BUY0 = 76
BUY_PASS = 82
NUM_ACTIONS = 83

KINDS = ("place", "place_lava", "take_back", "sail_one", "pass", "shaman_to", "shaman_stay", "pick",
         "priestess", "priestess_skip", "buy", "buy_pass")


class Action(NamedTuple):
    """A decoded action: ``kind`` and up to two integer arguments."""

    kind: str
    a: int = -1
    b: int = -1


def place(v: int, s: int) -> int:
    return PLACE0 + 6 * (v - 1) + s


def place_lava(v: int) -> int:
    return PLACE_LAVA0 + v - 1


def take_back(v: int) -> int:
    return TAKE_BACK0 + v - 1


def shaman_to(field: int) -> int:
    return SHAMAN_TO0 + field


def pick(k: int) -> int:
    return PICK0 + k


def priestess(crater: int, direction: int) -> int:
    """Move the top chip of ``crater`` one field; direction 0 counter-clockwise (s-1), 1 clockwise (s+1)."""
    return PRIESTESS0 + 2 * crater + direction


def buy(item: int) -> int:
    return BUY0 + item


def decode(action: int) -> Action:
    """Structured form of an action id (raises ValueError outside the space)."""
    a = int(action)
    if a < 0 or a >= NUM_ACTIONS:
        raise ValueError(f"haus_der_sonne: action {action!r} outside 0..{NUM_ACTIONS - 1}")
    if a < PLACE_LAVA0:
        return Action("place", a // 6 + 1, a % 6)
    if a < TAKE_BACK0:
        return Action("place_lava", a - PLACE_LAVA0 + 1)
    if a < SAIL_ONE:
        return Action("take_back", a - TAKE_BACK0 + 1)
    if a == SAIL_ONE:
        return Action("sail_one")
    if a == PASS:
        return Action("pass")
    if a < SHAMAN_STAY:
        return Action("shaman_to", a - SHAMAN_TO0)
    if a == SHAMAN_STAY:
        return Action("shaman_stay")
    if a < PRIESTESS0:
        return Action("pick", a - PICK0)
    if a < PRIESTESS_SKIP:
        return Action("priestess", (a - PRIESTESS0) // 2, (a - PRIESTESS0) % 2)
    if a == PRIESTESS_SKIP:
        return Action("priestess_skip")
    if a < BUY_PASS:
        return Action("buy", a - BUY0)
    return Action("buy_pass")


def encode(act: Action) -> int:
    """Inverse of :func:`decode`."""
    k = act.kind
    table = {
        "place": lambda: place(act.a, act.b), "place_lava": lambda: place_lava(act.a),
        "take_back": lambda: take_back(act.a), "sail_one": lambda: SAIL_ONE, "pass": lambda: PASS,
        "shaman_to": lambda: shaman_to(act.a), "shaman_stay": lambda: SHAMAN_STAY, "pick": lambda: pick(act.a),
        "priestess": lambda: priestess(act.a, act.b), "priestess_skip": lambda: PRIESTESS_SKIP,
        "buy": lambda: buy(act.a), "buy_pass": lambda: BUY_PASS,
    }
    if k not in table:
        raise ValueError(f"haus_der_sonne: unknown action kind {k!r}; known: {', '.join(KINDS)}")
    return table[k]()


def _name(a: int) -> str:
    d = decode(a)
    if d.kind == "place":
        return f"disc {d.a} to beach {d.b}"
    if d.kind == "place_lava":
        return f"disc {d.a}+lava disc, sail"
    if d.kind == "take_back":
        return f"take back disc {d.a}"
    if d.kind == "sail_one":
        return "sail one segment"
    if d.kind == "pass":
        return "pass"
    if d.kind == "shaman_to":
        return f"shaman to {node_name(d.a)}"
    if d.kind == "shaman_stay":
        return "shaman stays"
    if d.kind == "pick":
        return f"pick bay {d.a}"
    if d.kind == "priestess":
        return f"lava chip crater {d.a} to {(d.a + (1 if d.b else -1)) % NUM_SEGMENTS}"
    if d.kind == "priestess_skip":
        return "priestess: no move"
    if d.kind == "buy":
        return f"buy {BUY_ITEM_SHORT[d.a]}"
    return "buy nothing"


ACTION_NAMES = tuple(_name(a) for a in range(NUM_ACTIONS))
assert len(set(ACTION_NAMES)) == NUM_ACTIONS
assert NUM_FIELDS == SHAMAN_STAY - SHAMAN_TO0 and NUM_BUY_ITEMS == BUY_PASS - BUY0


def action_name(action: int) -> str:
    """Readable, configuration-unique name of any action id (legal or not)."""
    try:
        a = int(action)
    except (TypeError, ValueError):
        return f"invalid action {action!r}"
    if 0 <= a < NUM_ACTIONS:
        return ACTION_NAMES[a]
    return f"invalid action {a}"
