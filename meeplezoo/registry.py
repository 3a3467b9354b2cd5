"""The environment registry: ``meeplezoo.make(name, **kwargs)`` and ``list_envs()``.

Every game is also registered in PettingZoo's own registry under the
``meeplezoo/`` namespace, e.g. ``pettingzoo.make("aec", "meeplezoo/Kerala-v0")``.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

# id -> (entry module, PettingZoo registry id)
ENVS: dict[str, tuple[str, str]] = {
    "kerala": ("meeplezoo.envs.kerala_v0", "meeplezoo/Kerala-v0"),
    "haus_der_sonne": ("meeplezoo.envs.haus_der_sonne_v0", "meeplezoo/HausDerSonne-v0"),
    "hawaii": ("meeplezoo.envs.hawaii_v0", "meeplezoo/Hawaii-v0"),
    "asara": ("meeplezoo.envs.asara_v0", "meeplezoo/Asara-v0"),
}


def list_envs() -> list[str]:
    """Ids of all registered games."""
    return list(ENVS)


def _check(name: str) -> str:
    if name not in ENVS:
        raise ValueError(f"unknown environment {name!r}; available: {', '.join(ENVS)}")
    return name


def env_module(name: str) -> ModuleType:
    """The PettingZoo-style entry module of a game (has ``env``, ``raw_env``, ``Game``)."""
    return importlib.import_module(ENVS[_check(name)][0])


def game_class(name: str) -> type:
    return env_module(name).raw_env.game_cls


def make_game(name: str, num_players: int | None = None, **rule_options: Any):
    """The engine-level :class:`~meeplezoo.envs.core.Game` for a configuration."""
    return game_class(name)(num_players, **rule_options)


def make(name: str, *, raw: bool = False, **kwargs: Any):
    """A PettingZoo AEC environment (wrapped like PettingZoo's classic envs unless ``raw``)."""
    mod = env_module(name)
    return mod.raw_env(**kwargs) if raw else mod.env(**kwargs)


def register_pettingzoo() -> None:
    """Register every game in PettingZoo's registry (idempotent)."""
    try:
        import pettingzoo
        from pettingzoo import aec_registry
    except ImportError:  # pettingzoo < 1.27 has no registry
        return
    for module, pz_id in ENVS.values():
        try:
            if pz_id not in aec_registry:
                pettingzoo.register("aec", pz_id, entry_point=f"{module}:env")
        except Exception:  # noqa: BLE001 - a registry API change must not break import
            return
