"""The torch side of the network trainers: a network, its optimiser, minibatches and the saved state.

Expert iteration, distillation and fine-tuning all train a
:class:`~meeplezoo.training.networks.BlockNet` (expert iteration, with ``architecture: seatnet`` in its net
config, a :class:`~meeplezoo.training.seatnet.SeatNet` for several player counts) with AdamW on minibatches
drawn from a seeded permutation,
and keep the network and optimiser in ``trainer.pt`` (loaded with ``weights_only=True``) so a resumed run
continues exactly.  Each trainer keeps only its loss.  The learner trains on its ``device`` (``cpu``,
``cuda``, ``cuda:N`` or ``auto``, :func:`~meeplezoo.training.inference.resolve_device`); ``trainer.pt`` is
written from CPU copies, so a run trained on a GPU continues on a machine without one.  Loaded through
:func:`meeplezoo.training.run.learner`, so nothing else needs torch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from meeplezoo.agents.checkpoint import network_metadata
from meeplezoo.agents.network import PolicyValueNet
from meeplezoo.agents.seat_layout import SEAT_ARCHITECTURE
from meeplezoo.agents.seatnet import SeatPolicyValueNet, seatnet_metadata

from .inference import resolve_device
from .networks import BlockNet, BlockNetConfig, config_dict
from .samples import seat_mask
from .seatnet import SeatNet, seat_config, seat_loss


class Learner:
    """A network for ``game`` with its AdamW optimiser.

    ``config`` holds :class:`BlockNetConfig` widths (those not given take its defaults), or, with
    ``architecture: "seatnet"``, the ``seat_counts`` and :class:`~meeplezoo.training.seatnet.SeatNetConfig`
    widths of a seat network (those not given take the game's,
    :func:`~meeplezoo.training.seatnet.default_config`); ``start`` (a numpy network) gives the starting
    weights, otherwise they are drawn after ``torch.manual_seed(seed)`` (on the CPU, then moved: the same
    weights on every ``device``).  The network and the optimiser live on ``device``; :meth:`tensor` puts a
    batch there.
    """

    def __init__(self, game: Any, config: Mapping[str, int], *, lr: float, weight_decay: float, seed: int = 0,
                 start: PolicyValueNet | None = None, threads: int | None = None, device: str = "cpu") -> None:
        if threads:
            torch.set_num_threads(int(threads))
        self.device = torch.device(resolve_device(device))
        self.game = game
        config = dict(config)
        self.architecture = config.pop("architecture", "block")
        self.seat_counts: tuple[int, ...] = (int(game.num_players),)
        if start is None:
            torch.manual_seed(seed)
        if self.architecture == SEAT_ARCHITECTURE:
            counts = config.pop("seat_counts", None)
            widths = seat_config(game.name, config)
            self.net: Any = SeatNet(game, widths, tuple(counts) if counts else None)
            self.config = widths.as_dict()
            self.seat_counts = self.net.seat_counts
        else:
            self.config = config_dict(BlockNetConfig(**config))  # every width, the defaults filled in
            self.net = BlockNet(game.observation_spec, game.num_actions, game.num_players,
                                BlockNetConfig(**self.config))
        if start is not None:
            self.net.load_arrays(start.params)
        self.net.to(self.device)
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=lr, weight_decay=weight_decay)

    # -- saved state -------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Network and optimiser into ``path`` (written beside it first: a killed run keeps the old one), every
        tensor a CPU copy: the file loads on a machine without the device it was trained on."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        torch.save(to_cpu({"net": self.net.state_dict(), "opt": self.opt.state_dict()}), tmp)
        tmp.replace(path)

    def load(self, path: str | Path, optimiser: bool = True) -> None:
        """Network and optimiser from :meth:`save`'s file (onto this learner's device); ``optimiser=False``:
        the network alone (the optimiser starts afresh, at this learner's learning rate).  A missing file is a
        ValueError naming it (a run directory whose progress was written without its trainer state)."""
        if not Path(path).is_file():
            raise ValueError(f"{path}: the trainer state is missing, so this run cannot continue (an incomplete or "
                             "damaged run directory: restore the file, or start the run in a new directory)")
        state = torch.load(path, weights_only=True, map_location="cpu")
        self.net.load_state_dict(state["net"])
        if optimiser:
            self.opt.load_state_dict(state["opt"])

    @property
    def seat(self) -> bool:
        """Whether the network is a seat network."""
        return self.architecture == SEAT_ARCHITECTURE

    def metadata(self, **training: Any) -> dict[str, Any]:
        """The checkpoint metadata of the network (its architecture's), with the ``training`` facts."""
        if self.seat:
            return seatnet_metadata(self.game, self.config, self.seat_counts, **training)
        return network_metadata(self.game, self.config, **training)

    def numpy_net(self, metadata: Mapping[str, Any] | None = None) -> Any:
        """The current network for playing (numpy: a :class:`PolicyValueNet`, or a
        :class:`~meeplezoo.agents.seatnet.SeatPolicyValueNet` bound to the game's count), with ``metadata``."""
        if self.seat:
            return SeatPolicyValueNet(self.game, self.net.arrays(), self.config, dict(metadata or self.metadata()),
                                      seat_counts=self.seat_counts)
        return PolicyValueNet(self.game, self.net.arrays(), self.config, dict(metadata or {}))

    def seat_loss(self, batch: Mapping[str, torch.Tensor],
                  value_weight: float) -> tuple[torch.Tensor, dict[str, float]]:
        """:func:`~meeplezoo.training.seatnet.seat_loss` of a minibatch of samples (:mod:`.samples`) that may
        mix player counts: each count's rows go through the network together (their observations cut to that
        count's size), and the value error counts the seats of each sample's game only."""
        players = batch["players"].long()
        z = batch["z"]
        seats = z.shape[1]
        parts = []
        for n in sorted(set(players.tolist())):
            rows = torch.nonzero(players == n)[:, 0]
            size = int(self.net.games[n].observation_shape[0])
            logits, values = self.net(batch["obs"][rows, :size])
            parts.append((rows, logits, values[:, :seats]))
        order = torch.cat([r for r, _, _ in parts])
        logits = torch.cat([lg for _, lg, _ in parts])
        values = torch.cat([v for _, _, v in parts])
        present = torch.as_tensor(seat_mask(players[order].cpu().numpy(), seats), device=z.device).float()
        loss, lp, lv = seat_loss(logits, values, batch["pi"][order], z[order], present, batch["mask"][order],
                                 value_weight)
        return loss, {"policy_loss": lp.item(), "value_loss": lv.item()}

    # -- training --------------------------------------------------------------------------------------------
    def minibatches(self, n: int, epochs: int, batch_size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
        """Index arrays of ``epochs`` passes over ``n`` samples, each pass a fresh permutation."""
        for _ in range(epochs):
            order = rng.permutation(n)
            for i in range(0, n, batch_size):
                yield order[i:i + batch_size]

    def fit(self, data: Mapping[str, np.ndarray], epochs: int, batch_size: int, seed: int,
            loss: Callable[[dict[str, torch.Tensor]], tuple[torch.Tensor, dict[str, float]]],
            clip_grad: float | None = None,
            on_epoch: Callable[[int, dict[str, float]], None] | None = None) -> dict[str, float]:
        """``epochs`` passes of ``loss`` (a batch of ``data`` as tensors -> loss, its parts) with one
        optimiser step per minibatch; returns the mean of each part over the steps (empty when there was
        nothing to fit).  ``on_epoch(epoch, sums)`` is called after each pass with that pass's sums."""
        n = len(next(iter(data.values())))
        if n == 0 or epochs == 0:
            return {}
        torch.manual_seed(seed)
        rng = np.random.default_rng(seed)
        totals: dict[str, float] = {}
        steps = 0
        for epoch in range(epochs):
            self.net.train()
            sums: dict[str, float] = {}
            for idx in self.minibatches(n, 1, batch_size, rng):
                batch = {k: self.tensor(v[idx]) for k, v in data.items()}
                value, parts = loss(batch)
                self.opt.zero_grad()
                value.backward()
                if clip_grad is not None:
                    torch.nn.utils.clip_grad_norm_(self.net.parameters(), clip_grad)
                self.opt.step()
                for k, v in parts.items():
                    sums[k] = sums.get(k, 0.0) + v
                steps += 1
            self.net.eval()
            for k, v in sums.items():
                totals[k] = totals.get(k, 0.0) + v
            if on_epoch is not None:
                on_epoch(epoch, sums)
        return {k: v / steps for k, v in totals.items()}

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.net(obs)

    def tensor(self, x: np.ndarray) -> torch.Tensor:
        """``x`` as a tensor on this learner's device (float16 arrays as float32)."""
        return as_tensor(x).to(self.device)


def to_cpu(obj: Any) -> Any:
    """``obj`` (nested dicts, lists and tuples of tensors, as a ``state_dict``) with every tensor on the CPU."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(v) for v in obj)
    return obj


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over the legal actions (illegal ones get about -1e9 before the softmax)."""
    return torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)


def cross_entropy(logits: torch.Tensor, mask: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The mean cross-entropy of the masked policy to a target distribution (the visit counts)."""
    return -(target * masked_log_softmax(logits, mask)).sum(dim=1).mean()


def no_grad() -> Any:
    return torch.no_grad()


def as_tensor(x: np.ndarray) -> torch.Tensor:
    return torch.as_tensor(x.astype(np.float32) if x.dtype == np.float16 else x)


def set_threads(threads: int | None) -> None:
    """Torch's intra-op threads (one by default: the trainers' pools are the parallelism)."""
    if threads:
        torch.set_num_threads(int(threads))

