"""Train MaskablePPO on one seat of any meeplezoo game, against a weighted pool of opponents.

    meeplezoo train kerala --players 2 --opponents random:1,heuristic:1 --timesteps 20000 --out runs/kerala

or from Python::

    from meeplezoo.training.ppo import train
    result = train("kerala", num_players=2, opponents={"random": 1, "heuristic": 1},
                   timesteps=20_000, out_dir="runs/kerala", seed=0)
    print(result.final_evaluation)

What happens, top to bottom (each step is one function below):

1. the Game and the :class:`~meeplezoo.training.selfplay.OpponentPool`: fixed
   opponents drawn by weight, plus frozen snapshots of the learner with
   ``self_play=True``;
2. ``n_envs`` :class:`~meeplezoo.envs.core.gym.SingleAgentEnv` copies, the
   learner's seat drawn per episode, in a ``SubprocVecEnv`` (``DummyVecEnv``
   with one env, one core, or ``vec="dummy"``);
3. MaskablePPO (sb3-contrib) with an MLP sized to the observation;
4. :class:`TrainingCallback`: every ``eval_freq`` steps it plays the learner
   (greedy) against each evaluation opponent with rotated seats, logs win rate
   and mean score margin to TensorBoard and ``eval.csv``, keeps ``best.zip``,
   and with self-play freezes a snapshot into the pool (copied to every worker);
5. ``final.zip``, then ``best.zip`` evaluated again on fresh seeds.

The output directory holds ``final.zip``, ``best.zip``, ``eval.csv``,
``config.json``, ``tb/`` (TensorBoard) and ``snapshots/`` (self-play).
Checkpoints load as agents: ``PPOAgent.load("runs/kerala/best.zip")`` or the
agent spec ``ppo:runs/kerala/best.zip``.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import multiprocessing
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from meeplezoo._version import __version__
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.ppo import PPOAgent, save_checkpoint
from meeplezoo.envs.core import Game
from meeplezoo.envs.core.gym import SingleAgentEnv
from meeplezoo.registry import make_game
from meeplezoo.training.arena import SEED_LIMIT, AgentStats, evaluate, format_evaluation, offset_seed
from meeplezoo.training.inference import resolve_device
from meeplezoo.training.networks import BlockNet, BlockNetConfig, config_dict
from meeplezoo.training.ppo_config import (
    BATCH_SIZE,
    NETS,
    ROLLOUT_STEPS,
    SB3_KNOBS,
    PPOConfig,
    default_eval_against,
    default_opponents,
    heuristic_available,
)
from meeplezoo.training.selfplay import OpponentPool

__all__ = ["train", "TrainResult", "PPOConfig", "evaluate", "format_evaluation", "default_opponents",
           "heuristic_available", "default_eval_against", "default_net_arch", "offset_seed", "sb3_seed", "NETS",
           "SEED_LIMIT"]


#: PPO's hyperparameters (the knobs of :class:`~meeplezoo.training.ppo_config.PPOConfig`, by their SB3 names)
PPO_DEFAULTS: dict[str, Any] = {"rollout_steps": ROLLOUT_STEPS, "batch_size": BATCH_SIZE,
                                **{k: PPOConfig.knobs()[k].default for k in SB3_KNOBS if k != "batch_size"}}


def sb3_seed(seed: int) -> int:
    """The seed handed to stable-baselines3, which seeds numpy's legacy generator (below 2**32 only)."""
    if seed < 2**32:
        return seed
    return int(np.random.SeedSequence(seed).generate_state(1, dtype=np.uint32)[0])


# -- 1. game, opponents, network ------------------------------------------------------------
def default_net_arch(observation_size: int, num_actions: int) -> list[int]:
    """Hidden widths: one shared layer, then one layer for each of actor and critic.

    64, 128 or 256 units as the observation (or action space) grows, halved
    while the first layer would exceed 4M weights: Kerala's board planes
    (20,936 inputs for 2 players) get 128 units, not a 10M-weight layer that
    would make checkpoints huge and updates slow on a laptop CPU.
    """
    size = max(observation_size, num_actions)
    width = 64 if size <= 64 else 128 if size <= 256 else 256
    while width > 64 and observation_size * width > 4_000_000:
        width //= 2
    return [width, width]


