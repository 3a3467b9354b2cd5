"""Where expert iteration's self-play spends its time: a cProfile of lockstep self-play of one game, by category.

Plays ``--games`` self-play games of the shipped 2-player network (``sims`` per expert decision,
``--games-at-once`` in lockstep, as a self-play worker does) under cProfile and prints the share of the
profiled time of each category:

* clone: copying states (``clone``, the engine's generated copy, and ``determinize``, which clones and
  redraws the hidden information) and the engines' copy helpers;
* engine: the rest of the game engine (``apply``, legal actions, scores): ``envs/``;
* observation: encoding observations (the engine's observation modules) and legal masks;
* network: the forward pass (numpy, block or seat network) and the pooled evaluation around it (stacking,
  softmax, values);
* search: the tree, the selection rules, the descent and backup, the lockstep driver;
* other: self-play bookkeeping (samples, agents, random draws) and the rest.

Time spent inside numpy or other compiled functions is charged to the caller (in proportion to the time
each caller spent in them), so a matrix product counts as network time and an ``np.array`` in the engine as
engine time.  cProfile slows Python code more than compiled code, so the shares lean towards the Python
side; the totals are for comparison between categories, not speeds (``selfplay_speed.py`` measures those).
Each row also gives the profiled milliseconds per self-play position (decision) of each category, so rows of
``--games-at-once 1 8`` show what lockstep changes (the network's share) and what it leaves as it was.

    .venv/bin/python benchmarks/selfplay_profile.py hawaii --games 4
    .venv/bin/python benchmarks/selfplay_profile.py haus_der_sonne asara --games 8 --games-at-once 1 8
    .venv/bin/python benchmarks/selfplay_profile.py hawaii asara haus_der_sonne kerala --games 8 --games-at-once 8 \
        --json benchmarks/results/selfplay_profile.json
"""

from __future__ import annotations

import argparse
import cProfile
import json
import platform
import pstats
import time
from pathlib import Path
from typing import Any

import meeplezoo
from meeplezoo.agents.network import load_network, with_pooled_pass
from meeplezoo.agents.pretrained import available
from meeplezoo.training.exit import ExItConfig, play_games

CATEGORIES = ("clone", "engine", "observation", "network", "search", "other")
#: the functions that copy states, wherever they are defined (``clone`` is generated code)
CLONE_NAMES = ("clone", "determinize", "copy", "_copy_rows", "_copy_platforms")
#: the numpy networks' modules: the block network and the seat network with its one-observation pass
NETWORK_FILES = ("agents/network.py", "agents/seatnet.py", "agents/seat_single.py", "agents/seat_convs.py",
                 "agents/seat_layout.py")


def _own_category(filename: str, name: str) -> str | None:
    """The category of a function of ours, None for numpy, builtins and the like (charged to callers)."""
    f = filename.replace("\\", "/")
    if name in CLONE_NAMES and ("/envs/" in f or f.startswith("<")):
        return "clone"
    if "/site-packages/" in f or f.startswith("~") or f.startswith("<"):
        return None
    if "/envs/" in f:
        if "observ" in f or name in ("legal_mask", "observe", "_compute_mask"):
            return "observation"
        return "engine"
    if f.endswith(NETWORK_FILES):
        return "network"
    if "/agents/search/" in f or f.endswith("agents/mcts.py"):
        return "search"
    return "other"


def breakdown(stats: pstats.Stats) -> dict[str, float]:
    """Seconds per category: each function's own time, compiled functions' time charged to their callers."""
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    memo: dict[Any, dict[str, float]] = {}

    def shares(func: Any, depth: int = 0) -> dict[str, float]:
        """How one second of ``func``'s own time splits over the categories."""
        if func in memo:
            return memo[func]
        cat = _own_category(func[0], func[2])
        if cat is not None or depth > 20:
            out = {cat or "other": 1.0}
        else:
            callers = raw[func][4]
            total = sum(v[2] for v in callers.values())
            out = {}
            if total <= 0:
                out["other"] = 1.0
            for caller, v in callers.items():
                if caller not in raw or total <= 0:
                    continue
                for k, w in shares(caller, depth + 1).items():
                    out[k] = out.get(k, 0.0) + w * v[2] / total
            if not out:
                out["other"] = 1.0
        memo[func] = out
        return out

    seconds = dict.fromkeys(CATEGORIES, 0.0)
    for func, (_cc, _nc, tt, _ct, _callers) in raw.items():
        for k, w in shares(func).items():
            seconds[k] += tt * w
    return seconds


def profile(game_name: str, games: int, at_once: int, sims: int, seed: int,
            pooled_pass: str = "rows") -> dict[str, Any]:
    """Profile ``games`` lockstep self-play games of ``game_name``'s shipped 2-player network."""
    entry = next((c for c in available() if c["game"] == game_name and c["num_players"] == 2), None)
    if entry is None:
        raise ValueError(f"no shipped 2-player network for {game_name!r}")
    cfg = ExItConfig(game=game_name, num_players=2, options=entry["options"], sims=sims, games_at_once=at_once,
                     seed=seed)
    game = cfg.make_game()
    net = with_pooled_pass(load_network(entry["path"], meeplezoo.make_game(game_name, 2, **entry["options"]), 2),
                           pooled_pass)
    prof = cProfile.Profile()
    c0 = time.process_time()
    prof.enable()
    parts = play_games(cfg, net, [net], [seed + i for i in range(games)], game)
    prof.disable()
    cpu = time.process_time() - c0
    seconds = breakdown(pstats.Stats(prof))
    total = sum(seconds.values())
    positions = sum(len(p["obs"]) for p in parts)
    return {"game": game_name, "network": type(net).__name__, "games": games, "games_at_once": at_once,
            "sims": sims, "pooled_pass": pooled_pass,
            "positions": positions, "profiled_cpu_seconds": round(cpu, 2),
            "share": {k: round(v / total, 3) for k, v in seconds.items()},
            "ms_per_position": {k: round(1000 * v * cpu / total / positions, 2) for k, v in seconds.items()}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("game", nargs="+", help="game(s) with a shipped 2-player network")
    p.add_argument("--games", type=int, default=4, help="self-play games profiled (default 4)")
    p.add_argument("--games-at-once", type=int, nargs="+", default=[4],
                   help="games in lockstep (default 4); several values: a row for each (1 is the one-by-one path)")
    p.add_argument("--sims", type=int, default=64)
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--pass", dest="pooled_pass", default="rows", choices=["rows", "batch"],
                   help="numpy's pass of the lockstep batch (inference_pass; default rows)")
    p.add_argument("--json", default=None, help="where to write the rows (default: nowhere)")
    args = p.parse_args()
    rows = []
    print(f"{'game':16} {'G':>3} {'positions':>9} {'cpu s':>7}  " + "  ".join(f"{c:>15}" for c in CATEGORIES))
    for g in args.game:
        for at_once in args.games_at_once:
            r = profile(g, args.games, at_once, args.sims, args.seed, args.pooled_pass)
            rows.append(r)
            print(f"{g:16} {at_once:3d} {r['positions']:9d} {r['profiled_cpu_seconds']:7.2f}  "
                  + "  ".join(f"{100 * r['share'][c]:5.1f}% {r['ms_per_position'][c]:6.2f}ms" for c in CATEGORIES))
    if args.json:
        Path(args.json).write_text(json.dumps({"benchmark": "selfplay_profile", "python": platform.python_version(),
                                               "machine": platform.machine(), "rows": rows}, indent=1) + "\n")
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
