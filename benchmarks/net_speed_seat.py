"""Kerala network evaluations per CPU-second: the seat network ``KERALA_FAST`` against the shipped block network.

Both networks read Kerala with ``derived_features`` and ``elephant_view`` (the shipped network's options).
The seat network is randomly initialised (speed does not depend on the weights) and plays every count with
one set of weights; the block network is the shipped ``agents/pretrained/kerala-2p.zip`` at 2 players and,
at 3-5 players, a block network of the same widths randomly initialised (a block network reads one count).
Positions: the observation of the player to move at every third decision of random games (the boards fill
up as the game goes on).  Each network evaluates them in turn, one at a time (batch 1, as the search asks)
and 32 at a time, on one BLAS thread; rates are evaluations per CPU-second of this process, the two networks
measured in interleaved rounds (the median round).

    .venv/bin/python benchmarks/net_speed_seat.py [--seconds 2] [--json benchmarks/results/net_speed_seat.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

import meeplezoo
from meeplezoo.agents.network import PolicyValueNet, blocknet_shapes, load_network
from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.agents.seatnet import SeatPolicyValueNet
from meeplezoo.training.seatnet import KERALA_FAST, SeatNet

OPTIONS = {"derived_features": True, "elephant_view": True}


def positions(game, games: int, every: int = 3) -> np.ndarray:
    """Observations of the player to move at every ``every``-th decision of ``games`` random games."""
    out = []
    for seed in range(games):
        state = game.new_state(1000 + seed)
        rng = np.random.default_rng(seed)
        step = 0
        while not state.is_terminal():
            if step % every == 0:
                out.append(state.observe(state.current_player))
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            step += 1
    return np.stack(out)


def rates(forwards: list, obs: np.ndarray, batch: int, seconds: float, rounds: int = 5) -> list[float]:
    """Evaluations per CPU-second of each of ``forwards`` over ``obs`` in batches of ``batch``, about ``seconds``
    each: measured in ``rounds`` interleaved rounds (every network in turn), so that a load that comes and goes
    on the machine weighs on all alike; each rate is the median over the rounds."""
    batches = [np.ascontiguousarray(obs[i:i + batch]) for i in range(0, len(obs) - batch + 1, batch)]
    out: list[list[float]] = [[] for _ in forwards]
    for forward in forwards:
        forward(batches[0])
    for _ in range(rounds):
        for j, forward in enumerate(forwards):
            done, t0 = 0, time.process_time()
            while time.process_time() - t0 < seconds / rounds:
                for x in batches:
                    forward(x)
                done += batch * len(batches)
            out[j].append(done / (time.process_time() - t0))
    return [float(np.median(r)) for r in out]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per measurement")
    p.add_argument("--games", type=int, default=3, help="random games per player count for the positions")
    p.add_argument("--json", default="benchmarks/results/net_speed_seat.json")
    args = p.parse_args()
    game2 = meeplezoo.make_game("kerala", 2, **OPTIONS)
    seat = SeatPolicyValueNet(game2, SeatNet(game2, KERALA_FAST).arrays(), KERALA_FAST.as_dict())
    shipped = load_network(checkpoint_path("kerala", 2), game2)
    rng = np.random.default_rng(0)
    rows = []
    print(f"{'players':>7} {'positions':>9} {'seat b1':>9} {'block b1':>9} {'ratio':>6} {'seat b32':>9} "
          f"{'block b32':>9} {'ratio':>6}")
    for n in (2, 3, 4, 5):
        view = seat.for_players(n)
        if n == 2:
            block = shipped
        else:
            shapes = blocknet_shapes(view.game, shipped.config)
            block = PolicyValueNet(view.game, {k: rng.normal(0, 0.05, s).astype(np.float32) for k, s in shapes.items()},
                                   shipped.config)
        obs = positions(view.game, args.games)
        r = {"players": n, "positions": len(obs), "block": "shipped kerala-2p" if n == 2 else "same widths, random"}
        for b in (1, 32):
            seat_rate, block_rate = rates([view.forward, block.forward], obs, b, args.seconds)
            r[f"seat_b{b}"], r[f"block_b{b}"] = round(seat_rate), round(block_rate)
            r[f"ratio_b{b}"] = round(r[f"seat_b{b}"] / r[f"block_b{b}"], 2)
        rows.append(r)
        print(f"{n:>7} {len(obs):>9} {r['seat_b1']:>9,} {r['block_b1']:>9,} {r['ratio_b1']:>6.2f} "
              f"{r['seat_b32']:>9,} {r['block_b32']:>9,} {r['ratio_b32']:>6.2f}", flush=True)
    out = {"what": "Kerala (derived_features, elephant_view) network evaluations per CPU-second, one BLAS thread",
           "seat_network": {"config": KERALA_FAST.as_dict(), "parameters": seat.num_parameters},
           "block_network": {"config": shipped.config, "parameters": shipped.num_parameters},
           "machine": {"cpu_count": os.cpu_count(), "python": platform.python_version(),
                       "numpy": np.__version__},
           "rows": rows}
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
