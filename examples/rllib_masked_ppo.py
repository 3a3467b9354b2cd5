"""RLlib's PPO with its action-masking module on a meeplezoo game: one shared policy plays every seat.

Needs ``pip install "ray[rllib]" torch``.  The environment is RLlib's own ``PettingZooEnv`` over the
game, with the observation keys RLlib's ``ActionMaskingTorchRLModule`` reads (``meeplezoo.rllib``), so
no renaming code is needed here::

    python examples/rllib_masked_ppo.py --game kerala --players 2 --iterations 2

Each iteration prints the episodes finished, their mean length, the first seat's mean return (win = +1,
loss = -1, in self-play near 0) and the policy loss; ``--json`` writes them.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def build_config(game: str, players: int, *, batch: int = 256, minibatch: int = 64, epochs: int = 1,
                 env_runners: int = 0, seed: int = 0) -> Any:
    """RLlib's PPOConfig: the game registered as an environment, one masked module for every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    from meeplezoo.rllib import rllib_env

    register_env("meeplezoo", lambda cfg: rllib_env(cfg["game"], num_players=cfg["players"]))
    return (
        PPOConfig()
        .environment("meeplezoo", env_config={"game": game, "players": players})
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": [64, 64]})}))
        .env_runners(num_env_runners=env_runners)
        .training(train_batch_size=batch, minibatch_size=minibatch, num_epochs=epochs)
        .debugging(seed=seed)
    )


def _plain(value: Any) -> Any:
    """A metric as a JSON number (RLlib reports numpy scalars and tensors)."""
    if hasattr(value, "item"):
        value = value.item()
    return round(value, 4) if isinstance(value, float) else value


def train(game: str, players: int, iterations: int, **kwargs: Any) -> list[dict[str, Any]]:
    """Build PPO and run ``iterations`` training iterations; one summary dict per iteration."""
    config = build_config(game, players, **kwargs)
    algo = config.build_algo()
    rows = []
    try:
        for i in range(iterations):
            t0 = time.time()
            result = algo.train()
            runners = result.get("env_runners", {})
            learner = result.get("learners", {}).get("shared", {})
            agent_returns = runners.get("agent_episode_returns_mean", {})
            rows.append({k: _plain(v) for k, v in {
                "iteration": i + 1,
                "episodes": runners.get("num_episodes", 0),
                "episode_len_mean": runners.get("episode_len_mean"),
                "player_0_return_mean": agent_returns.get("player_0"),
                "policy_loss": learner.get("policy_loss"),
                "env_steps_sampled": runners.get("num_env_steps_sampled_lifetime"),
                "seconds": time.time() - t0,
            }.items()})
            print(json.dumps(rows[-1]))
    finally:
        algo.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="kerala")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--batch", type=int, default=256, help="train_batch_size (env steps per iteration)")
    ap.add_argument("--env-runners", type=int, default=0, help="0: sample in the driver process")
    ap.add_argument("--json", help="write the per-iteration summaries here")
    args = ap.parse_args(argv)
    import ray

    ray.init(num_cpus=max(1, args.env_runners + 1), include_dashboard=False, log_to_driver=False)
    try:
        rows = train(args.game, args.players, args.iterations, batch=args.batch, env_runners=args.env_runners)
    finally:
        ray.shutdown()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"game": args.game, "players": args.players, "iterations": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
