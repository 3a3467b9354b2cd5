"""Build agents from spec strings: ``name[:positional][:key=value]...``.

Examples: ``random``, ``heuristic``, ``mcts:sims=400:rollout=heuristic``,
``ppo:runs/kerala/best.zip`` (a bare path ending in ``.zip`` means ``ppo:PATH``),
``sb3:model.zip`` (a stable-baselines3 model trained elsewhere), ``net:runs/exit/kerala/best.zip``
(a policy-value network alone), ``netmcts:PATH:time=0.5`` (the search guided by it) and
``pretrained`` (the network shipped with the package for the game; ``pretrained:time=0.5`` searches with it),
``external:PATH`` (another program, speaking JSON lines: :mod:`meeplezoo.agents.external`).

Each agent kind is registered with its factory and its table of settings (a
:class:`~meeplezoo.knobs.Knobs`): a spec's options are parsed and checked through that table
(:func:`spec_options`; unknown options are refused by name), and :func:`format_spec` writes options back
as a spec.  The built-in kinds are registered by :mod:`meeplezoo.agents.catalog`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from meeplezoo.knobs import Knobs, parse_value
from meeplezoo.registry import GAMES

from .base import Agent

__all__ = ["HEURISTICS", "register", "make", "parse_spec", "parse_value", "split_spec", "spec_options",
           "format_spec", "agent_knobs", "known_agents"]

# game id -> "module:Class" of its heuristic agent, from each game's GameInfo
HEURISTICS: dict[str, str] = {name: info.heuristic for name, info in GAMES.items() if info.heuristic}


@dataclass(frozen=True)
class _Kind:
    factory: Callable[..., Agent]
    knobs: Knobs | Callable[[Any], Knobs | None] | None
    extra: str | None  # what options outside the table are (e.g. "rule options"), None: refused
    object_game: bool  # whether the factory takes a Game object (checkpoints check its rule options)


_KINDS: dict[str, _Kind] = {}


def register(name: str, factory: Callable[..., Agent], knobs: Knobs | Callable[[Any], Knobs | None] | None = None,
             *, extra: str | None = None, object_game: bool = False) -> None:
    """Register ``factory(*positional, game=..., num_players=..., seed=..., **options)`` under ``name``.

    ``knobs``: the agent's settings table (or ``game -> table`` where it depends on the game); spec options
    are parsed through it.  ``extra`` names what options outside the table mean (they are then passed on as
    parsed values: a checkpoint's rule options); without it they are refused.  ``object_game``: the
    factory is given a Game object as it is (else its name).
    """
    _KINDS[name] = _Kind(factory, knobs, extra, object_game)


def known_agents() -> list[str]:
    """The registered agent kinds."""
    return list(_KINDS)


def load_object(path: str) -> Any:
    """The object named ``"module:attr"``."""
    module, attr = path.split(":")
    return getattr(importlib.import_module(module), attr)


def agent_knobs(name: str, game: Any = None) -> Knobs | None:
    """The settings table of agent kind ``name`` (for ``game``, where it depends on it), or None."""
    kind = _KINDS.get(name)
    if kind is None:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(_KINDS)}")
    if kind.knobs is None or isinstance(kind.knobs, Knobs):
        return kind.knobs
    return kind.knobs(game if isinstance(game, str) or game is None else game.name)


def split_spec(spec: str) -> tuple[str, list[str], dict[str, str]]:
    """``"mcts:200:c=0.7"`` -> ``("mcts", ["200"], {"c": "0.7"})``: the parts as text."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    if spec.endswith(".zip") and not spec.startswith(("ppo:", "sb3:", "net:", "netmcts:")):
        return "ppo", [spec], {}
    name, *parts = spec.split(":")
    args: list[str] = []
    texts: dict[str, str] = {}
    for part in parts:
        if "=" in part:
            k, v = part.split("=", 1)
            texts[k.strip()] = v.strip()
        elif part:
            args.append(part)
    return name.strip(), args, texts


def parse_spec(spec: str) -> tuple[str, list[str], dict[str, Any]]:
    """``"mcts:sims=400:rollout=heuristic"`` -> ``("mcts", [], {"sims": 400, "rollout": "heuristic"})``
    (values read as literals, not checked: :func:`spec_options` checks them against the agent's table)."""
    name, args, texts = split_spec(spec)
    return name, args, {k: parse_value(v) for k, v in texts.items()}


def spec_options(spec: str, game: Any = None) -> tuple[str, list[str], dict[str, Any]]:
    """``(name, positional, options)`` of ``spec``, each option parsed and checked through the agent's
    table (ValueError naming a bad value, or the unknown options with the known ones)."""
    name, args, texts = split_spec(spec)
    if name not in _KINDS:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known agents: {', '.join(_KINDS)}")
    table = agent_knobs(name, game)
    if table is None:
        return name, args, {k: parse_value(v) for k, v in texts.items()}
    bad = [k for k in texts if k not in table]
    if bad and _KINDS[name].extra is None:
        raise ValueError(f"unknown option{'s' if len(bad) > 1 else ''} {', '.join(map(repr, bad))} for agent "
                         f"{name!r} in spec {spec!r}; known options: {', '.join(table.names) or 'none'}")
    options = table.parse_options({k: v for k, v in texts.items() if k in table})
    options.update({k: parse_value(texts[k]) for k in bad})
    return name, args, {k: options[k] for k in texts}


def format_spec(name: str, args: list[str] | tuple[str, ...] = (), options: Mapping[str, Any] | None = None,
                game: Any = None) -> str:
    """The spec of agent ``name`` with positional ``args`` and ``options`` (all of them, in the given order,
    written as the table writes them): ``spec_options(format_spec(n, a, o))`` gives ``(n, a, o)`` back."""
    table = agent_knobs(name, game)
    parts = [name, *map(str, args)]
    for k, v in (options or {}).items():
        text = table[k].to_text(v) if table is not None and k in table else (
            "true" if v is True else "false" if v is False else str(v))
        parts.append(f"{k}={text}")
    return ":".join(parts)


def _known_options(name: str, game: str | None) -> list[str] | None:
    """The keyword options agent ``name`` accepts (from its table), or None where they are not declared."""
    kind = _KINDS.get(name)
    if kind is None or kind.extra is not None:
        return None
    table = agent_knobs(name, game)
    return None if table is None else table.names


def make(spec: str, game: Any = None, *, num_players: int | None = None, seed: int | None = None) -> Agent:
    """Build an agent from its spec for ``game``: a registry id, or a Game object (then a checkpoint is
    checked against its rule options too, not only its name and player count)."""
    name, args, options = spec_options(spec, game)
    kind = _KINDS[name]
    if not kind.object_game and game is not None and not isinstance(game, str):
        game = game.name
    try:
        agent = kind.factory(*args, game=game, num_players=num_players, seed=seed, **options)
    except TypeError as e:
        raise ValueError(f"bad options for agent {spec!r}: {e}") from None
    agent.name = spec
    return agent
