"""Build (or continue) the shipped ratings of every reference ladder, cheapest configurations first.

Each ladder is a seeded league among its members stored in ``benchmarks/results/ladders/<key>.sqlite``
(resumable: run the same command again after an interruption and it continues from the stored matches); when a
ladder's league is complete its ratings are written to ``training/ladders/<key>.json`` (package data).

    python scripts/build_ladders.py --workers 2                  # every ladder
    python scripts/build_ladders.py --only kerala-2p --only hawaii-2p
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from meeplezoo.training.ladder import BUILD_MATCHES, build_ladder, ladder_path, ladder_specs

#: rough cost order (the search members dominate: Asara's and Haus der Sonne's engines are the slowest to search)
ORDER = ("hawaii", "kerala", "haus_der_sonne", "asara")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--matches", type=int, default=BUILD_MATCHES)
    ap.add_argument("--only", action="append", help="a ladder key (repeatable)")
    ap.add_argument("--db-dir", default="benchmarks/results/ladders")
    args = ap.parse_args()
    specs = sorted(ladder_specs(), key=lambda s: (ORDER.index(s.game), s.num_players, s.options))
    if args.only:
        specs = [s for s in specs if s.key in args.only]
    Path(args.db_dir).mkdir(exist_ok=True)
    for spec in specs:
        if ladder_path(spec).exists():
            print(f"{spec.key}: shipped ({ladder_path(spec)})", flush=True)
            continue
        t0 = time.time()
        ladder = build_ladder(spec, Path(args.db_dir) / f"{spec.key}.sqlite", matches=args.matches,
                              workers=args.workers, progress=False)
        print(ladder.format(), f"\n({time.time() - t0:.0f} s wall)\n", flush=True)


if __name__ == "__main__":
    main()
