"""``meeplezoo play GAME --agents ...``: one game in the terminal, humans welcome."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from meeplezoo.training import arena

from .common import add_game_args, build_agents, game_from_args, output_file, seed_arg, split_agents


def add_parser(sub: Any) -> None:
    p = sub.add_parser("play", help="play one game in the terminal")
    add_game_args(p)
    p.add_argument("--agents", default="heuristic,random", help="comma-separated agent specs, one per seat")
    p.add_argument("--seed", type=seed_arg, default=None)
    p.add_argument("--replay", metavar="FILE", type=output_file, help="write the (config, seed, actions) replay here")
    p.add_argument("--show", action="store_true", help="print every decision (default with a human seat)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game = game_from_args(args)
    agents = build_agents(split_agents(args.agents), game, args.seed)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    show = args.show or any(a.name == "human" for a in agents)
    step = {"n": 0}

    def on_step(state, action):
        step["n"] += 1
        if show and not args.quiet:
            print(f"-- decision {step['n']}: {state.action_name(action)}")

    humans = [seat for seat, a in enumerate(agents) if a.name == "human"]
    try:
        state0 = game.new_state(seed)
        # a human to move first sees the board at the prompt; otherwise show it once here (from a human's view)
        if show and not args.quiet and state0.current_player not in humans:
            print(state0.observation_string(humans[0]) if humans else state0.render_text())
        result = arena.play_match(game, agents, seed, on_step=on_step if show else None)
    except KeyboardInterrupt:
        print("\ngame abandoned")
        return 130
    except EOFError:
        print("\nend of input: game abandoned")
        return 130
    final = game.new_state(seed)
    for a in result.actions:
        final.apply(a)
    if not args.quiet:
        print(final.render_text())
    print(f"\n{game.pretty_name}, {game.num_players} players, seed {seed}, {result.length} decisions")
    for seat, (name, score, place) in enumerate(zip(result.agents, result.scores, result.placements)):
        print(f"  seat {seat}: {name:<24} score {score:g}  place {place + 1}")
    if args.replay:
        with open(args.replay, "w") as f:
            json.dump(result.replay(), f)
        print(f"replay written to {args.replay}")
    return 0
