"""Expert iteration's self-play, one game at a time versus ``games_at_once`` games in lockstep.

For each game with a shipped 2-player network, plays the same seeded self-play games twice in one process:
one after the other through :func:`~meeplezoo.training.exit.play_game` (each leaf its own network call, the
path before lockstep) and ``--games-at-once`` at a time through :func:`~meeplezoo.training.exit.play_games`
(the leaves of all the games in one call).  Both give the same samples (checked: ``samples_identical``);
the rows report expert positions (samples) per CPU second of this process (``time.process_time``, so a
background load matters less than with the wall clock) and the speedup.

Backends (:func:`~meeplezoo.training.inference.inference_net`, as self-play's ``inference`` settings choose
it): ``numpy`` with each ``--passes`` of its pooled batch (``inference_pass``: ``rows``, exact, so the samples
are identical; ``batch``, one matrix product, whose rounding may differ from one position's), ``torch-cpu``
where torch is installed and ``cuda`` where it sees a GPU (batched torch kernels: the samples may differ in
rare decisions, as the rounding of a batch differs from one position's).  ``samples_identical`` says whether
the lockstep games gave exactly the samples of the games played one by one.  A run's rows are merged into the
results file: a row of the same game, players, sims, games, ``games_at_once``, backend and pass is replaced,
others are kept, so that runs of different games or sizes of G gather in one file.

    .venv/bin/python benchmarks/selfplay_speed.py            # all four games, writes the results file
    .venv/bin/python benchmarks/selfplay_speed.py --games-at-once 8 32   # two G
    .venv/bin/python benchmarks/selfplay_speed.py --backends numpy --repeat 3   # each path 3 times in turn
    .venv/bin/python benchmarks/selfplay_speed.py --quick    # a smoke run (few sims, two games), no file
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

import meeplezoo
from meeplezoo.agents.network import load_network, with_pooled_pass
from meeplezoo.agents.pretrained import available
from meeplezoo.training.exit import ExItConfig, play_game, play_games
from meeplezoo.training.inference import inference_net

#: backend name -> (inference, device)
BACKENDS = {"numpy": ("numpy", "cpu"), "torch-cpu": ("torch", "cpu"), "cuda": ("torch", "cuda")}

RESULTS = Path(__file__).with_name("results") / "selfplay_speed.json"
GAMES = ("hawaii", "asara", "haus_der_sonne", "kerala")


def available_backends() -> list[str]:
    """The backends this machine can run: numpy, and torch on the CPU and a GPU where torch has them."""
    out = ["numpy"]
    try:
        import torch
    except ImportError:
        return out
    out.append("torch-cpu")
    if torch.cuda.is_available():
        out.append("cuda")
    return out


def measure(entry: dict[str, Any], games: int, at_once: int, sims: int, seed: int,
            backend: str = "numpy", passes: tuple[str, ...] = ("rows",), repeat: int = 1) -> list[dict[str, Any]]:
    """Rows of one game and backend: the games on ``seed, seed + 1, ...`` one by one, then ``at_once`` in
    lockstep with each of numpy's ``passes`` of the pooled batch (torch: its own batched pass), side by side;
    ``repeat`` times in turn (every other time in reverse order), each path's CPU time summed."""
    name = entry["game"]
    cfg = ExItConfig(game=name, num_players=2, options=entry["options"], sims=sims, games_at_once=at_once,
                     seed=seed)
    game = cfg.make_game()
    if BACKENDS[backend][0] == "torch":
        import torch

        torch.set_num_threads(1)  # one thread, as numpy's BLAS in a self-play worker (more would spin on CPU time)
        passes = ("batch",)
    net = inference_net(load_network(entry["path"], meeplezoo.make_game(name, 2, **entry["options"]), 2),
                        *BACKENDS[backend])
    seeds = [seed + i for i in range(games)]
    paths = ["alone", *passes]
    cpu = dict.fromkeys(paths, 0.0)
    same = dict.fromkeys(passes, True)
    for rep in range(repeat):  # the paths in turn, every other repetition in reverse, so that a drift cancels
        for path in (paths if rep % 2 == 0 else paths[::-1]):
            c0 = time.process_time()
            if path == "alone":
                alone = [play_game(cfg, net, [net], s, game) for s in seeds]
            else:
                pooled = with_pooled_pass(net, path) if backend == "numpy" else net
                together = play_games(cfg, pooled, [pooled], seeds, game)
            cpu[path] += time.process_time() - c0
            if path != "alone" and rep % 2 == 0:  # the games one by one were played just before
                same[path] &= all(np.array_equal(a[k], b[k]) for a, b in zip(alone, together)
                                  for k in ("obs", "mask", "pi", "z"))
    positions = sum(len(p["obs"]) for p in alone)
    one = positions * repeat / cpu["alone"]
    rows = []
    for pooled_pass in passes:
        many = positions * repeat / cpu[pooled_pass]
        rows.append({"game": name, "players": 2, "sims": sims, "games": games, "games_at_once": at_once,
                     "backend": backend, "pooled_pass": pooled_pass, "network": type(net).__name__,
                     "positions": positions, "repeats": repeat, "positions_per_cpu_second_batch1": round(one, 2),
                     "positions_per_cpu_second_batched": round(many, 2), "speedup": round(many / one, 3),
                     "samples_identical": bool(same[pooled_pass])})
    return rows


