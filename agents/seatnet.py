"""The seat network in numpy: one policy-value network per game for every player count.

:class:`SeatPolicyValueNet` computes what :class:`meeplezoo.training.seatnet.SeatNet` computes (a test checks
it), with the public evaluation methods of :class:`~meeplezoo.agents.network.PolicyValueNet` (``forward``,
``policy``, ``observe``, ``needs_own_observation``, ``save``, ``load``), so the search and the network agent
use it unchanged.  One object is bound to one player count (``game``: the configuration it reads, values one
per seat of that count, egocentric); :meth:`SeatPolicyValueNet.for_players` gives the view bound to another
count, sharing the weights.

A seat network checkpoint has the members of a block network's (:mod:`meeplezoo.agents.checkpoint`) with
architecture ``"seatnet"``, ``seat_counts`` (the counts it plays), ``observation_sizes`` (per count) and the
weights stored as float16 (half the size; the network computes in float32).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.knobs import is_int
from meeplezoo.threads import limit_blas_threads

from .checkpoint import (
    MAX_PARAMETERS,
    NET_FORMAT,
    NET_METADATA_KEYS,
    NET_WEIGHTS_MEMBER,
    check_metadata_keys,
    check_weights,
    network_game,
    read_metadata_member,
    read_weights,
    save_network,
)
from .seat_convs import ActiveConv
from .seat_layout import ROLES, SEAT_ARCHITECTURE, ObsTake, SeatLayout, check_seat_config, seatnet_shapes
from .seat_single import one_pass

#: how a numpy network evaluates the lockstep driver's pooled batch (``pooled_forward``): ``rows``, each position
#: exactly as a batch of it alone (a position's evaluation never depends on its batch-mates, so self-play's
#: samples do not depend on ``games_at_once`` or the workers), or ``batch``, one matrix product for the batch
#: (cheaper per position; the rounding, and in rare decisions the search, may depend on the batch)
POOLED_PASSES = ("rows", "batch")


def with_pooled_pass(net: Any, pooled_pass: str) -> Any:
    """A shallow copy of the numpy network ``net`` (block or seat network, the same weights) whose
    ``pooled_forward`` takes ``pooled_pass`` (:data:`POOLED_PASSES`); ``net`` itself where it takes it already."""
    if pooled_pass not in POOLED_PASSES:
        raise ValueError(f"pooled pass must be one of {', '.join(POOLED_PASSES)}, got {pooled_pass!r}")
    if net.pooled_pass == pooled_pass:
        return net
    copy = object.__new__(type(net))
    copy.__dict__.update(net.__dict__)
    copy.pooled_pass = pooled_pass
    if "_views" in copy.__dict__:  # a seat network: views of other counts made afresh, taking the same pass
        copy._views = {net.game.num_players: copy}
    return copy


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0, out=x)


def _stride(index: np.ndarray, items: int) -> int:
    """``s`` where action ``j`` reads item ``(j // s) % items`` (its index is one axis of the actions in C
    order), else 0."""
    n = len(index)
    for s in range(1, n + 1):
        if n % (s * items) == 0 and np.array_equal(index, (np.arange(n) // s) % items):
            return s
    return 0


class SeatPolicyValueNet:
    """A seat network bound to ``game`` (one player count), evaluated in numpy.

    ``forward(obs)`` takes a batch of flat observations ``(B, size)`` of ``game`` and returns ``(logits (B,
    actions), values (B, players))``; values are egocentric and in [-1, 1].  ``seat_counts``: every player
    count the weights play (default: all the game allows).
    """

    architecture = SEAT_ARCHITECTURE
    heads = True
    #: the pass of :meth:`pooled_forward` (:data:`POOLED_PASSES`; :func:`with_pooled_pass` sets another)
    pooled_pass = "rows"

    def __init__(self, game: Any, arrays: Mapping[str, np.ndarray], config: Mapping[str, int],
                 metadata: Mapping[str, Any] | None = None, *, seat_counts: tuple[int, ...] | None = None) -> None:
        limit_blas_threads()
        cls = type(game)
        self.game = game
        self.config = check_seat_config(config)
        self.seat_counts = tuple(int(n) for n in (seat_counts or range(cls.min_players, cls.max_players + 1)))
        if game.num_players not in self.seat_counts:
            raise ValueError(f"this seat network plays {self.seat_counts} players, not {game.num_players}")
        self.layout = SeatLayout(game)
        shapes = seatnet_shapes(self.layout, self.config)
        self.params = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}
        extra = sorted(set(self.params) - set(shapes))
        if extra:
            raise ValueError(f"seat network weights {extra[:5]} belong to no seat network for {game.name} "
                             f"with {self.config}")
        check_weights(self.params, shapes, f"seat network for {game.name}")
        self.metadata = dict(metadata or seatnet_metadata(game, self.config, self.seat_counts))
        self._views: dict[int, SeatPolicyValueNet] = {game.num_players: self}
        self._seen: tuple[Any, bool] | None = None
        self._prepare()

    def _prepare(self) -> None:
        """The weights as the numpy forward uses them: transposed for ``x @ w``, the matrices that read the
        trunk side by side (one product), constant terms folded in."""
        p, lay = self.params, self.layout
        w = {k: np.ascontiguousarray(v.T) for k, v in p.items() if k.endswith(".weight") and v.ndim == 2}  # noqa: PLR2004
        self.w = w
        self.conv = None
        self.seat_take = ObsTake(lay.seat_index, True)
        self.global_take = ObsTake(lay.global_index, True)
        fs = lay.seat_index.shape[1]
        self.seat_flat = np.ascontiguousarray(w["seat.weight"][:fs])
        if "board.weight" in p:
            nonnegative = all(b.low >= 0 for b in self.game.observation_spec.blocks.values() if b.spatial)
            self.conv = ActiveConv(lay.board_index, lay.height, lay.width, p["board.weight"], p["board.bias"],
                                   nonnegative, lay.support)
            self.seat_board = w["seat.weight"][fs:] * np.float32(1.0 / lay.cells)  # reads the sums: the mean
        self.roles = p["value_role"][np.minimum(np.arange(lay.rows), ROLES - 1)]
        self.seat_onehot = np.eye(lay.max_seats, dtype=np.float32)
        # no row pads an absent seat: every row plays, the seat count is the bound one (read-only, shared)
        self._all_present = np.ones((256, lay.rows), dtype=np.float32)
        self._count = np.repeat(self.seat_onehot[lay.rows - 1:lay.rows], 256, axis=0)
        self._all_present.flags.writeable = self._count.flags.writeable = False
        heads = [("policy.weight", p["policy.bias"]), ("value_ctx.weight", p["value_ctx.bias"])]
        self.cell_ids = None
        if "cell_in.weight" in p:
            heads.append(("cell_ctx.weight", p["cell_in.bias"]))
            self.cell_ids = [slice(r.start, r.start + r.cells) for r in lay.cell_runs]
            self.cell_starts = np.asarray([r.start for r in lay.cell_runs], dtype=np.intp)
            self.cell_idle = self.conv.idle @ w["cell_in.weight"]
        self.action_features = lay.action_features if "action_trunk.weight" in p else None
        if self.action_features is not None:
            heads.append(("action_trunk.weight", p["action_trunk.bias"]))
            af = self.action_features
            self.action_items = sum(p[f"action_items.{f.name}"][f.index] for f in af.factors if f.gather is None)
            self.action_inputs = [(f.gather, w[f"action_inputs.{f.name}.weight"], f.index, _stride(f.index, f.items))
                                  for f in af.factors if f.gather is not None]
        self.head_w = np.ascontiguousarray(np.concatenate([w[k] for k, _ in heads], axis=1))
        self.head_b = np.concatenate([bias for _, bias in heads])
        ends = np.cumsum([w[k].shape[1] for k, _ in heads])
        self.head_slices = {k.split(".")[0]: slice(e - w[k].shape[1], e) for (k, _), e in zip(heads, ends)}
        self._one = one_pass(self)  # the pass of one observation (see forward)

    def for_players(self, num_players: int) -> SeatPolicyValueNet:
        """The view of this network bound to ``num_players`` (the same weights)."""
        n = int(num_players)
        view = self._views.get(n)
        if view is None:
            if n not in self.seat_counts:
                raise ValueError(f"this seat network plays {self.seat_counts} players, not {n}")
            view = self._view(type(self.game)(n, **self.game.non_default_options))
            view._views = self._views
            self._views[n] = view
        return view

    def _view(self, game: Any) -> SeatPolicyValueNet:
        """A new network of these weights bound to ``game`` (another count), taking this one's pooled pass."""
        view = SeatPolicyValueNet(game, self.params, self.config, self.metadata, seat_counts=self.seat_counts)
        view.pooled_pass = self.pooled_pass
        return view

    @property
    def num_parameters(self) -> int:
        return int(sum(v.size for v in self.params.values()))

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits, values)`` for a batch of flat observations (one observation: the one-observation pass
        of :mod:`meeplezoo.agents.seat_single`)."""
        obs = self._batch(obs)
        if len(obs) == 1 and self._one is not None:
            return self._one(obs[0])
        return self._forward(obs)

    def forward_rows(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`forward`, each row computed exactly as ``forward`` computes a batch of that row alone (bit
        for bit), in one call.  The lockstep driver's pooled batches go through here, so that a position's
        evaluation never depends on what else is in the batch."""
        obs = self._batch(obs)
        one = self._one if self._one is not None else (lambda x: self._forward(x[None]))
        logits = np.empty((len(obs), self.game.num_actions), dtype=np.float32)
        values = np.empty((len(obs), self.game.num_players), dtype=np.float32)
        for i, x in enumerate(obs):
            logits[i], values[i] = one(x)
        return logits, values

    def pooled_forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pass the lockstep driver's pooled batches take: :meth:`forward_rows`, or :meth:`forward` (one
        batched pass) where :attr:`pooled_pass` is ``batch``."""
        return self.forward(obs) if self.pooled_pass == "batch" else self.forward_rows(obs)

    def _batch(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` as a C-contiguous float32 batch of this view's observations (ValueError otherwise)."""
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim == 1:
            obs = obs[None]
        if obs.ndim != 2 or obs.shape[1] != self.game.observation_shape[0]:  # noqa: PLR2004
            raise ValueError(f"this seat network is bound to {self.game.num_players} players (observations of "
                             f"{self.game.observation_shape[0]} values), got shape {obs.shape}; use for_players(n)")
        return np.ascontiguousarray(obs)

    def _forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The batched pass."""
        p, lay, hs = self.params, self.layout, self.head_slices
        e, t, present, cells = self._encode(obs)
        heads = t @ self.head_w
        heads += self.head_b
        logits = np.empty((obs.shape[0], self.game.num_actions), dtype=np.float32)
        logits[:, lay.dense] = heads[:, hs["policy"]]
        if self.cell_ids is not None:
            self._cell_logits(logits, heads[:, hs["cell_ctx"]], cells)
        if self.action_features is not None:
            logits[:, self.action_features.actions] += self._action_scores(obs, heads[:, hs["action_trunk"]])
        z = e @ self.w["value_seat.weight"]
        z += heads[:, None, hs["value_ctx"]]
        z += self.roles
        values = np.tanh(_relu(z) @ p["value_out.weight"][0] + p["value_out.bias"][0])
        values *= present
        return logits, values[:, :self.game.num_players]

    def _present(self, obs: np.ndarray) -> np.ndarray:
        """``(B, rows)``: 1 where the row's seat plays (every row when no row pads an absent seat)."""
        lay = self.layout
        if lay.presence is None or lay.rows == lay.num_players:
            return self._all_present[:len(obs)] if len(obs) <= len(self._all_present) else \
                np.ones((len(obs), lay.rows), dtype=np.float32)
        return obs[:, lay.presence].sum(axis=2)

    def _encode(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
        """``(seat encodings (B, rows, seat_hidden), trunk (B, trunk_hidden), presence (B, rows), the
        convolution's output)``."""
        p, w, lay = self.params, self.w, self.layout
        bsz = obs.shape[0]
        pre = self.seat_take(obs) @ self.seat_flat
        pre += p["seat.bias"]
        cells = None
        if self.conv is not None:
            cells = self.conv(obs)
            pre += cells[2] @ self.seat_board
        e = _relu(pre)
        present = self._present(obs)
        if lay.rows > 2:  # noqa: PLR2004 - the observer and the next seat are apart
            others = e[:, 2:] * present[:, 2:, None]
            mean = others.sum(axis=1)
            mean /= np.maximum(present[:, 2:].sum(axis=1), 1)[:, None]
            pooled = [mean, others.max(axis=1)]
        else:
            pooled = [np.zeros((bsz, 2 * e.shape[2]), dtype=np.float32)]
        if lay.presence is None or lay.rows == lay.num_players:
            count = self._count[:bsz] if bsz <= len(self._count) else np.repeat(self._count[:1], bsz, axis=0)
        else:
            count = self.seat_onehot[np.clip(present.sum(axis=1).astype(np.intp), 1, lay.max_seats) - 1]
        parts = [e[:, 0], e[:, 1], *pooled, count]
        if "glob.weight" in w:
            g = self.global_take(obs) @ w["glob.weight"]
            g += p["glob.bias"]
            parts.insert(0, _relu(g))
        t = np.concatenate(parts, axis=1) @ w["trunk.weight"]
        t += p["trunk.bias"]
        return e, _relu(t), present, cells

    def _cell_logits(self, logits: np.ndarray, ctx: np.ndarray, cells: Any) -> None:
        """The cell head: every cell action's logit from the observer's board cells and the trunk's context
        ``ctx`` (which holds the cell layer's bias); cells far from any tile share one value per run."""
        w, p, conv = self.w, self.params, self.conv
        idle = _relu(ctx + self.cell_idle) @ w["cell_out.weight"] + p["cell_out.bias"]  # (B, runs)
        for k, sl in enumerate(self.cell_ids):
            logits[:, sl] = idle[:, k:k + 1]
        active, h, _sums = cells
        if len(ctx) == 1:  # the observer's row comes first
            own = int(np.searchsorted(active, conv.cells))
            b, c, h = 0, active[:own], h[:own]
        else:
            b, c = np.divmod(active, conv.rows * conv.cells)
            own = np.flatnonzero(c < conv.cells)  # the observer's row
            b, c, h = b[own], c[own], h[own]
        z = h @ w["cell_in.weight"]
        z += ctx[b]
        z = _relu(z) @ w["cell_out.weight"] + p["cell_out.bias"]
        if len(ctx) == 1:
            logits[0, self.cell_starts + c[:, None]] = z
        else:
            logits[b[:, None], self.cell_starts + c[:, None]] = z

    def _action_scores(self, obs: np.ndarray, trunk: np.ndarray) -> np.ndarray:
        """The action head's term ``(B, len(actions))`` (as :meth:`PolicyValueNet.action_scores`); ``trunk``
        is the action trunk layer's output, its bias included."""
        p, w = self.params, self.w
        z = trunk[:, None] + self.action_items
        bsz, n, hid = z.shape
        for gather, weight, index, stride in self.action_inputs:
            x = obs[0][gather][None] if bsz == 1 else obs[:, gather]
            items = x @ weight  # (B, items, hid)
            if stride:  # action j reads item (j // stride) % items: add by broadcasting, no gather
                k = items.shape[1]
                z.reshape(bsz, n // (stride * k), k, stride, hid)[...] += items[:, None, :, None, :]
            else:
                z += items[:, index]
        z = _relu(z) @ w["action_mid.weight"]
        z += p["action_mid.bias"]
        return _relu(z) @ p["action_out.weight"][0] + p["action_out.bias"][0]

    # -- the evaluation interface of PolicyValueNet ---------------------------------------------------
    def needs_own_observation(self, game: Any) -> bool:
        """Whether states of ``game`` must be observed through this network's own game (same rules, other
        observation options); ValueError for other rules or another player count."""
        if self._seen is not None and self._seen[0] is game:
            return self._seen[1]
        if not self.game.same_rules(game):
            raise ValueError(f"this network is bound to {self.game!r}, not {game!r} (for_players(n) binds it)")
        own = game != self.game
        self._seen = (game, own)
        return own

    def observe(self, state: Any, player: int) -> np.ndarray:
        """``player``'s observation of ``state`` in the layout this network reads."""
        if self.needs_own_observation(state.game):
            return self.game.observer.observe(state, int(player))
        return state.observe(player)

    def policy(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked softmax policy ``(B, actions)`` (illegal actions get probability 0)."""
        logits, _ = self.forward(obs)
        x = np.where(np.asarray(masks, dtype=bool).reshape(logits.shape), logits, -np.inf)
        x = np.exp(x - x.max(axis=-1, keepdims=True))
        return x / x.sum(axis=-1, keepdims=True)

    # -- persistence ---------------------------------------------------------------------------------
    def save(self, path: str | Path, **training: Any) -> Path:
        """Write this network as a seat network checkpoint, weights as float16 (``training`` facts are added
        to its metadata)."""
        return save_network(path, self.params, {**self.metadata, **training}, dtype=np.float16)

    @classmethod
    def load(cls, path: str | Path, game: Any = None, num_players: int | None = None) -> SeatPolicyValueNet:
        """Read a seat network checkpoint bound to ``num_players`` (default: the Game's, else the first count
        it plays); ``game`` (an id or a Game) must be its game (another one, rule options or layout: ValueError)."""
        meta = read_seatnet_metadata(path)
        counts = tuple(meta["seat_counts"])
        n = num_players if num_players is not None else (
            game.num_players if game is not None and not isinstance(game, str) else counts[0])
        if n not in counts:
            raise ValueError(f"{path} is a seat network for {list(counts)} players, not {n}")
        own = {**meta, "num_players": n, "observation_size": meta["observation_sizes"][str(n)]}
        target = network_game(own, game, n, source=str(path))
        shapes = seatnet_shapes(SeatLayout(target), meta["config"])
        if sum(int(np.prod(s)) for s in shapes.values()) > MAX_PARAMETERS:
            raise ValueError(f"{path}: a network of more than {MAX_PARAMETERS} parameters; refusing to load it")
        arrays = read_weights(path, NET_WEIGHTS_MEMBER, shapes)
        return cls(target, arrays, meta["config"], meta, seat_counts=counts)


def seatnet_metadata(game: Any, config: Mapping[str, int], seat_counts: tuple[int, ...],
                     **training: Any) -> dict[str, Any]:
    """The ``meeplezoo.json`` of a seat network for ``game``'s options at ``seat_counts`` players."""
    cls = type(game)
    sizes = {str(n): int((game if n == game.num_players else cls(n, **game.non_default_options))
                         .observation_shape[0]) for n in seat_counts}
    return {"format": NET_FORMAT, "architecture": SEAT_ARCHITECTURE, "game": game.name,
            "num_players": int(seat_counts[0]), "seat_counts": [int(n) for n in seat_counts],
            "options": dict(game.non_default_options), "observation_version": game.observation_version,
            "observation_size": sizes[str(seat_counts[0])], "observation_sizes": sizes,
            "num_actions": game.num_actions, "config": check_seat_config(config), **training}


def read_seatnet_metadata(path: str | Path) -> dict[str, Any]:
    """The metadata of a seat network checkpoint (ValueError naming what is wrong if it is not one)."""
    meta = read_metadata_member(path, "network checkpoint")
    check_metadata_keys(meta, NET_METADATA_KEYS, str(path))
    if meta["architecture"] != SEAT_ARCHITECTURE:
        raise ValueError(f"{path}: architecture {meta['architecture']!r} is not {SEAT_ARCHITECTURE!r}")
    if meta["format"] > NET_FORMAT:
        raise ValueError(f"{path}: network format {meta['format']} is newer than this meeplezoo reads ({NET_FORMAT})")
    counts, sizes = meta.get("seat_counts"), meta.get("observation_sizes")
    if not isinstance(counts, list) or not counts or not all(is_int(n) and n >= 1 for n in counts):
        raise ValueError(f"{path}: seat_counts must be a non-empty list of player counts, got {counts!r}")
    if not isinstance(sizes, dict) or any(not is_int(sizes.get(str(n))) for n in counts):
        raise ValueError(f"{path}: observation_sizes must give an int per seat count, got {sizes!r}")
    check_seat_config(meta["config"], str(path))
    return meta
