"""``meeplezoo arena GAME --agents ...``: many games with rotated seats, and the table of win rates."""

from __future__ import annotations

import argparse
import json
from typing import Any

from meeplezoo.training import arena

from .common import add_game_args, build_agents, game_from_args, int_arg, output_file, seed_arg, split_agents


def add_parser(sub: Any) -> None:
    p = sub.add_parser("arena", help="play many games with rotated seats and print win rates")
    add_game_args(p)
    p.add_argument("--agents", required=True, help="comma-separated agent specs, one per seat")
    p.add_argument("--games", type=int_arg(1), default=100)
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the table as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    agents = build_agents(split_agents(args.agents), game, args.seed)
    stats, results = arena.run_arena(game, agents, args.games, seed=args.seed, progress=not args.quiet)
    print(f"{game.pretty_name}, {game.num_players} players, {args.games} games, seats rotated, seed {args.seed}")
    print(arena.format_table(stats))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({name: {"games": s.games, "wins": s.wins, "win_rate": s.win_rate, "interval": s.interval,
                              "mean_score": s.mean_score, "mean_margin": s.mean_margin, "mean_rank": s.mean_rank}
                       for name, s in stats.items()}, f, indent=2)
    return 0
