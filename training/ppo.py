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
import json
import math
import multiprocessing
import os
import time
import warnings
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
from meeplezoo.agents.base import Agent
from meeplezoo.agents.ppo import PPOAgent, save_checkpoint
from meeplezoo.envs.core import Game
from meeplezoo.envs.core.gym import SingleAgentEnv
from meeplezoo.registry import make_game
from meeplezoo.training.arena import AgentStats, run_arena
from meeplezoo.training.selfplay import OpponentPool, parse_weighted_specs

DEFAULT_OPPONENTS = {"random": 1.0, "heuristic": 1.0}
DEFAULT_EVAL_AGAINST = ("random", "heuristic")

# PPO hyperparameters: SB3's defaults except where a sparse end-of-game reward
# asks otherwise (long horizon: gamma near 1; some entropy against early collapse).
PPO_DEFAULTS: dict[str, Any] = {
    "learning_rate": 3e-4,
    "rollout_steps": 2048,  # transitions per update over all envs
    "batch_size": 256,
    "n_epochs": 4,  # CleanRL's choice; SB3's 10 doubles the update time on big boards for little gain
    "gamma": 0.995,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
}


#: seeds are non-negative integers below this (as on the command line)
SEED_LIMIT = 2**64


def offset_seed(seed: int, offset: int) -> int:
    """``seed + offset``, wrapped to stay a valid seed (unchanged for all but seeds near 2**64)."""
    return (int(seed) + int(offset)) % SEED_LIMIT


def sb3_seed(seed: int) -> int:
    """The seed handed to stable-baselines3, which seeds numpy's legacy generator (below 2**32 only)."""
    if seed < 2**32:
        return seed
    return int(np.random.SeedSequence(seed).generate_state(1, dtype=np.uint32)[0])


# -- 1. game, opponents, network ------------------------------------------------------------
def heuristic_available(game: Game) -> bool:
    """Whether ``heuristic`` builds for this game (engines and heuristics land separately)."""
    try:
        make_agent("heuristic", game.name, num_players=game.num_players, seed=0)
    except (ImportError, ValueError, AttributeError):
        return False
    return True


def default_opponents(game: Game) -> dict[str, float]:
    """random:1, heuristic:1 (random alone, with a warning, where the heuristic is missing)."""
    if heuristic_available(game):
        return dict(DEFAULT_OPPONENTS)
    warnings.warn(f"{game.name}: no heuristic agent available; training against random only", stacklevel=3)
    return {"random": 1.0}


def default_eval_against(game: Game) -> list[str]:
    return [a for a in DEFAULT_EVAL_AGAINST if a != "heuristic" or heuristic_available(game)]


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
        from meeplezoo.training.networks import BlockNet, BlockNetConfig

        g = make_game(game, num_players, **dict(options or {}))
        cfg = BlockNetConfig(**dict(config or {}))
        super().__init__(observation_space, features_dim=cfg.trunk_hidden)
        self.net = BlockNet(g.observation_spec, g.num_actions, g.num_players, cfg, heads=False)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net.features(observations.flatten(1))


#: the two network families of PPO: one wide MLP layer over the flat vector, or the block network
NETS = ("mlp", "blocks")


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


