"""Simulations per second of the information-set MCTS agent, per game, beside random playouts.

Each game is searched from positions sampled along random games (after 0, 10,
20, ... random decisions).  Next to the search rate the script measures plain
random playouts from the same positions (determinize, then random moves to the
end): their ratio says how much of a simulation is search overhead (tree
descent, statistics) rather than engine time, and stays meaningful on a busy
machine where absolute rates do not.

    python benchmarks/mcts_speed.py --sims 200 --json benchmarks/results/mcts_speed.json
    python benchmarks/mcts_speed.py --game kerala --rollout heuristic --rollout-depth 20
    python benchmarks/mcts_speed.py --suite search --sims 100 --json benchmarks/results/search_speed.json
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
from typing import Any

import numpy as np

import meeplezoo
from meeplezoo.agents.mcts import MCTSAgent
from meeplezoo.envs.core import Rng


def sample_positions(game: Any, count: int, seed: int) -> list[Any]:
    """Positions along one random game: after 0, k, 2k, ... decisions (k chosen to spread them)."""
    r = Rng(seed)
    s = game.new_state(seed)
    trace = [s.clone()]
    while not s.is_terminal():
        acts = s.legal_actions()
        s.apply(acts[r.randbelow(len(acts))])
        if not s.is_terminal():
            trace.append(s.clone())
    step = max(1, len(trace) // count)
    return trace[::step][:count]


def random_playouts_per_second(positions: list[Any], seconds: float, seed: int) -> float:
    r = Rng(seed)
    done = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for pos in positions:
            s = pos.determinize(pos.current_player, r)
            while not s.is_terminal():
                acts = s.legal_actions()
                s._apply(acts[r.randbelow(len(acts))])
            s.returns("win")  # the final scoring is part of every simulation too
            done += 1
    return done / (time.perf_counter() - t0)


#: ``--suite search``: the leaf evaluations compared (each at ``--sims`` simulations, fixed positions)
SEARCH_SUITE = {
    "random rollout": "mcts:preset=plain",
    "heuristic rollout": "mcts:preset=plain:rollout=heuristic",
    "leaf evaluation (scores)": "mcts:preset=plain:rollout_depth=0",
    "heuristic prior + leaf evaluation": "mcts:preset=plain:prior=heuristic:c=1.5:rollout_depth=0",
    "tuned": "mcts",
    # a network with random weights (numpy, default widths): the cost of a network prior and leaf value
    "network prior + value": "netmcts:{net}",
}


def random_network(game: Any, path: str, seed: int = 0) -> str:
    """Write a network checkpoint of the default widths with random weights (no torch needed): what a
    network-guided search costs does not depend on what the network has learned."""
    from meeplezoo.agents.network import PolicyValueNet

    config = {"channels": 32, "conv_layers": 2, "flat_hidden": 128, "trunk_hidden": 128}
    rng = np.random.default_rng(seed)
    arrays = {k: (rng.standard_normal(shape) / np.sqrt(max(1, int(np.prod(shape[1:]))))).astype(np.float32)
              for k, shape in PolicyValueNet.parameter_shapes(game, config).items()}
    PolicyValueNet(game, arrays, config).save(path)
    return path


def measure_spec(name: str, num_players: int, sims: int, positions: int, label: str, spec: str) -> dict[str, Any]:
    """Simulations per second of an agent spec (``sims`` replaces its budget) on fixed positions."""
    from meeplezoo.agents import make as make_agent

    game = meeplezoo.make_game(name, num_players)
    pos = [s for s in sample_positions(game, positions + 4, seed=1) if len(s.legal_actions()) > 1][:positions]
    if "{net}" in spec:
        import tempfile

        spec = spec.format(net=random_network(game, os.path.join(tempfile.mkdtemp(), f"{name}.zip")))
    full = f"{spec}:sims={sims}"
    agent = make_agent(full, name, num_players=num_players, seed=0)
    agent.search(pos[0])  # warm caches, build the rollout and prior agents
    t0 = time.perf_counter()
    total = 0
    for s in pos:
        total += agent.search(s).simulations
    elapsed = time.perf_counter() - t0
    return {"game": name, "players": num_players, "setting": label, "spec": full, "positions": len(pos),
            "sims_per_s": total / elapsed, "s_per_move": elapsed / len(pos)}


def measure(name: str, num_players: int, sims: int, positions: int, options: dict[str, Any],
            seconds: float) -> dict[str, Any]:
    game = meeplezoo.make_game(name, num_players)
    pos = sample_positions(game, positions, seed=1)
    agent = MCTSAgent(seed=0, game=name, sims=sims, **options)
    agent.search(pos[0])  # warm caches and build the rollout agent
    t0 = time.perf_counter()
    total = 0
    for s in pos:
        total += agent.search(s).simulations
    elapsed = time.perf_counter() - t0
    row = {"game": name, "players": num_players, "positions": len(pos), "sims_per_move": sims,
           "sims_per_s": total / elapsed, "s_per_move": elapsed / len(pos), **options}
    if options.get("rollout", "random") == "random" and options.get("rollout_depth") is None \
            and options.get("max_depth") is None:
        rp = random_playouts_per_second(pos, seconds, seed=2)
        row["random_playouts_per_s"] = rp
        row["search_share_of_time"] = max(0.0, 1.0 - row["sims_per_s"] / rp)
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", dest="games", action="append", help="only this game (repeatable)")
    p.add_argument("--players", type=int, action="append", help="player count (repeatable; default 2)")
    p.add_argument("--sims", type=int, default=200, help="simulations per searched position")
    p.add_argument("--positions", type=int, default=6, help="positions per game")
    p.add_argument("--rollout", default="random", help="rollout policy: random or an agent spec")
    p.add_argument("--rollout-depth", type=int, default=None)
    p.add_argument("--max-depth", type=int, default=None)
    p.add_argument("--seconds", type=float, default=2.0, help="time for the random-playout reference")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    p.add_argument("--suite", choices=["search"], help="compare the leaf evaluations of SEARCH_SUITE instead")
    p.add_argument("--setting", action="append", help="--suite search: only this setting (repeatable)")
    args = p.parse_args(argv)
    if args.suite == "search":
        rows = []
        print(f"{'game':<16} {'players':>7} {'setting':<36} {'sims/s':>9} {'s/move':>8}")
        for name in args.games or meeplezoo.list_envs():
            for n in args.players or [2]:
                for label, spec in SEARCH_SUITE.items():
                    if args.setting and label not in args.setting:
                        continue
                    row = measure_spec(name, n, args.sims, args.positions, label, spec)
                    rows.append(row)
                    print(f"{name:<16} {n:>7} {label:<36} {row['sims_per_s']:>9.1f} {row['s_per_move']:>8.3f}",
                          flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"benchmark": "mcts_speed", "suite": "search", "python": platform.python_version(),
                           "sims": args.sims, "rows": rows}, f, indent=1)
            print(f"written to {args.json}")
        return 0

    names = args.games or meeplezoo.list_envs()
    options: dict[str, Any] = {"rollout": args.rollout}
    if args.rollout_depth is not None:
        options["rollout_depth"] = args.rollout_depth
    if args.max_depth is not None:
        options["max_depth"] = args.max_depth
    rows = []
    print(f"{'game':<16} {'players':>7} {'sims/s':>9} {'s/move':>8} {'playouts/s':>11} {'search share':>13}")
    for name in names:
        try:
            meeplezoo.registry.game_class(name)
        except ImportError as e:
            print(f"{name:<16} (not importable: {e})")
            continue
        if args.rollout != "random":
            from meeplezoo.agents.registry import HEURISTICS

            if args.rollout.startswith("heuristic"):
                try:
                    importlib.import_module(HEURISTICS[name].split(":")[0])
                except ImportError as e:
                    print(f"{name:<16} (no heuristic yet: {e})")
                    continue
        for n in args.players or [2]:
            row = measure(name, n, args.sims, args.positions, options, args.seconds)
            rows.append(row)
            rp = row.get("random_playouts_per_s")
            share = row.get("search_share_of_time")
            print(f"{name:<16} {n:>7} {row['sims_per_s']:>9.1f} {row['s_per_move']:>8.3f} "
                  f"{'' if rp is None else f'{rp:.1f}':>11} {'' if share is None else f'{share:.1%}':>13}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "mcts_speed", "python": platform.python_version(), "options": options,
                       "sims": args.sims, "rows": rows}, f, indent=1)
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
