"""Where a seat network finds each part of a flat observation: the seats' rows, the boards, the rest.

A game whose observation declares seats (``seats=True`` on blocks or stacks, see
:mod:`meeplezoo.envs.core.observation`) shows one row per seat, the observer first; :class:`SeatLayout` turns
that declaration, for one player count, into index tables over the flat vector:

* ``seat_index (rows, seat_size)``: each seat row's flat values (every non-board seat array's row);
* ``board_index``: the flat offsets of each seat row's board planes, then the planes of the boards that
  belong to no seat (Kerala's ``pending_cell``), all on one grid of ``height x width`` cells; every seat
  row sees its own planes and the shared ones;
* ``global_index``: every other value (one shared encoder reads them);
* ``presence``: the flat indices whose sum is 1 for a seat that plays (from ``seat_presence``; None: every
  row plays);
* ``cell_runs``: the actions that name the observer's cells (``cell_actions``), ``dense``: the others.

The network's weights depend on the layout's sizes only, which do not change with the player count (only the
number of rows does), so one set of weights plays every count.  :func:`seatnet_shapes` gives the name and shape
of every weight (the torch module's ``state_dict`` names) for a layout and a config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from meeplezoo.knobs import is_int

#: the architecture name of a seat network checkpoint
SEAT_ARCHITECTURE = "seatnet"
#: the widths of a seat network (``SeatNetConfig`` fields); each >= 1 but ``channels`` and ``action_hidden``,
#: which may be 0 (no board convolution; no action head)
SEAT_CONFIG_KEYS = ("channels", "seat_hidden", "global_hidden", "trunk_hidden", "cell_hidden", "value_hidden",
                    "action_hidden")
#: the roles a seat row plays for the value head: the observer, the next seat, any other
ROLES = 3


def check_seat_config(config: Any, source: str = "seat network") -> dict[str, int]:
    """A seat network's widths as ints (ValueError naming what is wrong)."""
    if not isinstance(config, Mapping) or set(config) != set(SEAT_CONFIG_KEYS):
        raise ValueError(f"{source}: a seat network config needs exactly {', '.join(SEAT_CONFIG_KEYS)}, got "
                         f"{config!r}")
    out = {}
    for k in SEAT_CONFIG_KEYS:
        v = config[k]
        low = 0 if k in ("channels", "action_hidden") else 1
        if not is_int(v) or v < low:
            raise ValueError(f"{source}: seat network config {k!r} must be an int >= {low}, got {v!r}")
        out[k] = int(v)
    return out


def _support(spec: Any, name: str) -> np.ndarray:
    """Per plane of the board ``name`` (a stack: of one member): whether it is a declared support plane."""
    block = spec.blocks[spec.stacks[name][0][0]] if name in spec.stacks else spec.blocks[name]
    planes = block.shape[0] if len(block.shape) == 3 else 1  # noqa: PLR2004 - (planes, rows, cols)
    out = np.ones(planes, dtype=bool)
    if block.support is not None:
        out[:] = False
        out[list(block.support)] = True
    return out


@dataclass(frozen=True)
class CellRun:
    """Actions ``start .. start + cells - 1``, one per cell of the observer's board (row-major)."""

    name: str
    start: int
    cells: int


