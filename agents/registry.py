"""Build agents from spec strings: ``name[:positional][:key=value]...``.

Examples: ``random``, ``heuristic``, ``mcts:sims=400:rollout=heuristic``,
``ppo:runs/kerala/best.zip`` (a bare path ending in ``.zip`` means ``ppo:PATH``),
``sb3:model.zip`` (a stable-baselines3 model trained elsewhere), ``net:runs/exit/kerala/best.zip``
(a policy-value network alone), ``netmcts:PATH:time=0.5`` (the search guided by it) and
``pretrained`` (the network shipped with the package for the game; ``pretrained:time=0.5`` searches with it),
``external:PATH`` (another program, speaking JSON lines: :mod:`meeplezoo.agents.external`).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

from meeplezoo.registry import GAMES

from .base import Agent, RandomAgent

# game id -> "module:Class" of its heuristic agent, from each game's GameInfo
HEURISTICS: dict[str, str] = {name: info.heuristic for name, info in GAMES.items() if info.heuristic}

_FACTORIES: dict[str, Callable[..., Agent]] = {}


def register(name: str, factory: Callable[..., Agent]) -> None:
    """Register ``factory(*positional, game=..., num_players=..., seed=..., **options)`` under ``name``."""
    _FACTORIES[name] = factory


def registered() -> list[str]:
    """The names of the registered agent kinds (the first part of a spec)."""
    return list(_FACTORIES)


def _load(path: str) -> Any:
    module, attr = path.split(":")
    return getattr(importlib.import_module(module), attr)


def parse_value(value: str) -> Any:
    """``'true'`` -> True, ``'3'`` -> 3, ``'0.5'`` -> 0.5, anything else stays a string."""
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(value)
        except ValueError:
            pass
    return value


def parse_spec(spec: str) -> tuple[str, list[str], dict[str, Any]]:
    """``"mcts:sims=400:rollout=heuristic"`` -> ``("mcts", [], {"sims": 400, "rollout": "heuristic"})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    if spec.endswith(".zip") and not spec.startswith(("ppo:", "sb3:", "net:", "netmcts:")):
        return "ppo", [spec], {}
    name, *parts = spec.split(":")
    args: list[str] = []
    kwargs: dict[str, Any] = {}
    for part in parts:
        if "=" in part:
            k, v = part.split("=", 1)
            kwargs[k.strip()] = parse_value(v.strip())
        elif part:
            args.append(part)
    return name.strip(), args, kwargs


def _random(*args: str, game: str | None = None, num_players: int | None = None, seed: int | None = None,
            **options: Any) -> Agent:
    if args or options:
        raise ValueError(f"agent 'random' takes no options, got {args or options}")
    return RandomAgent(seed=seed)


def _heuristic(*args: str, game: str | None = None, num_players: int | None = None, seed: int | None = None,
               **options: Any) -> Agent:
    if game not in HEURISTICS:
        raise ValueError(f"no heuristic agent for game {game!r}; games with one: {', '.join(HEURISTICS)}")
    cls = _load(HEURISTICS[game])
    return cls(*args, seed=seed, **options)


def _mcts(*args: str, game: str | None = None, num_players: int | None = None, seed: int | None = None,
          **options: Any) -> Agent:
    mod = importlib.import_module("meeplezoo.agents.mcts")
    preset = options.pop("preset", "tuned")
    if preset not in ("tuned", "plain"):
        raise ValueError(f"mcts: preset must be tuned or plain, got {preset!r}")
    info = GAMES.get(game) if isinstance(game, str) else None
    if preset == "tuned" and info is not None and info.search_defaults:
        tuned = dict(info.search_defaults)
        if args or "sims" in options or "time" in options:  # a budget given is the whole budget
            tuned.pop("sims", None)
            tuned.pop("time", None)
        options = {**tuned, **options}
    return mod.MCTSAgent(*args, game=game, seed=seed, **options)


def _ppo(*args: str, game: str | None = None, num_players: int | None = None, seed: int | None = None,
         **options: Any) -> Agent:
    if len(args) != 1:
        raise ValueError("agent 'ppo' needs a checkpoint path: ppo:PATH.zip")
    cls = _load("meeplezoo.agents.ppo:PPOAgent")
    return cls.load(args[0], game=game, num_players=num_players, seed=seed, **options)


