"""Expert iteration (ExIt / AlphaZero-style): the search guided by a network teaches the network.

Each iteration:

1. **Self-play.** ``games_per_iteration`` games are played, each on its own seed.  In every game at
   least one seat is the *expert*: PUCT search (:mod:`meeplezoo.agents.mcts`) whose prior and leaf
   values come from the current network (:class:`~meeplezoo.agents.network.NetworkEvaluator`, leaves
   evaluated ``batch`` at a time).  Each other seat is, by the weights of ``opponents``, the expert
   too (``self``), the game's heuristic (``heuristic``) or a past snapshot of the network searching
   the same way (``snapshot``).  For the first ``explore_moves`` decisions of each seat the expert plays
   an action sampled from its visit counts, then the most visited one.  Every expert decision is a
   sample: the observation, the legal mask, the visit-count distribution (the policy target) and, once
   the game is over, the returns in ``reward_mode``, egocentric (the value target).
2. **Training.** The samples join a replay buffer of the last ``buffer_size``; the network
   (:class:`~meeplezoo.training.networks.BlockNet`) is trained ``epochs`` passes over it on
   cross-entropy to the visit distribution (illegal actions masked) plus ``value_weight`` times the
   mean squared error of the value head.
3. **Snapshots and evaluation.** The network is written as a checkpoint (``current.zip``, no pickle;
   ``snapshots/iter_NNNN.zip``), and every ``eval_every`` iterations the network alone (greedy) plays
   ``eval_games`` games against each of ``eval_against``, seats rotated; the best one so far against the
   last opponent listed is ``best.zip``.

A warm start (``warm_start_games`` > 0) first imitates a teacher playing every seat: the heuristic (targets:
half its move, half the softmax of its action scores) or a search such as ``mcts:sims=200`` (its visits).

The run directory (:class:`~meeplezoo.training.run.Run`) also holds ``buffer.npz``; a run continues where it
stopped, and as every random choice derives from ``seed``, the iteration and the game index, a resumed run
gives what an uninterrupted one would, inline, on a process pool or on Ray alike.  The self-play workers load
this module: it imports neither torch (:mod:`.learner`, on first training) nor stable-baselines3.

    meeplezoo train haus_der_sonne --algo exit --iterations 20 --out runs/exit/haus_der_sonne
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo._version import __version__
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.mcts import HeuristicPrior
from meeplezoo.agents.network import NetworkAgent, PolicyValueNet, load_network, network_search, seats_to_egocentric

from . import samples
from .arena import evaluate, wilson_interval
from .executor import Executor, check_execution, chunks, imap, make_executor
from .exit_config import ARCHITECTURES, OPPONENT_KINDS, VALUE_REWARD_MODES, ExItConfig
from .run import TRAINER_FILE, Run, RunResult, Trainer, cpu_seconds, learner

__all__ = ["ARCHITECTURES", "OPPONENT_KINDS", "VALUE_REWARD_MODES", "ExItConfig", "ExItResult", "ExItTrainer",
           "generate", "imitation_game", "make_pool", "play_game", "train_exit"]

#: snapshots kept as self-play opponents (the most recent)
MAX_SNAPSHOT_OPPONENTS = 4
#: the replay buffer's file in the run directory
BUFFER_FILE = "buffer.npz"
#: seed strides (so the seeds of games, seats and iterations never collide)
_ITER_STRIDE, _WARM_OFFSET, _EVAL_OFFSET = 1_000_003, 7_777_777, 9_999_991


# -- self-play (runs in the workers: numpy only) ------------------------------------------------------
def _seat_kinds(cfg: ExItConfig, rng: np.random.Generator, n: int, have_snapshots: bool) -> list[str]:
    kinds = [k for k in OPPONENT_KINDS if cfg.opponents.get(k, 0) > 0 and (k != "snapshot" or have_snapshots)]
    if not kinds:
        kinds = ["self"]
    w = np.array([cfg.opponents.get(k, 0.0) for k in kinds], dtype=np.float64)
    w /= w.sum()
    expert = int(rng.integers(n))
    return ["expert" if i == expert else str(kinds[rng.choice(len(kinds), p=w)]) for i in range(n)]


def _search(net: PolicyValueNet, cfg: ExItConfig, seed: int) -> Any:
    return network_search(net, seed=seed, sims=cfg.sims, batch=cfg.batch, c=cfg.c, fpu=cfg.fpu,
                          reward_mode=cfg.reward_mode, leaf=cfg.leaf, **cfg.search_options)


def play_game(cfg: ExItConfig, net: PolicyValueNet, snapshots: Sequence[PolicyValueNet], seed: int,
              game: Any = None) -> dict[str, np.ndarray]:
    """One self-play game on ``seed``: the samples of its expert decisions (arrays of equal length)."""
    game = game if game is not None else cfg.make_game()
    n = game.num_players
    rng = np.random.default_rng(seed)
    kinds = _seat_kinds(cfg, rng, n, bool(snapshots))
    agents: list[Any] = []
    for i, kind in enumerate(kinds):
        s = int(rng.integers(2**31))
        if kind in ("expert", "self"):
            agents.append(_search(net, cfg, s))
        elif kind == "snapshot":
            agents.append(_search(snapshots[int(rng.integers(len(snapshots)))], cfg, s))
        else:
            agents.append(make_agent("heuristic", game.name, num_players=n, seed=s))
        agents[i].reset(s)
    state = game.new_state(int(rng.integers(2**31)))
    obs, masks, pis, players = [], [], [], []
    moves = [0] * n
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        agent = agents[p]
        if kinds[p] in ("expert", "self") and int(mask.sum()) > 1:
            result = agent.search(state)
            pi = result.policy(1.0)
            if moves[p] < cfg.explore_moves:
                a = int(rng.choice(len(pi), p=pi))
            else:
                a = result.action
            moves[p] += 1
            obs.append(state.observe(p).astype(np.float16))
            masks.append(np.array(mask, dtype=bool))
            pis.append(pi.astype(np.float16))
            players.append(p)
        elif kinds[p] in ("expert", "self"):
            a = int(np.flatnonzero(mask)[0])
        else:
            a = int(agent.act(state.observe(p) if getattr(agent, "uses_observation", True) else None, mask,
                              state=state if agent.uses_state else None))
        state.apply(a)
    returns = state.returns(cfg.reward_mode)
    z = np.array([seats_to_egocentric(returns, p) for p in players], dtype=np.float32).reshape(len(players), n)
    return _pack(obs, masks, pis, z, game)


def imitation_game(cfg: ExItConfig, seed: int, game: Any = None) -> dict[str, np.ndarray]:
    """One game of the warm-start teacher against itself (every seat), its choices as policy targets:
    the heuristic's move and action scores, or a search's visit counts (``warm_start_teacher``)."""
    game = game if game is not None else cfg.make_game()
    n = game.num_players
    rng = np.random.default_rng(seed)
    teacher = cfg.warm_start_teacher
    agents = [make_agent(teacher, game.name, num_players=n, seed=int(rng.integers(2**31))) for _ in range(n)]
    searching = teacher != "heuristic"
    priors = None if searching else [HeuristicPrior(a) for a in agents]
    state = game.new_state(int(rng.integers(2**31)))
    obs, masks, pis, players = [], [], [], []
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        if int(mask.sum()) > 1:
            if searching:
                result = agents[p].search(state)
                a, target = result.action, result.policy(1.0)
            else:
                pi = priors[p].evaluate([state])[0][0]
                a = int(agents[p].act(state.observe(p), mask, state=state))
                target = np.zeros(len(mask))
                target[a] = 0.5
                target += 0.5 * pi
            obs.append(state.observe(p).astype(np.float16))
            masks.append(np.array(mask, dtype=bool))
            pis.append(target.astype(np.float16))
            players.append(p)
        else:
            a = int(np.flatnonzero(mask)[0])
        state.apply(a)
    returns = state.returns(cfg.reward_mode)
    z = np.array([seats_to_egocentric(returns, p) for p in players], dtype=np.float32).reshape(len(players), n)
    return _pack(obs, masks, pis, z, game)


def _pack(obs: list, masks: list, pis: list, z: np.ndarray, game: Any) -> dict[str, np.ndarray]:
    return samples.pack(obs, masks, pis, z, game)


def _empty(game: Any) -> dict[str, np.ndarray]:
    return samples.empty(game.observation_shape[0], game.num_actions, game.num_players)


def _concat(parts: Sequence[dict[str, np.ndarray]], game: Any) -> dict[str, np.ndarray]:
    """The samples of ``parts`` in order, padded to the widest of them (:mod:`.samples`)."""
    return samples.concat(parts, game.observation_shape[0], game.num_players, game.num_actions)


def _worker_games(job: dict[str, Any]) -> dict[str, np.ndarray]:
    """Play the games of one job (a worker's share of an iteration): picklable, numpy only."""
    cfg = ExItConfig.from_json(job["config"])
    game = cfg.count_game(job.get("players", cfg.num_players))
    if job["kind"] == "imitation":
        return _concat([imitation_game(cfg, s, game) for s in job["seeds"]], game)
    net = load_network(job["net"], game)
    snaps = [load_network(p, game) for p in job["snapshots"]]
    return _concat([play_game(cfg, net, snaps, s, game) for s in job["seeds"]], game)


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
    games of each count are split into at most :data:`GENERATE_JOBS` contiguous jobs (a split that depends on
    the games alone), played one per worker at a time on ``pool`` (an executor) or ``workers`` processes, a
    new job starting as soon as any ends; every game is seeded by its own seed, so the result is the same for
    any worker count.
    """
    by_count: dict[int, list[int]] = {}
    for s in seeds:
        by_count.setdefault(game_players(cfg, int(s)), []).append(int(s))
    jobs = [{"config": cfg.to_json(), "kind": kind, "seeds": part, "net": net_path, "snapshots": list(snapshots),
             "players": n} for n in sorted(by_count) for part in chunks(by_count[n], GENERATE_JOBS)]
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
            with np.load(self.dir / BUFFER_FILE, allow_pickle=False) as data:
                kept = samples.with_players({k: data[k] for k in data.files}, cfg.num_players)
                self.buffer = {k: kept[k] for k in samples.SAMPLE_KEYS}
        self.run_dir.start()
        (self.dir / "snapshots").mkdir(exist_ok=True)

    def save(self) -> None:
        """The learner, the replay buffer and ``progress.json``."""
        np.savez(self.dir / "buffer.tmp.npz", **self.buffer)
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
        """Cross-entropy to the visit counts (illegal actions masked) plus ``value_weight`` times the value
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
