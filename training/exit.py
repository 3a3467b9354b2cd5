"""Expert iteration (ExIt / AlphaZero-style): the search guided by a network teaches the network.

Each iteration:

1. **Self-play.** ``games_per_iteration`` games are played, each on its own seed.  In every game at
   least one seat is the *expert*: PUCT search (:mod:`meeplezoo.agents.mcts`) whose prior and leaf
   values come from the current network (:class:`~meeplezoo.agents.network.NetworkEvaluator`, leaves
   evaluated ``batch`` at a time).  Each other seat is, by the weights of ``opponents``, the expert
   too (``self``), the game's heuristic (``heuristic``) or a past snapshot of the network searching
   the same way (``snapshot``).  For the first ``explore_moves`` decisions of each seat the expert plays
   an action sampled from its policy target, then the search's choice.  Every expert decision is a
   sample: the observation, the legal mask, the visit-count distribution (the policy target; with
   ``policy_target="improved"`` and the search option ``root=gumbel``, the Gumbel root's improved policy
   instead) and, once the game is over, the returns in ``reward_mode``, egocentric (the value target).
   Each worker plays its games ``games_at_once`` at a time in lockstep
   (:func:`~meeplezoo.agents.search.lockstep`), so that the network evaluates the leaves of all of them in one
   call; the samples are those of the games played one by one, whatever ``games_at_once`` and the number of
   workers.
2. **Training.** The samples join a replay buffer of the last ``buffer_size``; the network
   (:class:`~meeplezoo.training.networks.BlockNet`) is trained ``epochs`` passes over it on
   cross-entropy to the policy targets (illegal actions masked) plus ``value_weight`` times the
   mean squared error of the value head.
3. **Snapshots and evaluation.** The network is written as a checkpoint (``current.zip``, no pickle;
   ``snapshots/iter_NNNN.zip``), and every ``eval_every`` iterations the network alone (greedy) plays
   ``eval_games`` games against each of ``eval_against``, seats rotated; the best one so far against the
   last opponent listed is ``best.zip``.

A warm start (``warm_start_games`` > 0) first imitates a teacher playing every seat: the heuristic (targets:
half its move, half the softmax of its action scores) or a search such as ``mcts:sims=200`` (its visits).
With ``init`` (another run's directory) a new run starts from that run's network and buffer instead: a new
recipe (another labeller, other opponents) continuing an old run, whose config cannot change.

The run directory (:class:`~meeplezoo.training.run.Run`) also holds ``buffer.npz``; a run continues where it
stopped, and as every random choice derives from ``seed``, the iteration and the game index, a resumed run
gives what an uninterrupted one would, inline, on a process pool or on Ray alike.  The self-play workers load
this module: it imports neither torch (:mod:`.learner`, on first training) nor stable-baselines3.

    meeplezoo train haus_der_sonne --algo exit --iterations 20 --out runs/exit/haus_der_sonne
"""

from __future__ import annotations

import json
import multiprocessing
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo._version import __version__
from meeplezoo.agents.network import (
    NetworkAgent,
    PolicyValueNet,
    load_network,
    with_pooled_pass,
)

from . import samples
from .arena import evaluate, wilson_interval
from .executor import Executor, check_execution, chunks, imap, make_executor
from .exit_config import ARCHITECTURES, OPPONENT_KINDS, VALUE_REWARD_MODES, ExItConfig
from .exit_games import (  # noqa: F401 - play_game, _search and the rest re-exported where they were
    _concat,
    _empty,
    _search,
    game_steps,
    imitation_game,
    play_game,
    play_games,
)
from .inference import inference_net
from .run import CONFIG_FILE, PROGRESS_FILE, TRAINER_FILE, Run, RunResult, Trainer, cpu_seconds, learner

__all__ = ["ARCHITECTURES", "OPPONENT_KINDS", "VALUE_REWARD_MODES", "ExItConfig", "ExItResult", "ExItTrainer",
           "generate", "imitation_game", "make_pool", "play_game", "play_games", "train_exit"]

#: snapshots kept as self-play opponents (the most recent)
MAX_SNAPSHOT_OPPONENTS = 4
#: the replay buffer's file in the run directory
BUFFER_FILE = "buffer.npz"
#: the knobs an ``init`` run must share with the run it starts from, beside its network (``net_config``): they
#: make the observations and the samples (value targets included)
INIT_SAME = ("game", "num_players", "options", "architecture", "reward_mode")
#: seed strides (so the seeds of games, seats and iterations never collide)
_ITER_STRIDE, _WARM_OFFSET, _EVAL_OFFSET = 1_000_003, 7_777_777, 9_999_991


