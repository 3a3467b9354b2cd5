"""A 3x3 convolution of board planes in numpy that works only near the tiles (exact, not an approximation).

A cell whose 3x3 neighbourhood holds only zeros (on every plane) gets ``relu(bias)`` from a one-layer 3x3
convolution with zero padding, whatever the weights: so :class:`ActiveConv` finds the cells near a non-zero
value (the non-zero cells, grown by one), convolves those (one gather, one matrix product) and gives every
other cell that one constant vector.  On a Kerala platform a few dozen of the 441 cells are active; the
result equals torch's ``Conv2d(padding=1)`` over the whole board.
"""

from __future__ import annotations

import numpy as np


class ActiveConv:
    """The convolution of every seat row's board planes (``board_index (rows, planes, cells)`` of a
    :class:`~meeplezoo.agents.seat_layout.SeatLayout`) on a ``height x width`` grid, with torch's weight
    ``(out, planes, 3, 3)`` and bias; ``nonnegative``: the planes hold no negative values (declared lows >= 0),
    so summing them finds the non-zero cells without taking absolute values."""

    def __init__(self, board_index: np.ndarray, height: int, width: int, weight: np.ndarray,
                 bias: np.ndarray, nonnegative: bool = False) -> None:
        rows, planes, cells = board_index.shape
        if cells != height * width:
            raise ValueError(f"board index of {cells} cells for a {height}x{width} grid")
        self.rows, self.planes, self.cells = rows, planes, cells
        self.plane_base = np.ascontiguousarray(board_index[:, :, 0])
        if not np.array_equal(board_index, self.plane_base[..., None] + np.arange(cells)):
            raise ValueError("every board plane must be a contiguous run of the flat observation")
        r, c = np.divmod(np.arange(cells), width)
        nbr = []
        for dy in (-1, 0, 1):  # torch's kernel order: (ky, kx) = (dy + 1, dx + 1)
            for dx in (-1, 0, 1):
                rr, cc = r + dy, c + dx
                ok = (rr >= 0) & (rr < height) & (cc >= 0) & (cc < width)
                nbr.append(np.where(ok, rr * width + cc, -1))
        nbr = np.stack(nbr, axis=1)  # (cells, 9), -1: past the edge
        self.weight = np.ascontiguousarray(weight.transpose(2, 3, 1, 0).reshape(9 * planes, -1), dtype=np.float32)
        self.bias = np.asarray(bias, dtype=np.float32)
        self.idle = np.maximum(self.bias, 0)  # the output of a cell with an empty neighbourhood
        self._runs = self._plane_runs()
        self.height, self.width = height, width
        self.nonnegative = bool(nonnegative)
        self._ones = np.ones(planes, dtype=np.float32)
        # per (row, cell): the rows of channels_last() its 3x3 patch reads, tap by tap (-1: past the edge)
        self.patch = np.concatenate([np.where(nbr < 0, -1, nbr + r * cells) for r in range(rows)]).astype(np.intp)

    def _plane_runs(self) -> list[tuple[str, int, int]]:
        """Runs of consecutive planes: ``("shared", start, k)`` (the same planes for every row) or
        ``("stacked", start, k)`` (row r's run at ``start + r * k * cells``)."""
        runs, p = [], 0
        base, cells = self.plane_base, self.cells
        while p < self.planes:
            k = 1
            while p + k < self.planes and np.all(base[:, p + k] == base[:, p] + k * cells):
                k += 1
            col = base[:, p]
            if np.all(col == col[0]):
                runs.append(("shared", int(col[0]), k))
            elif np.array_equal(col, col[0] + np.arange(self.rows) * k * cells):
                runs.append(("stacked", int(col[0]), k))
            else:
                raise ValueError("seat boards must be stacked one row after the other")
            p += k
        return runs

    def channels_last(self, obs: np.ndarray) -> np.ndarray:
        """``(B * rows * cells + 1, planes)``: every seat row's board planes cell by cell, then a zero row
        (what a 3x3 patch reads past the board's edge)."""
        bsz, cells, rows = obs.shape[0], self.cells, self.rows
        x = np.empty((bsz * rows * cells + 1, self.planes), dtype=np.float32)
        x[-1] = 0
        grid = x[:-1].reshape(bsz, rows, cells, self.planes)
        p = 0
        for kind, start, k in self._runs:
            n = 1 if kind == "shared" else rows
            grid[:, :, :, p:p + k] = obs[:, start:start + n * k * cells].reshape(bsz, n, k, cells).transpose(0, 1, 3, 2)
            p += k
        return x

    def active(self, x: np.ndarray, bsz: int) -> np.ndarray:
        """The flat indices (over ``(B, rows, cells)``) of the cells whose 3x3 neighbourhood holds a non-zero
        value, from :meth:`channels_last`'s output: the non-zero cells' patches, marked."""
        mass = (x[:-1] if self.nonnegative else np.abs(x[:-1])) @ self._ones
        hot = np.flatnonzero(mass)
        mark = np.zeros(len(x), dtype=bool)
        if bsz == 1:
            mark[self.patch[hot]] = True
        else:
            per = self.rows * self.cells
            b, rc = np.divmod(hot, per)
            idx = self.patch[rc]
            mark[np.where(idx < 0, -1, idx + (b * per)[:, None])] = True
        mark[-1] = False  # past the edge
        return np.flatnonzero(mark)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(active, features, sums)`` for a batch of flat observations: ``active`` the flat indices of the
        active cells in ``(B, rows, cells)`` (sorted), ``features (A, out)`` their ReLU outputs, ``sums (B, rows,
        out)`` the sum of the outputs over every cell of each row's board (the others count ``relu(bias)``)."""
        bsz = obs.shape[0]
        x = self.channels_last(obs)
        k = self.active(x, bsz)
        if bsz == 1:
            idx = self.patch[k]
        else:
            per = self.rows * self.cells
            b, rc = np.divmod(k, per)
            idx = self.patch[rc]
            idx = np.where(idx < 0, -1, idx + (b * per)[:, None])
        h = np.take(x, idx, axis=0).reshape(len(k), -1) @ self.weight
        h += self.bias
        np.maximum(h, 0, out=h)
        groups = (k // self.cells) == np.arange(bsz * self.rows)[:, None]  # (B * rows, A)
        counts = groups.sum(axis=1)
        sums = groups.astype(np.float32) @ h
        sums += (self.cells - counts)[:, None] * self.idle
        return k, h, sums.reshape(bsz, self.rows, -1)
