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

A warm start (``warm_start_games`` > 0) first imitates a teacher playing every seat: the heuristic (the
policy target is half its move and half the softmax of its action scores, ``HeuristicPrior``) or, with
``warm_start_teacher="mcts:sims=200"``, the search (its visit counts; the tuned search beats the
heuristic, so this aims above it).

The run directory holds everything needed to continue: ``config.json``, ``progress.json`` (iteration,
samples, CPU seconds), ``buffer.npz``, ``trainer.pt`` (network and optimiser, loaded with
``weights_only=True``), the checkpoints, ``log.csv``, the learning curve ``curve.png`` and TensorBoard
logs. ``train_exit`` on an existing run directory continues where it stopped (the same config is
required); all randomness is derived from ``seed``, the iteration and the game index, so a resumed run
produces what an uninterrupted one would, and the games are the same whether they are played inline or
on the process pool.

    meeplezoo train haus_der_sonne --algo exit --iterations 20 --out runs/exit/haus_der_sonne
"""

from __future__ import annotations

import csv
import json
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, fields
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo.agents.network import PolicyValueNet, network_metadata, seats_to_egocentric

#: the opponent kinds of a self-play seat
OPPONENT_KINDS = ("self", "heuristic", "snapshot")
#: the reward modes whose returns fit a tanh value head
VALUE_REWARD_MODES = ("win", "rank")
#: files of a run directory
CONFIG_FILE, PROGRESS_FILE, BUFFER_FILE, TRAINER_FILE = "config.json", "progress.json", "buffer.npz", "trainer.pt"
#: snapshots kept as self-play opponents (the most recent)
MAX_SNAPSHOT_OPPONENTS = 4
#: seed strides (so the seeds of games, seats and iterations never collide)
_ITER_STRIDE, _WARM_OFFSET, _EVAL_OFFSET = 1_000_003, 7_777_777, 9_999_991


#: the network widths besides the hidden width, as config fields and their ``meeplezoo train`` flags
#: (shared by the trainers that build a network: exit, and distill from scratch)
ARCHITECTURE_FLAGS = (("channels", "--channels"), ("conv_layers", "--conv-layers"),
                      ("board_channels", "--board-channels"), ("trunk_layers", "--trunk-layers"),
                      ("action_hidden", "--action-hidden"))


def check_config_keys(cls: type, d: Mapping[str, Any], who: str) -> None:
    """Refuse a saved trainer config (``config.json``) with keys the dataclass ``cls`` does not have."""
    bad = sorted(set(d) - {f.name for f in fields(cls)})
    if bad:
        raise ValueError(f"{who}: unknown config key(s) {', '.join(bad)}")


def start_checkpoint(init: str, game: Any, who: str) -> str:
    """The checkpoint a trainer starts from: ``init`` itself, or for ``"pretrained"`` the one shipped for
    ``game`` (base rules only)."""
    if init != "pretrained":
        return init
    if game.non_default_options:
        raise ValueError(f"{who}: init=pretrained ships for the base rules only, not "
                         f"{dict(game.non_default_options)}; give a checkpoint")
    from meeplezoo.agents.pretrained import checkpoint_path

    return str(checkpoint_path(game.name, game.num_players))


def load_start(init: str, game: Any, who: str) -> Any:
    """The network a trainer fine-tunes (:func:`start_checkpoint`), refused with a clear error when it reads
    another observation than ``game`` shows (it was trained with other observation-only options): a
    trainer fits it on ``game``'s observations."""
    from meeplezoo.agents.network import PolicyValueNet

    path = start_checkpoint(init, game, who)
    net = PolicyValueNet.load(path, game)
    if net.needs_own_observation(game):
        raise ValueError(f"{who}: {path} reads the observation of {net.game!r}, not that of {game!r}; "
                         "train with the options it was trained with")
    return net


