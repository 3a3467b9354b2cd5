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

The run directory continues where it stopped (``config.json``, ``progress.json``, ``trainer.pt`` with
the network and optimiser, loaded with ``weights_only=True``); a resumed run gives what an uninterrupted
one would.  The checkpoints are ordinary network checkpoints (``net:RUN/best.zip``); their
``training_cpu_seconds`` include those of the network they started from.

    meeplezoo train haus_der_sonne --algo finetune --init pretrained --opponents heuristic:1 \\
        --updates 100 --out runs/finetune/haus_der_sonne
"""

from __future__ import annotations

import csv
import json
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.agents.network import PolicyValueNet, masked_softmax, seats_to_egocentric
from meeplezoo.training.exit import _cpu_seconds, check_config_keys, load_start, tensorboard_writer

#: seed strides (updates, games, evaluations never share a seed)
_UPDATE_STRIDE, _EVAL_OFFSET = 1_000_003, 9_999_991
#: files of a run directory
CONFIG_FILE, PROGRESS_FILE, TRAINER_FILE = "config.json", "progress.json", "trainer.pt"
#: the reward modes
REWARDS = ("win", "margin")


@dataclass(frozen=True)
class FinetuneConfig:
    """What a fine-tuning run plays and how it learns (``meeplezoo train --algo finetune``)."""

    game: str
    num_players: int = 2
    options: Mapping[str, Any] = field(default_factory=dict)
    #: the network fine-tuned: "pretrained" (the shipped one) or a checkpoint path
    init: str = "pretrained"
    #: weighted agent specs of the other seats
    opponents: Mapping[str, float] = field(default_factory=lambda: {"heuristic": 1.0})
    updates: int = 50
    games_per_update: int = 64
    lr: float = 1e-4
    epochs: int = 2
    batch_size: int = 256
    clip: float = 0.2
    value_coef: float = 0.5
    ent_coef: float = 0.0
    reward: str = "win"
    #: a score lead of this many points is a return of 1 (``reward="margin"``)
    margin_scale: float = 10.0
    #: the learner plays (and PPO trains) softmax(logits / temperature): below 1, closer to its greedy play
    temperature: float = 1.0
    weight_decay: float = 0.0
    eval_every: int = 5
    eval_games: int = 100
    eval_against: Sequence[str] = ("random", "heuristic")
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("updates", "games_per_update", "epochs", "batch_size", "eval_every"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "updates" else 1):
                raise ValueError(f"finetune: {name} must be an int >= {0 if name == 'updates' else 1}, got {v!r}")
        if isinstance(self.eval_games, bool) or not isinstance(self.eval_games, int) or self.eval_games < 0:
            raise ValueError(f"finetune: eval_games must be an int >= 0, got {self.eval_games!r}")
        for name in ("lr", "clip", "margin_scale", "temperature"):
            if not getattr(self, name) > 0:
                raise ValueError(f"finetune: {name} must be > 0, got {getattr(self, name)!r}")
        for name in ("value_coef", "ent_coef", "weight_decay"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"finetune: {name} must be >= 0, got {getattr(self, name)!r}")
        if self.reward not in REWARDS:
            raise ValueError(f"finetune: reward must be one of {', '.join(REWARDS)}, got {self.reward!r}")
        if not self.opponents or any(not (w >= 0) for w in self.opponents.values()) or \
                sum(self.opponents.values()) <= 0:
            raise ValueError(f"finetune: opponents need non-negative weights with a positive total, "
                             f"got {dict(self.opponents)!r}")
        if not self.eval_against:
            raise ValueError("finetune: eval_against needs at least one agent spec")
        from meeplezoo.agents.registry import parse_spec

        for spec in (*self.opponents, *self.eval_against):
            parse_spec(spec)
        if self.init != "pretrained" and not os.path.isfile(self.init):
            raise ValueError(f"finetune: init must be pretrained or a checkpoint file, got {self.init!r}")

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["options"] = dict(self.options)
        d["opponents"] = dict(self.opponents)
        d["eval_against"] = list(self.eval_against)
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> FinetuneConfig:
        check_config_keys(cls, d, "finetune")
        d = dict(d)
        if "eval_against" in d:
            d["eval_against"] = tuple(d["eval_against"])
        return cls(**d)

    def make_game(self) -> Any:
        from meeplezoo.registry import make_game

        return make_game(self.game, self.num_players, **dict(self.options))

    def command(self, out: str) -> str:
        """The ``meeplezoo train`` command line that runs (or continues) this config into ``out``."""
        from meeplezoo.registry import GAMES

        d = FinetuneConfig(game=self.game)
        info = GAMES.get(self.game)
        parts = ["meeplezoo", "train", self.game, "--players", str(self.num_players)]
        for k, v in self.options.items():
            parts += [f"--{k}", str(v)] if info is not None and k in ("variant", "version") else ["-o", f"{k}={v}"]
        parts += ["--algo", "finetune", "--init", self.init,
                  "--opponents", ",".join(f"{k}:{w:g}" for k, w in self.opponents.items()),
                  "--updates", str(self.updates), "--games-per-update", str(self.games_per_update)]
        for name, flag in (("lr", "--lr"), ("epochs", "--epochs"), ("batch_size", "--batch-size"),
                           ("clip", "--clip"), ("temperature", "--temperature"), ("ent_coef", "--ent-coef"),
                           ("value_coef", "--value-weight"),
                           ("reward", "--reward-mode"), ("eval_every", "--eval-every"),
                           ("eval_games", "--eval-games")):
            if getattr(self, name) != getattr(d, name):
                parts += [flag, str(getattr(self, name))]
        if tuple(self.eval_against) != tuple(d.eval_against):
            parts += ["--eval-against", ",".join(self.eval_against)]
        parts += ["--seed", str(self.seed), "--out", out]
        rest = [k for k in ("margin_scale", "weight_decay") if getattr(self, k) != getattr(d, k)]
        line = " ".join(parts)
        return line if not rest else line + "  # plus, through the Python API: " + ", ".join(
            f"{k}={getattr(self, k)}" for k in rest)


# -- games (numpy only: they run in the workers) ------------------------------------------------------------
def learner_game(cfg: FinetuneConfig, net: PolicyValueNet, seed: int, index: int,
                 game: Any = None) -> dict[str, np.ndarray]:
    """One game of the sampling learner (seat ``index % num_players``) against opponents drawn by weight."""
    from meeplezoo.agents import make as make_agent

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


def play(cfg: FinetuneConfig, net_path: str, update: int, workers: int = 1, pool: Any = None) -> dict[str, np.ndarray]:
    """The samples of update ``update``'s games, in game order (the same inline and on a pool)."""
    idx = np.arange(cfg.games_per_update)
    seeds = [cfg.seed * 7 + _UPDATE_STRIDE * update + int(i) for i in idx]
    chunks = [c for c in np.array_split(idx, max(1, min(workers, len(idx)))) if len(c)]
    jobs = [{"config": cfg.to_json(), "net": net_path, "seeds": [seeds[i] for i in c],
             "indices": [int(i) for i in c]} for c in chunks]
    if pool is None:
        parts = [_worker_games(j) for j in jobs]
    else:
        parts = list(pool.map(_worker_games, jobs))
    return {k: np.concatenate([p[k] for p in parts]) for k in (*_KEYS, "wins")}