class MlpFeatures(BaseFeaturesExtractor):
    """The shared first layer(s) of actor and critic: Linear + activation per width."""

    def __init__(self, observation_space: gymnasium.spaces.Box, layers: Sequence[int] = (128,),
                 activation: str = "tanh") -> None:
        super().__init__(observation_space, features_dim=int(layers[-1]))
        act = torch.nn.Tanh if activation == "tanh" else torch.nn.ReLU
        mods: list[torch.nn.Module] = []
        last = int(np.prod(observation_space.shape))
        for width in layers:
            mods += [torch.nn.Linear(last, int(width)), act()]
            last = int(width)
        self.net = torch.nn.Sequential(*mods)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations.flatten(1))


class BlockFeatures(BaseFeaturesExtractor):
    """The trunk of a :class:`~meeplezoo.training.networks.BlockNet` as SB3's features extractor:
    convolutions over the game's board blocks, an MLP over the rest (``net="blocks"``)."""

    def __init__(self, observation_space: gymnasium.spaces.Box, game: str = "", num_players: int = 2,
                 options: Mapping[str, Any] | None = None, config: Mapping[str, int] | None = None) -> None:
        g = make_game(game, num_players, **dict(options or {}))
        cfg = BlockNetConfig(**dict(config or {}))
        super().__init__(observation_space, features_dim=cfg.trunk_hidden)
        self.net = BlockNet(g.observation_spec, g.num_actions, g.num_players, cfg, heads=False)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net.features(observations.flatten(1))


def blocks_policy_kwargs(game: Game, config: Mapping[str, int]) -> dict[str, Any]:
    """SB3 policy settings for the block network: its trunk shared, linear actor and critic heads on it."""
    return {"features_extractor_class": BlockFeatures,
            "features_extractor_kwargs": {"game": game.name, "num_players": game.num_players,
                                          "options": dict(game.non_default_options), "config": dict(config)},
            "net_arch": {"pi": [], "vf": []}, "activation_fn": torch.nn.ReLU}


def policy_kwargs(net_arch: Sequence[int], activation: str) -> dict[str, Any]:
    """SB3 policy settings for hidden widths ``[shared, *heads]``."""
    return {"features_extractor_class": MlpFeatures,
            "features_extractor_kwargs": {"layers": list(net_arch[:1]), "activation": activation},
            "net_arch": {"pi": list(net_arch[1:]), "vf": list(net_arch[1:])},
            "activation_fn": torch.nn.Tanh if activation == "tanh" else torch.nn.ReLU}


def checkpoint_metadata(game: Game, steps: int, net_arch: Sequence[int], activation: str,
                        **extra: Any) -> dict[str, Any]:
    """What a checkpoint records about itself (checked by ``PPOAgent.load``)."""
    return {
        "game": game.name, "num_players": game.num_players, "options": dict(game.options),
        "observation_version": type(game).observation_version, "observation_size": game.observation_shape[0],
        "num_actions": game.num_actions, "training_steps": int(steps), "algorithm": "MaskablePPO",
        "net_arch": {"features": list(net_arch[:1]), "pi": list(net_arch[1:]), "vf": list(net_arch[1:])},
        "activation": activation,
        "meeplezoo_version": __version__, **extra,
    }


# -- 2. vectorised environments ----------------------------------------------------------------
class LearnerEnv(SingleAgentEnv):
    """SingleAgentEnv drawing opponents from its own copy of the pool, which the trainer can replace."""

    def __init__(self, game: Game, pool_state: dict[str, Any], seed: int, reward_mode: str) -> None:
        game = type(game)(**game.config)  # a fresh Game in this process
        self.pool = OpponentPool(game, self_play_weight=1.0)
        self.pool.load_state_dict(pool_state)
        super().__init__(game, self.pool, reward_mode=reward_mode, seed=seed)

    def set_pool_state(self, state: dict[str, Any]) -> None:
        self.pool.load_state_dict(state)


