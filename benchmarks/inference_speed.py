"""Evaluations per second of each shipped 2-player network: numpy against torch on the CPU (and on a GPU).

Each network evaluates positions of random games of its own (observed by the player to move) in batches
of 1 and 256, through :func:`meeplezoo.training.inference.inference_net`: numpy (float32, one BLAS thread,
as a loaded network sets), torch on the CPU (``--torch-threads``, default 1 like numpy's BLAS), and where
torch sees a GPU, torch on it in float32 and bfloat16 (the time includes copying the batch there and the
results back).  Each row also gives the largest difference of its priors from numpy's.  A table to stdout
and the rows to ``benchmarks/results/inference_speed.json``.

    .venv/bin/python benchmarks/inference_speed.py --seconds 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from meeplezoo.agents.network import load_network, masked_softmax
from meeplezoo.agents.pretrained import available
from meeplezoo.training.inference import inference_net

OUT = Path(__file__).resolve().parent / "results" / "inference_speed.json"


def positions(net: Any, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` observations (by the player to move) and legal masks from random games of ``net``'s game."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    game_seed = seed
    while len(obs) < n:
        state = net.game.new_state(game_seed)
        game_seed += 1
        while not state.is_terminal() and len(obs) < n:
            obs.append(net.observe(state, state.current_player))
            masks.append(state.legal_mask())
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    return np.stack(obs), np.stack(masks)


def per_second(net: Any, obs: np.ndarray, batch: int, seconds: float) -> float:
    """Positions evaluated per second, batches of ``batch`` taken in turn from ``obs`` for ``seconds``."""
    batches = [obs[i:i + batch] for i in range(0, len(obs) - batch + 1, batch)]
    for b in batches[:3]:
        net.forward(b)  # warm-up (a GPU's first kernels, torch's allocator)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        net.forward(batches[n % len(batches)])
        n += 1
    return n * batch / (time.perf_counter() - t0)


def backends() -> list[tuple[str, str, str, str]]:
    """(row name, backend, device, precision) of every row to time here."""
    rows = [("numpy", "numpy", "cpu", "float32"), ("torch-cpu", "torch", "cpu", "float32")]
    if torch.cuda.is_available():
        rows += [("torch-cuda", "torch", "cuda", "float32"), ("torch-cuda-bf16", "torch", "cuda", "bfloat16")]
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="timing per row")
    p.add_argument("--torch-threads", type=int, default=1, help="torch's CPU threads (default 1)")
    p.add_argument("--batch", type=int, action="append", default=None, help="batch sizes (default 1 and 256)")
    p.add_argument("--json", default=str(OUT), help="where the rows go ('' for nowhere)")
    args = p.parse_args()
    torch.set_num_threads(args.torch_threads)
    batch_sizes = args.batch or [1, 256]
    rows = []
    print(f"{'network':<18} {'batch':>5} {'backend':<16} {'evals/s':>10} {'vs numpy':>8} {'max |dp|':>9}")
    for c in available():
        if c["num_players"] != 2:
            continue
        net = load_network(c["path"], None, 2)
        obs, masks = positions(net, max(batch_sizes) * 4)
        reference = masked_softmax(net.forward(obs)[0], masks)
        name = f"{c['game']}-2p"
        for b in batch_sizes:
            base = None
            for label, backend, device, precision in backends():
                runner = inference_net(net, backend, device, precision)
                rate = per_second(runner, obs, b, args.seconds)
                base = base or rate
                diff = float(np.abs(masked_softmax(runner.forward(obs)[0], masks) - reference).max())
                rows.append({"network": name, "batch": b, "backend": label, "device": device,
                             "precision": precision, "evals_per_s": round(rate, 1),
                             "vs_numpy": round(rate / base, 3), "max_prior_diff": diff})
                print(f"{name:<18} {b:>5} {label:<16} {rate:>10,.0f} {rate / base:>8.2f} {diff:>9.1e}", flush=True)
    if args.json:
        info = {"seconds_per_row": args.seconds, "torch_threads": args.torch_threads, "blas_threads": 1,
                "torch": torch.__version__, "cpu_count": os.cpu_count(), "machine": platform.machine(),
                "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None, "rows": rows}
        Path(args.json).write_text(json.dumps(info, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
