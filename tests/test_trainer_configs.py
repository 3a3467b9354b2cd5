"""Every trainer's settings are one knob table: config -> command line -> config, config -> config.json ->
config, and a run directory refuses another config by naming the knobs that differ."""

from __future__ import annotations

import json
import shlex

import pytest

from meeplezoo.cli import build_parser
from meeplezoo.commands.train import ALGOS, config_from_args
from meeplezoo.training.distill import DistillConfig
from meeplezoo.training.exit import ExItConfig
from meeplezoo.training.finetune import FinetuneConfig
from meeplezoo.training.ppo_config import PPOConfig
from meeplezoo.training.run import SHARED, Run

#: for every trainer, a config that sets many of its knobs away from their defaults
CONFIGS = {
    "ppo": PPOConfig(game="kerala", num_players=3, opponents={"random": 1.0, "mcts:sims=20": 2.0}, timesteps=999,
                     self_play=True, self_play_weight=0.5, keep_last=3, eval_against=("random",), eval_games=7,
                     eval_freq=100, eval_interval_s=2.5, seed=2**64 - 1, n_envs=3, vec="dummy", net_arch=(32, 16),
                     activation="relu", reward_mode="rank", learning_rate=1e-3, rollout_steps=512, batch_size=64,
                     n_epochs=2, gamma=0.9, ent_coef=0.0),
    "exit": ExItConfig(game="haus_der_sonne", options={"variant": "tactical"}, iterations=3, sims=9, batch=2, c=0.7,
                       fpu=0.0, leaf="rollout", search_options={"rollout": "heuristic", "rollout_depth": 4},
                       opponents={"self": 0.6, "snapshot": 0.4}, reward_mode="rank", warm_start_games=5,
                       warm_start_teacher="mcts:sims=30", lr=2e-3, weight_decay=0.0, eval_against=("heuristic",),
                       flat_hidden=64, trunk_hidden=32, board_channels=2, action_hidden=0, seed=5),
    "distill": DistillConfig(game="kerala", options={"elephant_view": True}, teacher="mcts:sims=8",
                             opponent="random", games=30, chunk=3, init="scratch", epochs=0, lr=1e-3, holdout=3,
                             width=48, channels=8, trunk_layers=2, action_hidden=8, behaviour="random",
                             extra_data=("runs/a", "runs/b"), seed=4),
    "finetune": FinetuneConfig(game="hawaii", opponents={"heuristic": 1.0, "random": 3.0}, updates=7,
                               games_per_update=5, clip=0.1, value_coef=0.0, ent_coef=0.01, reward="margin",
                               margin_scale=4.0, temperature=0.5, eval_every=1, eval_games=0,
                               eval_against=("random",), seed=8),
}


def test_every_algorithm_has_a_config_here():
    assert set(CONFIGS) == set(ALGOS)


@pytest.mark.parametrize("algo", sorted(CONFIGS))
def test_config_argv_config(algo):
    cfg = CONFIGS[algo]
    line = cfg.command("runs/x", time_limit=60)
    args = build_parser().parse_args(shlex.split(line)[1:])
    assert args.algo == algo and args.out == "runs/x"
    assert config_from_args(args) == cfg
    default = type(cfg)(game=cfg.game)
    assert config_from_args(build_parser().parse_args(shlex.split(default.command())[1:])) == default


@pytest.mark.parametrize("algo", sorted(CONFIGS))
def test_config_json_config(algo):
    cfg = CONFIGS[algo]
    saved = json.loads(json.dumps(cfg.to_json()))
    assert type(cfg).from_json(saved) == cfg
    with pytest.raises(ValueError, match=f"{cfg.who}: unknown config key\\(s\\) gods"):
        type(cfg).from_json({**saved, "gods": 1})


def test_shared_knobs_are_declared_once():
    """A knob several trainers have (seed, learning rate, evaluation, widths) comes from one declaration: its
    range and doc are the same in each (its default may be the trainer's own)."""
    for name in ("seed", "lr", "batch_size", "epochs", "eval_games", "eval_every", "channels", "action_hidden"):
        owners = [(algo, cls.knobs()[n]) for algo, cls in ALGOS.items()
                  for n in cls.knobs().names if n == name or (name == "lr" and n == "learning_rate")]
        assert owners, name
        for _algo, k in owners:
            assert (k.low, k.high, k.type) == (SHARED[name].low, SHARED[name].high, SHARED[name].type) or \
                name in ("batch_size", "epochs"), (name, _algo)


def test_a_run_directory_refuses_another_config_by_name(tmp_path):
    cfg = CONFIGS["finetune"]
    run = Run(cfg, tmp_path / "run", {"update": 0})
    run.start()
    Run(type(cfg)(**{**cfg.to_json(), "updates": 99}), tmp_path / "run", {})  # updates may grow
    with pytest.raises(ValueError, match=r"another config \(differs in \['clip', 'temperature'\]\)"):
        Run(type(cfg)(**{**cfg.to_json(), "clip": 0.3, "temperature": 1.0}), tmp_path / "run", {})


def test_flags_of_another_algorithm_are_refused():
    from meeplezoo.cli import main

    assert main(["train", "haus_der_sonne", "--algo", "exit", "--timesteps", "10"]) == 2
    assert main(["train", "haus_der_sonne", "--workers", "2", "--timesteps", "10"]) == 2
