"""Where expert iteration's self-play spends its time: a cProfile of lockstep self-play of one game, by category.

Plays ``--games`` self-play games of the shipped 2-player network (``sims`` per expert decision,
``--games-at-once`` in lockstep, as a self-play worker does) under cProfile and prints the share of the
profiled time of each category:

* engine: the game engine (``apply``, ``clone``, ``determinize``, legal actions, scores): ``envs/``;
* observation: encoding observations (the engine's observation modules) and legal masks;
* network: the forward pass (numpy, block or seat network) and the pooled evaluation around it (stacking,
  softmax, values);
* search: the tree, the selection rules, the descent and backup, the lockstep driver;
* other: self-play bookkeeping (samples, agents, random draws) and the rest.

Time spent inside numpy or other compiled functions is charged to the caller (in proportion to the time
each caller spent in them), so a matrix product counts as network time and an ``np.array`` in the engine as
engine time.  cProfile slows Python code more than compiled code, so the shares lean towards the Python
side; the totals are for comparison between categories, not speeds (``selfplay_speed.py`` measures those).

    .venv/bin/python benchmarks/selfplay_profile.py hawaii --games 4
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from typing import Any

import meeplezoo
from meeplezoo.agents.network import load_network
from meeplezoo.agents.pretrained import available
from meeplezoo.training.exit import ExItConfig, play_games

CATEGORIES = ("engine", "observation", "network", "search", "other")
#: the numpy networks' modules: the block network and the seat network with its one-observation pass
NETWORK_FILES = ("agents/network.py", "agents/seatnet.py", "agents/seat_single.py", "agents/seat_convs.py",
                 "agents/seat_layout.py")


def _own_category(filename: str, name: str) -> str | None:
    """The category of a function of ours, None for numpy, builtins and the like (charged to callers)."""
    f = filename.replace("\\", "/")
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


def profile(game_name: str, games: int, at_once: int, sims: int, seed: int) -> dict[str, Any]:
    """Profile ``games`` lockstep self-play games of ``game_name``'s shipped 2-player network."""
    entry = next((c for c in available() if c["game"] == game_name and c["num_players"] == 2), None)
    if entry is None:
        raise ValueError(f"no shipped 2-player network for {game_name!r}")
    cfg = ExItConfig(game=game_name, num_players=2, options=entry["options"], sims=sims, games_at_once=at_once,
                     seed=seed)
    game = cfg.make_game()
    net = load_network(entry["path"], meeplezoo.make_game(game_name, 2, **entry["options"]), 2)
    prof = cProfile.Profile()
    c0 = time.process_time()
    prof.enable()
    parts = play_games(cfg, net, [net], [seed + i for i in range(games)], game)
    prof.disable()
    cpu = time.process_time() - c0
    seconds = breakdown(pstats.Stats(prof))
    total = sum(seconds.values())
    return {"game": game_name, "games": games, "games_at_once": at_once, "sims": sims,
            "positions": sum(len(p["obs"]) for p in parts), "profiled_cpu_seconds": round(cpu, 2),
            "share": {k: round(v / total, 3) for k, v in seconds.items()}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("game", nargs="+", help="game(s) with a shipped 2-player network")
    p.add_argument("--games", type=int, default=4, help="self-play games profiled (default 4)")
    p.add_argument("--games-at-once", type=int, default=4, help="games in lockstep (default 4)")
    p.add_argument("--sims", type=int, default=64)
    p.add_argument("--seed", type=int, default=100)
    args = p.parse_args()
    print(f"{'game':16} {'positions':>9} {'cpu s':>7}  " + "  ".join(f"{c:>11}" for c in CATEGORIES))
    for g in args.game:
        r = profile(g, args.games, args.games_at_once, args.sims, args.seed)
        print(f"{g:16} {r['positions']:9d} {r['profiled_cpu_seconds']:7.1f}  "
              + "  ".join(f"{100 * r['share'][c]:10.1f}%" for c in CATEGORIES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
