"""The metadata entry of a game: what the registries, agents and benchmarks need to know about it.

Each entry module (``envs/<game>_v0.py``) declares one ``GAME_INFO = GameInfo(...)``;
``meeplezoo.registry`` finds them by scanning ``meeplezoo.envs`` and the
``meeplezoo.games`` entry-point group (games installed from other
distributions), so adding a game edits no list anywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


def _camel(text: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[\s_\-]+", text) if w)


@dataclass(frozen=True)
class GameInfo:
    """One game's registry entry.

    Args:
        name: the registry id (``"kerala"``), the Game's ``name``.
        entry_module: the PettingZoo-style module with ``env``, ``raw_env`` and ``Game``.
        display_name: the name shown to people (``"Haus der Sonne"``).
        pettingzoo_id: its id in PettingZoo's and Gymnasium's registries; default
            ``meeplezoo/<DisplayNameInCamelCase>-v<version of the entry module>``.
        heuristic: ``"module:Class"`` of the game's heuristic agent, or None.
        bench_configs: game configurations (keyword arguments of the Game) that
            ``meeplezoo bench`` measures; None: the smallest and largest player count.
        search_defaults: tuned options of the ``mcts`` agent for this game (what the agent spec
            ``mcts`` means for it; the only place they are set, ``agents.mcts.TUNED`` is a view), or None.
        example: an example or template game: registered and buildable by name,
            but left out of ``list_envs()``, benchmarks and leagues unless asked for.
        order: position in ``list_envs()`` (ties by name).
    """

    name: str
    entry_module: str
    display_name: str
    pettingzoo_id: str = ""
    heuristic: str | None = None
    bench_configs: tuple[dict[str, Any], ...] | None = None
    search_defaults: dict[str, Any] | None = None
    example: bool = False
    order: int = 100
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"game id must be lower_snake_case, got {self.name!r}")
        if not self.pettingzoo_id:
            version = self.entry_module.rpartition("_v")[2]
            version = version if version.isdigit() else "0"
            object.__setattr__(self, "pettingzoo_id", f"meeplezoo/{_camel(self.display_name)}-v{version}")

    @property
    def gymnasium_id(self) -> str:
        """The single-agent view's id in Gymnasium's registry (the same as PettingZoo's)."""
        return self.pettingzoo_id

    @classmethod
    def of(cls, game_cls: type, entry_module: str, **kwargs: Any) -> GameInfo:
        """The entry for ``game_cls`` (its ``name`` and ``pretty_name``) in ``entry_module``."""
        kwargs.setdefault("display_name", getattr(game_cls, "pretty_name", game_cls.name))
        return cls(name=game_cls.name, entry_module=entry_module, **kwargs)