#: what makes two rows the same measurement: a new run's row replaces the file's row with the same key
ROW_KEY = ("game", "players", "sims", "games", "games_at_once", "backend", "pooled_pass")


def merge_rows(path: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows already in ``path`` (if any) with this run's ``rows`` merged in: a row with the same
    :data:`ROW_KEY` is replaced in place, a new one appended, so that runs of different games, sizes of G or
    passes gather in one file."""
    try:
        old = json.loads(path.read_text()).get("rows", [])
    except FileNotFoundError:
        old = []
    except (json.JSONDecodeError, AttributeError) as exc:
        raise SystemExit(f"{path}: not a selfplay_speed results file ({exc}); move it away or pass --json") from exc
    merged = list(old)
    where = {tuple(r.get(k) for k in ROW_KEY): i for i, r in enumerate(merged)}
    for r in rows:
        key = tuple(r.get(k) for k in ROW_KEY)
        if key in where:
            merged[where[key]] = r
        else:
            where[key] = len(merged)
            merged.append(r)
    return merged


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", nargs="+", default=list(GAMES), help="games (default all four)")
    p.add_argument("--games-at-once", type=int, nargs="+", default=[8], help="games in lockstep, one or more "
                   "values (default 8)")
    p.add_argument("--count", type=int, default=None, help="games played per row (default games-at-once)")
    p.add_argument("--backends", nargs="+", default=None, choices=list(BACKENDS),
                   help="backends (default every one this machine has)")
    p.add_argument("--passes", nargs="+", default=["rows", "batch"], choices=["rows", "batch"],
                   help="numpy's passes of the lockstep batch (default both)")
    p.add_argument("--repeat", type=int, default=1, help="measure every path this many times in turn, "
                   "every other time in reverse order (a machine whose speed drifts biases one path less)")
    p.add_argument("--sims", type=int, default=64)
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--quick", action="store_true", help="smoke run: sims 8, two games two at a time, no file")
    p.add_argument("--json", default=None, help=f"where to write the rows (default {RESULTS} unless --quick)")
    args = p.parse_args()
    if args.repeat < 1:
        p.error(f"--repeat must be at least 1, got {args.repeat}")
    if args.quick:
        args.sims, args.games_at_once, args.count = 8, [2], 2
    entries = {c["game"]: c for c in available() if c["num_players"] == 2}
    print(f"{'game':16} {'backend':9} {'pass':5} {'G':>3} {'positions':>9} {'batch1 pos/cpu-s':>17} {'batched':>8} "
          f"{'speedup':>8}  identical")
    rows = []
    for at_once, name in ((g, n) for g in args.games_at_once for n in args.games):
        for backend in args.backends or available_backends():
            for row in measure(entries[name], args.count or at_once, at_once, args.sims, args.seed, backend,
                               tuple(args.passes), args.repeat):
                rows.append(row)
                print(f"{name:16} {row['backend']:9} {row['pooled_pass']:5} {row['games_at_once']:3d} "
                      f"{row['positions']:9d} {row['positions_per_cpu_second_batch1']:17.1f} "
                      f"{row['positions_per_cpu_second_batched']:8.1f} {row['speedup']:8.2f}  "
                      f"{row['samples_identical']}", flush=True)
    out = args.json or (None if args.quick else str(RESULTS))
    if out:
        merged = merge_rows(Path(out), rows)
        Path(out).write_text(json.dumps({"benchmark": "selfplay_speed", "python": platform.python_version(),
                                         "machine": platform.machine(), "cpu_clock": "time.process_time",
                                         "rows": merged}, indent=1) + "\n")
        print(f"written to {out} ({len(rows)} rows of this run, {len(merged)} in all)")
    return 0 if all(r["samples_identical"] for r in rows if r["pooled_pass"] == "rows") else 1


if __name__ == "__main__":
    raise SystemExit(main())
