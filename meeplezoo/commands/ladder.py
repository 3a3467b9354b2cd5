"""``meeplezoo rate`` and ``meeplezoo ladder list|show|build``: the reference ladders from the command line.

    meeplezoo rate kerala --players 2 --agent mcts:sims=64 [--games 60] [--seed 0] [--workers 2] [--json F]
    meeplezoo ladder list
    meeplezoo ladder show kerala --players 2
    meeplezoo ladder build kerala --players 2 --matches 160 --workers 2 [--db ladders/kerala-2p.sqlite]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from meeplezoo.training.ladder import (
    BUILD_MATCHES,
    build_ladder,
    find_spec,
    ladder_path,
    ladder_specs,
    load_ladder,
    markdown,
    shipped_ladders,
)
from meeplezoo.training.rate import RATE_KNOBS, rate

from .common import add_game_args, int_arg, output_file, parse_options


def add_parser(subparsers: Any) -> None:
    """Register ``rate`` and ``ladder``."""

    p = subparsers.add_parser("rate", help="rate an agent against the reference ladder of a configuration",
                              description="Play a fixed, seeded schedule against the ladder's frozen members and "
                                          "place the agent on the ladder's Elo scale with a 95%% interval.")
    add_game_args(p)
    p.add_argument("--agent", required=True,
                   help="agent spec: heuristic, mcts:sims=200, net:PATH.zip, sb3:PATH.zip, external:PROGRAM, "
                        "or an importable module:Class")
    RATE_KNOBS.add_arguments(p)
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the report as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_rate)

    ladder = subparsers.add_parser("ladder", help="the reference ladders: list, show, build")
    sub = ladder.add_subparsers(dest="ladder_command", required=True)
    p = sub.add_parser("list", help="every ladder configuration, its version and whether ratings are shipped")
    p.add_argument("--markdown", action="store_true", help="print the shipped ladders as one Markdown table")
    p.set_defaults(func=run_list)
    p = sub.add_parser("show", help="a ladder's members and their shipped ratings")
    add_game_args(p)
    p.set_defaults(func=run_show)
    p = sub.add_parser("build", help="rate a ladder's members from a seeded league (resumable) and write its file")
    add_game_args(p)
    p.add_argument("--matches", type=int_arg(1), default=BUILD_MATCHES)
    p.add_argument("--workers", type=int_arg(1), default=1)
    p.add_argument("--db", default=None, help="league database (default: ladders/<key>.sqlite); an existing one "
                   "is resumed")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_build)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    opts = parse_options(args.option)
    if args.variant is not None:
        opts["variant"] = args.variant
    if args.game_version is not None:
        opts["version"] = args.game_version
    return opts


def _spec(args: argparse.Namespace) -> Any:
    return find_spec(args.game, args.players, _options(args))


def run_rate(args: argparse.Namespace) -> int:
    report = rate(args.agent, args.game, args.players, _options(args), **RATE_KNOBS.from_args(args),
                  progress=not args.quiet)
    print(report.format())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=1) + "\n")
    return 0


def run_list(args: argparse.Namespace) -> int:
    if args.markdown:
        print(markdown(shipped_ladders()))
        return 0
    print(f"{'ladder':<32} {'members':>7} {'ratings':<34}")
    for spec in ladder_specs():
        state = "not built"
        if ladder_path(spec).exists():
            try:
                lad = load_ladder(spec.game, spec.num_players, dict(spec.options))
                state = f"{lad.name} ({lad.matches} matches)"
            except ValueError:
                state = "stale: rebuild"
        print(f"{spec.key:<32} {len(spec.members()):>7} {state:<34}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    print(load_ladder(args.game, args.players, _options(args)).format())
    return 0


def run_build(args: argparse.Namespace) -> int:
    spec = _spec(args)
    db = Path(args.db) if args.db else Path("ladders") / f"{spec.key}.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    ladder = build_ladder(spec, db, matches=args.matches, workers=args.workers, progress=not args.quiet)
    print(ladder.format())
    return 0