# -- self-play (runs in the workers: numpy only; the games in :mod:`.exit_games`) -----------------------------
def _worker_games(job: dict[str, Any]) -> dict[str, np.ndarray]:
    """Play the games of one job (a worker's share of an iteration): picklable, numpy only."""
    cfg = ExItConfig.from_json(job["config"])
    game = cfg.count_game(job.get("players", cfg.num_players))
    if job["kind"] == "imitation":
        return _concat([imitation_game(cfg, s, game) for s in job["seeds"]], game)
    net = self_play_net(cfg, job["net"], game)
    snaps = [self_play_net(cfg, p, game) for p in job["snapshots"]]
    return _concat(play_games(cfg, net, snaps, job["seeds"], game), game)


def self_play_net(cfg: ExItConfig, path: str, game: Any) -> PolicyValueNet:
    """The network self-play evaluates with: the checkpoint at ``path`` on the config's ``inference``,
    ``inference_device`` and ``inference_precision`` (:func:`~meeplezoo.training.inference.inference_net`;
    the one place where self-play's backend is chosen), numpy's pooled batches taking ``inference_pass``
    (:func:`~meeplezoo.agents.seatnet.with_pooled_pass`).  Torch on the CPU in a pool worker gets one thread,
    as numpy's BLAS does: the pool is the parallelism, and threads on a small batch spin on every core."""
    net = inference_net(load_network(path, game), cfg.inference, cfg.inference_device,
                        cfg.inference_precision)
    if cfg.inference_pass != "rows" and getattr(net, "device", None) is None:  # numpy's pooled pass
        net = with_pooled_pass(net, cfg.inference_pass)
    if str(getattr(net, "device", "")) == "cpu" and multiprocessing.parent_process() is not None:
        import torch  # loaded already: the network is torch's

        torch.set_num_threads(1)
    return net


