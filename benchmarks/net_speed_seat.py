"""Kerala network evaluations per CPU-second: the seat network against the block network that shipped before it.

The seat network is the shipped one (``agents/pretrained/kerala.zip``, with the observation options it was
trained with) or, where none ships, ``KERALA_FAST`` randomly initialised; it plays every count with one set of
weights.  The block network is the one that shipped for 2 players before the seat network (its widths are
``REFERENCE_BLOCK``; it read Kerala with ``derived_features`` and ``elephant_view``), randomly initialised at
each count: speed does not depend on the weights.  Positions: the observation of the player to move at every
third decision of random games (the boards fill up as the game goes on), each network reading its own options'
observation of the same positions.  Each network evaluates them in turn, one at a time (batch 1, as the search
asks) and 32 at a time, on one BLAS thread; rates are evaluations per CPU-second of this process, the two
networks measured in interleaved rounds (the median round).  The observation itself is not timed here
(``benchmarks/throughput.py``; ``pick_afterstate`` costs about 0.4 ms a pick observation).

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
#: the widths of the block network that shipped for Kerala at 2 players before the seat network (1,079,457
#: parameters with OPTIONS; 0.45 ms an evaluation on one thread)
REFERENCE_BLOCK = {"channels": 16, "conv_layers": 1, "flat_hidden": 192, "trunk_hidden": 192, "board_channels": 2,
                   "trunk_layers": 1, "action_hidden": 128}


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


def rates(forwards: list, batch: int, seconds: float, rounds: int = 5) -> list[float]:
    """Evaluations per CPU-second of each ``(forward, observations)`` of ``forwards`` in batches of ``batch``,
    about ``seconds`` each: measured in ``rounds`` interleaved rounds (every network in turn), so that a load
    that comes and goes on the machine weighs on all alike; each rate is the median over the rounds."""
    sets = [[np.ascontiguousarray(obs[i:i + batch]) for i in range(0, len(obs) - batch + 1, batch)]
            for _f, obs in forwards]
    out: list[list[float]] = [[] for _ in forwards]
    for (forward, _obs), batches in zip(forwards, sets, strict=True):
        forward(batches[0])
    for _ in range(rounds):
        for j, (forward, _obs) in enumerate(forwards):
            batches = sets[j]
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
    try:
        seat = load_network(checkpoint_path("kerala", 2))
    except ValueError:
        seat = None
    if not isinstance(seat, SeatPolicyValueNet):
        game2 = meeplezoo.make_game("kerala", 2, **OPTIONS)
        seat, which = SeatPolicyValueNet(game2, SeatNet(game2, KERALA_FAST).arrays(), KERALA_FAST.as_dict()), "random"
    else:
        which = "shipped kerala.zip"
    rng = np.random.default_rng(0)
    rows = []
    print(f"{'players':>7} {'positions':>9} {'seat b1':>9} {'block b1':>9} {'ratio':>6} {'seat b32':>9} "
          f"{'block b32':>9} {'ratio':>6}")
    block_parameters = 0
    for n in (2, 3, 4, 5):
        view = seat.for_players(n)
        block_game = meeplezoo.make_game("kerala", n, **OPTIONS)
        shapes = blocknet_shapes(block_game, REFERENCE_BLOCK)
        block = PolicyValueNet(block_game, {k: rng.normal(0, 0.05, s).astype(np.float32) for k, s in shapes.items()},
                               REFERENCE_BLOCK)
        block_parameters = block_parameters or block.num_parameters
        obs = positions(view.game, args.games)
        block_obs = positions(block_game, args.games)
        r = {"players": n, "positions": len(obs), "seat": which, "block": "REFERENCE_BLOCK, random"}
        for b in (1, 32):
            seat_rate, block_rate = rates([(view.forward, obs), (block.forward, block_obs)], b, args.seconds)
            r[f"seat_b{b}"], r[f"block_b{b}"] = round(seat_rate), round(block_rate)
            r[f"ratio_b{b}"] = round(r[f"seat_b{b}"] / r[f"block_b{b}"], 2)
        rows.append(r)
        print(f"{n:>7} {len(obs):>9} {r['seat_b1']:>9,} {r['block_b1']:>9,} {r['ratio_b1']:>6.2f} "
              f"{r['seat_b32']:>9,} {r['block_b32']:>9,} {r['ratio_b32']:>6.2f}", flush=True)
    out = {"what": "Kerala network evaluations per CPU-second, one BLAS thread: the seat network against the block "
                   "network that shipped before it",
           "seat_network": {"which": which, "config": dict(seat.config), "options": dict(seat.game.non_default_options),
                            "parameters": seat.num_parameters},
           "block_network": {"config": REFERENCE_BLOCK, "options": OPTIONS, "parameters": block_parameters},
           "machine": {"cpu_count": os.cpu_count(), "python": platform.python_version(),
                       "numpy": np.__version__},
           "rows": rows}
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
