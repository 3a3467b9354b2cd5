"""Average the weights of several checkpoints of one network (a "model soup" of a fine-tuning chain).

The checkpoints must be the same network (game, configuration, architecture): for example the
``final.zip`` of consecutive distillation steps, each fine-tuned from the one before.  The average is
written as a new checkpoint with the last one's metadata and the list of averaged files
(``weight_average_of``); it costs no training, so its training CPU is the last checkpoint's.

    python scripts/average_checkpoints.py --game hawaii --out runs/hawaii_avg3456.zip \\
        runs/distill/hawaii_exit{3,4,5,6}/final.zip
    python benchmarks/net_steps.py --game hawaii --step avg3456=runs/hawaii_avg3456.zip --games 400 --seed 11 \\
        --json benchmarks/results/distill_hawaii-2p/weight_average.json
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import meeplezoo
from meeplezoo.agents.network import PolicyValueNet, load_network
from meeplezoo.agents.seatnet import SeatPolicyValueNet


def average(paths: list[str], game: Any) -> Any:
    """One network whose every weight is the mean of the same weight in ``paths`` (block or seat networks)."""
    if len(paths) < 2:
        raise ValueError("average_checkpoints: give at least two checkpoints")
    nets = [load_network(p, game) for p in paths]
    for p, n in zip(paths[1:], nets[1:]):
        if type(n) is not type(nets[0]) or n.config != nets[0].config or n.params.keys() != nets[0].params.keys():
            raise ValueError(f"average_checkpoints: {p} is another network ({n.config}) than {paths[0]} "
                             f"({nets[0].config})")
    avg = {k: np.mean([n.params[k].astype(np.float64) for n in nets], axis=0).astype(nets[0].params[k].dtype)
           for k in nets[0].params}
    meta = dict(nets[-1].metadata)
    meta["weight_average_of"] = list(paths)
    if isinstance(nets[-1], SeatPolicyValueNet):
        return SeatPolicyValueNet(nets[-1].game, avg, nets[-1].config, meta, seat_counts=nets[-1].seat_counts)
    return PolicyValueNet(game, avg, nets[-1].config, meta)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("checkpoints", nargs="+")
    p.add_argument("--game", required=True)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    game = meeplezoo.make_game(args.game, args.players)
    print(average(args.checkpoints, game).save(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
