"""Rate every member of a shipped ladder as if it were new: each should land within its shipped interval.

    python benchmarks/ladder_check.py kerala --players 2 --games 60 \\
        --json benchmarks/results/ladder_check_kerala-2p.json
"""

from __future__ import annotations

import argparse
import json
import time

from meeplezoo.training.ladder import load_ladder
from meeplezoo.training.rate import rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    ladder = load_ladder(args.game, args.players)
    rows = []
    print(f"ladder {ladder.name}: each member rated as new over {args.games} games (seed {args.seed})")
    print(f"{'member':<22} {'shipped elo':>11} {'rated elo':>10} {'rated 95%':>14} {'inside':>6} {'min':>5}")
    for m in ladder.members:
        t0 = time.perf_counter()
        r = rate(m.spec, args.game, args.players, games=args.games, seed=args.seed, workers=args.workers,
                 ladder=ladder)
        shipped = m.elo(ladder.rating)[0]
        inside = r.elo_low <= shipped <= r.elo_high
        rows.append({"member": m.label, "shipped_elo": shipped, "rated_elo": r.elo,
                     "rated_interval": [r.elo_low, r.elo_high], "inside": inside,
                     "wall_seconds": time.perf_counter() - t0, "cpu_seconds": r.cpu_seconds})
        print(f"{m.label:<22} {shipped:>11.0f} {r.elo:>10.0f} {f'[{r.elo_low:.0f},{r.elo_high:.0f}]':>14} "
              f"{str(inside):>6} {rows[-1]['wall_seconds'] / 60:>5.1f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ladder": ladder.name, "games": args.games, "seed": args.seed, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
