"""The run skeleton every trainer shares: its config, run directory, logs, evaluation and checkpoints.

A trainer module (:mod:`.exit`, :mod:`.distill`, :mod:`.finetune`, :mod:`.ppo`) holds its algorithm; what
is the same for all of them lives here:

* :class:`TrainerConfig`: the base of every trainer's frozen config dataclass, whose fields are knobs
  (:func:`meeplezoo.knobs.knob`, or :func:`shared` for the knobs several trainers have: seed, learning rate,
  widths, evaluation).  From the table come validation, the ``meeplezoo train`` flags, ``config.json``
  and :meth:`TrainerConfig.command`, the command line that reproduces the run.
* :class:`Run`: a run directory.  ``config.json`` is written on the first start and checked on every
  later one (the same config, or an error naming the knobs that differ; knobs that only say how far to
  go, such as ``iterations``, may grow); ``progress.json`` holds the counters a resumed run continues
  from; ``log.csv`` and TensorBoard get one row per step; :meth:`Run.evaluate` plays the network alone
  against the evaluation opponents (:func:`~meeplezoo.training.arena.evaluate`, on the trainer's
  executor); :meth:`Run.checkpoint` writes network checkpoints and keeps the best one.
* :func:`learner`: the torch side (:mod:`.learner`), loaded when a trainer first trains, so the self-play
  workers and the command line never import torch.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import shlex
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from meeplezoo.agents.network import NetworkAgent, PolicyValueNet
from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.knobs import Knob, Knobs, check_config, knobs_of
from meeplezoo.registry import GAMES, make_game

from .arena import SEED_LIMIT, evaluate
from .executor import Executor, job_cpu_seconds
from .inference import INFERENCE_KNOBS

#: files of a run directory
CONFIG_FILE, PROGRESS_FILE, LOG_FILE, TRAINER_FILE = "config.json", "progress.json", "log.csv", "trainer.pt"


def _agent_specs(value: Any) -> tuple[str, ...]:
    specs = tuple(s.strip() for s in value.split(",") if s.strip()) if isinstance(value, str) else value
    if not isinstance(specs, (tuple, list)) or not specs or not all(isinstance(s, str) and s for s in specs):
        raise ValueError(f"must name at least one agent spec, got {value!r}")
    return tuple(specs)


#: the knobs several trainers have, declared once; a trainer takes one with :func:`shared` (its own default)
SHARED = Knobs("trainer", [
    Knob("game", str, "", "the game id", cli=False),
    Knob("num_players", int, 2, "number of players", low=1, cli=False),
    Knob("options", dict, {}, "rule options of the game", cli=False),
    Knob("seed", int, 0, "the run's seed: every random choice derives from it", low=0, high=SEED_LIMIT - 1,
         what="a non-negative integer below 2**64"),
    Knob("lr", float, 1e-3, "learning rate", low=0, low_open=True),
    Knob("weight_decay", float, 1e-4, "AdamW weight decay", low=0),
    Knob("batch_size", int, 128, "minibatch size", low=1),
    Knob("epochs", int, 2, "passes over the training data per step", low=0),
    Knob("eval_every", int, 2, "steps between evaluations", low=1),
    Knob("eval_games", int, 20, "games against each evaluation opponent (0: no evaluation)", low=0),
    Knob("eval_against", object, ("random", "heuristic"), "comma-separated evaluation opponents (agent specs); "
         "the last one decides best.zip", check=_agent_specs, metavar="SPECS"),
    Knob("width", int, 128, "hidden width of the flat layers and the trunk", low=1),
    Knob("channels", int, 32, "channels of the board convolutions", low=1),
    Knob("conv_layers", int, 2, "3x3 convolutions over each board block", low=1),
    Knob("board_channels", int, 0, "0: average each board over its cells; N: keep N channels of every cell "
         "(Kerala's placements need to know where)", low=0),
    Knob("trunk_layers", int, 1, "ReLU layers of the trunk", low=1),
    Knob("action_hidden", int, 0, "an action head of this width, scoring each action from the inputs the "
         "observation names for it (Kerala with -o elephant_view=true); 0: none", low=0),
])

#: the knobs the game arguments set (``GAME``, ``--players``, ``--variant``/``--version``, ``-o``)
GAME_KNOBS = ("game", "num_players", "options")

#: how a trainer's run is carried out (not part of its config: a run may continue with others)
RUN_KNOBS = Knobs("train", [
    Knob("time_limit", float, None, "stop after this many seconds (a continued run goes on)", low=0, low_open=True,
         metavar="SECONDS"),
    Knob("torch_threads", int, 1, "torch threads for the updates", low=1),
    dataclasses.replace(INFERENCE_KNOBS["device"], doc="where the network trains: cpu, cuda, cuda:N or auto (cuda "
                        "when torch sees a GPU); self-play and evaluation stay in numpy on the CPU"),
])

#: the network widths besides the hidden width (:class:`~meeplezoo.training.networks.BlockNetConfig` fields)
ARCHITECTURE = ("channels", "conv_layers", "board_channels", "trunk_layers", "action_hidden")
#: the same as (field, flag) pairs
ARCHITECTURE_FLAGS = tuple((name, SHARED[name].flag_name) for name in ARCHITECTURE)

_NOT_SET: Any = object()


def shared(name: str, default: Any = _NOT_SET, **changes: Any) -> Any:
    """A dataclass field for the shared knob ``name`` (its default, or this trainer's ``default``)."""
    k = dataclasses.replace(SHARED[name], **({} if default is _NOT_SET else {"default": default}), **changes)
    spec = {f.name: getattr(k, f.name) for f in dataclasses.fields(Knob) if f.name != "name"}
    if isinstance(k.default, (dict, list)):
        value = k.default
        return dataclasses.field(default_factory=lambda: json.loads(json.dumps(value)), metadata={"knob": spec})
    return dataclasses.field(default=k.default, metadata={"knob": spec})


@dataclass(frozen=True)
class TrainerConfig:
    """The base of a trainer's config (a frozen dataclass of knobs): game, validation, saved form, command line.

    A subclass (a frozen dataclass too) names its ``algo`` (its ``--algo``, and the name its errors start
    with), the knobs a continued run may raise (``grows``) or give otherwise (``start_only``) as class arguments
    (``class ExItConfig(TrainerConfig, algo="exit", grows=("iterations",))``), declares its fields with
    :func:`~meeplezoo.knobs.knob` or :func:`shared`, and puts checks between fields in :meth:`check`.
    """

    who: ClassVar[str] = "trainer"
    algo: ClassVar[str] = ""
    grows: ClassVar[tuple[str, ...]] = ()
    start_only: ClassVar[tuple[str, ...]] = ()  # read when a run starts (a continued run may give them otherwise)

    game: str = shared("game")
    num_players: int = shared("num_players")
    options: dict[str, Any] = shared("options")

    def __init_subclass__(cls, algo: str = "", grows: tuple = (), start_only: tuple = (), **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if algo:
            cls.algo = cls.who = algo
        cls.grows, cls.start_only = tuple(grows) or cls.grows, tuple(start_only) or cls.start_only

    def __post_init__(self) -> None:
        check_config(self, self.who)
        self.check()

    def check(self) -> None:
        """Checks that involve several knobs (each knob's own range is checked by its declaration)."""

    @classmethod
    def knobs(cls) -> Knobs:
        return knobs_of(cls, cls.who)

    def values(self) -> dict[str, Any]:
        return {k.name: getattr(self, k.name) for k in self.knobs()}

    def to_json(self) -> dict[str, Any]:
        """The config as ``config.json`` holds it (mappings as dicts, sequences as lists)."""
        return json.loads(json.dumps(self.knobs().to_json(self.values())))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Any:
        """The config a ``config.json`` describes; keys that are not knobs are refused by name."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{cls.who}: a saved config must be a JSON object, got {type(data).__name__}")
        bad = sorted(set(data) - set(cls.knobs().names))
        if bad:
            raise ValueError(f"{cls.who}: unknown config key(s) {', '.join(bad)}")
        return cls(**data)

    def make_game(self) -> Any:
        return make_game(self.game, self.num_players, **dict(self.options))

    def players_text(self) -> str:
        """The value of ``--players`` in :meth:`argv` (a trainer of several counts lists them)."""
        return str(self.num_players)

    def argv(self) -> list[str]:
        """The ``meeplezoo train`` arguments that build this config (the knobs that differ from the defaults)."""
        info = GAMES.get(self.game)
        parts = [self.game, "--players", self.players_text()]
        for k, v in dict(self.options).items():
            if info is not None and k in ("variant", "version"):
                parts += [f"--{k}", str(v)]
            else:
                parts += ["-o", f"{k}={SHARED['options'].to_text(v) if isinstance(v, (dict, list)) else v}"]
        return [*parts, "--algo", self.algo, *self.knobs().to_argv(self.values(), skip=GAME_KNOBS)]

    def command(self, out: str | os.PathLike | None = None, time_limit: float | None = None) -> str:
        """The ``meeplezoo train`` command line that runs (or continues) this config into ``out``."""
        parts = ["meeplezoo", "train", *self.argv()]
        if time_limit is not None:
            parts += ["--time-limit", f"{time_limit:g}"]
        if out is not None:
            parts += ["--out", str(out)]
        return shlex.join(parts)


def cpu_seconds() -> float:
    """CPU seconds of this process and of the jobs its pools ran (each job timed in its worker, so a pool that
    is still running counts too; a pool's start-up and idle time do not)."""
    t = os.times()
    return t.user + t.system + job_cpu_seconds()


def tensorboard_writer(folder: str | Path) -> Any:
    """A TensorBoard SummaryWriter on ``folder``, or None where tensorboard is not installed."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # pragma: no cover - tensorboard is in the train extra
        return None
    return SummaryWriter(str(folder))


def learner() -> Any:
    """The torch side of the trainers (:mod:`meeplezoo.training.learner`), imported on first use: the
    self-play workers and the command line run without torch."""
    from meeplezoo.training import learner as torch_side

    return torch_side


def config_difference(saved: Mapping[str, Any], mine: Mapping[str, Any], free: Sequence[str] = ()) -> list[str]:
    """The knobs in which two saved configs differ, leaving out ``free`` (those that may grow or change)."""
    return sorted(k for k in set(saved) | set(mine) if k not in free and saved.get(k) != mine.get(k))


class Run:
    """A trainer's run directory: config (checked on resume), progress, logs, evaluation, checkpoints.

    ``progress`` holds the counters of a new run; an existing run's ``progress.json`` replaces them.
    """

    def __init__(self, config: TrainerConfig, run_dir: str | Path, progress: Mapping[str, Any], *,
                 tensorboard: bool = True, verbose: int = 1) -> None:
        self.config, self.dir, self.verbose = config, Path(run_dir), verbose
        cfg_file = self.dir / CONFIG_FILE
        if cfg_file.exists():
            free = config.grows + config.start_only
            diff = config_difference(json.loads(cfg_file.read_text()), config.to_json(), free)
            if diff:
                raise ValueError(f"{self.dir} holds a run with another config (differs in {diff}); "
                                 f"use another --out or the same settings to continue it")
        self.progress: dict[str, Any] = json.loads(json.dumps(dict(progress)))
        self.resumed = (self.dir / PROGRESS_FILE).exists()
        if self.resumed:
            self.progress = json.loads((self.dir / PROGRESS_FILE).read_text())
        self._tensorboard = tensorboard
        self.writer: Any = None

    def start(self) -> None:
        """Create the directory, write ``config.json`` and open the TensorBoard log."""
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / CONFIG_FILE).write_text(json.dumps(self.config.to_json(), indent=2, sort_keys=True))
        if self._tensorboard and self.writer is None:
            self.writer = tensorboard_writer(self.dir / "tb")

    def path(self, name: str) -> Path:
        return self.dir / name

    def save_progress(self) -> None:
        """Write ``progress.json`` (atomically: a killed run keeps the last complete one)."""
        tmp = self.dir / (PROGRESS_FILE + ".tmp")
        tmp.write_text(json.dumps(self.progress, indent=2))
        tmp.replace(self.dir / PROGRESS_FILE)

    def log(self, row: Mapping[str, Any], keys: Sequence[str]) -> None:
        """Append ``row`` to ``log.csv`` (columns ``keys`` plus the evaluation's) and to TensorBoard."""
        path = self.dir / LOG_FILE
        counts = getattr(self.config, "counts", ())
        keys = [*keys, *(f"{p}{s}" for s in self.config.eval_against for p in ("vs_", "ci_low_", "ci_high_")),
                *(f"vs_{s}_{n}p" for s in self.config.eval_against for n in (counts if len(counts) > 1 else ()))]
        old: list[dict[str, str]] = []
        if path.exists():
            with path.open(newline="") as f:
                reader = csv.DictReader(f)
                header, old = list(reader.fieldnames or []), list(reader)
            if header == keys:
                old = []  # append below
            else:  # a log written with fewer columns (an older version): rewritten with every column
                keys = [*keys, *(k for k in header if k not in keys)]
                path.unlink()
        new = not path.exists()
        with path.open("a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
            if new:
                w.writeheader()
            w.writerows({k: r.get(k, "") for k in keys} for r in old)
            w.writerow({k: row.get(k, "") for k in keys})
        if self.writer is not None:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k != "iteration":
                    self.writer.add_scalar(f"{self.config.who}/{k}", v, row["iteration"])
            self.writer.flush()

    def say(self, text: str) -> None:
        if self.verbose:
            print(text, flush=True)

    def say_row(self, row: Mapping[str, Any]) -> None:
        self.say(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
                          if not k.startswith("ci_")))

    def evaluate(self, net: PolicyValueNet, game: Any, seed: int, executor: Executor | None = None,
                 games: int | None = None) -> dict[str, float]:
        """The network alone (greedy) against each ``eval_against`` opponent: win rates and their 95%
        intervals (``vs_SPEC``, ``ci_low_SPEC``, ``ci_high_SPEC``), seats rotated."""
        cfg = self.config
        res = evaluate(NetworkAgent(net), game, list(cfg.eval_against), cfg.eval_games if games is None else games,
                       seed=seed, executor=executor)
        out: dict[str, float] = {}
        for spec, st in res.items():
            out[f"vs_{spec}"] = st.win_rate
            out[f"ci_low_{spec}"], out[f"ci_high_{spec}"] = st.interval
        return out

    def due(self, step: int) -> bool:
        """Whether step ``step`` ends with an evaluation."""
        return bool(self.config.eval_games) and step % self.config.eval_every == 0

    def keep_best(self, net: PolicyValueNet, row: Mapping[str, Any], step: int) -> None:
        """Write ``best.zip`` when the score against the last evaluation opponent is the best so far."""
        score = row[f"vs_{self.config.eval_against[-1]}"]
        if self.progress.get("best_score") is None or score >= self.progress["best_score"]:
            self.progress["best_score"] = score
            net.save(self.dir / "best.zip", best_iteration=step, best_score=score)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def write_csv(path: str | Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """``rows`` as a CSV file (its columns those of the first row)."""
    with Path(path).open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


@dataclass
class RunResult:
    """What a run did: its directory, the CPU seconds it has taken in all and the rows of its evaluations."""

    run_dir: Path
    cpu_seconds: float
    evaluations: list[dict[str, Any]]


class Trainer(ABC):
    """What a step-by-step network trainer (expert iteration, fine-tuning) shares: its run directory and
    learner, the loop over steps, the evaluation and the end of each step.

    A subclass sets ``step_key`` (the counter in ``progress``), assigns ``cfg``, ``game``, ``run_dir``,
    ``learner`` and ``workers`` in its ``__init__`` and defines ``numpy_net()`` and ``step(pool)``.
    """

    step_key: ClassVar[str] = "iteration"
    #: the evaluation's seed offset (evaluations never share a seed with the games trained on)
    eval_offset: ClassVar[int] = 9_999_991

    cfg: Any
    game: Any
    run_dir: Run
    learner: Any
    workers: int

    @property
    def dir(self) -> Path:
        return self.run_dir.dir

    @property
    def progress(self) -> dict[str, Any]:
        return self.run_dir.progress

    @property
    def net(self) -> Any:
        """The torch network being trained."""
        return self.learner.net

    @abstractmethod
    def numpy_net(self) -> PolicyValueNet:
        """The network being trained, as the numpy network the agents play with."""

    @abstractmethod
    def step(self, pool: Executor) -> dict[str, Any]:
        """One step of the algorithm (an iteration, an epoch) on ``pool``: its row of the log."""

    def evaluate(self, games: int | None = None, executor: Executor | None = None) -> dict[str, float]:
        """The network alone (greedy) against each ``eval_against`` opponent: win rates (seats rotated)."""
        seed = self.cfg.seed + self.eval_offset + int(self.progress[self.step_key])
        return self.run_dir.evaluate(self.numpy_net(), self.game, seed, executor, games)

    def loop(self, target: int, time_limit: float | None, executor: Executor,
             first: Callable[[Executor], None] | None = None) -> list[dict[str, Any]]:
        """Steps on ``executor`` (after ``first(executor)``) until ``target`` steps are done or ``time_limit``
        seconds have passed; returns the rows of the steps that were evaluated."""
        start = time.time()
        rows: list[dict[str, Any]] = []
        try:
            with executor as pool:
                if first is not None:
                    first(pool)
                while self.progress[self.step_key] < target:
                    if time_limit is not None and time.time() - start > time_limit:
                        break
                    rows.append(self.step(pool))
        finally:
            self.run_dir.close()
        return [r for r in rows if any(k.startswith("vs_") for k in r)]

    def finish_step(self, row: dict[str, Any], net: PolicyValueNet, pool: Executor | None, started: float,
                    log_keys: Sequence[str], **counters: Any) -> dict[str, Any]:
        """The end of a step: the evaluation when due (and ``best.zip``), the counters and times in ``row``,
        ``progress.json``, the log and the curve; returns ``row``."""
        step, p = int(self.progress[self.step_key]), self.progress
        if self.run_dir.due(step):
            c1 = cpu_seconds()
            row.update(self.evaluate(executor=pool))
            p["cpu_seconds"] += cpu_seconds() - c1
            self.run_dir.keep_best(net, row, step)
        row.update(**counters, samples=p["samples"], cpu_seconds=round(p["cpu_seconds"], 1),
                   wall_seconds=round(time.time() - started, 1))
        self.save()
        self.run_dir.log(row, log_keys)
        if any(k.startswith("vs_") for k in row):
            plot_curve(self.dir)
        self.run_dir.say_row(row)
        return row

    def save(self) -> None:
        """Write the learner's state and ``progress.json`` (a subclass adds what else it keeps)."""
        self.learner.save(self.dir / TRAINER_FILE)
        self.run_dir.save_progress()


def plot_curve(run_dir: str | Path, out: str | Path | None = None) -> Path | None:
    """Draw the learning curve of a run (win rates against each evaluation opponent, with their 95% intervals,
    by training CPU hours) from its ``log.csv`` into ``curve.png`` (or ``out``); None without matplotlib or data."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is in the train extra
        return None
    run_dir = Path(run_dir)
    path = run_dir / LOG_FILE
    if not path.exists():
        return None
    with path.open() as f:
        rows = list(csv.DictReader(f))
    specs = [k[3:] for k in (rows[0] if rows else {}) if k.startswith("vs_")]
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    drawn = False
    for spec in specs:
        banded = f"ci_low_{spec}" in rows[0]  # a player count's own column (vs_SPEC_Np) has no interval
        pts = [(float(r["cpu_seconds"]) / 3600, float(r[f"vs_{spec}"]),
                float(r[f"ci_low_{spec}"]) if banded else 0.0, float(r[f"ci_high_{spec}"]) if banded else 0.0)
               for r in rows if r.get(f"vs_{spec}")]
        if not pts:
            continue
        x, y, lo, hi = (list(t) for t in zip(*pts))
        ax.plot(x, y, marker="o" if banded else ".", linestyle="-" if banded else ":", label=f"vs {spec}")
        if banded:
            ax.fill_between(x, lo, hi, alpha=0.2)
        drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel("training CPU hours")
    ax.set_ylabel("win rate (network alone, greedy)")
    cfg = json.loads((run_dir / CONFIG_FILE).read_text()) if (run_dir / CONFIG_FILE).exists() else {}
    ax.set_title(f"{cfg.get('game', '?')}, {cfg.get('num_players', '?')} players")
    ax.legend(loc="lower right")
    fig.tight_layout()
    target = Path(out) if out is not None else run_dir / "curve.png"
    fig.savefig(target)
    plt.close(fig)
    return target


def start_checkpoint(init: str, game: Any, who: str) -> str:
    """The checkpoint a trainer starts from: ``init`` itself, or for ``"pretrained"`` the one shipped for
    ``game`` (base rules only; observation-only options are the network's to check)."""
    if init != "pretrained":
        return init
    rules = type(game).rule_options_of(dict(game.non_default_options))
    if rules:
        raise ValueError(f"{who}: init=pretrained ships for the base rules only, not {rules}; give a checkpoint")
    return str(checkpoint_path(game.name, game.num_players))


def load_start(init: str, game: Any, who: str) -> PolicyValueNet:
    """The network a trainer fine-tunes (:func:`start_checkpoint`), refused with a clear error when it reads
    another observation than ``game`` shows (it was trained with other observation-only options): a
    trainer fits it on ``game``'s observations."""
    path = start_checkpoint(init, game, who)
    net = PolicyValueNet.load(path, game)
    if net.needs_own_observation(game):
        flags = " ".join(f"-o {k}={json.dumps(v)}" for k, v in sorted(net.metadata.get("options", {}).items()))
        raise ValueError(f"{who}: {path} reads the observation of {net.game!r}, not that of {game!r}; "
                         f"train with the options it was trained with: {flags}")
    return net
