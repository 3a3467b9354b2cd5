"""Kerala action codec: flat action ids <-> structured actions, and readable names.

The layout follows the rules file §13.4 (``S`` = window side, ``G = S*S`` cells,
``K`` = number of pass ids: 1, or 5 under ``pass_mode="discard_chosen"``)::

    0 .. 159                 PICK  ((slot*2 + elephant)*4 + direction)*4 + orientation
    160 .. 160+K-1           PASS  (one id; or one per offer slot whose tile is discarded)
    then 2G                  MOVE_ELEPHANT  elephant*G + cell
    then 1                   SKIP (declines the optional action of a move-elephant / move-tile tile)
    then G                   MOVE_TILE_SRC  cell
    then G                   MOVE_TILE_DST  cell
    then 4                   MOVE_TILE_ROT  orientation

Cells are window cells ``row*S + col``; the start tile lies at the window centre
``(radius, radius)``.  Elephant 0 is the elephant on the smaller cell (row-major).
"""

from __future__ import annotations

from dataclasses import dataclass

from .components import DIRECTION_NAMES

MAX_OFFER = 5
PICK_IDS = MAX_OFFER * 2 * 4 * 4  # 160

KIND_PICK = "pick"
KIND_PASS = "pass"
KIND_MOVE_ELEPHANT = "move_elephant"
KIND_SKIP = "skip"
KIND_MOVE_TILE_SRC = "move_tile_src"
KIND_MOVE_TILE_DST = "move_tile_dst"
KIND_MOVE_TILE_ROT = "move_tile_rot"


@dataclass(frozen=True)
class Action:
    """A decoded action; unused fields are -1."""

    kind: str
    slot: int = -1
    elephant: int = -1
    direction: int = -1
    orientation: int = -1
    cell: int = -1


class ActionCodec:
    """Offsets of one configuration (window radius, pass mode)."""

    def __init__(self, radius: int, pass_per_slot: bool) -> None:
        self.radius = radius
        self.side = 2 * radius + 1
        self.cells = self.side * self.side
        g = self.cells
        self.pass_ids = MAX_OFFER if pass_per_slot else 1
        self.pass_base = PICK_IDS
        self.move_elephant_base = self.pass_base + self.pass_ids
        self.skip = self.move_elephant_base + 2 * g
        self.src_base = self.skip + 1
        self.dst_base = self.src_base + g
        self.rot_base = self.dst_base + g
        self.num_actions = self.rot_base + 4

    # -- encoding ------------------------------------------------------------
    @staticmethod
    def pick(slot: int, elephant: int, direction: int, orientation: int = 0) -> int:
        return ((slot * 2 + elephant) * 4 + direction) * 4 + orientation

    def pass_(self, slot: int = 0) -> int:
        return self.pass_base + slot

    def move_elephant(self, elephant: int, cell: int) -> int:
        return self.move_elephant_base + elephant * self.cells + cell

    def move_tile_src(self, cell: int) -> int:
        return self.src_base + cell

    def move_tile_dst(self, cell: int) -> int:
        return self.dst_base + cell

    def move_tile_rot(self, orientation: int) -> int:
        return self.rot_base + orientation

    # -- decoding --------------------------------------------------------------
    def decode(self, a: int) -> Action:
        if not 0 <= a < self.num_actions:
            raise ValueError(f"kerala: action {a} outside 0..{self.num_actions - 1}")
        if a < PICK_IDS:
            o = a & 3
            d = (a >> 2) & 3
            e = (a >> 4) & 1
            return Action(KIND_PICK, slot=a >> 5, elephant=e, direction=d, orientation=o)
        if a < self.move_elephant_base:
            return Action(KIND_PASS, slot=a - self.pass_base if self.pass_ids > 1 else -1)
        if a < self.skip:
            e, cell = divmod(a - self.move_elephant_base, self.cells)
            return Action(KIND_MOVE_ELEPHANT, elephant=e, cell=cell)
        if a == self.skip:
            return Action(KIND_SKIP)
        if a < self.dst_base:
            return Action(KIND_MOVE_TILE_SRC, cell=a - self.src_base)
        if a < self.rot_base:
            return Action(KIND_MOVE_TILE_DST, cell=a - self.dst_base)
        return Action(KIND_MOVE_TILE_ROT, orientation=a - self.rot_base)

    def cell_name(self, cell: int) -> str:
        """Cell relative to the start tile: rows grow southwards, columns eastwards."""
        r, c = divmod(cell, self.side)
        return f"({r - self.radius:+d},{c - self.radius:+d})"

    def name(self, a: int, tile_names: list[str] | None = None) -> str:
        """Readable, unique name; ``tile_names`` (current offer) adds the tile to pick names."""
        try:
            act = self.decode(a)
        except ValueError:
            return f"invalid action {a}"
        if act.kind == KIND_PICK:
            tile = ""
            if tile_names is not None and act.slot < len(tile_names):
                tile = f" {tile_names[act.slot]}"
            shows_edge = act.orientation or "edge" in tile
            rot = f" edge {DIRECTION_NAMES[act.orientation]}" if shows_edge else ""
            return f"take slot {act.slot}{tile}, elephant {act.elephant} steps {DIRECTION_NAMES[act.direction]}{rot}"
        if act.kind == KIND_PASS:
            return "pass" if act.slot < 0 else f"pass discarding slot {act.slot}"
        if act.kind == KIND_MOVE_ELEPHANT:
            return f"move elephant {act.elephant} to {self.cell_name(act.cell)}"
        if act.kind == KIND_SKIP:
            return "skip action"
        if act.kind == KIND_MOVE_TILE_SRC:
            return f"move stack from {self.cell_name(act.cell)}"
        if act.kind == KIND_MOVE_TILE_DST:
            return f"move stack to {self.cell_name(act.cell)}"
        return f"turn moved stack edge {DIRECTION_NAMES[act.orientation]}"