# -- the trainer (torch) -----------------------------------------------------------------------------------------
@dataclass
class FinetuneResult:
    run_dir: Path
    updates: int
    games: int
    cpu_seconds: float
    evaluations: list[dict[str, Any]]

    def summary(self) -> str:
        last = self.evaluations[-1] if self.evaluations else {}
        ev = ", ".join(f"{k[3:]} {v:.3f}" for k, v in last.items() if k.startswith("vs_"))
        return (f"{self.run_dir}: {self.updates} updates, {self.games} games, "
                f"{self.cpu_seconds / 3600:.2f} CPU h{'; last evaluation: ' + ev if ev else ''}")


class FinetuneTrainer:
    """A fine-tuning run in ``run_dir`` (new, or an existing one continued)."""

    def __init__(self, cfg: FinetuneConfig, run_dir: str | Path, *, workers: int = 1, torch_threads: int = 1,
                 tensorboard: bool = True, verbose: int = 1) -> None:
        import torch

        from meeplezoo.training.networks import BlockNet, BlockNetConfig

        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"finetune: workers must be an int >= 1, got {workers!r}")
        self.cfg, self.dir, self.workers, self.verbose = cfg, Path(run_dir), workers, verbose
        self.game = cfg.make_game()
        torch.set_num_threads(int(torch_threads))
        cfg_file = self.dir / CONFIG_FILE
        if cfg_file.exists():
            saved = json.loads(cfg_file.read_text())
            mine = cfg.to_json()
            diff = sorted(k for k in set(saved) | set(mine) if k != "updates" and saved.get(k) != mine.get(k))
            if diff:
                raise ValueError(f"{self.dir} holds a run with another config (differs in {diff}); use another "
                                 f"--out or the same settings to continue it")
        from meeplezoo.agents import make as make_agent

        for spec in (*cfg.opponents, *cfg.eval_against):  # refused now (unknown agent or option), not mid-run
            make_agent(spec, self.game, num_players=self.game.num_players, seed=0)
        start = load_start(cfg.init, self.game, "finetune")
        self.net_config = dict(start.config)
        self.start_meta = dict(start.metadata)
        self.dir.mkdir(parents=True, exist_ok=True)
        cfg_file.write_text(json.dumps(cfg.to_json(), indent=2, sort_keys=True))
        self.net = BlockNet(self.game.observation_spec, self.game.num_actions, self.game.num_players,
                            BlockNetConfig(**self.net_config))
        self.net.load_arrays(start.params)
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.progress: dict[str, Any] = {"update": 0, "games": 0, "samples": 0, "cpu_seconds": 0.0,
                                         "best_score": None}
        if (self.dir / PROGRESS_FILE).exists():
            self.progress = json.loads((self.dir / PROGRESS_FILE).read_text())
            state = torch.load(self.dir / TRAINER_FILE, weights_only=True)
            self.net.load_state_dict(state["net"])
            self.opt.load_state_dict(state["opt"])
        self.writer = tensorboard_writer(self.dir / "tb") if tensorboard else None

    def _save(self) -> None:
        import torch

        torch.save({"net": self.net.state_dict(), "opt": self.opt.state_dict()}, self.dir / (TRAINER_FILE + ".tmp"))
        (self.dir / (TRAINER_FILE + ".tmp")).replace(self.dir / TRAINER_FILE)
        (self.dir / (PROGRESS_FILE + ".tmp")).write_text(json.dumps(self.progress, indent=2))
        (self.dir / (PROGRESS_FILE + ".tmp")).replace(self.dir / PROGRESS_FILE)

    def numpy_net(self) -> PolicyValueNet:
        """The current network, for playing (numpy)."""
        from meeplezoo._version import __version__
        from meeplezoo.agents.network import network_metadata

        prior = float(self.start_meta.get("training_cpu_seconds") or 0.0)
        meta = network_metadata(self.game, self.net_config, algorithm="finetune", version=__version__,
                                iterations=int(self.progress["update"]), games=int(self.progress["games"]),
                                samples=int(self.progress["samples"]), seed=self.cfg.seed,
                                training_cpu_seconds=round(prior + float(self.progress["cpu_seconds"]), 1),
                                finetune_cpu_seconds=round(float(self.progress["cpu_seconds"]), 1),
                                finetune_config=self.cfg.to_json(), init_metadata=self.start_meta,
                                command=self.cfg.command(str(self.dir)))
        return PolicyValueNet(self.game, self.net.arrays(), self.net_config, meta)

    def _train(self, data: dict[str, np.ndarray], seed: int) -> dict[str, float]:
        import torch

        cfg = self.cfg
        n = len(data["obs"])
        if n == 0:
            return {"policy_loss": float("nan"), "value_loss": float("nan"), "entropy": float("nan"),
                    "clip_fraction": float("nan")}
        torch.manual_seed(seed)
        rng = np.random.default_rng(seed)
        adv = data["ret"] - data["value"]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        tot = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "clip_fraction": 0.0}
        steps = 0
        self.net.train()
        for _ in range(cfg.epochs):
            order = rng.permutation(n)
            for i in range(0, n, cfg.batch_size):
                idx = order[i:i + cfg.batch_size]
                obs = torch.as_tensor(data["obs"][idx].astype(np.float32))
                mask = torch.as_tensor(data["mask"][idx])
                act = torch.as_tensor(data["action"][idx])
                old = torch.as_tensor(data["logp"][idx])
                a = torch.as_tensor(adv[idx].astype(np.float32))
                logits, v = self.net(obs)
                logp_all = torch.log_softmax((logits / cfg.temperature).masked_fill(~mask, -1e9), dim=1)
                logp = logp_all.gather(1, act[:, None])[:, 0]
                ratio = torch.exp(logp - old)
                lp = -torch.min(ratio * a, torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip) * a).mean()
                probs = logp_all.exp()
                ent = -(probs * torch.where(mask, logp_all, torch.zeros_like(logp_all))).sum(1).mean()
                lv = ((v - torch.as_tensor(data["z"][idx])) ** 2).mean()
                loss = lp + cfg.value_coef * lv - cfg.ent_coef * ent
                self.opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
                self.opt.step()
                tot["policy_loss"] += lp.item()
                tot["value_loss"] += lv.item()
                tot["entropy"] += ent.item()
                tot["clip_fraction"] += float(((ratio - 1).abs() > cfg.clip).float().mean())
                steps += 1
        self.net.eval()
        return {k: v / steps for k, v in tot.items()}

    def evaluate(self, games: int | None = None) -> dict[str, float]:
        """The network alone (greedy) against each ``eval_against`` opponent: win rates (seats rotated)."""
        from meeplezoo.agents.network import NetworkAgent
        from meeplezoo.training.ppo import evaluate

        games = self.cfg.eval_games if games is None else games
        res = evaluate(NetworkAgent(self.numpy_net()), self.game, list(self.cfg.eval_against), games,
                       seed=self.cfg.seed + _EVAL_OFFSET + int(self.progress["update"]))
        out: dict[str, float] = {}
        for spec, st in res.items():
            out[f"vs_{spec}"] = st.win_rate
            out[f"ci_low_{spec}"], out[f"ci_high_{spec}"] = st.interval
        return out

    def _log(self, row: dict[str, Any]) -> None:
        path = self.dir / "log.csv"
        new = not path.exists()
        keys = ["iteration", "games", "samples", "cpu_seconds", "wall_seconds", "train_win_rate", "policy_loss",
                "value_loss", "entropy", "clip_fraction"]
        keys += [f"{p}{s}" for s in self.cfg.eval_against for p in ("vs_", "ci_low_", "ci_high_")]
        with path.open("a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
            if new:
                w.writeheader()
            w.writerow({k: row.get(k, "") for k in keys})
        if self.writer is not None:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k != "iteration":
                    self.writer.add_scalar(f"finetune/{k}", v, row["iteration"])
            self.writer.flush()

    def update(self, pool: Any = None) -> dict[str, Any]:
        """One update: games, the PPO step, checkpoints, evaluation when due; returns its log row."""
        cfg = self.cfg
        t0, c0 = time.time(), _cpu_seconds()
        u = int(self.progress["update"]) + 1
        current = str(self.numpy_net().save(self.dir / "current.zip"))
        data = play(cfg, current, u, self.workers, pool)
        losses = self._train(data, cfg.seed + _UPDATE_STRIDE * u)
        self.progress.update(update=u, games=int(self.progress["games"]) + cfg.games_per_update,
                             samples=int(self.progress["samples"]) + len(data["obs"]))
        self.progress["cpu_seconds"] += _cpu_seconds() - c0
        row: dict[str, Any] = {"iteration": u, "train_win_rate": float(data["wins"].mean()), **losses}
        net = self.numpy_net()
        net.save(self.dir / "final.zip")
        if cfg.eval_games and u % cfg.eval_every == 0:
            c1 = _cpu_seconds()
            row.update(self.evaluate())
            self.progress["cpu_seconds"] += _cpu_seconds() - c1
            score = row[f"vs_{cfg.eval_against[-1]}"]
            if self.progress["best_score"] is None or score >= self.progress["best_score"]:
                self.progress["best_score"] = score
                self.numpy_net().save(self.dir / "best.zip", best_iteration=u, best_score=score)
        row.update(games=self.progress["games"], samples=self.progress["samples"],
                   cpu_seconds=round(self.progress["cpu_seconds"], 1), wall_seconds=round(time.time() - t0, 1))
        self._save()
        self._log(row)
        if any(k.startswith("vs_") for k in row):
            from meeplezoo.training.exit import plot_curve

            plot_curve(self.dir)
        if self.verbose:
            print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
                           if not k.startswith("ci_")), flush=True)
        return row

    def run(self, updates: int | None = None, time_limit: float | None = None) -> FinetuneResult:
        """Run until ``updates`` (default the config's) are done or ``time_limit`` seconds have passed."""
        target = self.cfg.updates if updates is None else int(updates)
        start = time.time()
        rows: list[dict[str, Any]] = []
        pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn")) if self.workers > 1 else None
        try:
            while self.progress["update"] < target:
                if time_limit is not None and time.time() - start > time_limit:
                    break
                rows.append(self.update(pool))
        finally:
            if pool is not None:
                pool.shutdown()
            if self.writer is not None:
                self.writer.close()
                self.writer = None
        return FinetuneResult(self.dir, int(self.progress["update"]), int(self.progress["games"]),
                              float(self.progress["cpu_seconds"]),
                              [r for r in rows if any(k.startswith("vs_") for k in r)])


def finetune(game: str, run_dir: str | Path, *, workers: int = 1, time_limit: float | None = None,
             torch_threads: int = 1, tensorboard: bool = True, verbose: int = 1, **config: Any) -> FinetuneResult:
    """Run (or continue) fine-tuning for ``game`` in ``run_dir``; ``config`` are :class:`FinetuneConfig` fields."""
    cfg = FinetuneConfig(game=game, **config)
    trainer = FinetuneTrainer(cfg, run_dir, workers=workers, torch_threads=torch_threads, tensorboard=tensorboard,
                              verbose=verbose)
    return trainer.run(time_limit=time_limit)
