"""How leagues and expert iteration's self-play scale with the number of worker processes.

For each worker count (1 .. ``os.cpu_count()`` by default) it times two jobs on Hawaii, 2 players:

``league``
    A fresh league of ``heuristic``, ``mcts:sims=16`` and ``mcts:sims=32`` with the default rating lag
    (several rounds in flight, two matches per worker submitted): matches per second.
``exit``
    Expert iteration's self-play data generation (:func:`meeplezoo.training.exit.generate`) with the
    shipped Hawaii network as the expert's prior and value, 16 simulations a decision: games per second.

The workers are started before the clock starts (a process pool's start-up is not counted); each setting
plays about ``--seconds`` of work (the number of matches or games is sized from a one-worker probe and the
worker count, so a setting that scales well runs as long as one that does not run longer).  ``efficiency``
is the speed-up over one worker divided by the workers (1.0: perfect scaling).  A table to stdout and the
rows to ``benchmarks/results/scaling.json``; ``--quick`` checks the script in a few seconds a setting
(one and two workers, results written only with ``--out``).

    .venv/bin/python benchmarks/scaling.py                       # 1 .. cpu_count workers, ~45 s a setting
    .venv/bin/python benchmarks/scaling.py --workers 1,2,4,8,16
    .venv/bin/python benchmarks/scaling.py --quick --out /tmp/scaling.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import tempfile
import time
from pathlib import Path

from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.registry import make_game
from meeplezoo.training.executor import make_executor
from meeplezoo.training.exit import ExItConfig, generate
from meeplezoo.training.league import LeagueConfig, open_league

RESULTS = Path(__file__).resolve().parent / "results" / "scaling.json"
LEAGUE_AGENTS = ["heuristic", "mcts:sims=16", "mcts:sims=32"]
EXIT_SIMS = 16


def time_league(workers: int, matches: int, tmp: str) -> float:
    """Matches per second of a fresh Hawaii 2p league of ``matches`` on ``workers`` (pool started first)."""
    cfg = LeagueConfig(game="hawaii", num_players=2, agents=LEAGUE_AGENTS, seed=1)
    db = os.path.join(tmp, f"league-{workers}-{matches}-{time.monotonic_ns()}.sqlite")
    with make_executor(workers, who="league") as ex, open_league(db, cfg) as league:
        t0 = time.perf_counter()
        league.run(matches, workers=workers, progress=False, executor=ex)
        return matches / (time.perf_counter() - t0)


def time_exit(workers: int, games: int) -> float:
    """Games per second of expert-iteration self-play on Hawaii 2p (the shipped network, a small search)."""
    cfg = ExItConfig(game="hawaii", num_players=2, sims=EXIT_SIMS, seed=1)
    net = str(checkpoint_path(make_game("hawaii", 2)))
    seeds = [10_000 + i for i in range(games)]
    with make_executor(workers, who="exit") as ex:
        t0 = time.perf_counter()
        generate(cfg, "selfplay", seeds, net, workers=workers, pool=ex)
        return games / (time.perf_counter() - t0)


def worker_counts(args: argparse.Namespace) -> list[int]:
    if args.workers:
        counts = sorted({int(w) for w in args.workers.split(",")})
        if counts[0] < 1:
            raise SystemExit("--workers: counts must be >= 1")
    else:
        top = args.workers_max or (2 if args.quick else os.cpu_count() or 1)
        counts = list(range(1, top + 1))
    if args.workers_max:
        counts = [w for w in counts if w <= args.workers_max]
    return sorted({1, *counts})  # one worker is the baseline of the efficiency


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workers", default=None, help="comma-separated worker counts (default 1 .. cpu_count)")
    p.add_argument("--workers-max", type=int, default=None, help="the most workers to time")
    p.add_argument("--seconds", type=float, default=None, help="work per setting (default 45, --quick 3)")
    p.add_argument("--what", default="league,exit", help="league, exit or both (comma-separated)")
    p.add_argument("--quick", action="store_true", help="a few seconds a setting, 1 and 2 workers: checks the script")
    p.add_argument("--out", default=None,
                   help="JSON file (default benchmarks/results/scaling.json; --quick writes only where given)")
    args = p.parse_args()
    seconds = args.seconds or (3.0 if args.quick else 45.0)
    counts = worker_counts(args)
    whats = [w.strip() for w in args.what.split(",") if w.strip()]
    if set(whats) - {"league", "exit"}:
        p.error(f"--what: league or exit, got {args.what!r}")
    rows = []
    print(f"{'what':<7} {'workers':>7} {'units':>6} {'seconds':>8} {'per_second':>10} {'speed-up':>8} "
          f"{'efficiency':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for what in whats:
            unit = 8 if what == "league" else 2  # a league round / two games
            run = (lambda w, n: time_league(w, n, tmp)) if what == "league" else time_exit
            probe = run(1, unit)  # per second on one worker (sizes every setting)
            base = None
            for w in counts:
                n = max(unit, unit * math.ceil(seconds * probe * w / unit))
                rate = run(w, n)
                base = base or rate
                row = {"what": what, "workers": w, "units": n, "per_second": round(rate, 4),
                       "speed_up": round(rate / base, 3), "efficiency": round(rate / base / w, 3)}
                rows.append(row)
                print(f"{what:<7} {w:>7} {n:>6} {n / rate:>8.1f} {rate:>10.3f} {row['speed_up']:>8.2f} "
                      f"{row['efficiency']:>10.2f}", flush=True)
    out = args.out or (None if args.quick else str(RESULTS))
    if out:
        doc = {"machine": {"cpu_count": os.cpu_count(), "platform": platform.platform(),
                           "python": platform.python_version()},
               "league": {"game": "hawaii", "players": 2, "agents": LEAGUE_AGENTS, "unit": "matches"},
               "exit": {"game": "hawaii", "players": 2, "sims": EXIT_SIMS, "net": "shipped hawaii-2p",
                        "unit": "self-play games"},
               "seconds_per_setting": seconds, "rows": rows}
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(doc, indent=1) + "\n")
        print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
