"""What the commands share: argument types that check numbers and output paths, and the game arguments.

A bad number or output path is an argparse error naming the flag, before anything runs.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Sequence
from typing import Any

from meeplezoo.agents import make as make_agent
from meeplezoo.agents.registry import parse_value
from meeplezoo.registry import make_game

# -- argument types: a bad number or output path is an argparse error naming the flag, before anything runs --
#: seeds are non-negative integers below this
SEED_LIMIT = 2**64


def int_arg(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in ``[lo, hi]`` (either bound optional)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            want = (f"between {lo} and {hi}" if lo is not None and hi is not None
                    else f">= {lo}" if lo is not None else f"<= {hi}")
            raise argparse.ArgumentTypeError(f"must be an integer {want}, got {text}")
        return value

    parse.__name__ = "integer"
    return parse


def float_arg(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number ``>= lo`` (``> lo`` with ``lo_open``) and ``<= hi``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        low_bad = lo is not None and (value <= lo if lo_open else value < lo)
        if not math.isfinite(value) or low_bad or (hi is not None and value > hi):
            parts = ([f"{'>' if lo_open else '>='} {lo:g}"] if lo is not None else []) + \
                ([f"<= {hi:g}"] if hi is not None else [])
            raise argparse.ArgumentTypeError(f"must be a finite number {' and '.join(parts)}, got {text}".rstrip())
        return value

    parse.__name__ = "number"
    return parse


def seed_arg(text: str) -> int:
    """An argparse type: a seed, a non-negative integer below 2**64."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed must be an integer, got {text!r}") from None
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed must be a non-negative integer below 2**64, got {text}")
    return value


def _writable_dir(directory: str) -> str | None:
    """Why files cannot be written in ``directory`` (None: they can)."""
    if not os.path.exists(directory):
        return f"directory {directory!r} does not exist"
    if not os.path.isdir(directory):
        return f"{directory!r} is not a directory"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"directory {directory!r} is not writable"
    return None


def output_file(text: str) -> str:
    """An argparse type: a file this command can write (its directory exists and is writable)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a file name")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    if os.path.exists(text) and not os.access(text, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text!r} is not writable")
    problem = _writable_dir(os.path.dirname(text) or ".")
    if problem:
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {problem}")
    return text


def output_dir(text: str) -> str:
    """An argparse type: a folder this command can fill (existing, or creatable in an existing writable folder)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a folder name")
    path = os.path.abspath(text)
    if os.path.exists(path):
        problem = _writable_dir(path)
    else:
        parent = os.path.dirname(path)
        while not os.path.exists(parent) and os.path.dirname(parent) != parent:
            parent = os.path.dirname(parent)  # missing folders above are created too
        problem = _writable_dir(parent)
        if problem:
            problem = f"cannot create {text!r}: {problem}"
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def parse_options(items: Sequence[str] | None) -> dict[str, Any]:
    """``["variant=tactical", "x=3"]`` -> ``{"variant": "tactical", "x": 3}``."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"error: rule option {item!r} must look like NAME=VALUE")
        k, v = item.split("=", 1)
        out[k.strip()] = parse_value(v.strip())
    return out


def player_counts_arg(text: str) -> tuple[int, ...]:
    """An argparse type: one player count or several, comma-separated (``2,3,4``), sorted."""
    one = int_arg(1)
    counts = sorted({one(part.strip()) for part in text.split(",") if part.strip()})
    if not counts:
        raise argparse.ArgumentTypeError(f"expected player counts such as 2 or 2,3,4, got {text!r}")
    return tuple(counts)


def add_game_args(p: argparse.ArgumentParser, game_positional: bool = True, several_counts: bool = False) -> None:
    """The arguments that name a game configuration: the game, ``--players``, ``--variant``, ``--version``, ``-o``
    (``several_counts``: ``--players`` may list counts, ``2,3,4``; the game is that of the smallest)."""
    if game_positional:
        p.add_argument("game", help="game id (see `meeplezoo list`)")
    if several_counts:
        p.add_argument("--players", type=player_counts_arg, default=None, metavar="N[,N...]",
                       help="number of players, or several comma-separated (expert iteration's seat network)")
    else:
        p.add_argument("--players", type=int_arg(1), default=None, help="number of players")
    p.add_argument("--variant", default=None, help="variant (haus_der_sonne: base|tactical)")
    p.add_argument("--version", dest="game_version", default=None, help="version (asara: base|professional)")
    p.add_argument("--option", "-o", action="append", metavar="NAME=VALUE", help="a rule option (repeatable)")


def game_from_args(args: argparse.Namespace) -> Any:
    """The Game the game arguments (:func:`add_game_args`) name."""
    opts = parse_options(args.option)
    if getattr(args, "variant", None) is not None:
        opts["variant"] = args.variant
    if getattr(args, "game_version", None) is not None:
        opts["version"] = args.game_version
    players = args.players[0] if isinstance(args.players, tuple) else args.players
    return make_game(args.game, players, **opts)


def split_agents(text: str) -> list[str]:
    """``"random, heuristic"`` -> ``["random", "heuristic"]``."""
    return [s.strip() for s in text.split(",") if s.strip()]


def build_agents(specs: list[str], game: Any, seed: int | None) -> list:
    """One agent per seat from ``specs`` (one spec for every seat, or one each)."""
    n = game.num_players
    if len(specs) == 1:
        specs = specs * n
    if len(specs) != n:
        raise SystemExit(f"error: {len(specs)} agents given for {n} players ({', '.join(specs)})")
    return [make_agent(s, game, num_players=n, seed=None if seed is None else seed * 1000 + i)
            for i, s in enumerate(specs)]
