"""Fine-tuning a network against fixed opponents: PPO's clipped policy gradient on whole games.

The shipped networks learn the heuristic's and the search's moves by imitation; imitation alone stays
below its teacher.  This step plays the network itself (actions sampled from its policy) against the
opponents it must beat, the heuristic by default, and moves its policy toward what won: AlphaStar's
recipe of an imitation warm start followed by reinforcement learning, with the opponent fixed.

Each update:

1. **Games.** ``games_per_update`` games, each on its own seed (``seed``, the update and the game index):
   the learner sits in seat ``game % num_players``, every other seat is an opponent drawn by the
   weights of ``opponents`` (agent specs).  Every learner decision with a choice is a sample: the
   observation, the legal mask, the action, its log-probability and the value head's estimate.  The
   return of a sample is the learner's outcome in ``reward`` mode (``win``: +1 / 0 / -1; ``margin``:
   the score lead over the best opponent divided by ``margin_scale`` and clipped to [-1, 1]).  Games run
   inline or on a process pool and give the same samples either way.
2. **Update.** ``epochs`` passes of the PPO loss over the samples: the clipped ratio objective on the
   advantage (return minus the value estimate, normalised), plus ``value_coef`` times the value head's
   squared error, minus ``ent_coef`` times the policy's entropy.
3. **Checkpoints and evaluation.** ``current.zip`` after every update; every ``eval_every`` updates the
   network alone (greedy) plays ``eval_games`` against each of ``eval_against`` (seats rotated) and the
   best against the last one listed so far is ``best.zip``.  ``log.csv``, TensorBoard logs and
   ``curve.png`` follow the run.

The run directory (:class:`~meeplezoo.training.run.Run`) continues where it stopped (``config.json``,
``progress.json``, ``trainer.pt`` with the network and optimiser); a resumed run gives what an
uninterrupted one would.  The checkpoints are ordinary network checkpoints (``net:RUN/best.zip``); their
``training_cpu_seconds`` include those of the network they started from.

    meeplezoo train haus_der_sonne -o derived_features=true --algo finetune --init pretrained \\
        --opponents heuristic:1 --updates 100 --out runs/finetune/haus_der_sonne
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo._version import __version__
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.network import PolicyValueNet, masked_softmax, network_metadata, seats_to_egocentric
from meeplezoo.agents.registry import parse_spec
from meeplezoo.knobs import knob

from .executor import Executor, check_execution, chunks, make_executor
from .run import TRAINER_FILE, Run, RunResult, Trainer, TrainerConfig, cpu_seconds, learner, load_start, shared
from .selfplay import parse_weighted_specs

#: seed strides (updates, games, evaluations never share a seed)
_UPDATE_STRIDE, _EVAL_OFFSET = 1_000_003, 9_999_991
#: the reward modes
REWARDS = ("win", "margin")


def _opponents(value: Any) -> dict[str, float]:
    try:
        out = parse_weighted_specs(value) if value else {}
    except (ValueError, TypeError):
        out = {}
    if not out:
        raise ValueError(f"need non-negative weights with a positive total, got {value!r}")
    for spec in out:
        parse_spec(spec)
    return out


def _start(value: Any) -> str:
    if value != "pretrained" and not (isinstance(value, str) and Path(value).is_file()):
        raise ValueError(f"must be pretrained or a checkpoint file, got {value!r}")
    return value


@dataclass(frozen=True)
class FinetuneConfig(TrainerConfig, algo="finetune", grows=("updates",)):
    """What a fine-tuning run plays and how it learns (``meeplezoo train --algo finetune``)."""

    init: str = knob("pretrained", "the network fine-tuned: pretrained (the shipped one) or a checkpoint file",
                     type=str, check=_start, metavar="CHECKPOINT")
    opponents: dict[str, float] = knob({"heuristic": 1.0}, "weighted agent specs of the other seats, e.g. "
                                       "random:1,heuristic:2 (the weight is the last ':' part when it is a number)",
                                       type=object, check=_opponents, metavar="SPEC:W,...",
                                       show=lambda v: ",".join(f"{k}:{w:g}" for k, w in v.items()))
    updates: int = knob(50, "PPO updates in all (a continued run goes on to this many)", low=0)
    games_per_update: int = knob(64, "games played for each update", low=1)
    lr: float = shared("lr", 1e-4)
    epochs: int = shared("epochs", 2, low=1, doc="PPO passes over an update's samples")
    batch_size: int = shared("batch_size", 256)
    clip: float = knob(0.2, "PPO's ratio clip", low=0, low_open=True)
    value_coef: float = knob(0.5, "weight of the value loss", low=0, flag="--value-weight")
    ent_coef: float = knob(0.0, "entropy bonus", low=0)
    reward: str = knob("win", "the learner's return: win (+1 / 0 / -1) or margin (the score lead over the best "
                       "opponent / margin_scale, clipped; --reward-mode score)", choices=REWARDS,
                       flag="--reward-mode")
    margin_scale: float = knob(10.0, "a score lead of this many points is a return of 1 (reward margin)", low=0,
                               low_open=True)
    temperature: float = knob(1.0, "the learner plays softmax(logits / T); below 1 its games are closer to its "
                              "greedy play", low=0, low_open=True)
    weight_decay: float = shared("weight_decay", 0.0)
    eval_every: int = shared("eval_every", 5, doc="updates between evaluations")
    eval_games: int = shared("eval_games", 100)
    eval_against: tuple[str, ...] = shared("eval_against")
    seed: int = shared("seed")

    def check(self) -> None:
        for spec in self.eval_against:
            parse_spec(spec)


# # -- games (numpy only: they run in the workers) ------------------------------------------------------------
def learner_game(cfg: FinetuneConfig, net: PolicyValueNet, seed: int, index: int,
                 game: Any = None) -> dict[str, np.ndarray]:
    """One game of the sampling learner (seat ``index % num_players``) against opponents drawn by weight."""
    game = cfg.make_game() if game is None else game
    n = game.num_players
    seat = index % n
    rng = np.random.default_rng(seed)
    specs = list(cfg.opponents)
    w = np.array([cfg.opponents[s] for s in specs], dtype=np.float64)
    agents: list[Any] = [None] * n
    for i in range(n):
        pick = specs[int(rng.choice(len(specs), p=w / w.sum()))]
        agents[i] = None if i == seat else make_agent(pick, game, num_players=n, seed=int(rng.integers(2**31)))
    state = game.new_state(int(rng.integers(2**31)))
    obs, masks, acts, logps, vals = [], [], [], [], []
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        if int(mask.sum()) == 1:
            a = int(np.flatnonzero(mask)[0])
        elif p == seat:
            o = state.observe(p)
            logits, values = net.forward(o)
            pr = masked_softmax(logits[0] / cfg.temperature, mask)
            a = int(rng.choice(len(pr), p=pr))
            obs.append(o.astype(np.float16))
            masks.append(np.array(mask, dtype=bool))
            acts.append(a)
            logps.append(float(np.log(max(pr[a], 1e-12))))
            vals.append(float(values[0][0]))
        else:
            a = int(agents[p].act(state.observe(p), mask, state=state))
        state.apply(a)
    win = np.asarray(state.returns("win"), np.float32)
    if cfg.reward == "margin":
        scores = np.asarray(state.returns("score"), np.float64)
        lead = scores[seat] - max(scores[i] for i in range(n) if i != seat)
        ret = float(np.clip(lead / cfg.margin_scale, -1.0, 1.0))
    else:
        ret = float(win[seat])
    k = len(obs)
    size, na = game.observation_shape[0], game.num_actions
    return {"obs": np.stack(obs) if k else np.zeros((0, size), np.float16),
            "mask": np.stack(masks) if k else np.zeros((0, na), bool),
            "action": np.asarray(acts, np.int64), "logp": np.asarray(logps, np.float32),
            "value": np.asarray(vals, np.float32), "ret": np.full(k, ret, np.float32),
            "z": np.repeat(seats_to_egocentric(win, seat)[None].astype(np.float32), k, axis=0),
            "win": np.float32(win[seat] > 0)}


_KEYS = ("obs", "mask", "action", "logp", "value", "ret", "z")


def _worker_games(job: dict[str, Any]) -> dict[str, np.ndarray]:
    cfg = FinetuneConfig.from_json(job["config"])
    game = cfg.make_game()
    net = PolicyValueNet.load(job["net"], game)
    parts = [learner_game(cfg, net, s, i, game) for s, i in zip(job["seeds"], job["indices"])]
    out = {k: np.concatenate([p[k] for p in parts]) for k in _KEYS}
    out["wins"] = np.asarray([p["win"] for p in parts], np.float32)
    return out


def play(cfg: FinetuneConfig, net_path: str, update: int, workers: int = 1,
         pool: Executor | None = None) -> dict[str, np.ndarray]:
    """The samples of update ``update``'s games, in game order (the same inline and on a pool)."""
    seeds = [cfg.seed * 7 + _UPDATE_STRIDE * update + i for i in range(cfg.games_per_update)]
    jobs = [{"config": cfg.to_json(), "net": net_path, "seeds": [seeds[i] for i in part], "indices": part}
            for part in chunks(range(cfg.games_per_update), workers)]
    parts = [_worker_games(j) for j in jobs] if pool is None else list(pool.map(_worker_games, jobs))
    return {k: np.concatenate([p[k] for p in parts]) for k in (*_KEYS, "wins")}


