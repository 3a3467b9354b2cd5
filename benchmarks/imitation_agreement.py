"""Where a network parts from the heuristic: agreement by kind of decision, and what each kind costs in play.

A network that learns from the heuristic must first play as well as it.  This benchmark tells which of its
decisions keep it from doing so (it found Hawaii's buys and price circle, `docs/research/networks.md`):

* **agreement**: the heuristic plays ``--games`` games against itself (deals ``seed + i``); at each of its
  decisions with more than one legal action the network (``net:CHECKPOINT``, greedy) is asked too, and the
  share of equal choices is reported per *kind of decision*: the set of first words of the legal actions'
  names (Hawaii's main decision is ``buy|end|fish|visit``, its price circle ``token``; Kerala's pick is
  ``skip|take``), with the mean number of legal actions;
* **hybrid** (``--hybrid``): for each kind, heuristic play in which the network takes that kind's decisions
  of one seat (the seat rotated over the games, deals ``seed + 100000 + i // n``), against heuristics
  elsewhere: its first places (ties split) and mean margin (its score less the best other score).  The row
  ``none`` is the heuristic itself (first places 1/n); a kind whose row falls well below it is where the
  network loses.  A heuristic that keeps a plan from one decision to the next (Hawaii's) is not told of the
  decisions the network takes in its seat, so a row holds that disruption too: read the rows side by side
  rather than as exact costs.

    .venv/bin/python benchmarks/imitation_agreement.py hawaii --checkpoint agents/pretrained/hawaii.zip
    .venv/bin/python benchmarks/imitation_agreement.py kerala --players 3 --games 10 --hybrid --hybrid-games 60

Prints a table; ``--json PATH`` also writes the rows.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

import numpy as np

import meeplezoo
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.base import act_on_state


def decision_kind(state: Any, legal: list[int]) -> str:
    """The kind of a decision: the sorted first words of its legal actions' names, joined by ``|``."""
    name = state.game.codec.name
    return "|".join(sorted({name(a).split()[0] for a in legal}))


def agreement(game: Any, spec: str, games: int, seed: int) -> dict[str, dict[str, float]]:
    """Per kind of decision: ``decisions``, ``agreement`` and mean ``legal`` actions (module docstring)."""
    heuristic = make_agent("heuristic", game, seed=seed)
    net = make_agent(spec, game, seed=seed)
    total, same, legal_sum = Counter(), Counter(), Counter()
    for i in range(games):
        state = game.new_state(seed + i)
        heuristic.reset(seed=seed + i)
        while not state.is_terminal():
            a = act_on_state(heuristic, state)
            legal = state.legal_actions()
            if len(legal) > 1:
                kind = decision_kind(state, legal)
                total[kind] += 1
                legal_sum[kind] += len(legal)
                same[kind] += act_on_state(net, state) == a
            state.apply(a)
    rows = {k: {"decisions": total[k], "agreement": same[k] / total[k], "legal": legal_sum[k] / total[k]}
            for k in sorted(total, key=lambda k: -total[k])}
    n = sum(total.values())
    rows["all"] = {"decisions": n, "agreement": sum(same.values()) / max(n, 1),
                   "legal": sum(legal_sum.values()) / max(n, 1)}
    return rows


def hybrid(game: Any, spec: str, kinds: list[str], games: int, seed: int) -> dict[str, dict[str, float]]:
    """Per kind (and ``none``, ``all``): first places and mean margin of heuristic play in which the network
    takes that kind's decisions of one seat (module docstring)."""
    n = game.num_players
    out = {}
    for kind in ["none", *kinds, "all"]:
        heuristic = make_agent("heuristic", game, seed=seed)
        net = make_agent(spec, game, seed=seed)
        firsts, margins = 0.0, []
        for i in range(games):
            seat = i % n
            state = game.new_state(seed + 100_000 + i // n)
            heuristic.reset(seed=seed + i)
            while not state.is_terminal():
                legal = state.legal_actions()
                ours = state.current_player == seat and len(legal) > 1 and kind != "none" and (
                    kind == "all" or decision_kind(state, legal) == kind)
                state.apply(act_on_state(net if ours else heuristic, state))
            place = state.placements()
            winners = [p for p in range(n) if place[p] == 0]
            firsts += 1 / len(winners) if seat in winners else 0.0
            scores = state.scores()
            margins.append(scores[seat] - max(scores[p] for p in range(n) if p != seat))
        out[kind] = {"games": games, "firsts": firsts / games, "margin": float(np.mean(margins))}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("game")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--checkpoint", default=None, help="the network (default: the shipped one for the count)")
    p.add_argument("--games", type=int, default=30, help="heuristic games the agreement is read from")
    p.add_argument("--hybrid", action="store_true", help="also the hybrid play of each kind")
    p.add_argument("--hybrid-games", type=int, default=100, help="games per hybrid row (default 100)")
    p.add_argument("--min-decisions", type=int, default=20, help="kinds with fewer decisions get no hybrid row")
    p.add_argument("--seed", type=int, default=20_000)
    p.add_argument("--json", default=None, help="also write the rows here")
    args = p.parse_args()
    game = meeplezoo.make_game(args.game, num_players=args.players)
    spec = f"net:{args.checkpoint}" if args.checkpoint else "pretrained"
    rows = agreement(game, spec, args.games, args.seed)
    print(f"{args.game}, {args.players} players, {spec}: agreement with the heuristic's choice")
    print(f"{'kind of decision':36} {'decisions':>9} {'agreement':>9} {'legal':>6}")
    for kind, r in rows.items():
        print(f"{kind[:36]:36} {r['decisions']:9d} {r['agreement']:9.3f} {r['legal']:6.1f}")
    result: dict[str, Any] = {"game": args.game, "players": args.players, "agent": spec, "agreement": rows}
    if args.hybrid:
        kinds = [k for k, r in rows.items() if k != "all" and r["decisions"] >= args.min_decisions]
        result["hybrid"] = hybrid(game, spec, kinds, args.hybrid_games, args.seed)
        print(f"\nthe network takes one kind of decision of one seat, heuristics elsewhere ({args.hybrid_games} "
              "games a row)")
        print(f"{'kind of decision':36} {'firsts':>7} {'margin':>7}")
        for kind, r in result["hybrid"].items():
            print(f"{kind[:36]:36} {r['firsts']:7.3f} {r['margin']:+7.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