class SeatLayout:
    """The index tables of one game configuration (see the module docstring); ``max_seats`` is the game's
    largest player count (the value head's width)."""

    def __init__(self, game: Any) -> None:
        spec = game.observation_spec
        structure = spec.structure()
        seats = spec.seat_names()
        if not seats:
            raise ValueError(f"{game.name}: its observation declares no seats (seats=True); a seat network "
                             "cannot read it")
        rows = {structure[s][0][0] for s in seats}
        if len(rows) != 1:
            raise ValueError(f"{game.name}: its seat arrays have different numbers of rows: {sorted(rows)}")
        self.game = game
        self.num_players = int(game.num_players)
        self.max_seats = int(type(game).max_players)
        self.rows = rows.pop()
        if self.rows < max(self.num_players, 2):
            raise ValueError(f"{game.name}: {self.rows} seat rows for {self.num_players} players")
        boards = spec.spatial_names()
        flat_seat, seat_boards, global_boards, glob = [], [], [], []
        for name, (shape, _lo, _hi, sl) in structure.items():
            if name in seats:
                per_row = (sl.stop - sl.start) // self.rows
                idx = sl.start + np.arange(self.rows)[:, None] * per_row + np.arange(per_row)
                (seat_boards if name in boards else flat_seat).append((idx, shape[1:], _support(spec, name)))
            elif name in boards:
                global_boards.append((np.arange(sl.start, sl.stop), shape, _support(spec, name)))
            else:
                glob.append(np.arange(sl.start, sl.stop))
        self.seat_index = (np.concatenate([i for i, _, _ in flat_seat], axis=1) if flat_seat
                           else np.zeros((self.rows, 0), dtype=np.intp)).astype(np.intp)
        self.global_index = (np.concatenate(glob) if glob else np.zeros(0)).astype(np.intp)
        self._boards(game.name, seat_boards, global_boards)
        self.presence = None
        if spec.seat_presence is not None:
            array, start, stop = spec.seat_presence
            sl = structure[array][3]
            per_row = (sl.stop - sl.start) // self.rows
            rows = sl.start + np.arange(self.rows)[:, None] * per_row
            self.presence = (rows + np.arange(start, stop)).astype(np.intp)
        self._cells(spec, game.num_actions)

    def _boards(self, name: str, seat_boards: list, global_boards: list) -> None:
        """``board_index (rows, planes, cells)``: per seat row, its board planes then the shared ones."""
        grids = {tuple(s[-2:]) for _, s, _ in seat_boards} | {tuple(s[-2:]) for _, s, _ in global_boards}
        self.height = self.width = 0
        self.board_index = self.support = None
        if not seat_boards:  # boards that belong to no seat: the rest reads them flat
            self.global_index = np.sort(np.concatenate([self.global_index, *[i for i, _, _ in global_boards]]))
            return
        if len(grids) != 1:
            raise ValueError(f"{name}: a seat network needs every board on one grid, got {sorted(grids)}")
        self.height, self.width = grids.pop()
        cells = self.height * self.width
        parts = [idx.reshape(self.rows, -1, cells) for idx, _, _ in seat_boards]
        parts += [np.broadcast_to(idx.reshape(1, -1, cells), (self.rows, len(idx) // cells, cells))
                  for idx, _, _ in global_boards]
        self.board_index = np.concatenate(parts, axis=1).astype(np.intp)
        #: per board plane: whether it is among its board's support planes (where the non-zero cells show)
        self.support = np.concatenate([sup for _, _, sup in seat_boards + global_boards])

    def _cells(self, spec: Any, num_actions: int) -> None:
        runs = []
        if self.board_index is not None:
            for c in spec.cell_actions:
                cells = c.validate(spec, num_actions)
                if cells != self.cells:
                    raise ValueError(f"cell actions {c.name!r}: {cells} cells, the boards have {self.cells}")
                runs.append(CellRun(c.name, c.start, cells))
        self.cell_runs = tuple(runs)
        taken = np.zeros(num_actions, dtype=bool)
        for r in runs:
            taken[r.start:r.start + r.cells] = True
        self.dense = np.flatnonzero(~taken)
        self.action_features = spec.action_features

    @property
    def cells(self) -> int:
        """Cells of the board grid (0: no boards)."""
        return self.height * self.width

    @property
    def planes(self) -> int:
        """Board planes each seat row's convolution reads (its own and the shared ones)."""
        return 0 if self.board_index is None else int(self.board_index.shape[1])

    def sizes(self) -> tuple[int, ...]:
        """What the weights' shapes depend on (equal for every player count of a game's options)."""
        af = self.action_features
        return (self.seat_index.shape[1], len(self.global_index), self.planes, self.cells, len(self.dense),
                tuple((r.name, r.cells) for r in self.cell_runs), self.max_seats,
                None if af is None else tuple((f.name, f.items, f.size) for f in af.factors))


def seatnet_shapes(layout: SeatLayout, config: Mapping[str, int]) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight of a seat network (torch ``state_dict`` names)."""
    cfg = check_seat_config(config)
    ch, e, g, t = cfg["channels"], cfg["seat_hidden"], cfg["global_hidden"], cfg["trunk_hidden"]
    boards = ch if layout.planes else 0
    out: dict[str, tuple[int, ...]] = {}
    if boards:
        out["board.weight"], out["board.bias"] = (ch, layout.planes, 3, 3), (ch,)
    out["seat.weight"], out["seat.bias"] = (e, layout.seat_index.shape[1] + boards), (e,)
    glob = len(layout.global_index)
    if glob:
        out["glob.weight"], out["glob.bias"] = (g, glob), (g,)
    out["trunk.weight"] = (t, (g if glob else 0) + 4 * e + layout.max_seats)
    out["trunk.bias"] = (t,)
    out["policy.weight"], out["policy.bias"] = (len(layout.dense), t), (len(layout.dense),)
    if layout.cell_runs and boards:
        hc, k = cfg["cell_hidden"], len(layout.cell_runs)
        out.update({"cell_in.weight": (hc, ch), "cell_in.bias": (hc,), "cell_ctx.weight": (hc, t),
                    "cell_out.weight": (k, hc), "cell_out.bias": (k,)})
    hid, af = cfg["action_hidden"], layout.action_features
    if hid and af is not None:
        mid = max(hid // 2, 1)
        out["action_trunk.weight"], out["action_trunk.bias"] = (hid, t), (hid,)
        for f in af.factors:
            if f.gather is None:
                out[f"action_items.{f.name}"] = (f.items, hid)
            else:
                out[f"action_inputs.{f.name}.weight"] = (hid, f.size)
        out.update({"action_mid.weight": (mid, hid), "action_mid.bias": (mid,), "action_out.weight": (1, mid),
                    "action_out.bias": (1,)})
    v = cfg["value_hidden"]
    out.update({"value_ctx.weight": (v, t), "value_ctx.bias": (v,), "value_seat.weight": (v, e),
                "value_role": (ROLES, v), "value_out.weight": (1, v), "value_out.bias": (1,)})
    return out


class ObsTake:
    """Takes ``x[..., index]`` from one flat observation, or ``obs[:, index]`` from a batch (``batched``): a slice
    (a view) where the indices are consecutive.  A class, not a closure, so that a network pickles to the
    workers of a process pool."""

    def __init__(self, index: np.ndarray, batched: bool) -> None:
        flat = index.reshape(-1)
        self.index, self.shape, self.batched = index, index.shape, batched
        self.span: tuple[int, int] | None = None
        if len(flat) and np.array_equal(flat, np.arange(flat[0], flat[0] + len(flat))):
            self.span = (int(flat[0]), int(flat[0]) + len(flat))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if self.batched:
            if self.span is None:
                return x[:, self.index]
            return x[:, self.span[0]:self.span[1]].reshape(len(x), *self.shape)
        if self.span is None:
            return x.take(self.index)
        return x[self.span[0]:self.span[1]].reshape(self.shape)
