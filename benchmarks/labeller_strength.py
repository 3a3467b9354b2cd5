"""Strength of expert iteration's labeller: the network-guided search with and without the labeller's knobs.

The Kerala 2-player seat network (``--checkpoint``, default
``benchmarks/results/seat_runs/history/kerala-labeller-net.zip``: the seat run's first recipe after its warm start
and 4 iterations,
read with ``agents.network.load_network`` on Kerala with ``derived_features`` and ``elephant_view``) searches
at ``--sims`` simulations (default 64) against the heuristic, one row per setting of :data:`ROWS`:

* ``puct``: the search as expert iteration runs it by default;
* ``heuristic_prior=0.5``: the network's prior blended half and half with the heuristic's;
* ``root=gumbel``: the Gumbel root (16 candidates, sequential halving, noise at scale 1).

Every row plays the same ``--games`` games (default 40): game ``i`` is the deal ``seed + i // 2`` with the search
in seat ``i % 2``, so each deal is played from both seats.  A win is a first place (a shared first place of k
players counts 1/k); the interval is the 95% Wilson interval; seconds per decision are the search's over the
decisions it searched (those with one legal action take none).  Each finished row is written at once to
``--json`` (default ``benchmarks/results/labeller_strength.json``), with the settings; the table is printed at
the end.

    .venv/bin/python benchmarks/labeller_strength.py                 # 3 rows x 40 games
    .venv/bin/python benchmarks/labeller_strength.py --games 4 --row puct
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import time
from typing import Any

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.network import load_network, network_search
from meeplezoo.training.arena import play_match, wilson_interval

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
#: the settings compared: the row's name and its search options on top of ``sims``
ROWS: dict[str, dict[str, Any]] = {
    "puct": {},
    "heuristic_prior=0.5": {"heuristic_prior": 0.5},
    "root=gumbel": {"root": "gumbel"},
}
#: the observation options the seat network was trained with
OPTIONS = {"derived_features": True, "elephant_view": True}


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def play_row(net: Any, game: Any, options: dict[str, Any], sims: int, games: int, seed: int) -> dict[str, Any]:
    """The games of one row: wins (first places, ties split), win rate, interval, seconds per decision."""
    wins = 0.0
    seconds = 0.0
    searched = 0
    for i in range(games):
        seat = i % 2
        search = network_search(net, seed=seed + i, sims=sims, **options)
        opponent = make_agent("heuristic", game.name, num_players=2)
        agents = [search, opponent] if seat == 0 else [opponent, search]
        result = play_match(game, agents, seed + i // 2)
        firsts = [p for p, place in enumerate(result.placements) if place == 0]
        if seat in firsts:
            wins += 1.0 / len(firsts)
        seconds += search.total_seconds
        searched += search.total_simulations // sims
        print(f"  game {i + 1}/{games}: search in seat {seat}, placements {result.placements}", flush=True)
    lo, hi = wilson_interval(wins, games)
    return {"games": games, "wins": wins, "win_rate": wins / games, "ci_low": lo, "ci_high": hi,
            "seconds_per_decision": seconds / max(searched, 1), "decisions": searched}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checkpoint", default=os.path.join(RESULTS, "seat_runs", "history", "kerala-labeller-net.zip"))
    ap.add_argument("--sims", type=int, default=64)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--row", action="append", choices=list(ROWS), help="rows to play (default all)")
    ap.add_argument("--json", default=os.path.join(RESULTS, "labeller_strength.json"))
    args = ap.parse_args()
    game = meeplezoo.make_game("kerala", 2, **OPTIONS)
    net = load_network(args.checkpoint, game)
    out: dict[str, Any] = {"benchmark": "labeller_strength", "game": "kerala", "players": 2, "options": OPTIONS,
                           "checkpoint": os.path.relpath(args.checkpoint, os.path.dirname(HERE)),
                           "checkpoint_sha256": _sha256(args.checkpoint), "sims": args.sims,
                           "opponent": "heuristic", "seed": args.seed, "machine": platform.machine(),
                           "python": platform.python_version(), "rows": []}
    if os.path.exists(args.json):  # rows of an earlier run of the same setting are kept
        with open(args.json) as f:
            old = json.load(f)
        if all(old.get(k) == out[k] for k in ("checkpoint_sha256", "sims", "seed")):
            out["rows"] = [r for r in old.get("rows", []) if r["row"] not in (args.row or ROWS)]
    for name in args.row or list(ROWS):
        print(f"{name}: {args.games} games", flush=True)
        t0 = time.time()
        row = {"row": name, "search_options": {"sims": args.sims, **ROWS[name]},
               **play_row(net, game, ROWS[name], args.sims, args.games, args.seed), "wall_seconds": 0.0}
        row["wall_seconds"] = round(time.time() - t0, 1)
        out["rows"] = [r for r in out["rows"] if r["row"] != name] + [row]
        out["rows"].sort(key=lambda r: list(ROWS).index(r["row"]))
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
    print(f"\nKerala 2p, seat network {out['checkpoint']}, sims={args.sims}, against the heuristic")
    print(f"{'setting':<22}{'games':>6}{'win rate':>10}{'95% interval':>18}{'s/decision':>12}")
    for r in out["rows"]:
        interval = f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        print(f"{r['row']:<22}{r['games']:>6}{r['win_rate']:>10.3f}{interval:>18}{r['seconds_per_decision']:>12.3f}")


if __name__ == "__main__":
    main()