@dataclass(frozen=True)
class ExItConfig:
    """Everything that defines an expert-iteration run (saved as ``config.json``)."""

    game: str
    num_players: int = 2
    options: dict[str, Any] = field(default_factory=dict)
    iterations: int = 10
    games_per_iteration: int = 8
    sims: int = 64
    #: leaves per network call; 1 keeps the visit targets exact (virtual losses split small batches evenly)
    batch: int = 1
    c: float = 1.5
    fpu: float = 0.2
    explore_moves: int = 8
    #: how the expert values its leaves: ``network`` (the value head, AlphaZero) or ``rollout`` (the network
    #: as prior only, leaves valued by the rollouts of ``search_options``, as in the original expert iteration)
    leaf: str = "network"
    #: further :class:`~meeplezoo.agents.mcts.MCTSAgent` options of every searching seat (``rollout``,
    #: ``rollout_epsilon``, ``rollout_depth``, ``widen``...); ``prior``, ``sims``, ``batch``, ``c``, ``fpu``
    #: and ``reward_mode`` have fields of their own
    search_options: dict[str, Any] = field(default_factory=dict)
    #: seat kind -> weight; None: self 0.5, heuristic 0.25, snapshot 0.25 (self 0.75 where there is no heuristic)
    opponents: dict[str, float] | None = None
    reward_mode: str = "win"
    warm_start_games: int = 0
    warm_start_epochs: int = 4
    #: who plays the warm-start games: ``heuristic`` (targets: half its move, half the softmax of its action
    #: scores) or a search spec such as ``mcts:sims=200`` (targets: its visit counts; the tuned ``mcts``
    #: beats the heuristic, so imitating it aims above the heuristic)
    warm_start_teacher: str = "heuristic"
    buffer_size: int = 20_000
    epochs: int = 2
    batch_size: int = 128
    lr: float = 1e-3
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    eval_every: int = 2
    eval_games: int = 20
    #: None: random and, where the game has one, the heuristic
    eval_against: tuple[str, ...] | None = None
    channels: int = 32
    conv_layers: int = 2
    flat_hidden: int = 128
    trunk_hidden: int = 128
    #: 0: boards pooled over their cells; N: N channels per cell kept (see BlockNetConfig)
    board_channels: int = 0
    #: ReLU layers of the trunk, each trunk_hidden wide
    trunk_layers: int = 1
    #: 0: no action head; H: the action head of a game with action features (see BlockNetConfig)
    action_hidden: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        from meeplezoo.agents.registry import HEURISTICS

        has_heuristic = self.game in HEURISTICS
        if self.opponents is None:
            object.__setattr__(self, "opponents", {"self": 0.5, "heuristic": 0.25, "snapshot": 0.25}
                               if has_heuristic else {"self": 0.75, "snapshot": 0.25})
        if self.eval_against is None:
            object.__setattr__(self, "eval_against", ("random", "heuristic") if has_heuristic else ("random",))
        object.__setattr__(self, "eval_against", tuple(self.eval_against))
        if not self.eval_against:
            raise ValueError("exit: eval_against must name at least one opponent spec")
        teacher = self.warm_start_teacher
        if not isinstance(teacher, str) or teacher.split(":")[0] not in ("heuristic", "mcts"):
            raise ValueError(f"exit: warm_start_teacher must be 'heuristic' or an mcts spec, got {teacher!r}")
        needs_heuristic = self.opponents.get("heuristic", 0) or (self.warm_start_games and teacher == "heuristic")
        if not has_heuristic and needs_heuristic:
            raise ValueError(f"exit: {self.game!r} has no heuristic, so neither a heuristic warm start nor a "
                             f"'heuristic' opponent weight can be used")
        ints = {"num_players": 1, "iterations": 1, "games_per_iteration": 1, "sims": 1, "batch": 1,
                "explore_moves": 0, "warm_start_games": 0, "warm_start_epochs": 0, "buffer_size": 1, "epochs": 0,
                "batch_size": 1, "eval_every": 1, "eval_games": 0, "channels": 1, "conv_layers": 1, "trunk_layers": 1,
                "flat_hidden": 1, "trunk_hidden": 1, "board_channels": 0, "action_hidden": 0, "seed": 0}
        for name, lo in ints.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ValueError(f"exit: {name} must be an int >= {lo}, got {v!r}")
        for name in ("c", "fpu", "lr", "weight_decay", "value_weight"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise ValueError(f"exit: {name} must be a number >= 0, got {v!r}")
        from meeplezoo.agents.network import LEAF_KINDS

        if self.leaf not in LEAF_KINDS:
            raise ValueError(f"exit: leaf must be one of {', '.join(LEAF_KINDS)}, got {self.leaf!r}")
        if not isinstance(self.search_options, Mapping):
            raise ValueError(f"exit: search_options must be a mapping of mcts options, got {self.search_options!r}")
        own = sorted(set(self.search_options) & {"prior", "sims", "time", "batch", "c", "fpu", "reward_mode", "leaf"})
        if own:
            raise ValueError(f"exit: search_options cannot set {own}: they are fields of the config")
        from meeplezoo.agents.registry import _known_options

        known = set(_known_options("mcts", self.game) or ()) - {"preset"}
        bad = sorted(set(self.search_options) - known)
        if bad:
            raise ValueError(f"exit: unknown search option(s) {bad}; known: {', '.join(sorted(known))}")
        if self.reward_mode not in VALUE_REWARD_MODES:
            raise ValueError(f"exit: reward_mode must be one of {', '.join(VALUE_REWARD_MODES)} (returns in [-1, 1] "
                             f"for the tanh value head), got {self.reward_mode!r}")
        bad = [k for k in self.opponents if k not in OPPONENT_KINDS]
        if bad:
            raise ValueError(f"exit: unknown opponent kind(s) {bad}; known: {', '.join(OPPONENT_KINDS)}")
        w = list(self.opponents.values())
        if any(isinstance(x, bool) or not isinstance(x, (int, float)) or not x >= 0 for x in w) or not sum(w) > 0:
            raise ValueError(f"exit: opponent weights must be numbers >= 0 with a positive total, got {self.opponents}")

    @property
    def net_config(self) -> dict[str, int]:
        return {"channels": self.channels, "conv_layers": self.conv_layers, "flat_hidden": self.flat_hidden,
                "trunk_hidden": self.trunk_hidden, "board_channels": self.board_channels,
                "trunk_layers": self.trunk_layers, "action_hidden": self.action_hidden}

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["eval_against"] = list(self.eval_against)
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ExItConfig:
        check_config_keys(cls, d, "exit")
        d = dict(d)
        if "eval_against" in d:
            d["eval_against"] = tuple(d["eval_against"])
        return cls(**d)

    def command(self, out: str | None = None, time_limit: float | None = None) -> str:
        """The ``meeplezoo train`` command line that runs (or continues) this config."""
        from meeplezoo.registry import GAMES

        d = ExItConfig(game=self.game)
        parts = ["meeplezoo", "train", self.game, "--algo", "exit", "--players", str(self.num_players)]
        info = GAMES.get(self.game)
        for k, v in self.options.items():
            parts += ["-o", f"{k}={v}"] if info is None or k not in ("variant", "version") else \
                [f"--{'variant' if k == 'variant' else 'version'}", str(v)]
        flags = [("iterations", "--iterations"), ("games_per_iteration", "--games-per-iteration"), ("sims", "--sims"),
                 ("leaf", "--leaf"), ("explore_moves", "--explore-moves"), ("reward_mode", "--reward-mode"),
                 ("warm_start_games", "--warm-start-games"), ("warm_start_epochs", "--warm-start-epochs"),
                 ("warm_start_teacher", "--warm-start-teacher"), ("buffer_size", "--buffer-size"),
                 ("epochs", "--epochs"), ("batch_size", "--batch-size"), ("lr", "--lr"),
                 ("value_weight", "--value-weight"), ("eval_every", "--eval-every"), ("eval_games", "--eval-games")]
        for name, flag in flags:
            v = getattr(self, name)
            always = name in ("iterations", "games_per_iteration", "sims", "eval_every", "eval_games")
            if always or v != getattr(d, name):
                parts += [flag, str(v)]
        if self.flat_hidden == self.trunk_hidden:
            if self.flat_hidden != d.flat_hidden:
                parts += ["--width", str(self.flat_hidden)]
        for name, flag in ARCHITECTURE_FLAGS:
            if getattr(self, name) != getattr(d, name):
                parts += [flag, str(getattr(self, name))]
        for k, v in self.search_options.items():
            parts += ["--search-option", f"{k}={v}"]
        if self.opponents != d.opponents:
            parts += ["--exit-opponents", ",".join(f"{k}:{w:g}" for k, w in self.opponents.items())]
        if self.eval_against != d.eval_against:
            parts += ["--eval-against", ",".join(self.eval_against)]
        parts += ["--seed", str(self.seed)]
        if time_limit is not None:
            parts += ["--time-limit", f"{time_limit:g}"]
        if out is not None:
            parts += ["--out", out]
        rest = [k for k in ("batch", "c", "fpu", "weight_decay")
                if getattr(self, k) != getattr(d, k)]
        if self.flat_hidden != self.trunk_hidden:
            rest += ["flat_hidden", "trunk_hidden"]
        line = " ".join(parts)
        return line if not rest else line + "  # plus, through the Python API: " + ", ".join(
            f"{k}={getattr(self, k)}" for k in rest)

    def make_game(self) -> Any:
        from meeplezoo.registry import make_game

        return make_game(self.game, num_players=self.num_players, **self.options)


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
    from meeplezoo.agents.network import network_search

    return network_search(net, seed=seed, sims=cfg.sims, batch=cfg.batch, c=cfg.c, fpu=cfg.fpu,
                          reward_mode=cfg.reward_mode, leaf=cfg.leaf, **cfg.search_options)


def play_game(cfg: ExItConfig, net: PolicyValueNet, snapshots: Sequence[PolicyValueNet], seed: int,
              game: Any = None) -> dict[str, np.ndarray]:
    """One self-play game on ``seed``: the samples of its expert decisions (arrays of equal length)."""
    from meeplezoo.agents import make as make_agent

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
    from meeplezoo.agents import make as make_agent
    from meeplezoo.agents.mcts import HeuristicPrior

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
    if not obs:
        return _empty(game)
    return {"obs": np.stack(obs), "mask": np.stack(masks), "pi": np.stack(pis), "z": z}


def _empty(game: Any) -> dict[str, np.ndarray]:
    return {"obs": np.zeros((0, game.observation_shape[0]), np.float16),
            "mask": np.zeros((0, game.num_actions), bool), "pi": np.zeros((0, game.num_actions), np.float16),
            "z": np.zeros((0, game.num_players), np.float32)}


def _concat(parts: Sequence[dict[str, np.ndarray]], game: Any) -> dict[str, np.ndarray]:
    parts = [p for p in parts if len(p["obs"])]
    if not parts:
        return _empty(game)
    return {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "pi", "z")}


