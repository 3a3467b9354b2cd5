"""The environment registry: ``meeplezoo.make(name, **kwargs)`` and ``list_envs()``.

Every game is also registered in PettingZoo's own registry under the
``meeplezoo/`` namespace, by display name and by entry-module name, as
PettingZoo's own ``classic/connect_four_v3``:
``pettingzoo.make("aec", "meeplezoo/Kerala-v0")`` or ``"meeplezoo/kerala_v0"``;
and the single-agent view (:class:`~meeplezoo.envs.core.gym.SingleAgentEnv`) in
Gymnasium's registry under the same display ids:
``gymnasium.make("meeplezoo/Kerala-v0", opponents=["heuristic"], num_players=3)``.
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


def registry_ids(name: str) -> tuple[str, str]:
    """PettingZoo ids of a game: the display id (``meeplezoo/Kerala-v0``) and the entry-module id
    (``meeplezoo/kerala-v0``, which PettingZoo's ``make`` also finds as ``meeplezoo/kerala_v0``)."""
    module, pz_id = ENVS[_check(name)]
    base, _, version = module.rpartition(".")[2].rpartition("_v")
    return pz_id, f"meeplezoo/{base}-v{version}"


def register_pettingzoo() -> None:
    """Register every game in PettingZoo's registry (idempotent)."""
    try:
        import pettingzoo
        from pettingzoo import aec_registry
    except ImportError:  # pettingzoo < 1.27 has no registry
        return
    for name, (module, _) in ENVS.items():
        for pz_id in registry_ids(name):
            try:
                if pz_id not in aec_registry:
                    pettingzoo.register("aec", pz_id, entry_point=f"{module}:env")
            except Exception:  # noqa: BLE001 - a registry API change must not break import
                return


def register_gymnasium() -> None:
    """Register every game's single-agent view in Gymnasium's registry (idempotent):
    ``gymnasium.make("meeplezoo/Kerala-v0", opponents=[...], num_players=..., render_mode=...)``."""
    try:
        import gymnasium
    except ImportError:  # pragma: no cover - gymnasium is a dependency
        return
    for name, (_, gym_id) in ENVS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point="meeplezoo.envs.core.gym:SingleAgentEnv", kwargs={"game": name},
                               disable_env_checker=False)
