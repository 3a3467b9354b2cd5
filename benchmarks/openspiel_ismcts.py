"""OpenSpiel's information-set MCTS (``ISMCTSBot``) against uniform random, through the OpenSpiel adapter.

The hidden-information games (Hawaii, Asara) as OpenSpiel games, with nothing but OpenSpiel's own
algorithms: ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with its random-rollout evaluator
searches from the adapter's perfect-recall information state and ``resample_from_infostate``, against
``pyspiel.make_uniform_random_bot``.  The searcher sits in seat 0 in even games and seat 1 in odd ones;
the table gives its win rate (a shared first place counts half) with a 95% Wilson interval and the
seconds per searched decision.

    python benchmarks/openspiel_ismcts.py --games 12 --sims 10 --json benchmarks/results/openspiel_ismcts.json
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import platform
import time
from typing import Any

import numpy as np


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def one_game(task: tuple[str, int, int, int, int]) -> dict[str, Any]:
    """One game: IS-MCTS in ``seat`` against uniform random bots in the others."""
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import meeplezoo.openspiel  # noqa: F401 - registers the games

    name, players, sims, seed, seat = task
    game = pyspiel.load_game(f"python_meeplezoo_{name}", {"players": players, "rng_seed": seed})
    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0, max_simulations=sims,
                           random_state=rng)
    randoms = [pyspiel.make_uniform_random_bot(p, seed * 10 + p) for p in range(players)]
    state = game.new_initial_state()
    searched, search_s = 0, 0.0
    while not state.is_terminal():
        p = state.current_player()
        if p == seat:
            t0 = time.perf_counter()
            action = bot.step(state)
            if len(state.legal_actions()) > 1:
                searched += 1
                search_s += time.perf_counter() - t0
        else:
            action = randoms[p].step(state)
        state.apply_action(action)
    returns = state.returns()
    best = max(returns)
    winners = [p for p, r in enumerate(returns) if r == best]
    won = 1.0 / len(winners) if seat in winners else 0.0
    return {"game": name, "players": players, "seed": seed, "seat": seat, "won": won, "returns": returns,
            "truncated": state.is_truncated(), "decisions": len(state.history()), "searched": searched,
            "search_seconds": search_s}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", choices=["hawaii", "asara"],
                    help="game (repeatable; default both)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=12, help="games per game id (seats alternate)")
    ap.add_argument("--sims", type=int, default=10, help="IS-MCTS simulations per decision")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    names = args.game or ["hawaii", "asara"]
    tasks = [(name, args.players, args.sims, args.seed + i, i % args.players) for name in names
             for i in range(args.games)]
    t0 = time.time()
    if args.workers > 1:
        with mp.get_context("spawn").Pool(args.workers) as pool:
            games = pool.map(one_game, tasks)
    else:
        games = [one_game(t) for t in tasks]
    summary = {}
    print(f"{'game':8} {'players':>7} {'games':>5} {'IS-MCTS wins':>12} {'win rate':>8} {'95% interval':>14} "
          f"{'s/decision':>10}")
    for name in names:
        mine = [g for g in games if g["game"] == name]
        wins = sum(g["won"] for g in mine)
        lo, hi = wilson(wins, len(mine))
        per = sum(g["search_seconds"] for g in mine) / max(1, sum(g["searched"] for g in mine))
        summary[name] = {"games": len(mine), "wins": wins, "win_rate": wins / len(mine), "wilson95": [lo, hi],
                         "uniform_random_expectation": 1.0 / args.players, "seconds_per_search": per,
                         "truncated": sum(g["truncated"] for g in mine)}
        print(f"{name:8} {args.players:>7} {len(mine):>5} {wins:>12.1f} {wins / len(mine):>8.3f} "
              f"{f'[{lo:.2f}, {hi:.2f}]':>14} {per:>10.3f}")
    if args.json:
        doc = {"benchmark": "openspiel_ismcts", "opponent": "pyspiel.make_uniform_random_bot",
               "searcher": f"ismcts.ISMCTSBot(RandomRolloutEvaluator(1), uct_c=2.0, max_simulations={args.sims})",
               "players": args.players, "sims": args.sims, "seed": args.seed, "summary": summary,
               "games": games, "wall_seconds": time.time() - t0, "machine": platform.platform(),
               "python": platform.python_version()}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
        print(f"JSON written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