def _worker_games(job: dict[str, Any]) -> dict[str, np.ndarray]:
    """Play the games of one job (a worker's share of an iteration): picklable, numpy only."""
    cfg = ExItConfig.from_json(job["config"])
    game = cfg.make_game()
    if job["kind"] == "imitation":
        return _concat([imitation_game(cfg, s, game) for s in job["seeds"]], game)
    net = PolicyValueNet.load(job["net"], game)
    snaps = [PolicyValueNet.load(p, game) for p in job["snapshots"]]
    return _concat([play_game(cfg, net, snaps, s, game) for s in job["seeds"]], game)


#: where self-play runs: in this process, on a local process pool, or as Ray tasks
BACKENDS = ("process", "ray")


class RayPool:
    """Self-play jobs as Ray tasks (a local instance with ``workers`` CPUs, or the cluster at ``address``);
    ``map`` keeps the order of the jobs, so the samples are those of the process pool."""

    def __init__(self, workers: int, address: str | None = None) -> None:
        from meeplezoo.training.league import RaySession

        self.session = RaySession(workers, address)
        self.ray = self.session.ray
        self.remote = self.ray.remote(num_cpus=1)(_worker_games)

    def map(self, fn: Any, jobs: Sequence[dict[str, Any]]) -> list[dict[str, np.ndarray]]:
        return self.ray.get([self.remote.remote(j) for j in jobs])

    def shutdown(self) -> None:
        self.session.close()


