"""The network alone against the heuristic at each step of a training recipe, as a table and a curve.

Each ``--step NAME=CHECKPOINT`` is played greedy against the heuristic (``--games`` games per seed, seats
rotated, the evaluation of ``meeplezoo.training.ppo.evaluate``) on every ``--seed``; a row per step and seed
is kept in ``--json`` (a step already there is not played again) and the curve (win rate with its 95%
interval against the training CPU hours the checkpoint records) is drawn to ``--png``.

    .venv/bin/python benchmarks/net_steps.py --game haus_der_sonne \\
        --step imitation=runs/hds_derived_imitation.zip --step distill=runs/distill/hds_derived/final.zip \\
        --json benchmarks/results/distill_haus_der_sonne-2p/steps.json
"""

from __future__ import annotations

import argparse
import json
import os

import meeplezoo
from meeplezoo.agents.network import NetworkAgent, load_network
from meeplezoo.training.arena import wilson_interval
from meeplezoo.training.ppo import evaluate


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", required=True)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--step", action="append", required=True, metavar="NAME=CHECKPOINT")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, action="append", default=None, help="evaluation seeds (default 11 and 12)")
    p.add_argument("--json", required=True)
    p.add_argument("--png", default=None, help="the curve (default: --json with .png)")
    args = p.parse_args()
    seeds = args.seed or [11, 12]
    game = meeplezoo.make_game(args.game, args.players)
    rows = json.load(open(args.json)) if os.path.exists(args.json) else []
    for item in args.step:
        name, _, path = item.partition("=")
        net = load_network(path, game)
        for seed in seeds:
            if any(r["step"] == name and r["seed"] == seed and r["games"] == args.games for r in rows):
                continue
            res = evaluate(NetworkAgent(net), game, ["heuristic"], args.games, seed=seed)["heuristic"]
            rows.append({"step": name, "checkpoint": path, "seed": seed, "games": res.games,
                         "win_rate": res.win_rate, "ci_low": res.interval[0], "ci_high": res.interval[1],
                         "training_cpu_hours": round(float(net.metadata.get("training_cpu_seconds", 0)) / 3600, 3)})
            print(f"{name:<12} seed {seed}: {res.win_rate:.3f} [{res.interval[0]:.3f}, {res.interval[1]:.3f}]",
                  flush=True)
            os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
    steps: dict[str, list[dict]] = {}
    for r in rows:
        steps.setdefault(r["step"], []).append(r)
    print(f"{'step':<12} {'games':>6} {'win rate':>9}  95% interval      CPU h")
    points = []
    for name, rs in steps.items():
        n = sum(r["games"] for r in rs)
        w = sum(r["win_rate"] * r["games"] for r in rs)
        lo, hi = wilson_interval(w, n)
        points.append((rs[0]["training_cpu_hours"], w / n, lo, hi, name))
        print(f"{name:<12} {n:>6} {w / n:>9.3f}  [{lo:.3f}, {hi:.3f}]  {rs[0]['training_cpu_hours']:.2f}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return 0
    points.sort()
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [pt[0] for pt in points]
    ax.errorbar(xs, [pt[1] for pt in points], yerr=[[pt[1] - pt[2] for pt in points], [pt[3] - pt[1] for pt in points]],
                marker="o", capsize=4)
    for x, y, _lo, _hi, name in points:
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, -12))
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("training CPU hours")
    ax.set_ylabel("win rate vs heuristic (network alone)")
    ax.set_title(f"{args.game}, {args.players} players")
    fig.tight_layout()
    fig.savefig(args.png or os.path.splitext(args.json)[0] + ".png", dpi=100)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
