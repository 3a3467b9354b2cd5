"""The seat network: one policy-value network per game that plays every player count.

It reads a game's observation through its seat declarations (:class:`~meeplezoo.agents.seat_layout.SeatLayout`):

* a shared **seat encoder** reads every seat row (its flat values and, where the game has boards, the
  average of a 3x3 convolution over that seat's board planes and the shared ones), so every seat costs
  the same weights whatever the count;
* the **observer's** and the **next seat's** encodings go to the trunk each in a place of its own; the
  **other seats** are pooled (mean and max over the seats present), so 2..max seats share every weight
  and the order of the other seats does not matter;
* the trunk also reads the rest of the observation (one shared layer) and a one-hot of the seat count;
* heads: a dense **policy** over the actions that name no cell; a **cell head** for the declared cell
  actions (per cell of the observer's board: the convolution's features with the trunk's context); the
  **action head** of :mod:`meeplezoo.training.networks` where the game declares action features; a
  **value head** per seat row (the trunk, that seat's encoding and its role: observer, next, other),
  tanh, one value per seat up to the game's largest count, 0 for seats that do not play.

The convolution has no second layer and cells whose 3x3 neighbourhood is empty all give the same
output, so the numpy twin (:mod:`meeplezoo.agents.seatnet`) convolves only the cells near a tile and gets
exactly what this module computes over the whole board.  :func:`seat_loss` is the training loss.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from meeplezoo.agents.seat_layout import ROLES, SeatLayout, check_seat_config
from meeplezoo.registry import game_class


@dataclass(frozen=True)
class SeatNetConfig:
    """Widths of a :class:`SeatNet` (``channels=0``: no board convolution)."""

    channels: int = 0
    seat_hidden: int = 64
    global_hidden: int = 128
    trunk_hidden: int = 128
    cell_hidden: int = 16
    value_hidden: int = 32
    #: 0: no action head; H > 0: the action head of the game's action features with H units
    action_hidden: int = 0

    def as_dict(self) -> dict[str, int]:
        """The widths as a checkpoint's ``config``."""
        return check_seat_config(asdict(self))


#: Kerala for search on a CPU (about 170k parameters with ``derived_features`` and ``elephant_view``)
KERALA_FAST = SeatNetConfig(channels=16, seat_hidden=48, global_hidden=64, trunk_hidden=128, cell_hidden=32,
                            value_hidden=32, action_hidden=32)
#: the defaults of the other games (no boards in their observations)
DEFAULT_CONFIGS: dict[str, SeatNetConfig] = {
    "kerala": KERALA_FAST,
    "hawaii": SeatNetConfig(seat_hidden=64, global_hidden=128, trunk_hidden=160),
    "asara": SeatNetConfig(seat_hidden=64, global_hidden=128, trunk_hidden=128),
    "haus_der_sonne": SeatNetConfig(seat_hidden=32, global_hidden=128, trunk_hidden=128),
}


def default_config(game: str) -> SeatNetConfig:
    """The seat network widths for ``game`` (a game without its own: :class:`SeatNetConfig`'s defaults)."""
    return DEFAULT_CONFIGS.get(game, SeatNetConfig())


def seat_games(game: Any, seat_counts: tuple[int, ...] | None = None) -> dict[int, Any]:
    """The Game of ``game``'s options at every player count in ``seat_counts`` (default: all it allows)."""
    cls = game_class(game.name)
    counts = tuple(seat_counts or range(cls.min_players, cls.max_players + 1))
    bad = [n for n in counts if not cls.min_players <= n <= cls.max_players]
    if bad:
        raise ValueError(f"{game.name} plays {cls.min_players}..{cls.max_players} players, not {bad}")
    return {n: game if n == game.num_players else cls(n, **game.non_default_options) for n in counts}