def make_pool(workers: int, backend: str = "process", address: str | None = None) -> Any:
    """The pool self-play runs on: None (inline) for one process-pool worker, else a process pool or Ray."""
    if backend not in BACKENDS:
        raise ValueError(f"exit: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend != "ray" and address is not None:
        raise ValueError("exit: an address is for the ray backend")
    if backend == "ray":
        return RayPool(workers, address)
    return ProcessPoolExecutor(workers, mp_context=get_context("spawn")) if workers > 1 else None


def generate(cfg: ExItConfig, kind: str, seeds: Sequence[int], net_path: str | None = None,
             snapshots: Sequence[str] = (), workers: int = 1, pool: Any = None) -> dict[str, np.ndarray]:
    """The samples of the games on ``seeds`` (``kind`` ``"selfplay"`` or ``"imitation"``), in seed order.

    With ``workers`` > 1 (or a ``pool``: a process pool or a :class:`RayPool`) the games are split into
    contiguous chunks played in parallel; the result is the same as inline.
    """
    seeds = [int(s) for s in seeds]
    chunks = np.array_split(np.arange(len(seeds)), max(1, min(workers, len(seeds))))
    jobs = [{"config": cfg.to_json(), "kind": kind, "seeds": [seeds[i] for i in ch], "net": net_path,
             "snapshots": list(snapshots)} for ch in chunks if len(ch)]
    if pool is None and workers <= 1:
        parts = [_worker_games(j) for j in jobs]
    elif pool is not None:
        parts = list(pool.map(_worker_games, jobs))
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as ex:
            parts = list(ex.map(_worker_games, jobs))
    return _concat(parts, cfg.make_game())


# -- training (torch) ---------------------------------------------------------------------------------
@dataclass
class ExItResult:
    """What a run did: its directory, iterations done, samples generated, CPU seconds and evaluations."""

    run_dir: Path
    iterations: int
    samples: int
    cpu_seconds: float
    evaluations: list[dict[str, Any]]

    def summary(self) -> str:
        lines = [f"expert iteration: {self.iterations} iterations, {self.samples} samples, "
                 f"{self.cpu_seconds / 3600:.2f} CPU hours -> {self.run_dir}"]
        for row in self.evaluations[-1:]:
            lines += [f"  iteration {row['iteration']}: " + ", ".join(
                f"{k[3:]} {v:.3f}" for k, v in row.items() if k.startswith("vs_"))]
        return "\n".join(lines)


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
    path = run_dir / "log.csv"
    if not path.exists():
        return None
    with path.open() as f:
        rows = list(csv.DictReader(f))
    specs = [k[3:] for k in (rows[0] if rows else {}) if k.startswith("vs_")]
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    drawn = False
    for spec in specs:
        pts = [(float(r["cpu_seconds"]) / 3600, float(r[f"vs_{spec}"]), float(r[f"ci_low_{spec}"]),
                float(r[f"ci_high_{spec}"])) for r in rows if r.get(f"vs_{spec}")]
        if not pts:
            continue
        x, y, lo, hi = (list(t) for t in zip(*pts))
        ax.plot(x, y, marker="o", label=f"vs {spec}")
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
    ax.set_title(f"expert iteration: {cfg.get('game', '?')}, {cfg.get('num_players', '?')} players")
    ax.legend(loc="lower right")
    fig.tight_layout()
    target = Path(out) if out is not None else run_dir / "curve.png"
    fig.savefig(target)
    plt.close(fig)
    return target


def _cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (pool workers included)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def tensorboard_writer(folder: str | Path) -> Any:
    """A TensorBoard SummaryWriter on ``folder``, or None where tensorboard is not installed."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # pragma: no cover - tensorboard is in the train extra
        return None
    return SummaryWriter(str(folder))


class ExItTrainer:
    """An expert-iteration run in ``run_dir`` (new, or an existing one continued)."""

    def __init__(self, cfg: ExItConfig, run_dir: str | Path, *, workers: int = 1, torch_threads: int = 1,
                 tensorboard: bool = True, verbose: int = 1, backend: str = "process",
                 address: str | None = None) -> None:
        import torch

        from meeplezoo.training.networks import BlockNet, BlockNetConfig

        self.cfg = cfg
        self.dir = Path(run_dir)
        self.workers = int(workers)
        if isinstance(workers, bool) or self.workers < 1:
            raise ValueError(f"exit: workers must be an int >= 1, got {workers!r}")
        if backend not in BACKENDS:
            raise ValueError(f"exit: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
        self.backend, self.address = backend, address
        self.verbose = verbose
        self.game = cfg.make_game()
        torch.set_num_threads(int(torch_threads))
        cfg_file = self.dir / CONFIG_FILE
        if cfg_file.exists():
            saved = ExItConfig.from_json(json.loads(cfg_file.read_text()))
            if {k: v for k, v in saved.to_json().items() if k != "iterations"} != \
                    {k: v for k, v in cfg.to_json().items() if k != "iterations"}:
                diff = sorted(k for k, v in cfg.to_json().items() if saved.to_json().get(k) != v and k != "iterations")
                raise ValueError(f"{self.dir} holds a run with another config (differs in {diff}); "
                                 f"use another --out or the same settings to continue it")
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "snapshots").mkdir(exist_ok=True)
        cfg_file.write_text(json.dumps(cfg.to_json(), indent=2, sort_keys=True))
        torch.manual_seed(cfg.seed)
        self.net = BlockNet(self.game.observation_spec, self.game.num_actions, self.game.num_players,
                            BlockNetConfig(**cfg.net_config))
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.progress: dict[str, Any] = {"iteration": 0, "samples": 0, "cpu_seconds": 0.0, "warm_started": False,
                                         "best_score": None, "snapshots": []}
        self.buffer = _empty(self.game)
        if (self.dir / PROGRESS_FILE).exists():
            self._load()
        self.writer = tensorboard_writer(self.dir / "tb") if tensorboard else None

    # -- persistence ----------------------------------------------------------------------------
    def _load(self) -> None:
        import torch

        self.progress = json.loads((self.dir / PROGRESS_FILE).read_text())
        state = torch.load(self.dir / TRAINER_FILE, weights_only=True)
        self.net.load_state_dict(state["net"])
        self.opt.load_state_dict(state["opt"])
        with np.load(self.dir / BUFFER_FILE, allow_pickle=False) as data:
            self.buffer = {k: data[k] for k in ("obs", "mask", "pi", "z")}

    def _save(self) -> None:
        import torch

        torch.save({"net": self.net.state_dict(), "opt": self.opt.state_dict()}, self.dir / (TRAINER_FILE + ".tmp"))
        np.savez(self.dir / "buffer.tmp.npz", **self.buffer)
        (self.dir / (TRAINER_FILE + ".tmp")).replace(self.dir / TRAINER_FILE)
        (self.dir / "buffer.tmp.npz").replace(self.dir / BUFFER_FILE)
        (self.dir / (PROGRESS_FILE + ".tmp")).write_text(json.dumps(self.progress, indent=2))
        (self.dir / (PROGRESS_FILE + ".tmp")).replace(self.dir / PROGRESS_FILE)

    def numpy_net(self) -> PolicyValueNet:
        """The current network, for playing (numpy)."""
        return PolicyValueNet(self.game, self.net.arrays(), self.cfg.net_config, self._metadata())

    def _metadata(self) -> dict[str, Any]:
        from meeplezoo._version import __version__

        return network_metadata(self.game, self.cfg.net_config, algorithm="exit", version=__version__,
                                iterations=int(self.progress["iteration"]), samples=int(self.progress["samples"]),
                                training_cpu_seconds=round(float(self.progress["cpu_seconds"]), 1),
                                seed=self.cfg.seed, exit_config=self.cfg.to_json())

    # -- the loop ---------------------------------------------------------------------------------
    def _train(self, data: dict[str, np.ndarray], epochs: int, seed: int) -> dict[str, float]:
        import torch

        n = len(data["obs"])
        if n == 0 or epochs == 0:
            return {"policy_loss": float("nan"), "value_loss": float("nan")}
        torch.manual_seed(seed)
        rng = np.random.default_rng(seed)
        bs = self.cfg.batch_size
        tot_p = tot_v = 0.0
        steps = 0
        self.net.train()
        for _ in range(epochs):
            order = rng.permutation(n)
            for i in range(0, n, bs):
                idx = order[i:i + bs]
                obs = torch.as_tensor(data["obs"][idx].astype(np.float32))
                mask = torch.as_tensor(data["mask"][idx])
                pi = torch.as_tensor(data["pi"][idx].astype(np.float32))
                z = torch.as_tensor(data["z"][idx])
                logits, v = self.net(obs)
                logp = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
                lp = -(pi * logp).sum(dim=1).mean()
                lv = ((v - z) ** 2).mean()
                loss = lp + self.cfg.value_weight * lv
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                tot_p += lp.item()
                tot_v += lv.item()
                steps += 1
        self.net.eval()
        return {"policy_loss": tot_p / steps, "value_loss": tot_v / steps}

    def _add(self, data: dict[str, np.ndarray]) -> None:
        buf = _concat([self.buffer, data], self.game)
        keep = self.cfg.buffer_size
        self.buffer = {k: v[-keep:] for k, v in buf.items()}

    def evaluate(self, games: int | None = None) -> dict[str, float]:
        """The network alone (greedy) against each ``eval_against`` opponent: win rates (seats rotated)."""
        from meeplezoo.agents.network import NetworkAgent
        from meeplezoo.training.ppo import evaluate

        games = self.cfg.eval_games if games is None else games
        agent = NetworkAgent(self.numpy_net())
        it = int(self.progress["iteration"])
        res = evaluate(agent, self.game, list(self.cfg.eval_against), games, seed=self.cfg.seed + _EVAL_OFFSET + it)
        out: dict[str, float] = {}
        for spec, st in res.items():
            out[f"vs_{spec}"] = st.win_rate
            out[f"ci_low_{spec}"], out[f"ci_high_{spec}"] = st.interval
        return out

    def _log(self, row: dict[str, Any]) -> None:
        path = self.dir / "log.csv"
        new = not path.exists()
        keys = ["iteration", "samples", "cpu_seconds", "wall_seconds", "new_samples", "policy_loss", "value_loss"]
        keys += [f"{p}{s}" for s in self.cfg.eval_against for p in ("vs_", "ci_low_", "ci_high_")]
        with path.open("a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
            if new:
                w.writeheader()
            w.writerow({k: row.get(k, "") for k in keys})
        if self.writer is not None:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k != "iteration":
                    self.writer.add_scalar(f"exit/{k}", v, row["iteration"])
            self.writer.flush()

    def run(self, iterations: int | None = None, time_limit: float | None = None) -> ExItResult:
        """Run until ``iterations`` (default the config's) are done or ``time_limit`` seconds have passed."""
        cfg = self.cfg
        target = cfg.iterations if iterations is None else int(iterations)
        start = time.time()
        evaluations: list[dict[str, Any]] = []
        pool = make_pool(self.workers, self.backend, self.address)
        try:
            if cfg.warm_start_games and not self.progress["warm_started"]:
                c0 = _cpu_seconds()
                seeds = [cfg.seed + _WARM_OFFSET + i for i in range(cfg.warm_start_games)]
                data = generate(cfg, "imitation", seeds, workers=self.workers, pool=pool)
                # trained on all of it; the replay buffer then keeps the last buffer_size decisions, which
                # the expert's samples replace as they come
                losses = self._train(_concat([self.buffer, data], self.game), cfg.warm_start_epochs,
                                     cfg.seed + _WARM_OFFSET)
                self._add(data)
                self.progress["warm_started"] = True
                self.progress["samples"] += len(data["obs"])
                self.progress["cpu_seconds"] += _cpu_seconds() - c0
                self._say(f"warm start: {len(data['obs'])} heuristic decisions imitated, "
                          f"policy loss {losses['policy_loss']:.3f}, value loss {losses['value_loss']:.3f}")
                self._save()
            while self.progress["iteration"] < target:
                if time_limit is not None and time.time() - start > time_limit:
                    break
                evaluations.append(self.iteration(pool))
        finally:
            if pool is not None:
                pool.shutdown()
            if self.writer is not None:
                self.writer.close()
                self.writer = None
        return ExItResult(self.dir, int(self.progress["iteration"]), int(self.progress["samples"]),
                          float(self.progress["cpu_seconds"]), [e for e in evaluations if any(
                              k.startswith("vs_") for k in e)])

    def iteration(self, pool: Any = None) -> dict[str, Any]:
        """One iteration: self-play, training, checkpoint, evaluation when due; returns its log row."""
        cfg = self.cfg
        t0, c0 = time.time(), _cpu_seconds()
        it = int(self.progress["iteration"]) + 1
        current = self.numpy_net().save(self.dir / "current.zip")
        seeds = [cfg.seed + _ITER_STRIDE * it + i for i in range(cfg.games_per_iteration)]
        snaps = [str(self.dir / p) for p in self.progress["snapshots"][-MAX_SNAPSHOT_OPPONENTS:]]
        data = generate(cfg, "selfplay", seeds, str(current), snaps, workers=self.workers, pool=pool)
        self._add(data)
        losses = self._train(self.buffer, cfg.epochs, cfg.seed + _ITER_STRIDE * it)
        self.progress["iteration"] = it
        self.progress["samples"] += len(data["obs"])
        row: dict[str, Any] = {"iteration": it, "new_samples": len(data["obs"]), **losses}
        snap = f"snapshots/iter_{it:04d}.zip"
        self.progress["cpu_seconds"] += _cpu_seconds() - c0
        net = self.numpy_net()
        net.save(self.dir / snap)
        self.progress["snapshots"].append(snap)
        net.save(self.dir / "final.zip")
        if cfg.eval_games and it % cfg.eval_every == 0:
            c1 = _cpu_seconds()
            row.update(self.evaluate())
            self.progress["cpu_seconds"] += _cpu_seconds() - c1
            score = row[f"vs_{cfg.eval_against[-1]}"]
            if self.progress["best_score"] is None or score >= self.progress["best_score"]:
                self.progress["best_score"] = score
                net.save(self.dir / "best.zip", best_iteration=it, best_score=score)
        row.update(samples=self.progress["samples"], cpu_seconds=round(self.progress["cpu_seconds"], 1),
                   wall_seconds=round(time.time() - t0, 1))
        self._save()
        self._log(row)
        if any(k.startswith("vs_") for k in row):
            plot_curve(self.dir)
        self._say(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
                           if not k.startswith("ci_")))
        return row

    def _say(self, text: str) -> None:
        if self.verbose:
            print(text, flush=True)


def train_exit(game: str, run_dir: str | Path, *, workers: int = 1, time_limit: float | None = None,
               torch_threads: int = 1, tensorboard: bool = True, verbose: int = 1, backend: str = "process",
               address: str | None = None, **config: Any) -> ExItResult:
    """Run (or continue) expert iteration for ``game`` in ``run_dir``; ``config`` are :class:`ExItConfig` fields.

    Self-play runs inline (``workers=1``), on a process pool (``workers`` > 1) or as Ray tasks
    (``backend="ray"``, a local instance or the cluster at ``address``)."""
    cfg = ExItConfig(game=game, **config)
    trainer = ExItTrainer(cfg, run_dir, workers=workers, torch_threads=torch_threads, tensorboard=tensorboard,
                          verbose=verbose, backend=backend, address=address)
    return trainer.run(time_limit=time_limit)
