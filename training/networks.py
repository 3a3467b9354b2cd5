"""Block networks: one encoder per named observation block (see envs/core/observation.py).

Rule: a block the game declares ``spatial`` (a board: its last two dims are a grid of cells, such
as Kerala's platform planes) has its leading dims folded into channels and gets a small conv stack,
then global average pooling (``board_channels=0``) or a 1x1 convolution whose every cell goes on to the
trunk (``board_channels=N``: a policy over cell actions needs to know where). Every other block
(tables, counts, flags) is flattened and all are concatenated into one MLP input.
Heads: policy logits over the flat action space (mask outside with -inf on illegal actions);
value head: one value per seat, egocentric (index 0 = the observing player), tanh-squashed.
Action head (``action_hidden=H > 0``, for a game whose observation declares
:class:`~meeplezoo.envs.core.observation.ActionFeatures`): each action it lists gets, added to its
policy logit, the output of one small MLP shared by those actions, which reads the trunk's features
and the inputs that action names (e.g. the offered tile and the cells around the target of a Kerala
pick). Its first layer is a sum of one term per input, each computed once per item (5 tiles, 8
targets, ...), so scoring 160 picks costs one ReLU layer of ``H/2`` and a dot product each.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

from meeplezoo.agents.network import CONFIG_KEYS, OPTIONAL_CONFIG

if TYPE_CHECKING:  # pragma: no cover
    from meeplezoo.envs.core.observation import ObservationSpec


@dataclass(frozen=True)
class BlockNetConfig:
    """Widths of a :class:`BlockNet` (the defaults stay well under a million parameters in every game)."""

    channels: int = 32
    conv_layers: int = 2
    flat_hidden: int = 128
    trunk_hidden: int = 128
    #: 0: each board's convolutions are averaged over the cells; N > 0: a 1x1 convolution to N channels
    #: keeps every cell (flattened into the trunk), so a policy over cell actions can tell the cells apart
    board_channels: int = 0
    #: hidden layers of the trunk (each ``trunk_hidden`` wide, ReLU)
    trunk_layers: int = 1
    #: 0: no action head; H > 0: the action head (module docstring) with a first layer of H units
    action_hidden: int = 0


class BlockNet(nn.Module):
    """A policy-value network read off a game's observation blocks (``game.observation_spec``):
    ``forward(flat_obs) -> (logits, values)``, logits over every action id (mask illegal ones outside),
    values one per seat, egocentric (index 0 = the observing player), in [-1, 1]."""

    def __init__(self, spec: ObservationSpec, num_actions: int, num_players: int,
                 config: BlockNetConfig | None = None, *, heads: bool = True) -> None:
        super().__init__()
        cfg = config or BlockNetConfig()
        self.structure = spec.structure()
        self.spatial: list[str] = []
        self.flat: list[str] = []
        convs = {}
        cells = {}
        width = 0
        boards = spec.spatial_names()
        for name, (shape, _lo, _hi, _sl) in self.structure.items():
            if name in boards:
                cin = 1
                for d in shape[:-2]:
                    cin *= d
                layers: list[nn.Module] = []
                for _ in range(cfg.conv_layers):
                    layers += [nn.Conv2d(cin, cfg.channels, 3, padding=1), nn.ReLU()]
                    cin = cfg.channels
                convs[name] = nn.Sequential(*layers)
                if cfg.board_channels:
                    cells[name] = nn.Conv2d(cfg.channels, cfg.board_channels, 1)
                    width += cfg.board_channels * shape[-2] * shape[-1]
                else:
                    width += cfg.channels
                self.spatial.append(name)
            else:
                self.flat.append(name)
        self.convs = nn.ModuleDict(convs)
        self.board_channels = cfg.board_channels
        if cells:
            self.cells = nn.ModuleDict(cells)
        flat_size = sum(self.structure[n][3].stop - self.structure[n][3].start for n in self.flat)
        self.flat_mlp = nn.Sequential(nn.Linear(flat_size, cfg.flat_hidden), nn.ReLU()) if flat_size else None
        width += cfg.flat_hidden if flat_size else 0
        trunk: list[nn.Module] = [nn.Linear(width, cfg.trunk_hidden), nn.ReLU()]
        for _ in range(1, cfg.trunk_layers):
            trunk += [nn.Linear(cfg.trunk_hidden, cfg.trunk_hidden), nn.ReLU()]
        self.trunk = nn.Sequential(*trunk)
        self.features_dim = cfg.trunk_hidden
        if heads:  # without: the trunk alone, a PPO policy's features extractor
            self.policy = nn.Linear(cfg.trunk_hidden, num_actions)
            self.value = nn.Linear(cfg.trunk_hidden, num_players)
        self.action_features = None
        if cfg.action_hidden:
            af = spec.action_features
            if af is None:
                raise ValueError("action_hidden needs a game whose observation declares action features "
                                 "(Kerala: elephant_view=True)")
            if not heads:
                raise ValueError("action_hidden is a policy head: not for a trunk without heads")
            af.validate(spec.size, num_actions)
            hid = cfg.action_hidden
            self.action_features = af
            self.action_trunk = nn.Linear(cfg.trunk_hidden, hid)
            self.action_inputs = nn.ModuleDict({f.name: nn.Linear(f.size, hid, bias=False)
                                                for f in af.factors if f.gather is not None})
            self.action_items = nn.ParameterDict({f.name: nn.Parameter(torch.zeros(f.items, hid))
                                                  for f in af.factors if f.gather is None})
            self.action_mid = nn.Linear(hid, max(hid // 2, 1))
            self.action_out = nn.Linear(max(hid // 2, 1), 1)
            # index tables (not weights: kept out of the state_dict, rebuilt from the game)
            self.register_buffer("action_ids", torch.as_tensor(af.actions, dtype=torch.long), persistent=False)
            for f in af.factors:
                self.register_buffer(f"action_index_{f.name}", torch.as_tensor(f.index, dtype=torch.long),
                                     persistent=False)
                if f.gather is not None:
                    self.register_buffer(f"action_gather_{f.name}", torch.as_tensor(f.gather, dtype=torch.long),
                                         persistent=False)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """The trunk's output for a batch of flat observations ``(batch, size)``."""
        parts = []
        for name in self.spatial:
            shape, _lo, _hi, sl = self.structure[name]
            x = obs[:, sl].reshape(obs.shape[0], -1, shape[-2], shape[-1])
            y = self.convs[name](x)
            if self.board_channels:
                parts.append(torch.relu(self.cells[name](y)).flatten(1))
            else:
                parts.append(y.mean(dim=(2, 3)))
        if self.flat_mlp is not None:
            parts.append(self.flat_mlp(torch.cat([obs[:, self.structure[n][3]] for n in self.flat], dim=1)))
        return self.trunk(torch.cat(parts, dim=1))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.features(obs)
        logits = self.policy(h)
        if self.action_features is not None:
            logits = logits.index_add(1, self.action_ids, self.action_scores(obs, h))
        return logits, torch.tanh(self.value(h))

    def action_scores(self, obs: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """The action head's term ``(batch, len(actions))`` for the actions of the game's action features."""
        z = self.action_trunk(h)[:, None]
        for f in self.action_features.factors:
            idx = getattr(self, f"action_index_{f.name}")
            if f.gather is None:
                z = z + self.action_items[f.name][idx]
            else:
                items = self.action_inputs[f.name](obs[:, getattr(self, f"action_gather_{f.name}")])
                z = z + items[:, idx]
        return self.action_out(torch.relu(self.action_mid(torch.relu(z))))[..., 0]

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights as float32 numpy arrays, named as in ``state_dict`` (what a network checkpoint holds)."""
        return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in self.state_dict().items()}

    def load_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Set the weights from :meth:`arrays`' output (or a checkpoint's)."""
        self.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in arrays.items()})


def config_dict(config: BlockNetConfig) -> dict[str, int]:
    """The widths of ``config`` as the network checkpoint's ``config`` entry."""
    return {k: int(getattr(config, k)) for k in (*CONFIG_KEYS, *OPTIONAL_CONFIG)}