# -- the trainer ---------------------------------------------------------------------------------------------------
@dataclass
class FinetuneResult(RunResult):
    """What a run did: besides the directory, CPU seconds and evaluations, the updates and games."""

    updates: int = 0
    games: int = 0

    def summary(self) -> str:
        last = self.evaluations[-1] if self.evaluations else {}
        ev = ", ".join(f"{k[3:]} {v:.3f}" for k, v in last.items() if k.startswith("vs_"))
        return (f"{self.run_dir}: {self.updates} updates, {self.games} games, "
                f"{self.cpu_seconds / 3600:.2f} CPU h{'; last evaluation: ' + ev if ev else ''}")


#: the columns of a fine-tuning run's log.csv (before the evaluation's)
LOG_KEYS = ("iteration", "games", "samples", "cpu_seconds", "wall_seconds", "train_win_rate", "policy_loss",
            "value_loss", "entropy", "clip_fraction")


class FinetuneTrainer(Trainer):
    """A fine-tuning run in ``run_dir`` (new, or an existing one continued)."""

    step_key = "update"
    eval_offset = _EVAL_OFFSET

    def __init__(self, cfg: FinetuneConfig, run_dir: str | Path, *, workers: int = 1, torch_threads: int = 1,
                 tensorboard: bool = True, verbose: int = 1, device: str = "cpu") -> None:
        check_execution(workers, who="finetune")
        self.cfg, self.workers = cfg, workers
        self.game = cfg.make_game()
        self.run_dir = Run(cfg, run_dir, {"update": 0, "games": 0, "samples": 0, "cpu_seconds": 0.0,
                                          "best_score": None}, tensorboard=tensorboard, verbose=verbose)
        for spec in (*cfg.opponents, *cfg.eval_against):  # refused now (unknown agent or option), not mid-run
            make_agent(spec, self.game, num_players=self.game.num_players, seed=0)
        start = load_start(cfg.init, self.game, "finetune")
        self.start_meta = dict(start.metadata)
        self.learner = learner().Learner(self.game, start.config, lr=cfg.lr, weight_decay=cfg.weight_decay,
                                         start=start, threads=torch_threads, device=device)
        if self.run_dir.resumed:
            self.learner.load(self.dir / TRAINER_FILE)
        self.run_dir.start()

    def numpy_net(self) -> PolicyValueNet:
        """The current network, for playing (numpy)."""
        p = self.progress
        prior = float(self.start_meta.get("training_cpu_seconds") or 0.0)
        return self.learner.numpy_net(network_metadata(
            self.game, self.learner.config, algorithm="finetune", version=__version__, iterations=int(p["update"]),
            games=int(p["games"]), samples=int(p["samples"]), seed=self.cfg.seed,
            training_cpu_seconds=round(prior + float(p["cpu_seconds"]), 1),
            finetune_cpu_seconds=round(float(p["cpu_seconds"]), 1), finetune_config=self.cfg.to_json(),
            init_metadata=self.start_meta, command=self.cfg.command(str(self.dir))))

    def _train(self, data: dict[str, np.ndarray], seed: int) -> dict[str, float]:
        """PPO's clipped objective on the normalised advantage, plus the value loss, minus the entropy bonus."""
        cfg, lib = self.cfg, learner()
        adv = data["ret"] - data["value"]
        batch = {k: data[k] for k in ("obs", "mask", "action", "logp", "z")}
        batch["adv"] = ((adv - adv.mean()) / (adv.std() + 1e-8)).astype(np.float32)

        def loss(b: dict[str, Any]) -> tuple[Any, dict[str, float]]:
            logits, v = self.learner.forward(b["obs"])
            logp_all = lib.masked_log_softmax(logits / cfg.temperature, b["mask"])
            ratio = (logp_all.gather(1, b["action"][:, None])[:, 0] - b["logp"]).exp()
            a = b["adv"]
            lp = -lib.torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
            ent = -(logp_all.exp() * logp_all.masked_fill(~b["mask"], 0.0)).sum(1).mean()
            lv = ((v - b["z"]) ** 2).mean()
            parts = {"policy_loss": lp.item(), "value_loss": lv.item(), "entropy": ent.item(),
                     "clip_fraction": float(((ratio - 1).abs() > cfg.clip).float().mean())}
            return lp + cfg.value_coef * lv - cfg.ent_coef * ent, parts

        out = self.learner.fit(batch, cfg.epochs, cfg.batch_size, seed, loss, clip_grad=1.0)
        return out or dict.fromkeys(("policy_loss", "value_loss", "entropy", "clip_fraction"), float("nan"))

    def step(self, pool: Executor | None = None) -> dict[str, Any]:
        """One update: games, the PPO step, checkpoints, evaluation when due; returns its log row."""
        cfg, p = self.cfg, self.progress
        t0, c0 = time.time(), cpu_seconds()
        u = int(p["update"]) + 1
        current = str(self.numpy_net().save(self.dir / "current.zip"))
        data = play(cfg, current, u, self.workers, pool)
        losses = self._train(data, cfg.seed + _UPDATE_STRIDE * u)
        p.update(update=u, games=int(p["games"]) + cfg.games_per_update, samples=int(p["samples"]) + len(data["obs"]))
        p["cpu_seconds"] += cpu_seconds() - c0
        row: dict[str, Any] = {"iteration": u, "train_win_rate": float(data["wins"].mean()), **losses}
        net = self.numpy_net()
        net.save(self.dir / "final.zip")
        return self.finish_step(row, net, pool, t0, LOG_KEYS, games=p["games"])

    #: one update (the step's name in this algorithm)
    update = step

    def run(self, updates: int | None = None, time_limit: float | None = None) -> FinetuneResult:
        """Run until ``updates`` (default the config's) are done or ``time_limit`` seconds have passed."""
        rows = self.loop(self.cfg.updates if updates is None else int(updates), time_limit,
                         make_executor(self.workers, who="finetune"))
        p = self.progress
        return FinetuneResult(self.dir, float(p["cpu_seconds"]), rows, int(p["update"]), int(p["games"]))


def finetune(game: str, run_dir: str | Path, *, workers: int = 1, time_limit: float | None = None,
             torch_threads: int = 1, tensorboard: bool = True, verbose: int = 1, device: str = "cpu",
             **config: Any) -> FinetuneResult:
    """Run (or continue) fine-tuning for ``game`` in ``run_dir``; ``config`` are :class:`FinetuneConfig` fields;
    the network trains on ``device`` (``cpu``, ``cuda``, ``cuda:N``, ``auto``)."""
    cfg = FinetuneConfig(game=game, **config)
    trainer = FinetuneTrainer(cfg, run_dir, workers=workers, torch_threads=torch_threads, tensorboard=tensorboard,
                              verbose=verbose, device=device)
    return trainer.run(time_limit=time_limit)
