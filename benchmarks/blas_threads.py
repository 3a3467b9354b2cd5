"""The shipped networks' forward pass with numpy's BLAS on its default threads and on one thread.

Network agents evaluate one position (or a small batch) at a time; this prints milliseconds per forward
pass for each shipped network at batch 1, 16 and 64, with BLAS at the library's default threads and at
one (what :mod:`meeplezoo.threads` sets when a network is loaded), optionally with ``--load N`` busy
processes on the other cores, the situation of self-play workers and leagues.  A table to stdout and, with
``--json``, the rows.

    MEEPLEZOO_BLAS_THREADS=0 .venv/bin/python benchmarks/blas_threads.py --load 1
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import time
from typing import Any

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

import meeplezoo
from meeplezoo.agents.network import load_network
from meeplezoo.agents.pretrained import available


def _spin(stop: float) -> None:
    x = 0
    while time.time() < stop:
        x += 1


def time_forward(net: Any, batch: int, seconds: float) -> float:
    """Milliseconds per forward pass over ``seconds`` of repeats (random observations in [0, 1])."""
    obs = np.random.default_rng(0).random((batch, int(net.metadata["observation_size"]))).astype(np.float32)
    net.forward(obs)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        net.forward(obs)
        n += 1
    return (time.perf_counter() - t0) / n * 1e3


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--batch", type=int, action="append", default=None, help="batch sizes (default 1, 16, 64)")
    p.add_argument("--seconds", type=float, default=1.0, help="timing per cell")
    p.add_argument("--load", type=int, default=0, help="busy processes started beside the timing")
    p.add_argument("--json", default=None)
    args = p.parse_args()
    if os.environ.get("MEEPLEZOO_BLAS_THREADS") != "0":
        p.error("run with MEEPLEZOO_BLAS_THREADS=0 so that loading a network leaves BLAS at its default")
    default = max(int(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas")
    batches = args.batch or [1, 16, 64]
    nets = [load_network(c["path"], meeplezoo.make_game(c["game"], c["num_players"], **c["options"]))
            for c in available()]
    cells = len(nets) * len(batches) * 2
    stop = time.time() + cells * args.seconds * 1.3 + 10
    spinners = [mp.Process(target=_spin, args=(stop,), daemon=True) for _ in range(args.load)]
    for s in spinners:
        s.start()
    rows = []
    print(f"{'network':<22} {'batch':>5} {f'ms, {default} threads':>14} {'ms, 1 thread':>13} {'speed-up':>8}")
    for net in nets:
        for b in batches:
            with threadpool_limits(limits=default, user_api="blas"):
                many = time_forward(net, b, args.seconds)
            with threadpool_limits(limits=1, user_api="blas"):
                one = time_forward(net, b, args.seconds)
            name = f"{net.game.name}-{net.game.num_players}p"
            rows.append({"network": name, "batch": b, "default_threads": default, "ms_default": round(many, 4),
                         "ms_one_thread": round(one, 4), "load": args.load})
            print(f"{name:<22} {b:>5} {many:>14.3f} {one:>13.3f} {many / one:>8.2f}", flush=True)
    for s in spinners:
        s.terminate()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
