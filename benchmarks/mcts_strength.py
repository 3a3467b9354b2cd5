"""Strength of information-set MCTS against each game's heuristic, 2 players, both seats.

For every game whose engine and heuristic import: ``--games`` matches of
MCTS (``--sims`` simulations per decision, default 400) against the heuristic,
MCTS in seat 0 in even games and seat 1 in odd ones.  The table gives the MCTS
win rate (a shared first place counts as a split win) with its 95% Wilson
interval, the win rate per seat, the mean score margin and the average time per
MCTS decision.  Matches run in a process pool; the JSON file is rewritten
after every match, so a long background run can be read (or stopped) at any
time, and ``--minutes`` stops each game's matches after a wall-clock budget.

    nohup python benchmarks/mcts_strength.py --games 100 --workers 2 \\
        --json benchmarks/results/mcts_strength.json > mcts_strength.log 2>&1 &
    python benchmarks/mcts_strength.py --game kerala --games 10 --mcts "mcts:sims=400:rollout=heuristic"
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing as mp
import platform
import sys
import time
from typing import Any

import numpy as np

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.registry import HEURISTICS
from meeplezoo.training.arena import play_match, wilson_interval

#: the MCTS configuration per game (400 simulations each); ``--mcts`` replaces them all.  The evaluation
#: of a leaf is chosen by what the game's provisional score says mid-game: Kerala's is the final scoring
#: of the platform so far (a leaf is valued from it directly); Hawaii's points come during the game (a
#: short random rollout, then the score margin); Haus der Sonne and Asara score mostly at the end (random
#: rollouts to the end).  Heuristic rollouts are allowed but cost 10-100x more per simulation here.
DEFAULT_MCTS = {
    "kerala": "mcts:sims=400:rollout_depth=0",
    "hawaii": "mcts:sims=400:rollout_depth=20",
    "haus_der_sonne": "mcts:sims=400",
    "asara": "mcts:sims=400",
}


def available(name: str) -> str | None:
    """None if the game and its heuristic import, else the reason they don't."""
    try:
        meeplezoo.registry.game_class(name)
        importlib.import_module(HEURISTICS[name].split(":")[0])
    except ImportError as e:
        return str(e)
    return None


def one_match(task: tuple[str, str, str, int, int, float | None]) -> dict[str, Any] | None:
    """Play one match; ``None`` when the run's deadline has passed before it started."""
    name, mcts_spec, opp_spec, seed, mcts_seat, deadline = task
    if deadline is not None and time.time() > deadline:
        return None
    game = meeplezoo.make_game(name, 2)
    mcts = make_agent(mcts_spec, name, num_players=2, seed=seed)
    opp = make_agent(opp_spec, name, num_players=2, seed=seed + 1)
    seats = [mcts, opp] if mcts_seat == 0 else [opp, mcts]
    t0 = time.perf_counter()
    result = play_match(game, seats, seed)
    wall = time.perf_counter() - t0
    winners = [p for p in range(2) if result.placements[p] == 0]
    win = 1.0 / len(winners) if mcts_seat in winners else 0.0
    return {"game": name, "seed": seed, "mcts_seat": mcts_seat, "win": win, "scores": result.scores,
            "margin": result.scores[mcts_seat] - result.scores[1 - mcts_seat],
            "mcts_decisions": mcts.total_decisions, "mcts_seconds": mcts.total_seconds,
            "mcts_sims": mcts.total_simulations, "decisions": result.length, "wall_s": wall}


