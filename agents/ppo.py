"""A trained PPO policy as an Agent (its checkpoint format: :mod:`meeplezoo.agents.checkpoint`).

A checkpoint is stable-baselines3's MaskablePPO ``.zip`` (so
``MaskablePPO.load`` can resume training from it) with two extra members:

* ``meeplezoo.json``: what the policy was trained for (game, player count,
  rule options, observation layout version and size, number of actions,
  network shape, training steps);
* ``meeplezoo_policy.npz``: the policy weights as plain arrays.

:class:`PPOAgent` reads only those two members: ``np.load`` with
``allow_pickle=False`` executes no code from the file (SB3's own ``data``
member is cloudpickled), and acting runs the small MLP in numpy, which is
faster than torch for one observation at a time and lets tournaments and
self-play workers use checkpoints without importing torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.knobs import Knob, Knobs

from .base import Agent
from .checkpoint import (  # noqa: F401 - re-exported: the policy checkpoint's names as they were
    ACTIVATIONS,
    BLOCKS_PREFIX,
    CHECKPOINT_FORMAT,
    MAX_METADATA_BYTES,
    MAX_POLICY_PARAMETERS,
    METADATA_MEMBER,
    block_network,
    check_compatible,
    check_metadata,
    check_weights,
    checkpoint_game,
    expected_shapes,
    layer_widths,
    policy_arrays,
    read_metadata,
    read_policy,
    save_checkpoint,
)
from .checkpoint import POLICY_WEIGHTS_MEMBER as WEIGHTS_MEMBER  # noqa: F401
from .network import PolicyValueNet

#: the ``ppo:PATH`` agent's settings (any other spec option is a rule option of the game, checked against
#: the checkpoint's)
PPO_KNOBS = Knobs("ppo", [
    Knob("deterministic", bool, True, "play the most probable legal action (false: sample from the policy)"),
])


class PPOAgent(Agent):
    """A MaskablePPO policy playing through the Agent protocol; always legal via the mask.

    ``deterministic=True`` plays the most probable legal action (evaluation);
    ``False`` samples from the masked policy (self-play diversity, leagues),
    seeded by ``seed`` / ``reset(seed)``.
    """

    name = "ppo"

    def __init__(self, params: dict[str, np.ndarray], metadata: dict[str, Any], *, deterministic: bool = True,
                 seed: int | None = None, game: Any = None) -> None:
        deterministic = PPO_KNOBS["deterministic"].validate(deterministic, "ppo")
        self.metadata = metadata
        self.game = game
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        act = metadata.get("activation", "tanh")
        if act not in ACTIVATIONS:
            raise ValueError(f"ppo: unsupported activation {act!r}; known: {', '.join(ACTIVATIONS)}")
        self._act_fn = np.tanh if act == "tanh" else (lambda x: np.maximum(x, 0.0))
        self._trunk = None
        blocks = block_network(metadata)
        if blocks is not None:  # the block network's trunk, then SB3's linear action head
            trunk_game = game if game is not None else checkpoint_game(metadata)
            trunk = {k.removeprefix(BLOCKS_PREFIX): v for k, v in params.items() if k.startswith(BLOCKS_PREFIX)}
            self._trunk = PolicyValueNet(trunk_game, trunk, blocks, heads=False)
        # Linear layers alternate with activations in SB3's Sequential modules: indices 0, 2, 4, ...
        arch = metadata["net_arch"]
        names = [f"features_extractor.net.{2 * i}" for i in range(len(arch.get("features", [])))]
        names += [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(arch["pi"]))]
        try:
            self._layers = [(np.ascontiguousarray(params[n + ".weight"].T), params[n + ".bias"]) for n in names]
            head = (np.ascontiguousarray(params["action_net.weight"].T), params["action_net.bias"])
        except KeyError as e:
            raise ValueError(f"ppo: checkpoint weights lack {e}; they do not match net_arch {arch}") from None
        self._head = head
        self.observation_size = int(metadata["observation_size"])
        self.num_actions = int(metadata["num_actions"])
        if self._layers and self._layers[0][0].shape[0] != self.observation_size:
            raise ValueError("ppo: weights do not match the observation size in the metadata")
        if self._head[0].shape[1] != self.num_actions:
            raise ValueError("ppo: weights do not match the number of actions in the metadata")

    # -- construction ----------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path, game: Any = None, num_players: int | None = None, seed: int | None = None,
             **options: Any) -> PPOAgent:
        """Load a checkpoint, refusing one trained for another game, configuration or layout.

        ``game``: registry id or Game object to check against (None: the
        checkpoint's own).  ``options``: ``deterministic`` (default True); any
        other key is a rule option of the game and must match the checkpoint's.
        """
        deterministic = options.pop("deterministic", True)
        target, arrays, meta = read_policy(path, game, num_players, options)
        agent = cls(arrays, meta, deterministic=deterministic, seed=seed, game=target)
        agent.name = f"ppo:{path}"
        return agent

    @classmethod
    def from_model(cls, model: Any, metadata: dict[str, Any], *, deterministic: bool = True,
                   seed: int | None = None) -> PPOAgent:
        """A frozen copy of an in-memory MaskablePPO model (used for evaluation during training)."""
        return cls(policy_arrays(model.policy), metadata, deterministic=deterministic, seed=seed)

    # -- facts -------------------------------------------------------------------
    @property
    def game_name(self) -> str:
        return self.metadata["game"]

    @property
    def num_players(self) -> int:
        return int(self.metadata["num_players"])

    @property
    def training_steps(self) -> int:
        return int(self.metadata.get("training_steps", 0))

    # -- acting ------------------------------------------------------------------
    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation (or a batch, shape (B, D))."""
        h = np.asarray(observation, dtype=np.float32)
        if h.shape[-1] != self.observation_size:
            raise ValueError(f"ppo: observation of size {h.shape[-1]}, the policy expects {self.observation_size}")
        if self._trunk is not None:
            z = self._trunk.features(h)
            z = z @ self._head[0] + self._head[1]
            return z[0] if h.ndim == 1 else z
        for i, (w, b) in enumerate(self._layers):
            if i == 0 and h.ndim == 1:
                # Board observations are mostly zeros (Kerala: ~100 of 20,936): multiply only the rows that count.
                nz = np.flatnonzero(h)
                z = h[nz] @ w[nz] if nz.size < h.size // 4 else h @ w
                h = self._act_fn(z + b)
            else:
                h = self._act_fn(h @ w + b)
        return h @ self._head[0] + self._head[1]

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The masked policy: probability 0 on every illegal action."""
        mask = self._check_mask(action_mask)
        z = np.where(mask, self.logits(observation).astype(np.float64), -np.inf)
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        mask = self._check_mask(action_mask)
        if self.deterministic:
            z = np.where(mask, self.logits(observation), -np.inf)
            return int(np.argmax(z))
        p = self.action_probabilities(observation, mask)
        return int(self.rng.choice(self.num_actions, p=p))

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def _check_mask(self, action_mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(action_mask, dtype=bool)
        if mask.shape != (self.num_actions,):
            raise ValueError(f"ppo: action mask of shape {mask.shape}, the policy has {self.num_actions} actions")
        if not mask.any():
            raise ValueError("ppo: the action mask allows no action")
        return mask
