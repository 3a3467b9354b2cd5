"""``meeplezoo evaluate CHECKPOINT``: a PPO checkpoint (or a plain stable-baselines3 model) against other
agents, seats rotated."""

from __future__ import annotations

import argparse
import json
from typing import Any

from meeplezoo.agents.ppo import PPOAgent
from meeplezoo.agents.sb3 import SB3Agent
from meeplezoo.training.arena import evaluate, format_evaluation
from meeplezoo.training.ppo_config import default_eval_against

from .common import int_arg, output_file, seed_arg, split_agents


def add_parser(sub: Any) -> None:
    p = sub.add_parser("evaluate", help="play a PPO checkpoint against other agents, seats rotated")
    p.add_argument("checkpoint", help="a .zip written by `meeplezoo train`, or sb3:PATH for a plain "
                                      "stable-baselines3 model (then --game and --players say what it plays)")
    p.add_argument("--game", default=None, help="sb3:PATH only: the game id")
    p.add_argument("--players", type=int_arg(1), default=None, help="sb3:PATH only: the number of players")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--against", default=None, metavar="SPECS",
                   help="comma-separated opponent specs (default random,heuristic)")
    p.add_argument("--games", type=int_arg(1), default=200, help="games per opponent")
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--sampled", action="store_true", help="sample actions from the policy instead of the argmax")
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the results as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.checkpoint.startswith("sb3:"):
        agent: Any = SB3Agent.load(args.checkpoint[4:], args.game, args.players, seed=args.seed,
                                   deterministic=not args.sampled)
        meta = {"training_steps": int(getattr(agent.model, "num_timesteps", 0))}
    else:
        agent = PPOAgent.load(args.checkpoint, seed=args.seed, deterministic=not args.sampled)
        meta = agent.metadata
    game = agent.game
    against = split_agents(args.against) if args.against else default_eval_against(game)
    opts = ", ".join(f"{k}={v!r}" for k, v in game.non_default_options.items())
    print(f"{args.checkpoint}: {game.pretty_name}, {game.num_players} players{', ' + opts if opts else ''}, "
          f"{meta.get('training_steps', 0)} training steps; {args.games} games per opponent, seats rotated, "
          f"{'sampled' if args.sampled else 'greedy'} actions")
    results = evaluate(agent, game, against, args.games, seed=args.seed, progress=not args.no_progress)
    print(format_evaluation(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({spec: {"games": st.games, "wins": st.wins, "win_rate": st.win_rate, "interval": st.interval,
                              "mean_score": st.mean_score, "mean_margin": st.mean_margin}
                       for spec, st in results.items()}, f, indent=2)
    return 0
