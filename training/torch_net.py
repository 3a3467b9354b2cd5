"""A network checkpoint's weights evaluated in torch, on the CPU or a GPU, as a drop-in for the numpy network
(:class:`TorchNet` for a block network, :class:`TorchSeatNet` for a seat network).

Built by :func:`meeplezoo.training.inference.inference_net` (which checks the settings); imports torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from meeplezoo.agents.network import PolicyValueNet
from meeplezoo.agents.seatnet import SeatPolicyValueNet

from .networks import BlockNet, BlockNetConfig
from .seatnet import SeatNet, SeatNetConfig

#: precision setting -> torch dtype
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _check_precision(precision: str) -> torch.dtype:
    """The torch dtype of a precision setting (ValueError naming the settings otherwise)."""
    if precision not in DTYPES:
        raise ValueError(f"inference: precision must be one of {', '.join(DTYPES)}, got {precision!r}")
    return DTYPES[precision]


def _placed(net: Any, module: torch.nn.Module, device: str, precision: str, load: bool = True) -> torch.nn.Module:
    """Set ``net``'s ``device``, ``precision`` and ``dtype``; ``module`` with ``net``'s weights, there, in eval mode
    (``load=False``: a module placed so already, shared)."""
    net.device, net.precision, net.dtype = torch.device(device), precision, DTYPES[precision]
    if not load:
        return module
    module.load_arrays(net.params)
    return module.to(device=net.device, dtype=net.dtype).eval()


class TorchNet(PolicyValueNet):
    """``net``'s weights in a torch :class:`~meeplezoo.training.networks.BlockNet` on ``device`` in
    ``precision``.

    The same public methods as :class:`~meeplezoo.agents.network.PolicyValueNet` (it is one: agents, the
    search's :class:`~meeplezoo.agents.network.NetworkEvaluator` and ``save`` take it as they take the
    numpy network): ``forward(obs) -> (logits (B, actions), values (B, players))`` and ``features(obs)``
    take a batch of flat observations as a numpy array (or one observation) and give float32 numpy
    arrays back; ``policy``, ``observe``, ``needs_own_observation`` and ``save`` are the numpy network's.
    """

    def __init__(self, net: PolicyValueNet, device: str = "cpu", precision: str = "float32") -> None:
        _check_precision(precision)
        super().__init__(net.game, net.params, net.config, net.metadata, heads=net.heads)
        self.module = _placed(self, BlockNet(self.game.observation_spec, self.game.num_actions, self.game.num_players,
                                             BlockNetConfig(**self.config), heads=net.heads), device, precision)

    def __repr__(self) -> str:
        return f"TorchNet({self.game!r}, device={str(self.device)!r}, precision={self.precision!r})"

    def _input(self, obs: Any) -> torch.Tensor:
        x = np.asarray(obs, dtype=np.float32)
        if x.ndim == 1:
            x = x[None]
        return torch.from_numpy(np.ascontiguousarray(x)).to(device=self.device, dtype=self.dtype)

    @staticmethod
    def _output(t: torch.Tensor) -> np.ndarray:
        return t.float().cpu().numpy()

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits, values)`` for a batch of flat observations, as float32 numpy arrays."""
        if not self.heads:
            raise ValueError("this network is a trunk without heads (see features())")
        with torch.inference_mode():
            logits, values = self.module(self._input(obs))
            return self._output(logits), self._output(values)

    def features(self, obs: np.ndarray) -> np.ndarray:
        """The trunk's output ``(B, trunk_hidden)`` for a batch of flat observations."""
        with torch.inference_mode():
            return self._output(self.module.features(self._input(obs)))


class TorchSeatNet(SeatPolicyValueNet):
    """A seat network's weights in a torch :class:`~meeplezoo.training.seatnet.SeatNet` on ``device`` in
    ``precision``: the drop-in for :class:`~meeplezoo.agents.seatnet.SeatPolicyValueNet` that
    :class:`TorchNet` is for the block network.

    ``forward(obs) -> (logits (B, actions), values (B, players))`` takes a batch of the bound count's flat
    observations as a numpy array and gives float32 numpy arrays back, in one batched call (the lockstep
    driver's pooled batches included: :meth:`pooled_forward` is :meth:`forward`, so a position's rounding
    may depend on its batch).  :meth:`for_players` gives the view bound to another count, sharing the module.
    """

    def __init__(self, net: SeatPolicyValueNet, device: str = "cpu", precision: str = "float32",
                 module: SeatNet | None = None) -> None:
        _check_precision(precision)
        super().__init__(net.game, net.params, net.config, net.metadata, seat_counts=net.seat_counts)
        shared = module is not None  # a view of another count shares its network's placed module
        self.module = _placed(self, module if shared else SeatNet(self.game, SeatNetConfig(**self.config),
                                                                  self.seat_counts), device, precision, not shared)
        self._views = {self.game.num_players: self}

    def __repr__(self) -> str:
        return (f"TorchSeatNet({self.game!r}, seats={list(self.seat_counts)}, device={str(self.device)!r}, "
                f"precision={self.precision!r})")

    def _view(self, game: Any) -> TorchSeatNet:
        """The view of another count (:meth:`for_players`): the same module on the same device."""
        return TorchSeatNet(SeatPolicyValueNet._view(self, game), str(self.device), self.precision, self.module)

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits, values)`` for a batch of flat observations of the bound count, as float32 numpy arrays."""
        x = torch.from_numpy(self._batch(obs)).to(device=self.device, dtype=self.dtype)
        with torch.inference_mode():
            logits, values = self.module(x)
            return logits.float().cpu().numpy(), values[:, :self.game.num_players].float().cpu().numpy()

    def forward_rows(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`forward` (torch's batched kernels; no row-by-row pass)."""
        return self.forward(obs)

    def pooled_forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`forward`: the pooled batch in one call of the module."""
        return self.forward(obs)
