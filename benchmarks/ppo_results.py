"""The PPO results table: MaskablePPO per game (2 players) against random and heuristic.

For each game: train on one seat against random:1,heuristic:1 for at most
``--minutes`` of wall time, then play the best checkpoint (greedy) against
random and against the heuristic, ``--eval-games`` each with seats rotated
(half the games first, half second), and report win rates with 95% Wilson
intervals, training steps and wall time; a training-curve PNG per game.

    python benchmarks/ppo_results.py --minutes 30                 # the table of docs/research/ppo.md
    python benchmarks/ppo_results.py --games kerala --minutes 5   # one game, quickly
    python benchmarks/ppo_results.py --eval-only                  # re-evaluate the saved runs

Writes ``benchmarks/results/ppo_results.{md,json}`` and ``ppo_curve_<game>.png``;
checkpoints go under ``runs/ppo_results/<game>/``.  ``--parallel N`` trains N
games at once (one process each, DummyVecEnv) when cores allow.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_game(name: str, args: argparse.Namespace) -> dict:
    """Train (unless --eval-only) and evaluate one game; returns its row of the table."""
    import warnings

    warnings.filterwarnings("ignore", category=UserWarning)
    import meeplezoo
    from meeplezoo.agents.ppo import PPOAgent, read_metadata
    from meeplezoo.training.ppo import default_eval_against, default_opponents, evaluate, train

    game = meeplezoo.make_game(name, args.players)
    run_dir = Path(args.runs) / name
    if not args.eval_only:
        opponents = args.opponents or default_opponents(game)
        train(game, None, opponents=opponents, timesteps=args.max_timesteps, out_dir=run_dir,
              eval_games=args.curve_games, eval_interval_s=args.minutes * 60 / args.curve_points,
              final_eval_games=0, time_limit=args.minutes * 60, seed=args.seed, n_envs=2,
              vec="dummy" if args.parallel > 1 else "auto", verbose=1)
    result = json.loads((run_dir / "result.json").read_text())
    best = run_dir / "best.zip"
    agent = PPOAgent.load(best, game=game)
    t = time.monotonic()
    stats = evaluate(agent, game, default_eval_against(game), args.eval_games, seed=args.seed + 12345)
    row = {"game": name, "players": args.players, "training_steps": result["timesteps"],
           "best_at_step": read_metadata(best)["training_steps"], "train_wall_s": round(result["wall_time"], 1),
           "eval_wall_s": round(time.monotonic() - t, 1), "time_limit_min": args.minutes}
    for spec, st in stats.items():
        row[spec] = {"games": st.games, "win_rate": st.win_rate, "interval": list(st.interval),
                     "mean_margin": st.mean_margin}
    row["opponents"] = json.loads((run_dir / "config.json").read_text())["opponents"]
    plot_curve(name, run_dir / "eval.csv", Path(args.out) / f"ppo_curve_{name}{args.tag}.png")
    print(f"{name}: done", json.dumps(row), flush=True)
    return row


def plot_curve(name: str, csv_path: Path, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    steps = [int(r["timesteps"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=110)
    for spec, colour in (("random", "tab:blue"), ("heuristic", "tab:red")):
        if f"win_rate[{spec}]" not in rows[0]:
            continue
        ax.plot(steps, [float(r[f"win_rate[{spec}]"]) for r in rows], marker="o", ms=3, color=colour,
                label=f"vs {spec}")
        ax.fill_between(steps, [float(r[f"ci_low[{spec}]"]) for r in rows],
                        [float(r[f"ci_high[{spec}]"]) for r in rows], color=colour, alpha=0.15)
    ax.set(xlabel="training steps (learner decisions)", ylabel="win rate (greedy, seats rotated)",
           ylim=(0, 1), title=f"MaskablePPO on {name}, 2 players")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)


def fmt(cell: dict | None) -> str:
    if not cell:
        return "n/a"
    lo, hi = cell["interval"]
    return f"{cell['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]"


def table(rows: list[dict]) -> str:
    lines = ["| game | training steps | best at step | training wall time | win rate vs random [95% CI] | "
             "win rate vs heuristic [95% CI] | games each |",
             "|---|---:|---:|---:|---|---|---:|"]
    for r in rows:
        games = (r.get("random") or r.get("heuristic") or {}).get("games", 0)
        lines.append(f"| {r['game']} | {r['training_steps']:,} | {r['best_at_step']:,} | "
                     f"{r['train_wall_s'] / 60:.1f} min | {fmt(r.get('random'))} | {fmt(r.get('heuristic'))} | "
                     f"{games} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import meeplezoo

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", nargs="*", default=None, help="game ids (default: every game that imports)")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--minutes", type=float, default=30.0, help="training wall-time limit per game")
    p.add_argument("--max-timesteps", type=int, default=100_000_000, help="step cap (the time limit usually ends)")
    p.add_argument("--eval-games", type=int, default=200, help="final games per opponent")
    p.add_argument("--curve-games", type=int, default=30, help="games per opponent at each curve point")
    p.add_argument("--curve-points", type=int, default=10, help="evaluations during training")
    p.add_argument("--parallel", type=int, default=1, help="games trained at once")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opponents", default=None, help="training opponents (default random:1,heuristic:1)")
    p.add_argument("--tag", default="", help="suffix for the output files, e.g. _random_only")
    p.add_argument("--eval-only", action="store_true", help="only evaluate the runs already trained")
    p.add_argument("--runs", default="runs/ppo_results", help="where checkpoints go")
    p.add_argument("--out", default=str(HERE / "results"), help="where the table and plots go")
    p.add_argument("--json", default=None, help="results JSON (default OUT/ppo_results.json)")
    args = p.parse_args(argv)
    if args.tag and not args.runs.endswith(args.tag):
        args.runs += args.tag
    names = args.games or [n for n in meeplezoo.list_envs() if _imports(n)]
    t0 = time.monotonic()
    if args.parallel > 1:
        with ProcessPoolExecutor(args.parallel) as pool:
            rows = list(pool.map(run_game, names, [args] * len(names)))
    else:
        rows = [run_game(n, args) for n in names]
    md = table(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    header = (f"MaskablePPO, 2 players, at most {args.minutes:g} min of training per game against "
              f"{args.opponents or 'random:1,heuristic:1'} "
              f"({args.parallel} game(s) at a time on {os.cpu_count()} cores); best checkpoint, greedy, "
              f"{args.eval_games} games per opponent, seats rotated.\n\n")
    (out / f"ppo_results{args.tag}.md").write_text(header + md + "\n")
    Path(args.json or out / f"ppo_results{args.tag}.json").write_text(json.dumps(
        {"rows": rows, "minutes": args.minutes, "parallel": args.parallel, "cpu_count": os.cpu_count(),
         "total_wall_s": time.monotonic() - t0, "command": " ".join(sys.argv)}, indent=2))
    print(header + md)
    return 0


def _imports(name: str) -> bool:
    import meeplezoo

    try:
        meeplezoo.game_class(name)
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
