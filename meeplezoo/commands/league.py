"""``meeplezoo league run|table|plot``: self-play leagues from the command line.

    meeplezoo league run --game kerala --players 4 \\
        --agents random,heuristic,mcts:sims=200,ppo:runs/kerala/best.zip \\
        --matches 400 --db league.sqlite --workers 2 [--resume] [--backend ray --address auto] [--seed S] \\
        [--rating-lag N]
    meeplezoo league table --db league.sqlite [--csv F | --json F]
    meeplezoo league plot --db league.sqlite --out ratings.png

Imports nothing heavy at import time (the CLI loads this module for every command).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Any

from meeplezoo.training import league as leagues
from meeplezoo.training.executor import EXECUTION_KNOBS
from meeplezoo.training.league import LeagueConfig, LeagueStorage, config_from_identity
from meeplezoo.training.ratings import RatingConfig

from .common import add_game_args, float_arg, int_arg, output_file, parse_options, seed_arg, split_agents


def add_parser(subparsers: Any) -> None:
    """Register ``league`` and its subcommands."""
    league = subparsers.add_parser("league", help="self-play leagues: run, table, plot")
    sub = league.add_subparsers(dest="league_command", required=True)

    p = sub.add_parser("run", help="play (or resume) a league stored in SQLite",
                       description="Play a league of agents with openskill ratings; every match is stored in --db. "
                                   "With --resume, everything not given is read from the database.")
    p.add_argument("--game", default=None, help="game id (see `meeplezoo list`)")
    add_game_args(p, game_positional=False)
    p.add_argument("--agents", default=None,
                   help="comma-separated agent specs, optionally labelled label=spec "
                        "(e.g. random,heuristic,mcts:sims=200,best=ppo:runs/kerala/best.zip)")
    p.add_argument("--matches", type=int_arg(0), default=None, help="total matches the league should hold")
    p.add_argument("--db", required=True, help="SQLite file of the league")
    p.add_argument("--resume", action="store_true", help="continue the league stored in --db")
    EXECUTION_KNOBS.add_arguments(p)
    p.add_argument("--seed", type=seed_arg, default=None, help="league seed (default 0)")
    p.add_argument("--round-size", type=int_arg(1), default=None,
                   help="matches per scheduling round (multiple of the player count; default players * max(4, agents))")
    p.add_argument("--rating-lag", type=int_arg(0), default=None, metavar="N",
                   help="round r is drawn from the ratings after rounds up to r-1-N, so N+1 rounds play at once "
                        "(stored with the league; default the fewest rounds holding 64 matches, at least 1; "
                        "0: every round waits for the one before it)")
    p.add_argument("--rating-model", default=None,
                   help="openskill model: plackett_luce (default), bradley_terry_full, bradley_terry_part, "
                        "thurstone_mosteller_full, thurstone_mosteller_part")
    p.add_argument("--tau", type=float_arg(0), default=None,
                   help="openskill dynamics factor (default 0: frozen agents)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("table", help="the league table: ratings with intervals, head to head, seats")
    p.add_argument("--db", required=True)
    p.add_argument("--csv", metavar="FILE", type=output_file, help="also write the agent table as CSV")
    p.add_argument("--json", metavar="FILE", type=output_file,
                   help="also write everything (ratings, head to head, seats) as JSON")
    p.set_defaults(func=cmd_table)

    p = sub.add_parser("plot", help="ratings over the matches and the head-to-head heatmap (matplotlib)")
    p.add_argument("--db", required=True)
    p.add_argument("--out", default="ratings.png", type=output_file, help="image file (png, svg, pdf)")
    p.set_defaults(func=cmd_plot)


def _config_from_args(args: argparse.Namespace) -> Any:
    """The league configuration the arguments ask for (None: take the stored one on --resume)."""
    identity_args = (args.game, args.agents, args.players, args.variant, args.game_version, args.option, args.seed,
                     args.round_size, args.rating_model, args.tau, args.rating_lag)
    base = None
    if args.resume:
        if all(a is None for a in identity_args):
            return None
        if not LeagueStorage.exists(args.db):
            raise ValueError(f"no league database at {args.db!r} to resume")
        base = config_from_identity(LeagueStorage.read_header(args.db)[0])
    else:
        missing = [flag for flag, v in (("--game", args.game), ("--agents", args.agents), ("--matches", args.matches))
                   if v is None]
        if missing:
            raise ValueError(f"a new league needs {', '.join(missing)} (or --resume to continue {args.db})")
    options = dict(base.options) if base is not None and (args.game is None or args.game == base.game) else {}
    options.update(parse_options(args.option))
    if args.variant is not None:
        options["variant"] = args.variant
    if args.game_version is not None:
        options["version"] = args.game_version
    rating = base.rating if base is not None else RatingConfig()
    if args.rating_model is not None or args.tau is not None:
        d = rating.to_dict()
        if args.rating_model is not None:
            d["model"] = args.rating_model
        if args.tau is not None:
            d["tau"] = args.tau
        rating = RatingConfig.from_dict(d)

    def pick(value: Any, stored: Any, default: Any) -> Any:
        return value if value is not None else (stored if base is not None else default)

    return LeagueConfig(
        game=pick(args.game, base and base.game, None),
        agents=split_agents(args.agents) if args.agents is not None else (base.agents if base else []),
        num_players=pick(args.players, base and base.num_players, None),
        options=options,
        seed=pick(args.seed, base and base.seed, 0),
        round_size=pick(args.round_size, base and base.round_size, None),
        rating=rating,
        max_decisions=base.max_decisions if base is not None else 100_000,
        rating_lag=args.rating_lag,  # None: the stored lag on --resume, the default for a new league
    )


def cmd_run(args: argparse.Namespace) -> int:
    execution = EXECUTION_KNOBS.from_args(args)
    config = _config_from_args(args)
    if args.resume and args.matches is None:  # a league opened through the API (or killed early) stores no target
        if LeagueStorage.exists(args.db):
            with LeagueStorage.open(args.db, readonly=True) as store:
                stored_target = store.target_matches
            if stored_target == 0:
                print(f"error: {args.db} stores no target number of matches; give one with --matches N "
                      f"(`meeplezoo league run --db {args.db} --resume --matches N`)", file=sys.stderr)
                return 2
    try:
        league = leagues.run_league(config, args.db, args.matches, resume=args.resume, progress=not args.quiet,
                                    **execution)
    except RuntimeError as e:  # a match failed; what was played is stored
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # every finished match is already committed
        stored = len(leagues.read_league(args.db)[1]) if LeagueStorage.exists(args.db) else 0
        print(f"\ninterrupted: {stored} matches stored in {args.db}; `meeplezoo league run --db {args.db} --resume` "
              "continues", file=sys.stderr)
        return 130
    with league:
        st = league.standings()
        print(leagues.describe(league.resolved.identity, st.matches, league.storage.target_matches))
        print(st.format())
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    identity, st, _ = leagues.league_standings(args.db)
    target = leagues.read_league(args.db)[2]
    print(leagues.describe(identity, st.matches, target))
    print(st.format())
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"league": identity, "target_matches": target, **st.to_dict()}, f, indent=2)
        print(f"JSON written to {args.json}")
    if args.csv:
        rows = st.to_dict()["agents"]
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["rank", "agent", "mu", "sigma", "ordinal", "elo", "elo_low", "elo_high", "games", "win_rate",
                        "win_low", "win_high", "mean_rank", "mean_score", "mean_margin"])
            for r in rows:
                w.writerow([r["rank"], r["agent"], r["mu"], r["sigma"], r["ordinal"], r["elo"], *r["elo_interval"],
                            r["games"], r["win_rate"], *r["win_interval"], r["mean_rank"], r["mean_score"],
                            r["mean_margin"]])
        print(f"CSV written to {args.csv}")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    print(f"plot written to {leagues.plot_league(args.db, args.out)}")
    return 0