def _net(*args: str, game: str | None = None, num_players: int | None = None, seed: int | None = None,
         **options: Any) -> Agent:
    if len(args) != 1:
        raise ValueError("agent 'net' needs a network checkpoint path: net:PATH.zip")
    return _load("meeplezoo.agents.network:load_agent")(args[0], game, num_players, seed=seed, **options)


def _netmcts(*args: str, game: str | None = None, num_players: int | None = None, seed: int | None = None,
             **options: Any) -> Agent:
    if len(args) != 1:
        raise ValueError("agent 'netmcts' needs a network checkpoint path: netmcts:PATH.zip[:sims=N|:time=S]")
    return _load("meeplezoo.agents.network:network_search")(args[0], game, num_players, seed=seed, **options)


def _pretrained(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
                **options: Any) -> Agent:
    if args:
        raise ValueError(f"agent 'pretrained' takes options only (sims=, time=, search=, sample=, temperature=), "
                         f"got {args}")
    return _load("meeplezoo.agents.pretrained:make_pretrained")(game, num_players, seed=seed, **options)


def _human(*args: str, game: str | None = None, num_players: int | None = None, seed: int | None = None,
           **options: Any) -> Agent:
    cls = _load("meeplezoo.agents.human:HumanAgent")
    return cls(*args, **options)


def _external(*args: str, game: Any = None, num_players: int | None = None, seed: int | None = None,
              **options: Any) -> Agent:
    if len(args) != 1:
        raise ValueError("agent 'external' needs the program's path: external:PATH[:timeout=SECONDS]")
    cls = _load("meeplezoo.agents.external:ExternalAgent")
    return cls(args[0], game=game, num_players=num_players, seed=seed, **options)


register("random", _random)
register("heuristic", _heuristic)
register("mcts", _mcts)
register("ppo", _ppo)
register("net", _net)
register("netmcts", _netmcts)
register("pretrained", _pretrained)
register("human", _human)
register("external", _external)
register("sb3", lambda *a, **kw: _load("meeplezoo.agents.sb3:make_sb3")(*a, **kw))  # plain SB3 models


def _known_options(name: str, game: str | None) -> list[str] | None:
    """The keyword options agent ``name`` accepts (from its class signature), or None if unknown."""
    if name == "mcts":
        target: Any = _load("meeplezoo.agents.mcts:MCTSAgent")
    elif name == "heuristic" and game in HEURISTICS:
        target = _load(HEURISTICS[game])
    elif name == "random":
        return []
    else:
        return None
    params = inspect.signature(target.__init__).parameters.values()
    if any(p.kind is p.VAR_KEYWORD and p.name != "options" for p in params):
        return None
    hidden = {"self", "seed", "game", "num_players"}
    extra = ["preset"] if name == "mcts" else []
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return extra + [p.name for p in params if p.kind in kinds and p.name not in hidden]


def make(spec: str, game: Any = None, *, num_players: int | None = None, seed: int | None = None) -> Agent:
    """Build an agent from its spec for ``game``: a registry id, or a Game object (then a checkpoint is
    checked against its rule options too, not only its name and player count)."""
    name, args, kwargs = parse_spec(spec)
    if name not in _FACTORIES:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known agents: {', '.join(_FACTORIES)}")
    if name not in ("ppo", "net", "netmcts", "pretrained") and game is not None and not isinstance(game, str):
        game = game.name
    known = _known_options(name, game)
    if known is not None:
        bad = [k for k in kwargs if k not in known]
        if bad:
            raise ValueError(f"unknown option{'s' if len(bad) > 1 else ''} {', '.join(map(repr, bad))} for agent "
                             f"{name!r} in spec {spec!r}; known options: {', '.join(known) or 'none'}")
    try:
        agent = _FACTORIES[name](*args, game=game, num_players=num_players, seed=seed, **kwargs)
    except TypeError as e:
        raise ValueError(f"bad options for agent {spec!r}: {e}") from None
    agent.name = spec
    return agent
