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
import pkgutil
import re
import warnings
from importlib import metadata
from types import ModuleType
from typing import Any

import meeplezoo.envs as envs_pkg
from meeplezoo.envs.core.info import GameInfo

#: the entry-point group through which other distributions add games: ``name = "pkg.module:GAME_INFO"``
#: (a GameInfo, or a module that has ``GAME_INFO``)
ENTRY_POINT_GROUP = "meeplezoo.games"
_ENTRY_MODULE = re.compile(r"[a-z][a-z0-9_]*_v\d+")


def _info_of(obj: Any, where: str) -> GameInfo:
    info = getattr(obj, "GAME_INFO", obj)
    if not isinstance(info, GameInfo):
        raise TypeError(f"{where} is not a GameInfo (nor a module with GAME_INFO)")
    return info


def discover() -> dict[str, GameInfo]:
    """Every game's :class:`GameInfo`: the entry modules ``meeplezoo.envs.<id>_v<N>`` that declare
    ``GAME_INFO``, then the ``meeplezoo.games`` entry points, sorted by ``(order, name)``."""
    found: dict[str, GameInfo] = {}
    for mod in pkgutil.iter_modules(envs_pkg.__path__):
        if mod.ispkg or not _ENTRY_MODULE.fullmatch(mod.name):
            continue
        try:
            module = importlib.import_module(f"{envs_pkg.__name__}.{mod.name}")
        except ImportError as e:  # a game whose dependencies are missing: the others stay usable
            warnings.warn(f"meeplezoo: game module {mod.name!r} skipped: {e}", stacklevel=2)
            continue
        if hasattr(module, "GAME_INFO"):
            info = _info_of(module, module.__name__)
            found.setdefault(info.name, info)
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            info = _info_of(ep.load(), f"entry point {ep.name!r} ({ep.value})")
        except Exception as e:  # noqa: BLE001 - a broken third-party game must not break import
            warnings.warn(f"meeplezoo: game entry point {ep.name!r} skipped: {e}", stacklevel=2)
            continue
        found.setdefault(info.name, info)
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))


#: id -> GameInfo of every registered game, examples included
GAMES: dict[str, GameInfo] = discover()

#: id -> (entry module, PettingZoo registry id)
ENVS: dict[str, tuple[str, str]] = {name: (info.entry_module, info.pettingzoo_id) for name, info in GAMES.items()}


def game_info(name: str) -> GameInfo:
    """The metadata entry of a game: its display name, registry ids, heuristic, tuned search settings.

    Args:
        name: a registry id, e.g. ``"kerala"``.

    Raises:
        ValueError: for an unknown id (the message lists the known ones).
    """
    return GAMES[_check(name)]


def list_envs(include_examples: bool = False) -> list[str]:
    """Ids of the registered games, in their declared order.

    Args:
        include_examples: also list example and template games (``"template"``).

    Returns:
        The ids, e.g. ``["kerala", "haus_der_sonne", "hawaii", "asara"]``.
    """
    return [name for name, info in GAMES.items() if include_examples or not info.example]


def _check(name: str) -> str:
    if name not in ENVS:
        raise ValueError(f"unknown environment {name!r}; available: {', '.join(ENVS)}")
    return name


def env_module(name: str) -> ModuleType:
    """The PettingZoo-style entry module of a game, e.g. ``meeplezoo.envs.kerala_v0``: it has ``env``,
    ``raw_env``, ``Game`` and ``GAME_INFO``.

    Raises:
        ValueError: for an unknown id.
    """
    return importlib.import_module(ENVS[_check(name)][0])


def game_class(name: str) -> type:
    """The :class:`~meeplezoo.envs.core.game.Game` subclass of a game (its options in ``options_spec``)."""
    return env_module(name).raw_env.game_cls


def make_game(name: str, num_players: int | None = None, **rule_options: Any):
    """The engine-level :class:`~meeplezoo.envs.core.game.Game` of a configuration, for search and tools.

    Args:
        name: a registry id, e.g. ``"hawaii"``.
        num_players: the player count; None: the game's default.
        **rule_options: the game's rule options by name (see its page, or ``meeplezoo list GAME``).

    Returns:
        The Game; ``game.new_state(seed)`` starts a game.

    Raises:
        ValueError: for an unknown id, a player count out of range, an unknown option or a bad value (the
            message names the option and the allowed values).

    Example:
        ```python
        game = meeplezoo.make_game("hawaii", num_players=4)
        state = game.new_state(seed=1)
        state.apply(state.legal_actions()[0])
        ```
    """
    return game_class(name)(num_players, **rule_options)


def make(name: str, *, raw: bool = False, **kwargs: Any):
    """A PettingZoo AEC environment of a game.

    Args:
        name: a registry id, e.g. ``"kerala"`` (see :func:`list_envs`).
        raw: the bare :class:`~meeplezoo.envs.core.aec.MeeplezooAECEnv` (``raw_env``: illegal actions raise)
            instead of ``env()``, wrapped like PettingZoo's classic environments (an illegal move ends the game
            with -1 for the mover, the order of calls is enforced).
        **kwargs: ``num_players``, ``render_mode`` (``"ansi"``, ``"human"``, ``"rgb_array"``), ``reward_mode``
            (``"win"``, ``"rank"``, ``"score"``), ``illegal_action``, ``max_cycles``, ``text_infos``,
            ``obs_format`` (``"flat"``, ``"dict"``) and the game's rule options; see
            :class:`~meeplezoo.envs.core.aec.MeeplezooAECEnv`.

    Returns:
        The environment, with ``Dict(observation=Box(float32), action_mask=Box(int8))`` observations and a
        ``Discrete`` action space for every agent.

    Raises:
        ValueError: for an unknown id, a player count out of range, an unknown option or a bad value.

    Example:
        ```python
        env = meeplezoo.make("kerala", num_players=3)
        env.reset(seed=42)
        obs, reward, termination, truncation, info = env.last()
        ```
    """
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
    for name, info in GAMES.items():
        if info.gymnasium_id not in gymnasium.registry:
            gymnasium.register(info.gymnasium_id, entry_point="meeplezoo.envs.core.gym:SingleAgentEnv",
                               kwargs={"game": name}, disable_env_checker=False)