def _jobs(cfg: ExItConfig, kind: str, games: int, workers: int) -> int:
    """How many jobs ``games`` games are split into: self-play jobs of about ``games_at_once`` games (what a
    worker plays in lockstep) but at least one per worker; the warm start's as many as
    :data:`GENERATE_JOBS` allows.  The samples do not depend on the split."""
    if kind == "imitation":
        return GENERATE_JOBS
    return min(GENERATE_JOBS, max(-(-games // cfg.games_at_once), min(games, workers)))


#: the most jobs the games of one :func:`generate` call are split into (a few games each when there are many)
GENERATE_JOBS = 256


def make_pool(workers: int, backend: str = "process", address: str | None = None) -> Executor:
    """The executor self-play runs on (:func:`~meeplezoo.training.executor.make_executor`)."""
    return make_executor(workers, backend, address, who="exit")


def generate(cfg: ExItConfig, kind: str, seeds: Sequence[int], net_path: str | None = None,
             snapshots: Sequence[str] = (), workers: int = 1, pool: Executor | None = None) -> dict[str, np.ndarray]:
    """The samples of the games on ``seeds`` (``kind`` ``"selfplay"`` or ``"imitation"``), in seed order (with
    several player counts: by count, each in seed order).

    Each game's player count is drawn from the config's counts by its seed alone (:func:`game_players`).  The
    games of each count are split into at most :data:`GENERATE_JOBS` contiguous jobs (self-play jobs of about
    ``games_at_once`` games, at least one job per worker: :func:`_jobs`), played one per worker at a time on
    ``pool`` (an executor) or ``workers`` processes, a new job starting as soon as any ends; every game is
    seeded by its own seed and a job's games in lockstep play as they would alone, so the result is the
    same for any worker count and any ``games_at_once``.
    """
    by_count: dict[int, list[int]] = {}
    for s in seeds:
        by_count.setdefault(game_players(cfg, int(s)), []).append(int(s))
    width = int(getattr(pool, "workers", 1) if pool is not None else workers)
    jobs = [{"config": cfg.to_json(), "kind": kind, "seeds": part, "net": net_path, "snapshots": list(snapshots),
             "players": n} for n in sorted(by_count)
            for part in chunks(by_count[n], _jobs(cfg, kind, len(by_count[n]), width))]
    if pool is not None:
        parts = list(imap(pool, _worker_games, jobs))
    else:
        with make_executor(workers, who="exit") as ex:
            parts = list(imap(ex, _worker_games, jobs))
    return _concat(parts, cfg.make_game())


def game_players(cfg: ExItConfig, seed: int) -> int:
    """The player count of the game on ``seed``: one of ``cfg.counts``, uniformly, by the seed alone."""
    counts = cfg.counts
    if len(counts) == 1:
        return counts[0]
    return int(counts[int(np.random.default_rng([int(seed), 0x5EA7]).integers(len(counts)))])


# -- the trainer ------------------------------------------------------------------------------------------------
@dataclass
class ExItResult(RunResult):
    """What a run did: besides the directory, CPU seconds and evaluations, the iterations and samples."""

    iterations: int = 0
    samples: int = 0

    def summary(self) -> str:
        lines = [f"expert iteration: {self.iterations} iterations, {self.samples} samples, "
                 f"{self.cpu_seconds / 3600:.2f} CPU hours -> {self.run_dir}"]
        for row in self.evaluations[-1:]:
            lines += [f"  iteration {row['iteration']}: " + ", ".join(
                f"{k[3:]} {v:.3f}" for k, v in row.items() if k.startswith("vs_"))]
        return "\n".join(lines)


#: the columns of an expert-iteration run's log.csv (before the evaluation's)
LOG_KEYS = ("iteration", "samples", "cpu_seconds", "wall_seconds", "new_samples", "policy_loss", "value_loss")


class ExItTrainer(Trainer):
    """An expert-iteration run in ``run_dir`` (new, or an existing one continued)."""

    step_key = "iteration"
    eval_offset = _EVAL_OFFSET

    def __init__(self, cfg: ExItConfig, run_dir: str | Path, *, workers: int = 1, torch_threads: int = 1,
                 tensorboard: bool = True, verbose: int = 1, backend: str = "process",
                 address: str | None = None, device: str = "cpu") -> None:
        check_execution(workers, backend, address, who="exit")
        self.cfg, self.workers, self.backend, self.address = cfg, int(workers), backend, address
        self.game = cfg.make_game()
        self.run_dir = Run(cfg, run_dir, {"iteration": 0, "samples": 0, "cpu_seconds": 0.0, "warm_started": False,
                                          "best_score": None, "snapshots": []},
                           tensorboard=tensorboard, verbose=verbose)
        self.learner = learner().Learner(self.game, cfg.net_config, lr=cfg.lr, weight_decay=cfg.weight_decay,
                                         seed=cfg.seed, threads=torch_threads, device=device)
        games = [cfg.count_game(n) for n in cfg.counts]
        #: the widths of the run's samples: the widest observation and the most seats of its player counts
        self.widths = (max(g.observation_shape[0] for g in games), max(cfg.counts))
        self.buffer = samples.empty(self.widths[0], self.game.num_actions, self.widths[1])
        if self.run_dir.resumed:
            self.learner.load(self.dir / TRAINER_FILE)
            self.buffer = self._load_buffer(self.dir)
        elif cfg.init:
            self._start_from(Path(cfg.init))
        self.run_dir.start()
        (self.dir / "snapshots").mkdir(exist_ok=True)

    def _load_buffer(self, run_dir: Path) -> dict[str, np.ndarray]:
        with np.load(run_dir / BUFFER_FILE, allow_pickle=False) as data:
            kept = samples.with_players({k: data[k] for k in data.files}, self.cfg.num_players)
            return {k: kept[k] for k in samples.SAMPLE_KEYS}

    def _start_from(self, src: Path) -> None:
        """A new run that continues ``src``'s network (``init``): its latest network, a fresh optimiser at this
        run's learning rate, its replay buffer (the last ``buffer_size`` samples), its samples and training CPU
        seconds counted in this run's; no warm start.  The knobs that make the network and its samples must be
        the same (an error names those that differ); the search, the opponents and the schedule may change."""
        try:
            saved = json.loads((src / CONFIG_FILE).read_text())
            progress = json.loads((src / PROGRESS_FILE).read_text())
            theirs = ExItConfig.from_json(saved).net_config
        except (OSError, ValueError) as e:
            raise ValueError(f"exit: init={str(src)!r} is not an expert-iteration run directory with a finished "
                             f"iteration or warm start (config.json, progress.json): {e}") from None
        if not (src / TRAINER_FILE).exists():
            raise ValueError(f"exit: init={str(src)!r} holds no expert-iteration network ({TRAINER_FILE})")
        mine = self.cfg.to_json()
        net = self.cfg.net_config
        diff = sorted({k for k in INIT_SAME if saved.get(k) != mine.get(k)}
                      | {k for k in set(net) | set(theirs) if net.get(k) != theirs.get(k)})
        if diff:
            raise ValueError(f"exit: init={str(src)!r} trained another network or on other samples (differs in "
                             f"{diff}); those knobs must be the same")
        self.learner.load(src / TRAINER_FILE, optimiser=False)
        buf = self._load_buffer(src)
        self.buffer = {k: v[-self.cfg.buffer_size:] for k, v in buf.items()}
        p = self.progress
        p["warm_started"] = True
        p["samples"] = int(progress.get("samples", 0))
        p["cpu_seconds"] = float(progress.get("cpu_seconds", 0.0))
        p["init"] = {"run": str(src), "iteration": int(progress.get("iteration", 0)),
                     "samples": p["samples"], "cpu_seconds": p["cpu_seconds"]}
        self.run_dir.say(f"starting from {src} (iteration {p['init']['iteration']}, "
                         f"{p['cpu_seconds'] / 3600:.2f} CPU h): its network and {len(self.buffer['obs'])} samples")

    def save(self) -> None:
        """The learner, the replay buffer and ``progress.json``.  The buffer is compressed: observations are
        mostly zeros (a padded 5-player Kerala sample is 105 kB raw, under 1 kB compressed), so a run
        directory stays small enough to keep, copy and commit between the steps of a long run."""
        np.savez_compressed(self.dir / "buffer.tmp.npz", **self.buffer)
        (self.dir / "buffer.tmp.npz").replace(self.dir / BUFFER_FILE)
        super().save()

    def numpy_net(self) -> Any:
        """The current network, for playing (numpy; a seat network bound to ``num_players``)."""
        p = self.progress
        return self.learner.numpy_net(self.learner.metadata(
            algorithm="exit", version=__version__, iterations=int(p["iteration"]), samples=int(p["samples"]),
            training_cpu_seconds=round(float(p["cpu_seconds"]), 1), seed=self.cfg.seed,
            exit_config=self.cfg.to_json()))

    def evaluate(self, games: int | None = None, executor: Executor | None = None) -> dict[str, float]:
        """The network alone (greedy) against ``n - 1`` copies of each ``eval_against`` opponent, seats rotated,
        at every player count of the run: ``vs_SPEC_Np`` per count, and ``vs_SPEC`` (with its interval) the
        share of first places (ties split) over the games of all counts."""
        cfg = self.cfg
        if len(cfg.counts) == 1:
            return super().evaluate(games, executor)
        seed = cfg.seed + self.eval_offset + int(self.progress[self.step_key])
        agent = NetworkAgent(self.numpy_net())
        out: dict[str, float] = {}
        pooled: dict[str, tuple[float, int]] = {}
        for n in cfg.counts:
            res = evaluate(agent, cfg.count_game(n), list(cfg.eval_against), cfg.eval_games if games is None else games,
                           seed=seed + 101 * n, executor=executor)
            for spec, st in res.items():
                out[f"vs_{spec}_{n}p"] = st.win_rate
                wins, played = pooled.get(spec, (0.0, 0))
                pooled[spec] = (wins + st.wins, played + st.games)
        for spec, (wins, played) in pooled.items():
            out[f"vs_{spec}"] = wins / played if played else 0.0
            out[f"ci_low_{spec}"], out[f"ci_high_{spec}"] = wilson_interval(wins, played)
        return out

    # -- the algorithm ----------------------------------------------------------------------------------------
    def _train(self, data: dict[str, np.ndarray], epochs: int, seed: int) -> dict[str, float]:
        """Cross-entropy to the policy targets (illegal actions masked) plus ``value_weight`` times the value
        head's squared error, ``epochs`` passes over ``data``."""
        lib = learner()
        value_weight = self.cfg.value_weight

        def loss(b: dict[str, Any]) -> tuple[Any, dict[str, float]]:
            if self.learner.seat:  # the seats of each sample's game, its player count's observation
                return self.learner.seat_loss(b, value_weight)
            logits, v = self.learner.forward(b["obs"])
            lp = lib.cross_entropy(logits, b["mask"], b["pi"])
            lv = ((v - b["z"]) ** 2).mean()
            return lp + value_weight * lv, {"policy_loss": lp.item(), "value_loss": lv.item()}

        out = self.learner.fit(data, epochs, self.cfg.batch_size, seed, loss)
        return out or {"policy_loss": float("nan"), "value_loss": float("nan")}

    def _add(self, data: dict[str, np.ndarray]) -> None:
        buf = samples.concat([self.buffer, data], *self.widths)
        self.buffer = {k: v[-self.cfg.buffer_size:] for k, v in buf.items()}

    def warm_start(self, pool: Executor | None = None) -> None:
        """Imitate ``warm_start_games`` games of the teacher (once per run)."""
        cfg = self.cfg
        c0 = cpu_seconds()
        seeds = [cfg.seed + _WARM_OFFSET + i for i in range(cfg.warm_start_games)]
        data = generate(cfg, "imitation", seeds, workers=self.workers, pool=pool)
        # trained on all of it; the replay buffer then keeps the last buffer_size decisions, which the expert's
        # samples replace as they come
        losses = self._train(samples.concat([self.buffer, data], *self.widths), cfg.warm_start_epochs,
                             cfg.seed + _WARM_OFFSET)
        self._add(data)
        self.progress["warm_started"] = True
        self.progress["samples"] += len(data["obs"])
        self.progress["cpu_seconds"] += cpu_seconds() - c0
        self.run_dir.say(f"warm start: {len(data['obs'])} heuristic decisions imitated, "
                         f"policy loss {losses['policy_loss']:.3f}, value loss {losses['value_loss']:.3f}")
        self.save()

    def run(self, iterations: int | None = None, time_limit: float | None = None) -> ExItResult:
        """Run until ``iterations`` (default the config's) are done or ``time_limit`` seconds have passed."""
        warm = self.warm_start if self.cfg.warm_start_games and not self.progress["warm_started"] else None
        rows = self.loop(self.cfg.iterations if iterations is None else int(iterations), time_limit,
                         make_executor(self.workers, self.backend, self.address, who="exit"), warm)
        p = self.progress
        return ExItResult(self.dir, float(p["cpu_seconds"]), rows, int(p["iteration"]), int(p["samples"]))

    def step(self, pool: Executor | None = None) -> dict[str, Any]:
        """One iteration: self-play, training, checkpoint, evaluation when due; returns its log row."""
        cfg, p = self.cfg, self.progress
        t0, c0 = time.time(), cpu_seconds()
        it = int(p["iteration"]) + 1
        current = self.numpy_net().save(self.dir / "current.zip")
        seeds = [cfg.seed + _ITER_STRIDE * it + i for i in range(cfg.games_per_iteration)]
        snaps = [str(self.dir / s) for s in p["snapshots"][-MAX_SNAPSHOT_OPPONENTS:]]
        data = generate(cfg, "selfplay", seeds, str(current), snaps, workers=self.workers, pool=pool)
        self._add(data)
        losses = self._train(self.buffer, cfg.epochs, cfg.seed + _ITER_STRIDE * it)
        p["iteration"] = it
        p["samples"] += len(data["obs"])
        row: dict[str, Any] = {"iteration": it, "new_samples": len(data["obs"]), **losses}
        snap = f"snapshots/iter_{it:04d}.zip"
        p["cpu_seconds"] += cpu_seconds() - c0
        net = self.numpy_net()
        net.save(self.dir / snap)
        p["snapshots"].append(snap)
        net.save(self.dir / "final.zip")
        return self.finish_step(row, net, pool, t0, LOG_KEYS)

    #: one iteration (the step's name in this algorithm)
    iteration = step


def train_exit(game: str, run_dir: str | Path, *, workers: int = 1, time_limit: float | None = None,
               torch_threads: int = 1, tensorboard: bool = True, verbose: int = 1, backend: str = "process",
               address: str | None = None, device: str = "cpu", **config: Any) -> ExItResult:
    """Run (or continue) expert iteration for ``game`` in ``run_dir``; ``config`` are :class:`ExItConfig` fields.

    Self-play runs inline (``workers=1``), on a process pool (``workers`` > 1) or as Ray tasks
    (``backend="ray"``, a local instance or the cluster at ``address``); the network trains on ``device``
    (``cpu``, ``cuda``, ``cuda:N``, ``auto``)."""
    cfg = ExItConfig(game=game, **config)
    trainer = ExItTrainer(cfg, run_dir, workers=workers, torch_threads=torch_threads, tensorboard=tensorboard,
                          verbose=verbose, backend=backend, address=address, device=device)
    return trainer.run(time_limit=time_limit)