# -- 4. evaluation -------------------------------------------------------------------------------
def evaluate(agent: Agent, game: Game, against: Sequence[str] = DEFAULT_EVAL_AGAINST, games: int = 200,
             seed: int = 0, progress: bool = False) -> dict[str, AgentStats]:
    """The agent's statistics against each opponent spec (N-1 copies of it), seats rotated.

    ``games`` per opponent; with rotation every seat is played equally often
    (for 2 players: half the games first, half second).
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be an int >= 1, got {games!r}")
    out: dict[str, AgentStats] = {}
    learner = _Labelled(agent, "learner")
    n = game.num_players
    for k, spec in enumerate(against):
        opponents = [make_agent(spec, game, num_players=n, seed=offset_seed(seed * 7, 1000 * k + i))
                     for i in range(n - 1)]
        stats, _ = run_arena(game, [learner, *opponents], games, seed=offset_seed(seed, 7919 * k), progress=progress,
                             desc=f"against {spec}")
        st = stats["learner"]
        st.name = spec
        out[spec] = st
    return out


class _Labelled(Agent):
    """The same agent under another table name (so it is never confused with an opponent)."""

    def __init__(self, agent: Agent, name: str) -> None:
        self.agent, self.name, self.uses_state = agent, name, agent.uses_state

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        return self.agent.act(observation, action_mask, state=state)

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)


def format_evaluation(results: Mapping[str, AgentStats]) -> str:
    rows = [f"{'against':<28} {'games':>6} {'win rate':>9} {'95% interval':>16} {'score margin':>13}"]
    for spec, st in results.items():
        lo, hi = st.interval
        rows.append(f"{spec:<28} {st.games:>6} {st.win_rate:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>16} "
                    f"{st.mean_margin:>13.2f}")
    return "\n".join(rows)


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


def train(
    game: str | Game = "kerala",
    num_players: int | None = 2,
    opponents: Mapping[str, float] | str | None = None,
    timesteps: int = 20_000,
    out_dir: str | Path = "runs/ppo",
    *,
    self_play: bool = False,
    self_play_weight: float | None = None,
    keep_last: int = 5,
    snapshot_freq: int | None = None,
    eval_against: Sequence[str] | None = None,
    eval_games: int = 50,
    eval_freq: int | None = None,
    eval_interval_s: float | None = None,
    final_eval_games: int = 100,
    seed: int = 0,
    n_envs: int = 2,
    vec: str = "auto",
    net_arch: Sequence[int] | None = None,
    activation: str = "tanh",
    net: str = "mlp",
    blocks: Mapping[str, int] | None = None,
    reward_mode: str = "win",
    time_limit: float | None = None,
    torch_threads: int | None = 1,
    progress: bool = False,
    tensorboard: bool = True,
    verbose: int = 1,
    rule_options: Mapping[str, Any] | None = None,
    **ppo_kwargs: Any,
) -> TrainResult:
    """Train MaskablePPO on ``game`` and return where the checkpoints are and how they play.

    Args:
        game: registry id or Game object; ``num_players``/``rule_options`` configure an id.
        opponents: ``{spec: weight}`` or ``"random:1,heuristic:1"``; default random and heuristic.
        timesteps: learner decisions to train for (stops earlier at ``time_limit`` seconds).
        self_play: freeze a snapshot every ``snapshot_freq`` steps into the pool (last
            ``keep_last`` plus the best), drawn with total weight ``self_play_weight``
            (default: the fixed opponents' total, so half the seats; 1 without fixed opponents).
        eval_against / eval_games / eval_freq: periodic evaluation (games per opponent,
            every ``eval_freq`` steps, default 5 evaluations per run, or every
            ``eval_interval_s`` seconds when given); ``eval_games=0`` turns it off.
        final_eval_games: games per opponent for the closing evaluation of best.zip (0: none).
        n_envs, vec: parallel envs, ``"auto"``/``"subproc"``/``"dummy"``.
        net_arch, activation: hidden widths, the first shared by actor and critic, the rest
            each's own (default :func:`default_net_arch`); ``tanh`` or ``relu``.
        net: ``"mlp"`` (default: ``net_arch`` over the flat vector) or ``"blocks"``: the trunk of
            :class:`~meeplezoo.training.networks.BlockNet` (convolutions over board blocks) shared by
            linear actor and critic heads; ``blocks`` sets its widths (``BlockNetConfig`` fields).
        ppo_kwargs: override :data:`PPO_DEFAULTS` (``learning_rate``, ``rollout_steps``, ``n_epochs``...).
    """
    # 1. game, opponents, network, output folder
    if isinstance(game, Game):
        if rule_options or (num_players is not None and num_players != game.num_players):
            raise ValueError("pass either a Game object or a game id with num_players/rule_options, not both")
    else:
        game = make_game(game, num_players, **dict(rule_options or {}))
    for name, value, lo in (("timesteps", timesteps, 1), ("n_envs", n_envs, 1), ("eval_games", eval_games, 0),
                            ("final_eval_games", final_eval_games, 0), ("keep_last", keep_last, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise ValueError(f"{name} must be an int >= {lo}, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be a non-negative integer below 2**64, got {seed!r}")
    seed = int(seed)
    if activation not in ("tanh", "relu"):
        raise ValueError(f"activation must be 'tanh' or 'relu', got {activation!r}")
    if net not in NETS:
        raise ValueError(f"net must be one of {', '.join(NETS)}, got {net!r}")
    block_config = None
    if net == "blocks":
        from meeplezoo.training.networks import BlockNetConfig, config_dict

        try:
            block_config = config_dict(BlockNetConfig(**dict(blocks or {})))
        except TypeError as e:
            raise ValueError(f"blocks: {e}") from None
        if net_arch is not None:
            raise ValueError("net_arch applies to net='mlp'; the block network's widths are set by blocks=")
        activation = "relu"
    elif blocks:
        raise ValueError("blocks= applies to net='blocks'")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    unknown = sorted(set(ppo_kwargs) - set(PPO_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown PPO setting(s) {', '.join(unknown)}; known: {', '.join(PPO_DEFAULTS)}")
    hp = {**PPO_DEFAULTS, **ppo_kwargs}
    fixed = parse_weighted_specs(opponents) if opponents is not None else default_opponents(game)
    if self_play_weight is None:
        self_play_weight = (sum(fixed.values()) or 1.0) if self_play else 0.0
    pool = OpponentPool(game, fixed, self_play_weight=self_play_weight if self_play else 0.0, keep_last=keep_last)
    if not fixed and not self_play:
        raise ValueError("no opponents: give some, or turn on self_play")
    pool.check()  # a bad spec fails here, not in a worker
    eval_against = list(eval_against) if eval_against is not None else default_eval_against(game)
    for spec in eval_against:
        make_agent(spec, game, num_players=game.num_players, seed=0)
    net_arch = list(net_arch) if net_arch is not None else [] if block_config else default_net_arch(
        game.observation_shape[0], game.num_actions)
    bad_width = any(isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in net_arch)
    if (not net_arch and not block_config) or bad_width:
        raise ValueError(f"net_arch must be a non-empty list of positive ints, got {net_arch!r}")
    if "rollout_steps" not in ppo_kwargs and timesteps < hp["rollout_steps"]:
        hp["rollout_steps"] = timesteps  # a short run is one rollout of its own size, not a default 2048
        if "batch_size" not in ppo_kwargs:
            hp["batch_size"] = min(hp["batch_size"], max(16, timesteps))
    n_steps = max(16, math.ceil(hp.pop("rollout_steps") / n_envs))
    rollout = n_steps * n_envs
    if verbose and timesteps % rollout:  # PPO trains whole rollouts: say what will be trained and why
        print(f"note: PPO trains whole rollouts of {rollout} steps ({n_envs} envs x {n_steps}): "
              f"{math.ceil(timesteps / rollout) * rollout} steps instead of {timesteps}", flush=True)
    if eval_freq is None:
        eval_freq = max(n_steps * n_envs, timesteps // 5)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file in the way, no permission: say so before anything is trained
        raise ValueError(f"cannot create the run folder {str(out)!r}: {e.strerror or e}") from None
    config = {"game": game.name, "config": game.config, "opponents": fixed, "timesteps": timesteps,
              "self_play": self_play, "self_play_weight": self_play_weight, "keep_last": keep_last,
              "eval_against": eval_against, "eval_games": eval_games, "eval_freq": eval_freq,
              "eval_interval_s": eval_interval_s, "seed": seed,
              "n_envs": n_envs, "vec": vec, "net_arch": net_arch, "activation": activation, "net": net,
              "blocks": block_config,
              "reward_mode": reward_mode, "time_limit": time_limit, "ppo": {**hp, "n_steps": n_steps}}
    (out / "config.json").write_text(json.dumps(config, indent=2))
    if torch_threads:
        torch.set_num_threads(torch_threads)

    # 2. vectorised envs, 3. the model
    env = make_vec_env(game, pool, n_envs, vec, seed, reward_mode)
    try:
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=n_steps, seed=sb3_seed(seed), device="cpu", verbose=0,
            tensorboard_log=str(out / "tb") if tensorboard else None,
            policy_kwargs=policy_kwargs(net_arch, activation) if block_config is None
            else blocks_policy_kwargs(game, block_config),
            **hp,
        )
        meta = checkpoint_metadata(game, 0, [] if block_config else net_arch, activation, reward_mode=reward_mode,
                                   seed=seed, opponents=fixed, self_play=self_play)
        if block_config is not None:
            meta["net_arch"] = {"features": [], "pi": [], "vf": []}
            meta["network"] = {"kind": "blocks", "config": block_config}
        callback = TrainingCallback(
            game, pool, out, meta, eval_against=eval_against, eval_games=eval_games, eval_freq=eval_freq,
            eval_seed=offset_seed(seed, 1), self_play=self_play, snapshot_freq=snapshot_freq or eval_freq,
            time_limit=time_limit, eval_interval_s=eval_interval_s, verbose=verbose,
        )
        t0 = time.monotonic()
        # 4. learn (the callback evaluates, snapshots and stops at the time limit)
        model.learn(total_timesteps=timesteps, callback=callback, progress_bar=progress, tb_log_name="ppo")
        wall = time.monotonic() - t0
    finally:
        env.close()

    # 5. final checkpoint, and the best one evaluated on fresh seeds
    final_path = save_checkpoint(model, out / "final.zip", callback.metadata())
    best_path = callback.best_path
    final_eval = None
    if final_eval_games and eval_against:
        agent = PPOAgent.load(best_path or final_path, game=game)
        final_eval = evaluate(agent, game, eval_against, final_eval_games, seed=offset_seed(seed, 1_000_003))
    result = TrainResult(out, final_path, best_path, int(model.num_timesteps), wall, callback.evaluations,
                         final_eval, callback.stopped_by_time_limit)
    with open(out / "result.json", "w") as f:
        json.dump({"timesteps": result.timesteps, "wall_time": wall, "final": str(final_path),
                   "best": str(best_path) if best_path else None, "stopped_by_time_limit": result.stopped_by_time_limit,
                   "final_evaluation": {s: {"games": st.games, "win_rate": st.win_rate, "interval": st.interval,
                                            "mean_margin": st.mean_margin} for s, st in (final_eval or {}).items()}},
                  f, indent=2)
    return result
