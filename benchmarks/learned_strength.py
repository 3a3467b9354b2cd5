"""Strength of learned networks against the heuristics: the network alone and the search guided by it.

For every 2-player configuration (Kerala, Haus der Sonne base and tactical, Hawaii, Asara base and
professional) the agent ``net:CHECKPOINT`` (greedy, no search) and, with ``--search``,
``netmcts:CHECKPOINT:time=0.5`` play the heuristic, seats alternated on duplicated deals (the deals of
``search_strength.py``).  ``--checkpoint`` is a pattern with ``{game}`` and ``{key}`` (the configuration
key), by default the expert-iteration run directories ``runs/exit/{key}/best.zip``.  Configurations
without a checkpoint are skipped with a note.

Every finished game is one JSON line in ``--matches`` (read back to resume); the summary rows
(``game``, ``players``, ``agent``, ``opponent``, ``games``, ``wins``, ``win_rate``, ``ci_low``,
``ci_high``, ``seconds_per_decision``, ``training_cpu_hours``, ...) are rewritten to ``--json`` after
each game.  The training compute comes from the checkpoint's own metadata.

    .venv/bin/python benchmarks/learned_strength.py --games 200 --search
    .venv/bin/python benchmarks/learned_strength.py --config haus_der_sonne-2 --checkpoint runs/hds/best.zip
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import search_strength as S

from meeplezoo.agents.network import read_network_metadata

TWO_PLAYER = [c for c in S.CONFIGS if c.players == 2]  # noqa: PLR2004
DEFAULT_PATTERN = os.path.join("runs", "exit", "{key}", "best.zip")


def training_cpu_hours(path: str) -> float | None:
    """The CPU hours the checkpoint's trainer recorded (None if it did not)."""
    meta = read_network_metadata(path)
    secs = meta.get("training_cpu_seconds")
    return round(float(secs) / 3600, 3) if isinstance(secs, (int, float)) else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", action="append", help="only this configuration key (repeatable); keys: "
                   + ", ".join(c.key for c in TWO_PLAYER))
    p.add_argument("--checkpoint", default=DEFAULT_PATTERN, help="checkpoint path pattern ({game}, {key})")
    p.add_argument("--games", type=int, default=200, help="games per configuration and agent (even)")
    p.add_argument("--per-pass", type=int, default=10, help="games per configuration in each round-robin pass")
    p.add_argument("--search", action="store_true", help="also the search guided by the network")
    p.add_argument("--search-spec", default="time=0.5", help="netmcts options (default time=0.5)")
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--matches", default=os.path.join(S.RESULTS, "learned_strength_matches.jsonl"))
    p.add_argument("--json", default=os.path.join(S.RESULTS, "learned_strength.json"))
    p.add_argument("--minutes", type=float, default=None, help="stop starting games after this long")
    args = p.parse_args(argv)
    configs = [c for c in TWO_PLAYER if not args.config or c.key in args.config]
    unknown = set(args.config or []) - {c.key for c in configs}
    if unknown:
        p.error(f"unknown configuration(s) {sorted(unknown)}")
    plans: list[tuple[S.Config, str, str]] = []
    for cfg in configs:
        path = args.checkpoint.format(game=cfg.game, key=cfg.key)
        if not os.path.isfile(path):
            print(f"{cfg.key}: no checkpoint at {path}; skipped", flush=True)
            continue
        plans.append((cfg, f"net:{path}", path))
        if args.search:
            plans.append((cfg, f"netmcts:{path}:{args.search_spec}", path))
    deadline = None if args.minutes is None else time.time() + 60 * args.minutes
    matches = S.read_matches(args.matches)
    done = {(m["config"], m["agent"], m["opponent"], m["deal"], m["seat"]) for m in matches}
    todo = {(cfg.key, spec): [t for t in S.schedule(cfg, args.games) if (cfg.key, spec, args.opponent, *t) not in done]
            for cfg, spec, _path in plans}

    def summary() -> list[dict[str, Any]]:
        rows = []
        for cfg, spec, path in plans:
            mine = [m for m in matches
                    if m["config"] == cfg.key and m["agent"] == spec and m["opponent"] == args.opponent]
            if mine:
                row = S.summarise(cfg, spec, args.opponent, mine)
                row["training_cpu_hours"] = training_cpu_hours(path)
                rows.append(row)
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(rows, f, indent=1)
        os.replace(tmp, args.json)
        return rows

    while any(todo.values()):
        for cfg, spec, _path in plans:
            key = (cfg.key, spec)
            batch, todo[key] = todo[key][:args.per_pass], todo[key][args.per_pass:]
            for deal, seat in batch:
                if deadline is not None and time.time() > deadline:
                    print("time budget spent", flush=True)
                    print(S.table(summary()))
                    return 0
                m = S.play_one(cfg, spec, args.opponent, deal, seat, args.seed)
                with open(args.matches, "a") as f:
                    f.write(json.dumps(m) + "\n")
                matches.append(m)
                summary()
                print(f"{cfg.key:<26} {spec[:40]:<40} deal {deal:>3} seat {seat}: win {m['win']:.2f}", flush=True)
    if plans:
        print(S.table(summary()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
