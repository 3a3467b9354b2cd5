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
    so summing them finds the non-zero cells without taking absolute values; ``support`` (a bool per plane):
    the planes whose non-zero cells cover those of every plane (declared by the game), the only ones read
    to find them."""

    def __init__(self, board_index: np.ndarray, height: int, width: int, weight: np.ndarray,
                 bias: np.ndarray, nonnegative: bool = False, support: np.ndarray | None = None) -> None:
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
        # per run of planes: the ones to read for the non-zero cells (None: all of them)
        support = np.ones(planes, dtype=bool) if support is None else np.asarray(support, dtype=bool)
        self._support, p = [], 0
        for _kind, _start, k in self._runs:
            sel = np.flatnonzero(support[p:p + k])
            self._support.append(None if len(sel) == k else sel)
            p += k
        self.height, self.width = height, width
        self.nonnegative = bool(nonnegative)
        self._ones = np.ones(planes, dtype=np.float32)
        # per (row, cell): the rows of channels_last() its 3x3 patch reads, tap by tap (-1: past the edge)
        self.patch = np.concatenate([np.where(nbr < 0, -1, nbr + r * cells) for r in range(rows)]).astype(np.intp)
        # per (row, cell): the flat offsets of its value on every plane
        self.cell_planes = (self.plane_base[:, None, :] + np.arange(cells)[None, :, None]).reshape(rows * cells, planes)
        self._one_tables()
        self._zeros = np.zeros((rows * cells, len(self.bias)), dtype=np.float32)  # ReLU's fast path (see one)
        self._zeros.flags.writeable = False

    def _one_tables(self) -> None:
        """The tables of :meth:`one`: the flat offsets of the planes read to find the non-zero cells
        ``(S, cells)`` and which rows each of them marks ``(rows, S)``."""
        index, marks, cells = [], [], np.arange(self.cells)
        for (kind, start, k), sel in zip(self._runs, self._support):
            planes = np.arange(k) if sel is None else sel
            for r in range(1 if kind == "shared" else self.rows):
                for p in planes:
                    index.append(start + (r * k + p) * self.cells + cells)
                    marks.append(np.ones(self.rows) if kind == "shared" else np.arange(self.rows) == r)
        self._mass_index = np.stack(index).astype(np.intp)
        self._mass_rows = np.ascontiguousarray(np.stack(marks, axis=1), dtype=np.float32)
        self._count = np.arange(self.rows * self.cells + 1, dtype=np.intp)

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

    def mass(self, obs: np.ndarray) -> np.ndarray:
        """``(B * rows * cells,)``: per cell, the sum of its values over the planes (of their absolute values
        unless ``nonnegative``), read plane by plane (the flat vector's order)."""
        bsz, cells, rows = obs.shape[0], self.cells, self.rows
        out = None
        for (kind, start, k), sel in zip(self._runs, self._support):
            n = 1 if kind == "shared" else rows
            x = obs[:, start:start + n * k * cells].reshape(bsz, n, k, cells)
            if sel is not None:
                x = x[:, :, sel]
            m = self._ones[:x.shape[2]] @ (x if self.nonnegative else np.abs(x))
            out = m if out is None else out + m
        return np.broadcast_to(out, (bsz, rows, cells)).reshape(-1)

    def patches(self, cells: np.ndarray, bsz: int) -> np.ndarray:
        """``(len(cells), 9)``: the flat cells (over ``(B, rows, cells)``) of each cell's 3x3 patch, -1 past
        the edge."""
        if bsz == 1:
            return self.patch[cells]
        per = self.rows * self.cells
        b, rc = np.divmod(cells, per)
        idx = self.patch[rc]
        return np.where(idx < 0, -1, idx + (b * per)[:, None])

    def grow(self, cells: np.ndarray, bsz: int) -> np.ndarray:
        """The flat cells within one step (3x3) of ``cells``, sorted."""
        mark = np.zeros(bsz * self.rows * self.cells + 1, dtype=bool)
        mark[self.patches(cells, bsz)] = True
        mark[-1] = False  # past the edge
        return np.flatnonzero(mark)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(active, features, sums)`` for a batch of flat observations: ``active`` the flat indices of the
        active cells in ``(B, rows, cells)`` (sorted), ``features (A, out)`` their ReLU outputs, ``sums (B, rows,
        out)`` the sum of the outputs over every cell of each row's board (the others count ``relu(bias)``).

        Only the cells the active cells' patches read are copied cell by cell (channels last)."""
        bsz, size = obs.shape
        k = self.grow(np.flatnonzero(self.mass(obs)), bsz)
        need = self.grow(k, bsz)
        per = self.rows * self.cells
        if bsz == 1:
            idx = self.cell_planes[need]
        else:
            b, rc = np.divmod(need, per)
            idx = self.cell_planes[rc] + (b * size)[:, None]
        x = np.empty((len(need) + 1, self.planes), dtype=np.float32)
        x[:-1] = obs.reshape(-1)[idx]
        x[-1] = 0
        local = np.full(bsz * per + 1, len(need), dtype=np.intp)  # the last entry (past the edge): the zero row
        local[need] = np.arange(len(need))
        h = np.take(x, local[self.patches(k, bsz)], axis=0).reshape(len(k), -1) @ self.weight
        h += self.bias
        np.maximum(h, 0, out=h)
        groups = (k // self.cells) == np.arange(bsz * self.rows)[:, None]  # (B * rows, A)
        counts = groups.sum(axis=1)
        sums = groups.astype(np.float32) @ h
        sums += (self.cells - counts)[:, None] * self.idle
        return k, h, sums.reshape(bsz, self.rows, -1)

    def one(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(active, features)`` of :meth:`__call__` for one flat observation ``x (size,)``, in fewer steps:
        the non-zero cells from one gather and one product, the patches from a channels-last copy of the
        non-zero cells (a zero row for every other cell)."""
        n = self.rows * self.cells
        mark = np.zeros(n + 1, dtype=bool)  # the last entry: past the edge
        v = x.take(self._mass_index)  # take: faster than fancy indexing on these small tables
        m = self._mass_rows @ (v if self.nonnegative else np.abs(v))
        nz = m.reshape(-1).nonzero()[0]
        mark[self.patch.take(nz, axis=0)] = True
        k = mark[:n].nonzero()[0]
        # a cell off nz is zero on every plane (the support planes show every non-zero cell): the patches read
        # the rows of nz (from 1 on) and the zero row 0 for every other cell
        local = np.zeros(n + 1, dtype=np.intp)
        local[nz] = self._count[1:len(nz) + 1]
        xz = np.empty((len(nz) + 1, self.planes), dtype=np.float32)
        xz[0] = 0
        x.take(self.cell_planes.take(nz, axis=0), out=xz[1:])
        taps = local.take(self.patch.take(k, axis=0))
        h = xz.take(taps, axis=0).reshape(len(k), -1) @ self.weight
        h += self.bias
        return k, np.maximum(h, self._zeros[:len(k)], out=h)  # zeros of h's shape: numpy's fast path
