"""The seat network's pass for one observation: what a search asks for, position by position.

:class:`OnePass` computes what :meth:`SeatPolicyValueNet.forward <meeplezoo.agents.seatnet.SeatPolicyValueNet.forward>`
computes for a batch of one, with the per-call cost cut down, since at batch 1 that cost (numpy's, per call) is
most of the time, not the arithmetic:

* the board convolution by :meth:`ActiveConv.one <meeplezoo.agents.seat_convs.ActiveConv.one>`;
* the board's two readers fused: the seat rows' sum over the board and the cell head's input are one product of
  the active cells' outputs; the cells far from any tile (all ``relu(bias)``) enter as constants folded into the
  seat layer's bias once;
* the constant inputs (the seat count's one-hot; with two rows, the pooled others, zero) folded into the trunk's
  bias; the trunk's input written into one buffer;
* every logit but the near cells' and the action head's from one gather of a vector holding the dense policy
  and the far cells' value per run;
* the action head's items added by one product with a 0/1 table (which items each action reads) instead of a
  gather per factor.

The tables are built once per view (per player count).  Results equal the batched pass up to float32 rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .seat_layout import ROLES, ObsTake


class OnePass:
    """The one-observation pass of a :class:`~meeplezoo.agents.seatnet.SeatPolicyValueNet` view (see the
    module docstring); build it with :func:`one_pass`, call it with a flat observation ``x (size,)``."""

    def __init__(self, net: Any) -> None:
        p, w, lay = net.params, net.w, net.layout
        f32 = np.float32
        self.rows, self.players, self.actions = lay.rows, net.game.num_players, net.game.num_actions
        self.seat_take = ObsTake(lay.seat_index, False)
        self.seat_w = net.seat_flat
        es = self.seat_w.shape[1]
        self.es = es
        self.seat_b = p["seat.bias"].copy()
        self.conv = net.conv
        if self.conv is not None:
            cells = lay.cells
            board = w["seat.weight"][lay.seat_index.shape[1]:]  # (channels, es)
            readers = [board * f32(1.0 / cells)]  # the seat row reads the board's mean
            if net.cell_ids is not None:
                readers.append(w["cell_in.weight"])
            self.board_w = np.ascontiguousarray(np.concatenate(readers, axis=1))
            self.board_idle = self.conv.idle @ self.board_w  # what a far cell adds: subtracted per active cell
            self.seat_b += self.conv.idle @ board  # ... and counted for every cell here
            self.row_of = np.ascontiguousarray(np.repeat(np.eye(lay.rows, dtype=f32), cells, axis=0))
        self.glob = "glob.weight" in w
        gsz = w["glob.weight"].shape[1] if self.glob else 0
        if self.glob:
            self.glob_take = ObsTake(lay.global_index, False)
            self.glob_w, self.glob_b = w["glob.weight"], p["glob.bias"]
        self.gsz = gsz
        # the trunk's input in one buffer: [global, the others' mean and maximum (more than two rows), each row]
        pooled = 2 * es if lay.rows > 2 else 0  # noqa: PLR2004 - two rows: the pooled others are zero
        self.e_at = gsz + pooled
        order = np.concatenate([np.arange(gsz), gsz + 2 * es + np.arange(pooled), gsz + np.arange(2 * es)])
        trunk_w = w["trunk.weight"]
        self.trunk_w = np.ascontiguousarray(trunk_w[order])
        self.trunk_b = p["trunk.bias"] + trunk_w[gsz + 4 * es + lay.rows - 1]  # the count's one-hot
        self.u_size = self.e_at + lay.rows * es
        self._heads(net)
        widths = [es, self.trunk_w.shape[1], len(self.head_b)]
        if self.conv is not None:
            widths.append(lay.rows * lay.cells * self.board_w.shape[1])
        if self.acts is not None:
            widths.append(self.action_const.size)
        self._zeros = np.zeros(max(widths) * lay.rows, dtype=np.float32)  # ReLU against zeros of the same shape:
        self._zeros.flags.writeable = False  # numpy's fast path (a scalar 0 is several times slower)
        self.value_seat = w["value_seat.weight"]
        self.roles = np.ascontiguousarray(p["value_role"][np.minimum(np.arange(lay.rows), ROLES - 1)])
        self.value_out, self.value_b = p["value_out.weight"][0], p["value_out.bias"][0]

    def _heads(self, net: Any) -> None:
        """The tables of the heads: where each logit comes from, the cell and action heads."""
        p, w, lay = net.params, net.w, net.layout
        hs = net.head_slices
        self.head_w, self.head_b = net.head_w, net.head_b
        hsz = len(self.head_b)
        self.policy, self.value_ctx = hs["policy"], hs["value_ctx"]
        source = np.empty(self.actions, dtype=np.intp)
        source[lay.dense] = np.arange(hs["policy"].start, hs["policy"].stop)
        self.cells = net.cell_ids is not None
        if self.cells:
            for k, r in enumerate(lay.cell_runs):
                source[r.start:r.start + r.cells] = hsz + k  # the run's far cells' logit
            self.cell_ctx, self.cell_idle = hs["cell_ctx"], net.cell_idle
            self.cell_out, self.cell_out_b = w["cell_out.weight"], p["cell_out.bias"]
            self.cell_starts = net.cell_starts
            self.board_cells = lay.cells
        self.runs = len(lay.cell_runs) if self.cells else 0
        self.source = source
        af = net.action_features
        self.acts = None
        if af is not None:
            self.acts = np.asarray(af.actions, dtype=np.intp)
            self.action_trunk = hs["action_trunk"]
            gathered = [f for f in af.factors if f.gather is not None]
            offsets = np.cumsum([0] + [f.items for f in gathered])
            self.items = [(np.asarray(f.gather, dtype=np.intp), w[f"action_inputs.{f.name}.weight"], o, o + f.items)
                          for f, o in zip(gathered, offsets)]
            reads = np.zeros((len(self.acts), offsets[-1] + 1), dtype=np.float32)  # the last column: the trunk
            for f, o in zip(gathered, offsets):
                reads[np.arange(len(self.acts)), o + np.asarray(f.index)] = 1
            reads[:, -1] = 1
            self.reads = reads
            self.action_const = net.action_items
            self.action_mid, self.action_mid_b = w["action_mid.weight"], p["action_mid.bias"]
            self.action_out, self.action_out_b = p["action_out.weight"][0], p["action_out.bias"][0]
            if np.isin(self.acts, lay.dense).all():  # the output's bias: into those actions' policy bias
                self.head_b = self.head_b.copy()
                self.head_b[hs["policy"].start + np.searchsorted(lay.dense, self.acts)] += self.action_out_b
                self.action_out_b = np.float32(0)
            if np.array_equal(self.acts, np.arange(self.acts[0], self.acts[0] + len(self.acts))):
                self.acts = slice(int(self.acts[0]), int(self.acts[0]) + len(self.acts))  # a view

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits (1, actions), values (1, players))`` for one flat observation ``x (size,)``."""
        e, t, active, hd = self._trunk(x)
        nh = len(self.head_b)
        src = np.empty(nh + self.runs, dtype=np.float32)
        heads = src[:nh]
        np.matmul(t, self.head_w, out=heads)
        heads += self.head_b
        if self.cells:
            ctx = heads[self.cell_ctx] + self.cell_idle  # a far cell's hidden layer, before the ReLU
            far = src[nh:]
            np.matmul(np.maximum(ctx, self._zeros[:len(ctx)]), self.cell_out, out=far)
            far += self.cell_out_b
        logits = src.take(self.source)[None]
        if self.cells:
            own = int(active.searchsorted(self.board_cells))  # the observer's row comes first
            z = hd[:own, self.es:] + ctx
            z = self._relu(z) @ self.cell_out
            z += self.cell_out_b
            np.put(logits, self.cell_starts + active[:own, None], z)
        if self.acts is not None:
            logits[0, self.acts] += self._action_scores(x, heads[self.action_trunk])
        z = e @ self.value_seat
        z += heads[self.value_ctx]
        z += self.roles
        v = self._relu(z) @ self.value_out
        v += self.value_b
        return logits, np.tanh(v[:self.players], out=v[:self.players])[None]

    def _trunk(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any, Any]:
        """``(seat rows (rows, seat_hidden), trunk (trunk_hidden,), active cells, their outputs through the
        board's readers less a far cell's)`` (the last two None without boards)."""
        es, gsz, at = self.es, self.gsz, self.e_at
        u = np.empty(self.u_size, dtype=np.float32)
        e = u[at:].reshape(self.rows, es)
        np.matmul(self.seat_take(x), self.seat_w, out=e)
        e += self.seat_b
        active = hd = None
        if self.conv is not None:
            active, h = self.conv.one(x)
            hd = h @ self.board_w
            hd -= self.board_idle
            e += self.row_of.take(active, axis=0).T @ hd[:, :es]
        self._relu(e)
        if self.glob:
            g = u[:gsz]
            np.matmul(self.glob_take(x), self.glob_w, out=g)
            g += self.glob_b
            self._relu(g)
        if at > gsz:  # the others: their mean and maximum
            np.mean(e[2:], axis=0, out=u[gsz:gsz + es])
            np.max(e[2:], axis=0, out=u[gsz + es:at])
        t = u[:len(self.trunk_w)] @ self.trunk_w
        t += self.trunk_b
        return e, self._relu(t), active, hd

    def _relu(self, z: np.ndarray) -> np.ndarray:
        """``max(z, 0)`` in place."""
        return np.maximum(z, self._zeros[:z.size].reshape(z.shape), out=z)

    def _action_scores(self, x: np.ndarray, trunk: np.ndarray) -> np.ndarray:
        """The action head's term per action of ``acts``; ``trunk`` is the action trunk layer's output."""
        items = np.empty((self.reads.shape[1], len(trunk)), dtype=np.float32)
        for gather, weight, start, stop in self.items:
            np.matmul(x.take(gather), weight, out=items[start:stop])
        items[-1] = trunk
        z = self.reads @ items
        z += self.action_const
        z = self._relu(z) @ self.action_mid
        z += self.action_mid_b
        s = self._relu(z) @ self.action_out
        if self.action_out_b:
            s += self.action_out_b
        return s


def one_pass(net: Any) -> OnePass | None:
    """The one-observation pass of a seat network view, or None where it does not apply (rows that pad absent
    seats: the batched pass reads their presence)."""
    lay = net.layout
    if lay.presence is not None and lay.rows != lay.num_players:
        return None
    return OnePass(net)
