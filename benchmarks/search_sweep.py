"""Sweep of search settings against each game's heuristic (2 players): where the tuned defaults come from.

Each candidate (a full agent spec, ``preset=plain`` so that it does not
depend on the current defaults) plays ``--deals`` duplicate deals against the
heuristic (every deal once in each seat) at ``--time`` seconds per decision.
Games are appended to ``--matches`` as they finish and a rerun continues
where the last one stopped; the summary goes to ``--json``.  The candidates
are played round-robin, one deal each per pass.

    .venv/bin/python benchmarks/search_sweep.py --deals 3 --time 0.25
    .venv/bin/python benchmarks/search_sweep.py --game kerala --deals 10
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from search_strength import CONFIGS, RESULTS, Config, play_one, read_matches, summarise

#: per game: the candidates compared (the budget is appended: ``:time=T``)
CANDIDATES: dict[str, list[str]] = {
    "kerala": [
        "mcts:preset=plain:prior=heuristic:c=1.5:rollout_depth=0:widen=2",
        "mcts:preset=plain:prior=heuristic:c=1.5:rollout_depth=0",
        "mcts:preset=plain:prior=heuristic:prior_temp=0.5:c=1.5:rollout_depth=0:widen=2",
    ],
    "haus_der_sonne": [
        "mcts:preset=plain:prior=heuristic:prior_temp=0.5:c=1.5:rollout=heuristic:rollout_epsilon=0.1:rollout_depth=20",
        "mcts:preset=plain:prior=heuristic:prior_temp=0.5:c=1.5",
        "mcts:preset=plain:prior=heuristic:prior_temp=0.5:c=1.5:rollout_depth=0",
    ],
    "hawaii": [
        "mcts:preset=plain:prior=heuristic:c=1.5:rollout_depth=20",
        "mcts:preset=plain:rollout_depth=20",
    ],
    "asara": [
        "mcts:preset=plain:prior=heuristic:c=1.5:rollout=heuristic:rollout_epsilon=0.1:rollout_depth=30",
        "mcts:preset=plain:prior=heuristic:c=1.5:rollout=heuristic:rollout_epsilon=0.1",
        "mcts:preset=plain:prior=heuristic:c=1.5",
    ],
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", action="append", help="only this game (repeatable)")
    p.add_argument("--deals", type=int, default=3, help="duplicate deals per candidate (2 games each)")
    p.add_argument("--time", type=float, default=0.25, help="seconds per decision of every candidate")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--matches", default=os.path.join(RESULTS, "search_sweep_matches.jsonl"))
    p.add_argument("--json", default=os.path.join(RESULTS, "search_sweep.json"))
    args = p.parse_args(argv)
    cfgs = {c.game: c for c in CONFIGS if c.players == 2 and not c.rules}
    games = args.game or list(CANDIDATES)
    matches = read_matches(args.matches)
    done = {(m["agent"], m["deal"], m["seat"]) for m in matches}
    plan = [(cfgs[g], f"{spec}:time={args.time}") for g in games for spec in CANDIDATES[g]]

    def write() -> list[dict]:
        rows = []
        for cfg, spec in plan:
            mine = [m for m in matches if m["agent"] == spec and m["config"] == cfg.key]
            if mine:
                rows.append(summarise(cfg, spec, "heuristic", mine))
        with open(args.json, "w") as f:
            json.dump({"benchmark": "search_sweep", "time_per_decision": args.time, "seed": args.seed,
                       "rows": rows}, f, indent=1)
        return rows

    t0 = time.time()
    for deal in range(args.deals):
        for cfg, spec in plan:
            for seat in range(2):
                if (spec, deal, seat) in done:
                    continue
                m = play_one(Config(cfg.key, cfg.game, 2), spec, "heuristic", deal, seat, args.seed)
                with open(args.matches, "a") as f:
                    f.write(json.dumps(m) + "\n")
                matches.append(m)
                write()
                print(f"{cfg.game:<15} {spec:<100} deal {deal} seat {seat}: win {m['win']:.1f} "
                      f"{m['scores']} ({time.time() - t0:.0f} s)", flush=True)
    for r in write():
        print(f"{r['game']:<15} {r['agent']:<100} {r['games']:>3} {r['win_rate']:.3f} "
              f"[{r['ci_low']:.2f}, {r['ci_high']:.2f}] {r['seconds_per_decision']:.3f} s/dec")
    return 0


if __name__ == "__main__":
    sys.exit(main())
