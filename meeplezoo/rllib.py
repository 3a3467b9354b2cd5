"""Every meeplezoo game as an RLlib multi-agent environment for RLlib's masked PPO (``pip install "ray[rllib]"``).

RLlib's action-masking module (``ActionMaskingTorchRLModule``, in
``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) reads an observation dict with the keys
``"observations"`` and ``"action_mask"``; PettingZoo's convention, which the environments follow, is
``"observation"``.  :class:`ObservationKeys` renames the keys of any PettingZoo AEC environment, and
:func:`rllib_env` returns RLlib's own ``PettingZooEnv`` over a game with the keys RLlib's module reads::

    from ray.tune.registry import register_env
    from meeplezoo.rllib import rllib_env

    register_env("kerala", lambda config: rllib_env("kerala", **config))

``examples/rllib_masked_ppo.py`` trains PPO with that module on a game, one policy for every seat, and
``docs/guides/rllib.md`` explains the recipe.  RLlib's ``PettingZooEnv.render()`` passes an argument
that PettingZoo's ``render()`` no longer takes and raises a ``TypeError`` (with PettingZoo's own
environments too); render through the PettingZoo environment (``env.env.render()``) instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

import meeplezoo

#: the observation keys RLlib's ActionMaskingTorchRLModule reads
RLLIB_KEYS = {"observation": "observations", "action_mask": "action_mask"}


class ObservationKeys(BaseWrapper):
    """A PettingZoo AEC environment whose observation dicts use other key names.

    ``keys`` maps the environment's keys (``"observation"``, ``"action_mask"``, or the block names of
    ``obs_format="dict"``) to the names a library expects; keys not named keep their names.  The
    spaces follow, so a library that checks the observation against its space sees the same keys.
    The action mask is given as float32 in [0, 1] (RLlib takes its logarithm)."""

    def __init__(self, env: Any, keys: dict[str, str] | None = None, *, float_mask: bool = True) -> None:
        super().__init__(env)
        self.keys = dict(RLLIB_KEYS if keys is None else keys)
        self.float_mask = float_mask
        self._spaces: dict[str, spaces.Dict] = {}

    def _rename(self, obs: dict[str, Any]) -> dict[str, Any]:
        out = {self.keys.get(k, k): v for k, v in obs.items()}
        if self.float_mask and "action_mask" in obs:
            out[self.keys.get("action_mask", "action_mask")] = np.asarray(obs["action_mask"], np.float32)
        return out

    def observation_space(self, agent: str) -> spaces.Space:
        space = self._spaces.get(agent)
        if space is None:
            inner = self.env.observation_space(agent)
            if not isinstance(inner, spaces.Dict):
                raise TypeError(f"ObservationKeys needs a Dict observation space, got {inner}")
            parts = {}
            for k, s in inner.spaces.items():
                if self.float_mask and k == "action_mask":
                    s = spaces.Box(0.0, 1.0, shape=s.shape, dtype=np.float32)
                parts[self.keys.get(k, k)] = s
            space = self._spaces[agent] = spaces.Dict(parts)
        return space

    def observe(self, agent: str) -> dict[str, Any] | None:
        obs = super().observe(agent)
        return None if obs is None else self._rename(obs)

    def last(self, observe: bool = True) -> tuple[Any, ...]:
        obs, *rest = super().last(observe)
        return (self._rename(obs) if obs is not None else None, *rest)


def rllib_env(name: str, **kwargs: Any) -> Any:
    """RLlib's ``PettingZooEnv`` over the game ``name`` (keyword arguments as :func:`meeplezoo.make`), with
    the observation keys ``"observations"`` and ``"action_mask"`` that RLlib's masked modules read."""
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError(f"meeplezoo.rllib needs RLlib: pip install 'ray[rllib]' ({e})") from None
    return PettingZooEnv(ObservationKeys(meeplezoo.make(name, **kwargs)))