def _env_factory(game: Game, pool_state: dict[str, Any], seed: int, reward_mode: str):
    def make() -> LearnerEnv:
        return LearnerEnv(game, pool_state, seed, reward_mode)

    return make


def make_vec_env(game: Game, pool: OpponentPool, n_envs: int, vec: str, seed: int, reward_mode: str) -> VecEnv:
    """``n_envs`` learner envs; ``vec`` is ``"subproc"``, ``"dummy"`` or ``"auto"`` (subproc on 2+ cores)."""
    if vec not in ("auto", "subproc", "dummy"):
        raise ValueError(f"vec must be 'auto', 'subproc' or 'dummy', got {vec!r}")
    if vec == "auto":
        vec = "subproc" if n_envs > 1 and (os.cpu_count() or 1) > 1 else "dummy"
    fns = [_env_factory(game, pool.state_dict(), offset_seed(seed, 1009 * i), reward_mode) for i in range(n_envs)]
    if vec == "dummy":
        return VecMonitor(DummyVecEnv(fns))
    # fork where the OS has it: workers start at once, and scripts need no `if __name__ == "__main__"`
    # guard.  The workers never run torch (opponents are numpy agents), which is what makes fork safe here.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return VecMonitor(SubprocVecEnv(fns, start_method=method))


