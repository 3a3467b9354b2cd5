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
    ``(out, planes, 3, 3)`` and bias."""

    def __init__(self, board_index: np.ndarray, height: int, width: int, weight: np.ndarray,
                 bias: np.ndarray) -> None:
        rows, planes, cells = board_index.shape
        if cells != height * width:
            raise ValueError(f"board index of {cells} cells for a {height}x{width} grid")
        self.rows, self.planes, self.cells = rows, planes, cells
        self.plane_base = np.ascontiguousarray(board_index[:, :, 0])
        if not np.array_equal(board_index, self.plane_base[..., None] + np.arange(cells)):
            raise ValueError("every board plane must be a contiguous run of the flat observation")
        r, c = np.divmod(np.arange(cells), width)
        nbr, valid = [], []
        for dy in (-1, 0, 1):  # torch's kernel order: (ky, kx) = (dy + 1, dx + 1)
            for dx in (-1, 0, 1):
                rr, cc = r + dy, c + dx
                ok = (rr >= 0) & (rr < height) & (cc >= 0) & (cc < width)
                nbr.append(np.where(ok, rr * width + cc, cells))
                valid.append(ok)
        self.nbr = np.stack(nbr, axis=1).astype(np.intp)  # (cells, 9), ``cells``: outside the board
        self.nbr_safe = np.where(self.nbr == cells, 0, self.nbr)
        self.valid = np.stack(valid, axis=1).astype(np.float32)[:, :, None]
        self.weight = np.ascontiguousarray(weight.transpose(2, 3, 1, 0).reshape(9 * planes, -1), dtype=np.float32)
        self.bias = np.asarray(bias, dtype=np.float32)
        self.idle = np.maximum(self.bias, 0)  # the output of a cell with an empty neighbourhood
        self._runs = self._plane_runs()

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

    def active(self, obs: np.ndarray) -> np.ndarray:
        """``(B, rows, cells)``: the cells whose 3x3 neighbourhood holds a non-zero value."""
        bsz, cells, rows = obs.shape[0], self.cells, self.rows
        hot = np.zeros((bsz, rows, cells + 1), dtype=bool)  # the last cell: outside the board, never hot
        view = hot[:, :, :cells]
        for kind, start, k in self._runs:
            if kind == "shared":
                view |= obs[:, start:start + k * cells].reshape(bsz, 1, k, cells).any(axis=2)
            else:
                view |= obs[:, start:start + rows * k * cells].reshape(bsz, rows, k, cells).any(axis=2)
        return hot[:, :, self.nbr].any(axis=3)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(index, features, sums)`` for a batch of flat observations: ``index = (b, row, cell)`` of the
        active cells (sorted), ``features (A, out)`` their ReLU outputs, ``sums (B, rows, out)`` the sum of the
        outputs over every cell of each row's board (the others count ``relu(bias)`` each)."""
        bsz, size = obs.shape
        act = self.active(obs)
        b, r, c = np.nonzero(act)
        flat = obs.reshape(-1)
        base = (b * size)[:, None] + self.plane_base[r]  # (A, planes)
        x = flat[base[:, None, :] + self.nbr_safe[c][:, :, None]] * self.valid[c]  # (A, 9, planes)
        h = np.maximum(x.reshape(len(b), -1) @ self.weight + self.bias, 0)
        group = b * self.rows + r
        counts = np.bincount(group, minlength=bsz * self.rows)
        sums = np.outer(self.cells - counts, self.idle)
        if len(group):
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            nonempty = counts > 0
            sums[nonempty] += np.add.reduceat(h, starts[nonempty], axis=0)
        return (b, r, c), h, sums.reshape(bsz, self.rows, -1).astype(np.float32)