class SeatNet(nn.Module):
    """The seat network for ``game``'s options at every count of ``seat_counts`` (module docstring).

    ``forward(obs)`` takes a batch of flat observations of one player count (told apart by their size;
    counts of one size share a layout and read their seat count off the observation) and returns
    ``(logits (B, actions), values (B, max_seats))``.
    """

    def __init__(self, game: Any, config: SeatNetConfig | None = None,
                 seat_counts: tuple[int, ...] | None = None) -> None:
        super().__init__()
        cfg = config or default_config(game.name)
        self.config = cfg
        self.games = seat_games(game, seat_counts)
        self.seat_counts = tuple(self.games)
        self.layouts = {n: SeatLayout(g) for n, g in self.games.items()}
        sizes = {lay.sizes() for lay in self.layouts.values()}
        if len(sizes) != 1:
            raise ValueError(f"{game.name}: the observation's parts change size with the player count; one "
                             "seat network cannot read them all")
        lay = next(iter(self.layouts.values()))
        self.by_size = {g.observation_shape[0]: n for n, g in self.games.items()}
        self.max_seats = lay.max_seats
        self.num_actions = game.num_actions
        ch = cfg.channels if lay.planes else 0
        e, t = cfg.seat_hidden, cfg.trunk_hidden
        if ch:
            self.board = nn.Conv2d(lay.planes, ch, 3, padding=1)
        self.seat = nn.Linear(lay.seat_index.shape[1] + ch, e)
        glob = len(lay.global_index)
        if glob:
            self.glob = nn.Linear(glob, cfg.global_hidden)
        self.trunk = nn.Linear((cfg.global_hidden if glob else 0) + 4 * e + self.max_seats, t)
        self.policy = nn.Linear(t, len(lay.dense))
        self.cells = bool(lay.cell_runs and ch)
        if self.cells:
            self.cell_in = nn.Linear(ch, cfg.cell_hidden)
            self.cell_ctx = nn.Linear(t, cfg.cell_hidden, bias=False)
            self.cell_out = nn.Linear(cfg.cell_hidden, len(lay.cell_runs))
        self.action_features = lay.action_features if cfg.action_hidden else None
        if self.action_features is not None:
            self._action_head(cfg.action_hidden, t)
        v = cfg.value_hidden
        self.value_ctx = nn.Linear(t, v)
        self.value_seat = nn.Linear(e, v, bias=False)
        self.value_role = nn.Parameter(torch.zeros(ROLES, v))
        self.value_out = nn.Linear(v, 1)
        self._tables: dict[int, dict[str, torch.Tensor]] = {}

    def _action_head(self, hid: int, t: int) -> None:
        af = self.action_features
        self.action_trunk = nn.Linear(t, hid)
        self.action_inputs = nn.ModuleDict({f.name: nn.Linear(f.size, hid, bias=False)
                                            for f in af.factors if f.gather is not None})
        self.action_items = nn.ParameterDict({f.name: nn.Parameter(torch.zeros(f.items, hid))
                                              for f in af.factors if f.gather is None})
        self.action_mid = nn.Linear(hid, max(hid // 2, 1))
        self.action_out = nn.Linear(max(hid // 2, 1), 1)

    def layout_of(self, obs: torch.Tensor) -> SeatLayout:
        """The layout of a batch of observations (by their size)."""
        n = self.by_size.get(int(obs.shape[1]))
        if n is None:
            raise ValueError(f"observations of size {obs.shape[1]} are none of {self.by_size} (sizes per count)")
        return self.layouts[n]

    def _table(self, lay: SeatLayout, device: torch.device) -> dict[str, torch.Tensor]:
        """The layout's index tables as tensors on ``device`` (cached)."""
        key = (lay.num_players, str(device))
        if key not in self._tables:
            t = {"seat": lay.seat_index, "glob": lay.global_index, "dense": lay.dense,
                 "roles": np.minimum(np.arange(lay.rows), ROLES - 1)}
            if lay.board_index is not None:
                t["board"] = lay.board_index
            if lay.presence is not None:
                t["presence"] = lay.presence
            if self.action_features is not None:
                af = lay.action_features  # its gather tables are this count's (the offsets move with the count)
                t["action_ids"] = af.actions
                t.update({f"index_{f.name}": f.index for f in af.factors})
                t.update({f"gather_{f.name}": f.gather for f in af.factors if f.gather is not None})
            self._tables[key] = {k: torch.as_tensor(np.asarray(v), dtype=torch.long, device=device)
                                 for k, v in t.items()}
        return self._tables[key]

    def presence(self, obs: torch.Tensor) -> torch.Tensor:
        """``(B, max_seats)``: 1 for the seat rows whose seat plays, 0 for padding and past the rows."""
        lay = self.layout_of(obs)
        tab = self._table(lay, obs.device)
        if lay.presence is None:
            present = obs.new_ones(obs.shape[0], lay.rows)
        else:
            present = obs[:, tab["presence"]].sum(-1)
        return F.pad(present, (0, self.max_seats - lay.rows))

    def encode(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """``(seat encodings (B, rows, seat_hidden), trunk (B, trunk_hidden), observer's cells (B, ch, cells))``."""
        lay = self.layout_of(obs)
        tab = self._table(lay, obs.device)
        bsz, rows = obs.shape[0], lay.rows
        seat_in = obs[:, tab["seat"]]
        cells = None
        if hasattr(self, "board"):
            x = obs[:, tab["board"]].reshape(bsz * rows, lay.planes, lay.height, lay.width)
            h = torch.relu(self.board(x)).reshape(bsz, rows, -1, lay.cells)
            seat_in = torch.cat([seat_in, h.mean(-1)], dim=-1)
            cells = h[:, 0]
        e = torch.relu(self.seat(seat_in))
        present = self.presence(obs)[:, :rows]
        others, mask = e[:, 2:], present[:, 2:, None]
        count = mask.sum(1).clamp(min=1)
        mean = (others * mask).sum(1) / count
        top = (others * mask).amax(1) if rows > 2 else e.new_zeros(bsz, e.shape[-1])  # noqa: PLR2004
        seats = F.one_hot(present.sum(1).long().clamp(1, self.max_seats) - 1, self.max_seats).to(e.dtype)
        parts = [e[:, 0], e[:, 1], mean, top, seats]
        if hasattr(self, "glob"):
            parts.insert(0, torch.relu(self.glob(obs[:, tab["glob"]])))
        return e, torch.relu(self.trunk(torch.cat(parts, dim=1))), cells

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        lay = self.layout_of(obs)
        tab = self._table(lay, obs.device)
        e, t, cells = self.encode(obs)
        logits = obs.new_zeros(obs.shape[0], self.num_actions)
        logits[:, tab["dense"]] = self.policy(t)
        if self.cells:
            z = torch.relu(self.cell_in(cells.transpose(1, 2)) + self.cell_ctx(t)[:, None])
            out = self.cell_out(z)  # (B, cells, runs)
            for k, run in enumerate(lay.cell_runs):
                logits[:, run.start:run.start + run.cells] = out[..., k]
        if self.action_features is not None:
            logits = logits.index_add(1, tab["action_ids"], self._action_scores(obs, t, tab))
        z = torch.relu(self.value_ctx(t)[:, None] + self.value_seat(e) + self.value_role[tab["roles"]])
        values = torch.tanh(self.value_out(z)[..., 0]) * self.presence(obs)[:, :lay.rows]
        return logits, F.pad(values, (0, self.max_seats - lay.rows))

    def _action_scores(self, obs: torch.Tensor, t: torch.Tensor, tab: dict[str, torch.Tensor]) -> torch.Tensor:
        z = self.action_trunk(t)[:, None]
        for f in self.action_features.factors:
            idx = tab[f"index_{f.name}"]
            if f.gather is None:
                z = z + self.action_items[f.name][idx]
            else:
                z = z + self.action_inputs[f.name](obs[:, tab[f"gather_{f.name}"]])[:, idx]
        return self.action_out(torch.relu(self.action_mid(torch.relu(z))))[..., 0]

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights as float32 numpy arrays, named as in ``state_dict`` (what a checkpoint holds)."""
        return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in self.state_dict().items()}

    def load_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Set the weights from :meth:`arrays`' output (or a checkpoint's)."""
        self.load_state_dict({k: torch.as_tensor(np.asarray(v, dtype=np.float32)) for k, v in arrays.items()})


def seat_loss(logits: torch.Tensor, values: torch.Tensor, target_policy: torch.Tensor,
              target_values: torch.Tensor, present: torch.Tensor, legal: torch.Tensor | None = None,
              value_weight: float = 1.0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(loss, policy loss, value loss)``: the cross-entropy of the policy against ``target_policy`` (over
    the ``legal`` actions when given) plus ``value_weight`` times the squared error of the values against
    ``target_values`` (both ``(B, max_seats)``), averaged over the seats ``present`` only."""
    if legal is not None:
        logits = logits.masked_fill(~legal.bool(), -1e9)
    policy = -(target_policy * F.log_softmax(logits, dim=-1)).sum(-1).mean()
    value = (((values - target_values) ** 2) * present).sum() / present.sum().clamp(min=1)
    return policy + value_weight * value, policy, value