def summarise(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    wins = sum(r["win"] for r in rows)
    lo, hi = wilson_interval(wins, n)
    dec = sum(r["mcts_decisions"] for r in rows)
    secs = sum(r["mcts_seconds"] for r in rows)
    seat = {}
    for s in (0, 1):
        rs = [r for r in rows if r["mcts_seat"] == s]
        seat[s] = (sum(r["win"] for r in rs) / len(rs)) if rs else float("nan")
    return {"game": name, "games": n, "wins": wins, "win_rate": wins / n if n else float("nan"),
            "ci95": [lo, hi], "win_rate_seat0": seat[0], "win_rate_seat1": seat[1],
            "mean_margin": float(np.mean([r["margin"] for r in rows])) if rows else float("nan"),
            "s_per_move": secs / dec if dec else float("nan"),
            "sims_per_s": sum(r["mcts_sims"] for r in rows) / secs if secs else float("nan"),
            "mean_wall_s_per_game": float(np.mean([r["wall_s"] for r in rows])) if rows else float("nan")}


def table(summaries: list[dict[str, Any]]) -> str:
    out = [f"{'game':<16} {'games':>5} {'win rate':>8} {'95% interval':>16} {'seat 0':>6} {'seat 1':>6} "
           f"{'margin':>7} {'s/move':>7} {'sims/s':>7}"]
    for s in summaries:
        lo, hi = s["ci95"]
        out.append(f"{s['game']:<16} {s['games']:>5} {s['win_rate']:>8.3f} {f'[{lo:.3f}, {hi:.3f}]':>16} "
                   f"{s['win_rate_seat0']:>6.2f} {s['win_rate_seat1']:>6.2f} {s['mean_margin']:>7.2f} "
                   f"{s['s_per_move']:>7.3f} {s['sims_per_s']:>7.0f}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", dest="games_list", action="append", help="only this game (repeatable)")
    p.add_argument("--games", type=int, default=100, help="matches per game (half with MCTS in each seat)")
    p.add_argument("--mcts", default=None, help="the MCTS agent spec for every game (default: DEFAULT_MCTS, per game)")
    p.add_argument("--opponent", default="heuristic", help="the opponent's agent spec")
    p.add_argument("--workers", type=int, default=1, help="processes playing matches in parallel")
    p.add_argument("--minutes", type=float, default=None,
                   help="wall-clock budget for the whole run; matches not started by then are skipped")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="FILE", help="write the summary and every match as JSON (after each match)")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games must be at least 1")

    names = []
    for name in args.games_list or meeplezoo.list_envs():
        why = available(name)
        if why is None:
            names.append(name)
        else:
            print(f"{name}: skipped ({why})")
    if not names:
        print("no game with a heuristic has landed")
        return 1
    deadline = None if args.minutes is None else time.time() + 60 * args.minutes
    seeds = np.random.SeedSequence(args.seed).generate_state(args.games, dtype=np.uint32)
    # interleave the games so that a stopped run still covers each of them
    specs = {name: args.mcts or DEFAULT_MCTS.get(name, "mcts:sims=400") for name in names}
    tasks = [(name, specs[name], args.opponent, int(seeds[g]), g % 2, deadline)
             for g in range(args.games) for name in names]
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    t0 = time.time()

    def write() -> list[dict[str, Any]]:
        summaries = [{**summarise(nm, rows[nm]), "mcts": specs[nm]} for nm in names if rows[nm]]
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"benchmark": "mcts_strength", "mcts": specs, "opponent": args.opponent,
                           "players": 2, "games_requested": args.games, "seed": args.seed,
                           "python": platform.python_version(), "elapsed_s": time.time() - t0,
                           "summary": summaries, "matches": rows}, f, indent=1)
        return summaries

    print(f"MCTS vs {args.opponent}, 2 players, {args.games} games per game, {args.workers} worker(s)")
    for name in names:
        print(f"  {name}: {specs[name]}", flush=True)
    if args.workers > 1:
        pool = mp.get_context("spawn").Pool(args.workers)
        results = pool.imap_unordered(one_match, tasks)
    else:
        pool = None
        results = map(one_match, tasks)
    try:
        for r in results:
            if r is None:
                continue
            rows[r["game"]].append(r)
            done = len(rows[r["game"]])
            print(f"  {r['game']:<16} game {done:>3}: MCTS seat {r['mcts_seat']} win {r['win']:.1f} "
                  f"scores {r['scores']} ({r['mcts_seconds'] / max(1, r['mcts_decisions']):.2f} s/move)", flush=True)
            write()
    finally:
        if pool is not None:
            pool.terminate()
    summaries = write()
    print()
    print(table(summaries))
    short = [s["game"] for s in summaries if s["games"] < args.games]
    if short:
        print(f"fewer games than requested (time budget): {', '.join(short)}")
    if args.json:
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