# -- 4. evaluation (the arena's :func:`~meeplezoo.training.arena.evaluate`) ------------------------------
class TrainingCallback(BaseCallback):
    """Periodic evaluation (TensorBoard, eval.csv, best.zip), self-play snapshots, wall-time limit."""

    def __init__(self, game: Game, pool: OpponentPool, out_dir: Path, meta: dict[str, Any], *,
                 eval_against: Sequence[str], eval_games: int, eval_freq: int, eval_seed: int,
                 self_play: bool, snapshot_freq: int, time_limit: float | None,
                 eval_interval_s: float | None = None, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.game, self.pool, self.out_dir, self.meta = game, pool, out_dir, meta
        self.eval_against, self.eval_games, self.eval_freq, self.eval_seed = list(eval_against), eval_games, \
            eval_freq, eval_seed
        self.self_play, self.snapshot_freq, self.time_limit = self_play, snapshot_freq, time_limit
        self.eval_interval_s = eval_interval_s
        self._last_eval_time = 0.0
        self.evaluations: list[dict[str, Any]] = []
        self.best_score = -math.inf
        self.best_path: Path | None = None
        self.stopped_by_time_limit = False
        self._last_eval = self._last_snapshot = 0
        self._t0 = time.monotonic()
        self._eval_time = 0.0
        self._last_score: float | None = None

    def metadata(self) -> dict[str, Any]:
        return {**self.meta, "training_steps": int(self.num_timesteps)}

    def _on_training_start(self) -> None:
        self._t0 = time.monotonic()
        if self.eval_games and self.eval_against:
            self._evaluate()
        if self.self_play:
            self._snapshot()

    def _on_step(self) -> bool:
        if self.eval_games and self.eval_against and self._eval_due():
            self._evaluate()
        if self.self_play and self.num_timesteps - self._last_snapshot >= self.snapshot_freq:
            self._snapshot()
        if self.time_limit is not None and time.monotonic() - self._t0 >= self.time_limit:
            self.stopped_by_time_limit = True
            return False
        return True

    def _eval_due(self) -> bool:
        if self.eval_interval_s is not None:  # by the clock (time-limited runs of unknown speed)
            return time.monotonic() - self._last_eval_time >= self.eval_interval_s
        return self.num_timesteps - self._last_eval >= self.eval_freq

    def _on_training_end(self) -> None:
        if self.eval_games and self.eval_against and self.num_timesteps > self._last_eval:
            self._evaluate()

    def _evaluate(self) -> None:
        t = time.monotonic()
        agent = PPOAgent.from_model(self.model, self.metadata(), deterministic=True)
        results = evaluate(agent, self.game, self.eval_against, self.eval_games, seed=self.eval_seed)
        score = float(np.mean([st.win_rate for st in results.values()]))
        row: dict[str, Any] = {"timesteps": int(self.num_timesteps), "wall_s": round(t - self._t0, 2)}
        for spec, st in results.items():
            lo, hi = st.interval
            row |= {f"win_rate[{spec}]": st.win_rate, f"ci_low[{spec}]": lo, f"ci_high[{spec}]": hi,
                    f"margin[{spec}]": st.mean_margin}
            self.logger.record(f"eval/win_rate_{spec}", st.win_rate)
            self.logger.record(f"eval/score_margin_{spec}", st.mean_margin)
        row["score"] = score
        row["best"] = int(score > self.best_score)
        self.logger.record("eval/score", score)
        if score > self.best_score:
            self.best_score = score
            self.best_path = save_checkpoint(self.model, self.out_dir / "best.zip", self.metadata())
        self._eval_time += time.monotonic() - t
        self.logger.record("time/eval_seconds", self._eval_time)
        self.logger.dump(self.num_timesteps)
        self._write_row(row)
        self.evaluations.append(row)
        self._last_eval = self.num_timesteps
        self._last_eval_time = time.monotonic()
        self._last_score = score
        if self.verbose:
            rates = "  ".join(f"{spec}: {st.win_rate:.3f}" for spec, st in results.items())
            print(f"[{self.game.name} {self.num_timesteps:>9} steps, {row['wall_s']:7.1f}s] win rate vs {rates}"
                  + ("  (best)" if row["best"] else ""), flush=True)

    def _write_row(self, row: dict[str, Any]) -> None:
        path = self.out_dir / "eval.csv"
        new = not path.exists() or not self.evaluations
        with open(path, "w" if new else "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            if new:
                w.writeheader()
            w.writerow(row)

    def _snapshot(self) -> None:
        path = save_checkpoint(self.model, self.out_dir / "snapshots" / f"step_{self.num_timesteps:09d}.zip",
                               self.metadata(), light=True)
        score = self._last_score if self.evaluations and self._last_eval == self.num_timesteps else None
        self.pool.add_snapshot(str(path), self.num_timesteps, score)
        self.training_env.env_method("set_pool_state", self.pool.state_dict())
        self._last_snapshot = self.num_timesteps
        self.logger.record("selfplay/snapshots", len(self.pool.snapshots))


# -- 5. the whole run -----------------------------------------------------------------------------
@dataclass
class TrainResult:
    """Where a run left its files, and how the learner did."""

    out_dir: Path
    final_path: Path
    best_path: Path | None
    timesteps: int
    wall_time: float
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    final_evaluation: dict[str, AgentStats] | None = None
    stopped_by_time_limit: bool = False

    def summary(self) -> str:
        lines = [f"trained {self.timesteps} steps in {self.wall_time:.0f}s -> {self.final_path}"]
        if self.best_path is not None:
            lines.append(f"best checkpoint: {self.best_path}")
        if self.final_evaluation:
            lines += ["evaluation of the best checkpoint (fresh seeds, seats rotated):",
                      format_evaluation(self.final_evaluation)]
        return "\n".join(lines)


def train(game: str | Game = "kerala", num_players: int | None = 2,
          opponents: Mapping[str, float] | str | None = None, timesteps: int = 20_000,
          out_dir: str | Path = "runs/ppo", *, time_limit: float | None = None, torch_threads: int | None = 1,
          progress: bool = False, tensorboard: bool = True, verbose: int = 1,
          rule_options: Mapping[str, Any] | None = None, device: str = "cpu", **settings: Any) -> TrainResult:
    """Train MaskablePPO on ``game`` and return where the checkpoints are and how they play.

    ``game`` is a registry id (``num_players`` and ``rule_options`` configure it) or a Game object;
    ``opponents`` are ``{spec: weight}`` or ``"random:1,heuristic:1"`` (default random and heuristic);
    ``settings`` are the other knobs of :class:`~meeplezoo.training.ppo_config.PPOConfig` (``self_play``,
    ``eval_against``, ``eval_games``, ``net``, ``net_arch``, ``learning_rate``, ``rollout_steps``...).
    Training stops after ``timesteps`` learner decisions or ``time_limit`` seconds; the policy trains on
    ``device`` (``cpu``, ``cuda``, ``cuda:N``, ``auto``).
    """
    if isinstance(game, Game):
        if rule_options or (num_players is not None and num_players != game.num_players):
            raise ValueError("pass either a Game object or a game id with num_players/rule_options, not both")
    else:
        game = make_game(game, num_players, **dict(rule_options or {}))
    known = set(PPOConfig.knobs().names) - {"game", "num_players", "options", "opponents", "timesteps"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ValueError(f"unknown PPO setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    cfg = PPOConfig(game=game.name, num_players=game.num_players, options=dict(game.non_default_options),
                    opponents=opponents, timesteps=timesteps, **settings)
    return train_config(cfg, out_dir, game=game, time_limit=time_limit, torch_threads=torch_threads,
                        progress=progress, tensorboard=tensorboard, verbose=verbose, device=device)


def resolve(cfg: PPOConfig, game: Game) -> PPOConfig:
    """``cfg`` with the defaults that depend on the game and the run filled in (opponents, evaluation
    opponents, network widths, rollout and minibatch sizes): what the run's ``config.json`` records."""
    fixed = cfg.opponents if cfg.opponents is not None else default_opponents(game)
    if not fixed and not cfg.self_play:
        raise ValueError("no opponents: give some, or turn on self_play")
    weight = cfg.self_play_weight if cfg.self_play_weight is not None else \
        (sum(fixed.values()) or 1.0) if cfg.self_play else 0.0
    try:
        blocks = config_dict(BlockNetConfig(**dict(cfg.blocks or {}))) if cfg.net == "blocks" else None
    except TypeError as e:
        raise ValueError(f"blocks: {e}") from None
    net_arch = cfg.net_arch if cfg.net_arch is not None or blocks else \
        tuple(default_net_arch(game.observation_shape[0], game.num_actions))
    rollout, batch = cfg.rollout_steps, cfg.batch_size
    if rollout is None:  # a short run is one rollout of its own size, not a default 2048
        rollout = min(ROLLOUT_STEPS, cfg.timesteps)
        if batch is None and cfg.timesteps < ROLLOUT_STEPS:
            batch = min(BATCH_SIZE, max(16, cfg.timesteps))
    return dataclasses.replace(
        cfg, opponents=fixed, self_play_weight=weight, net_arch=net_arch, blocks=blocks,
        activation="relu" if blocks else cfg.activation, rollout_steps=rollout, batch_size=batch or BATCH_SIZE,
        eval_against=tuple(cfg.eval_against) if cfg.eval_against is not None else tuple(default_eval_against(game)))


def train_config(cfg: PPOConfig, out_dir: str | Path, *, game: Game | None = None, time_limit: float | None = None,
                 torch_threads: int | None = 1, progress: bool = False, tensorboard: bool = True,
                 verbose: int = 1, device: str = "cpu") -> TrainResult:
    """Train the run ``cfg`` describes into ``out_dir`` (``game``: a Game object for an unregistered game) on
    ``device`` (the policy's: ``cpu``, ``cuda``, ``cuda:N``, ``auto``; the opponents play in numpy)."""
    game = game if game is not None else cfg.make_game()
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    cfg = resolve(cfg, game)
    device = resolve_device(device)
    pool = OpponentPool(game, cfg.opponents, self_play_weight=cfg.self_play_weight if cfg.self_play else 0.0,
                        keep_last=cfg.keep_last)
    pool.check()  # a bad spec fails here, not in a worker
    for spec in cfg.eval_against:
        make_agent(spec, game, num_players=game.num_players, seed=0)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file in the way, no permission: say so before anything is trained
        raise ValueError(f"cannot create the run folder {str(out)!r}: {e.strerror or e}") from None
    (out / "config.json").write_text(json.dumps(cfg.to_json(), indent=2))
    if torch_threads:
        torch.set_num_threads(torch_threads)
    model, callback, wall = _learn(cfg, game, pool, out, time_limit, progress, tensorboard, verbose, device)
    # 5. final checkpoint, and the best one evaluated on fresh seeds
    final_path = save_checkpoint(model, out / "final.zip", callback.metadata())
    best_path = callback.best_path
    final_eval = None
    if cfg.final_eval_games and cfg.eval_against:
        agent = PPOAgent.load(best_path or final_path, game=game)
        final_eval = evaluate(agent, game, cfg.eval_against, cfg.final_eval_games,
                              seed=offset_seed(cfg.seed, 1_000_003))
    result = TrainResult(out, final_path, best_path, int(model.num_timesteps), wall, callback.evaluations,
                         final_eval, callback.stopped_by_time_limit)
    with open(out / "result.json", "w") as f:
        json.dump({"timesteps": result.timesteps, "wall_time": wall, "final": str(final_path),
                   "best": str(best_path) if best_path else None, "stopped_by_time_limit": result.stopped_by_time_limit,
                   "final_evaluation": {s: {"games": st.games, "win_rate": st.win_rate, "interval": st.interval,
                                            "mean_margin": st.mean_margin} for s, st in (final_eval or {}).items()}},
                  f, indent=2)
    return result


def _learn(cfg: PPOConfig, game: Game, pool: OpponentPool, out: Path, time_limit: float | None, progress: bool,
           tensorboard: bool, verbose: int, device: str = "cpu") -> tuple[MaskablePPO, TrainingCallback, float]:
    """Steps 2-4: the vectorised envs, the model, and learning with the callback; (model, callback, seconds)."""
    n_steps = max(16, math.ceil(cfg.rollout_steps / cfg.n_envs))
    rollout = n_steps * cfg.n_envs
    if verbose and cfg.timesteps % rollout:  # PPO trains whole rollouts: say what will be trained and why
        print(f"note: PPO trains whole rollouts of {rollout} steps ({cfg.n_envs} envs x {n_steps}): "
              f"{math.ceil(cfg.timesteps / rollout) * rollout} steps instead of {cfg.timesteps}", flush=True)
    eval_freq = cfg.eval_freq if cfg.eval_freq is not None else max(rollout, cfg.timesteps // 5)
    blocks = cfg.blocks if cfg.net == "blocks" else None
    env = make_vec_env(game, pool, cfg.n_envs, cfg.vec, cfg.seed, cfg.reward_mode)
    try:
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=n_steps, seed=sb3_seed(cfg.seed), device=device, verbose=0,
            tensorboard_log=str(out / "tb") if tensorboard else None,
            policy_kwargs=policy_kwargs(cfg.net_arch, cfg.activation) if blocks is None
            else blocks_policy_kwargs(game, blocks), **{k: getattr(cfg, k) for k in SB3_KNOBS})
        meta = checkpoint_metadata(game, 0, list(cfg.net_arch or ()), cfg.activation, reward_mode=cfg.reward_mode,
                                   seed=cfg.seed, opponents=cfg.opponents, self_play=cfg.self_play)
        if blocks is not None:
            meta["net_arch"] = {"features": [], "pi": [], "vf": []}
            meta["network"] = {"kind": "blocks", "config": blocks}
        callback = TrainingCallback(
            game, pool, out, meta, eval_against=cfg.eval_against, eval_games=cfg.eval_games, eval_freq=eval_freq,
            eval_seed=offset_seed(cfg.seed, 1), self_play=cfg.self_play, snapshot_freq=cfg.snapshot_freq or eval_freq,
            time_limit=time_limit, eval_interval_s=cfg.eval_interval_s, verbose=verbose)
        t0 = time.monotonic()
        model.learn(total_timesteps=cfg.timesteps, callback=callback, progress_bar=progress, tb_log_name="ppo")
        return model, callback, time.monotonic() - t0
    finally:
        env.close()
