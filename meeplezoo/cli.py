"""The ``meeplezoo`` command line: one module per command in :mod:`meeplezoo.commands`.

    meeplezoo list [GAME]
    meeplezoo --version
    meeplezoo play kerala --players 3 --agents heuristic,random,human --seed 7 --replay out.json
    meeplezoo replay out.json [--html out.html] [--gif out.gif]
    meeplezoo arena kerala --players 4 --agents heuristic,random,random,random --games 200 --seed 1
    meeplezoo train kerala --algo exit --iterations 20
    meeplezoo evaluate runs/kerala/best.zip --against random,heuristic
    meeplezoo league run --game kerala --agents random,heuristic,mcts:sims=200 --matches 400 --db league.sqlite
    meeplezoo bench [--seconds 3] [--json out.json]

Building the parser imports no torch, stable-baselines3 or Ray: they load when a command needs them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from meeplezoo import __version__
from meeplezoo.commands import COMMANDS
from meeplezoo.commands.common import (
    SEED_LIMIT,
    add_game_args,
    build_agents,
    float_arg,
    game_from_args,
    int_arg,
    output_dir,
    output_file,
    parse_options,
    seed_arg,
    split_agents,
)
from meeplezoo.commands.replay import load_replay

__all__ = ["build_parser", "main", "SEED_LIMIT", "add_game_args", "build_agents", "float_arg", "game_from_args",
           "int_arg", "load_replay", "output_dir", "output_file", "parse_options", "seed_arg", "split_agents"]


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (each command module adds its own)."""
    parser = argparse.ArgumentParser(prog="meeplezoo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"meeplezoo {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as e:  # bad options, unknown agents, illegal configurations
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, EOFError) as e:  # Ctrl-C, or input ended at a prompt: one line, no traceback
        what = "end of input" if isinstance(e, EOFError) else "interrupted"
        print(f"\n{what}: meeplezoo {args.command} stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
