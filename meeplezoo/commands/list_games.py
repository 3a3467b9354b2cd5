"""``meeplezoo list [GAME]``: the games and their rule options."""

from __future__ import annotations

import argparse
from typing import Any

from meeplezoo.registry import game_class, list_envs


def add_parser(sub: Any) -> None:
    p = sub.add_parser("list", help="list the games and their rule options")
    p.add_argument("game", nargs="?", default=None, help="only this game")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    names = list_envs()
    if args.game is not None:  # example games (the template) are listed when asked for by name
        if args.game not in list_envs(include_examples=True):
            raise ValueError(f"unknown game {args.game!r}; available: {', '.join(names)}")
        names = [args.game]
    for name in names:
        try:
            g = game_class(name)
        except ImportError as e:  # pragma: no cover - a broken install
            print(f"{name:<16} (unavailable: {e})")
            continue
        print(f"{name:<16} {g.pretty_name:<16} players {g.min_players}-{g.max_players}")
        for o in g.options_spec:
            print(f"    {o.name} = {o.default!r}" + (f"  ({o.doc})" if o.doc else ""))
    return 0
