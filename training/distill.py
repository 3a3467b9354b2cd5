"""Distillation: a network learns to play like a stronger teacher, the tuned search by default.

Expert iteration's first step, taken with a fixed expert.  The tuned search (``mcts``: the heuristic as
prior, rollouts or the scores as leaf values) beats the heuristic in every game, so its move choices are
a target above the heuristic; the network fine-tuned on them is meant to beat the heuristic *alone*,
greedy, with no search at play time.

Two steps, both resumable from the run directory:

``generate``
    The teacher (``teacher``, default ``mcts:sims=50``) plays ``opponent`` (default the heuristic), its
    seat alternating from game to game, one game per seed: game ``g`` is played on seed
    ``seed * 1_000_003 + g`` with the teacher in seat ``g % num_players``.  Every teacher decision with a
    choice is a sample: the observation (float16), the legal mask and the teacher's visit distribution.
    Games are written ``chunk`` at a time to ``RUN/chunk_NNNNN.npz`` (with the CPU seconds they took); a
    second call skips the chunks that exist, so generation continues where it stopped, on any number of
    workers (process pool or Ray), and gives the same samples inline and on a pool.  With ``behaviour``
    (an agent spec, e.g. the network being distilled) that agent moves in the teacher's seat and the
    teacher only labels the positions it reaches: DAgger (Ross et al., 2011), so the network learns the
    teacher's moves in the positions its own play leads to, not only in the teacher's.
``fit``
    Fine-tunes a starting network (``init``: ``"pretrained"`` for the shipped one of the configuration,
    a checkpoint path, or ``"scratch"``) on the samples: cross-entropy to the visit distribution, illegal
    actions masked; the value head is left as it is.  Every ``holdout``-th chunk is held out to report
    how often the network's greedy move is the teacher's most visited one (``fit.csv``, one row per
    epoch).  ``extra_data`` names more run directories whose chunks are fit too (DAgger's aggregated
    data set: the teacher's games and each round of the student's).  The result ``RUN/final.zip`` is an
    ordinary network checkpoint (``net:RUN/final.zip``,
    ``learned_strength.py --checkpoint``), its metadata naming the teacher, the samples and the CPU
    seconds spent (those of ``init`` included).

    meeplezoo train haus_der_sonne --algo distill --teacher mcts:sims=50 --games 1200 --out runs/distill/hds
    meeplezoo train haus_der_sonne --algo distill --games 2400 --out runs/distill/hds   # continue to more games
    # DAgger: the distilled network plays, the teacher labels; fit on both data sets
    meeplezoo train haus_der_sonne --algo distill --behaviour net:runs/distill/hds/final.zip \
        --init runs/distill/hds/final.zip --extra-data runs/distill/hds --out runs/distill/hds_dagger1

or from Python::

    from meeplezoo.training.distill import DistillConfig, distill
    distill(DistillConfig("haus_der_sonne", games=400), "runs/distill/hds", workers=2)
"""

from __future__ import annotations

import csv
import glob
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

#: seed stride between games (as in ``benchmarks/distill.py``, whose samples this module reads)
GAME_STRIDE = 1_000_003
#: files of a run directory
GENERATE_FILE, FIT_LOG, FINAL = "generate.json", "fit.csv", "final.zip"
#: the generation settings a run directory is bound to (another value means other samples)
GENERATION_KEYS = ("game", "players", "teacher", "seed", "chunk", "opponent", "options", "behaviour")
#: what ``init`` may name besides a checkpoint path
INIT_KINDS = ("pretrained", "scratch")
#: agents that search (their visit counts are the targets); pretrained only with sims= or time=
TEACHERS = ("mcts", "netmcts", "pretrained")


@dataclass(frozen=True)
class DistillConfig:
    """What a distillation run generates and how it fits (``meeplezoo train --algo distill``)."""

    game: str
    num_players: int = 2
    options: Mapping[str, Any] = field(default_factory=dict)
    #: the agent spec whose visit counts are the targets (it must search: ``mcts``, ``netmcts``, ...)
    teacher: str = "mcts:sims=50"
    #: the agent spec in every other seat
    opponent: str = "heuristic"
    #: games to have generated (a continued run goes on to this many)
    games: int = 400
    #: games per chunk file
    chunk: int = 10
    seed: int = 0
    #: the network fine-tuned: "pretrained", "scratch" (a new network of the widths below) or a checkpoint path
    init: str = "pretrained"
    epochs: int = 4
    lr: float = 3e-4
    batch_size: int = 128
    weight_decay: float = 1e-4
    #: every ``holdout``-th chunk is held out of the fit (agreement is measured on it)
    holdout: int = 10
    #: hidden width of the flat layers and the trunk of a network built from scratch (``init="scratch"``);
    #: the five fields below are that network's other widths (:class:`~meeplezoo.training.networks.
    #: BlockNetConfig`, ``--algo exit``'s defaults). A run that starts from a checkpoint keeps its shape.
    width: int = 256
    channels: int = 32
    conv_layers: int = 2
    board_channels: int = 0
    trunk_layers: int = 1
    action_hidden: int = 0
    #: the agent spec that moves in the teacher's seat while the teacher labels ("" = the teacher: plain
    #: distillation; a network: DAgger)
    behaviour: str = ""
    #: more run directories whose chunks the fit reads too (their own generation settings may differ)
    extra_data: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        ints = {"games": 1, "chunk": 1, "batch_size": 1, "width": 1, "channels": 1, "conv_layers": 1,
                "trunk_layers": 1, "board_channels": 0, "action_hidden": 0}
        for name, lo in ints.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ValueError(f"distill: {name} must be an int >= {lo}, got {v!r}")
        if isinstance(self.epochs, bool) or not isinstance(self.epochs, int) or self.epochs < 0:
            raise ValueError(f"distill: epochs must be an int >= 0, got {self.epochs!r}")
        if isinstance(self.holdout, bool) or not isinstance(self.holdout, int) or self.holdout < 2:
            raise ValueError(f"distill: holdout must be an int >= 2, got {self.holdout!r}")
        if not (self.lr > 0):
            raise ValueError(f"distill: lr must be > 0, got {self.lr!r}")
        from meeplezoo.agents.registry import parse_spec

        if not isinstance(self.behaviour, str):
            raise ValueError(f"distill: behaviour must be an agent spec string, got {self.behaviour!r}")
        if isinstance(self.extra_data, str) or not all(isinstance(d, str) for d in self.extra_data):
            raise ValueError(f"distill: extra_data must be a list of run directories, got {self.extra_data!r}")
        object.__setattr__(self, "extra_data", tuple(self.extra_data))
        if parse_spec(self.teacher)[0] not in TEACHERS:
            raise ValueError(f"distill: the teacher must be a search ({', '.join(TEACHERS)}), got {self.teacher!r}")
        if self.init not in INIT_KINDS and not os.path.isfile(self.init):
            raise ValueError(f"distill: init must be {' or '.join(INIT_KINDS)} or a checkpoint file, "
                             f"got {self.init!r}")

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["options"] = dict(self.options)
        d["extra_data"] = list(self.extra_data)
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> DistillConfig:
        from meeplezoo.training.exit import check_config_keys

        check_config_keys(cls, d, "distill")
        return cls(**d)

    def generation(self) -> dict[str, Any]:
        """The settings the samples depend on (a run directory is bound to them)."""
        return {"game": self.game, "players": self.num_players, "teacher": self.teacher, "seed": self.seed,
                "chunk": self.chunk, "opponent": self.opponent, "options": dict(self.options),
                "behaviour": self.behaviour}

    def net_config(self) -> Any:
        """The :class:`~meeplezoo.training.networks.BlockNetConfig` of a network built from scratch."""
        from meeplezoo.training.networks import BlockNetConfig

        return BlockNetConfig(flat_hidden=self.width, trunk_hidden=self.width, channels=self.channels,
                              conv_layers=self.conv_layers, board_channels=self.board_channels,
                              trunk_layers=self.trunk_layers, action_hidden=self.action_hidden)

    def _scratch_flags(self) -> list[str]:
        """The architecture flags that differ from the defaults (they only shape a scratch network)."""
        from meeplezoo.training.exit import ARCHITECTURE_FLAGS

        defaults = {f.name: f.default for f in fields(self)}
        return [f"{flag} {getattr(self, name)}" for name, flag in ARCHITECTURE_FLAGS
                if getattr(self, name) != defaults[name]]

    def make_game(self) -> Any:
        from meeplezoo.registry import make_game

        return make_game(self.game, self.num_players, **dict(self.options))

    def command(self, out: str) -> str:
        """The ``meeplezoo train`` command line that runs this config into ``out``."""
        from meeplezoo.registry import GAMES

        info = GAMES.get(self.game)
        opts = [f"-o {k}={v}" if info is None or k not in ("variant", "version") else f"--{k} {v}"
                for k, v in self.options.items()]
        parts = [f"meeplezoo train {self.game} --players {self.num_players}", *opts, "--algo distill",
                 f"--teacher {self.teacher}", f"--opponent {self.opponent}",
                 f"--games {self.games}", f"--chunk {self.chunk}", f"--init {self.init}",
                 f"--epochs {self.epochs}", f"--lr {self.lr}", f"--batch-size {self.batch_size}",
                 f"--holdout {self.holdout}", f"--width {self.width}", *self._scratch_flags(), f"--seed {self.seed}",
                 f"--behaviour {self.behaviour}" if self.behaviour else "",
                 *(f"--extra-data {d}" for d in self.extra_data), f"--out {out}"]
        return " ".join(p for p in parts if p)


# -- generation (numpy only) ----------------------------------------------------------------------------
def teacher_game(cfg: DistillConfig, index: int, game: Any = None) -> dict[str, np.ndarray]:
    """Game ``index`` of the run: the teacher (in seat ``index % num_players``) against ``opponent``;
    the teacher's samples (obs, mask, pi) and the final returns (``win`` mode, per seat).  With
    ``behaviour`` that agent makes the moves of the teacher's seat (seeded after the others)."""
    from meeplezoo.agents import make as make_agent

    game = cfg.make_game() if game is None else game
    n = game.num_players
    seat = index % n
    rng = np.random.default_rng(cfg.seed * GAME_STRIDE + index)
    agents = [make_agent(cfg.teacher if i == seat else cfg.opponent, game, num_players=n,
                         seed=int(rng.integers(2**31))) for i in range(n)]
    state = game.new_state(int(rng.integers(2**31)))
    mover = make_agent(cfg.behaviour, game, num_players=n, seed=int(rng.integers(2**31))) if cfg.behaviour else None
    obs, masks, pis = [], [], []
    while not state.is_terminal():
        p = state.current_player
        mask = state.legal_mask()
        if int(mask.sum()) == 1:
            a = int(np.flatnonzero(mask)[0])
        elif p == seat:
            if not hasattr(agents[p], "search"):
                raise ValueError(f"distill: the teacher {cfg.teacher!r} does not search (pretrained needs sims= "
                                 f"or time=)")
            result = agents[p].search(state)
            ob = state.observe(p)
            obs.append(ob.astype(np.float16))
            masks.append(np.array(mask, dtype=bool))
            pis.append(result.policy(1.0).astype(np.float16))
            a = result.action if mover is None else int(mover.act(ob, mask, state=state))
        else:
            a = int(agents[p].act(state.observe(p), mask, state=state))
        state.apply(a)
    size, na = game.observation_shape[0], game.num_actions
    returns = np.asarray(state.returns("win"), np.float32)
    return {"obs": np.stack(obs) if obs else np.zeros((0, size), np.float16),
            "mask": np.stack(masks) if masks else np.zeros((0, na), bool),
            "pi": np.stack(pis) if pis else np.zeros((0, na), np.float16),
            "returns": returns[None].repeat(len(obs), 0), "teacher_won": np.float32(returns[seat] > 0)}


def chunk_path(run_dir: str | Path, c: int) -> Path:
    return Path(run_dir) / f"chunk_{c:05d}.npz"


def _write_chunk(job: dict[str, Any]) -> dict[str, float]:
    """Play and write one chunk (picklable: a worker's job); returns its summary."""
    cfg = DistillConfig.from_json(job["config"])
    game = cfg.make_game()
    c = int(job["chunk"])
    t0 = time.process_time()
    parts = [teacher_game(cfg, g, game) for g in range(c * cfg.chunk, (c + 1) * cfg.chunk)]
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "pi", "returns")}
    cpu = time.process_time() - t0
    path = chunk_path(job["run_dir"], c)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, cpu_seconds=np.float64(cpu), **data)
    os.replace(tmp, path)
    return {"chunk": c, "samples": len(data["obs"]), "cpu_seconds": cpu,
            "teacher_won": float(np.mean([p["teacher_won"] for p in parts]))}


def _bind(cfg: DistillConfig, run_dir: Path, write: bool = True) -> None:
    """Bind ``run_dir`` to the config's generation settings, or refuse one bound to others."""
    if write:
        run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / GENERATE_FILE
    want = cfg.generation()
    if path.exists():
        old = json.loads(path.read_text())
        old.setdefault("opponent", "heuristic")  # written before these were recorded: their defaults
        old.setdefault("options", {})
        old.setdefault("behaviour", "")
        diff = sorted(k for k in GENERATION_KEYS if old.get(k) != want[k])
        if diff:
            raise ValueError(f"distill: {run_dir} holds samples of another setting (differs in {diff}: "
                             f"{ {k: old.get(k) for k in diff} }); use another --out")
    if write:
        path.write_text(json.dumps(want, indent=1))


def generate(cfg: DistillConfig, run_dir: str | Path, *, workers: int = 1, backend: str = "process",
             address: str | None = None, time_limit: float | None = None, verbose: int = 1) -> int:
    """Write the chunks of ``cfg.games`` games that ``run_dir`` lacks (``workers`` at a time); stops
    starting new chunks after ``time_limit`` seconds.  Returns how many chunks exist now."""
    from meeplezoo.training.exit import BACKENDS, RayPool

    run_dir = Path(run_dir)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"distill: workers must be an int >= 1, got {workers!r}")
    if backend not in BACKENDS:
        raise ValueError(f"distill: unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    _bind(cfg, run_dir)
    todo = [c for c in range(cfg.games // cfg.chunk) if not chunk_path(run_dir, c).exists()]
    start = time.time()
    pool: Any = None
    if backend == "ray":
        pool = RayPool(workers, address)
    elif workers > 1:
        pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"))
    try:
        step = workers if pool is not None else 1
        for i in range(0, len(todo), step):
            if time_limit is not None and time.time() - start > time_limit:
                break
            jobs = [{"config": cfg.to_json(), "run_dir": str(run_dir), "chunk": c} for c in todo[i:i + step]]
            if pool is None:
                done = [_write_chunk(j) for j in jobs]
            elif backend == "ray":
                done = pool.ray.get([pool.ray.remote(num_cpus=1)(_write_chunk).remote(j) for j in jobs])
            else:
                done = list(pool.map(_write_chunk, jobs))
            if verbose:
                for d in done:
                    print(f"chunk {d['chunk']}: {d['samples']} samples, {d['cpu_seconds']:.0f} CPU s, "
                          f"teacher's seat won {d['teacher_won']:.2f}", flush=True)
    finally:
        if backend == "ray" and pool is not None:
            pool.shutdown()
        elif pool is not None:
            pool.shutdown()
    return len(list(run_dir.glob("chunk_*.npz")))


def load_chunks(run_dir: str | Path, limit: int | None = None) -> tuple[list[dict[str, np.ndarray]], float]:
    """The chunks of ``run_dir`` in order (the first ``limit``), and the CPU seconds they took."""
    chunks, cpu = [], 0.0
    paths = sorted(glob.glob(os.path.join(str(run_dir), "chunk_*.npz")))
    for path in paths[:limit]:
        with np.load(path, allow_pickle=False) as d:
            chunks.append({k: d[k] for k in ("obs", "mask", "pi")})
            cpu += float(d["cpu_seconds"])
    if not chunks:
        raise ValueError(f"distill: no chunk_*.npz in {run_dir}; generate first")
    return chunks, cpu


# -- fitting (torch) --------------------------------------------------------------------------------------
@dataclass
class DistillResult:
    run_dir: Path
    checkpoint: Path
    samples: int
    agreement_before: float
    agreement: float
    held_out_loss_before: float
    held_out_loss: float
    cpu_seconds: float

    def summary(self) -> str:
        return (f"{self.checkpoint}: {self.samples} teacher decisions, held-out agreement with the teacher's "
                f"move {self.agreement_before:.3f} -> {self.agreement:.3f} (cross-entropy "
                f"{self.held_out_loss_before:.3f} -> {self.held_out_loss:.3f}), {self.cpu_seconds / 3600:.2f} CPU h "
                f"in all")


def _initial(cfg: DistillConfig, game: Any) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The network to fine-tune as a torch module, its config and the metadata it came with."""
    from meeplezoo.training.networks import BlockNet, BlockNetConfig, config_dict

    if cfg.init == "scratch":
        import torch

        torch.manual_seed(cfg.seed)
        bc = cfg.net_config()
        return (BlockNet(game.observation_spec, game.num_actions, game.num_players, bc), config_dict(bc), {})
    from meeplezoo.training.exit import load_start

    start = load_start(cfg.init, game, "distill")
    net = BlockNet(game.observation_spec, game.num_actions, game.num_players, BlockNetConfig(**start.config))
    net.load_arrays(start.params)
    return net, dict(start.config), dict(start.metadata)


def fit(cfg: DistillConfig, run_dir: str | Path, *, torch_threads: int = 1, verbose: int = 1,
        max_chunks: int | None = None) -> DistillResult:
    """Fine-tune ``cfg.init`` on the chunks in ``run_dir``; writes ``final.zip`` and ``fit.csv``."""
    import torch

    from meeplezoo._version import __version__
    from meeplezoo.agents.network import PolicyValueNet, network_metadata

    torch.set_num_threads(int(torch_threads))
    run_dir = Path(run_dir)
    game = cfg.make_game()
    _bind(cfg, run_dir, write=False)
    chunks, gen_cpu = load_chunks(run_dir, max_chunks)
    held = [c for i, c in enumerate(chunks) if i % cfg.holdout == cfg.holdout - 1] or chunks[-1:]
    train = [c for i, c in enumerate(chunks) if i % cfg.holdout != cfg.holdout - 1] or chunks
    c0 = time.process_time()
    net, net_config, start_meta = _initial(cfg, game)
    # the generation CPU of a data set counts once: not again when the start network was fit on it already
    counted = {os.path.realpath(d) for d in start_meta.get("distill_data_dirs") or []}
    data_dirs = [os.path.realpath(run_dir)]
    if data_dirs[0] in counted:
        gen_cpu = 0.0
    size = game.observation_shape[0]
    for extra in cfg.extra_data:  # every chunk of another run is fit (its held-out ones included)
        more, more_cpu = load_chunks(extra)
        if more[0]["obs"].shape[1] != size:
            raise ValueError(f"distill: {extra} holds observations of {more[0]['obs'].shape[1]} values, not "
                             f"{size} ({game!r})")
        train += more
        data_dirs.append(os.path.realpath(extra))
        gen_cpu += 0.0 if data_dirs[-1] in counted else more_cpu
    torch.manual_seed(cfg.seed)
    cat = {k: np.concatenate([c[k] for c in train]) for k in ("obs", "mask", "pi")}
    val = {k: np.concatenate([c[k] for c in held]) for k in ("obs", "mask", "pi")}

    def held_out() -> tuple[float, float]:
        """How often the greedy move is the teacher's most visited one, and the cross-entropy to its visits."""
        net.eval()
        pi = val["pi"].astype(np.float32)
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(val["obs"].astype(np.float32)))
            logits = logits.masked_fill(~torch.as_tensor(val["mask"]), -1e9)
            ce = float(-(torch.as_tensor(pi) * torch.log_softmax(logits, dim=1)).sum(1).mean())
        return float((logits.argmax(1).numpy() == pi.argmax(1)).mean()), ce

    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    rng = np.random.default_rng(cfg.seed)
    before, ce = held_out()
    n = len(cat["obs"])
    rows = [{"epoch": 0, "policy_loss": "", "held_out_loss": round(ce, 4), "agreement": round(before, 4)}]
    if verbose:
        print(f"{n} teacher decisions to fit, {len(val['obs'])} held out; agreement before {before:.3f}",
              flush=True)
    for epoch in range(cfg.epochs):
        net.train()
        order = rng.permutation(n)
        tot = 0.0
        for i in range(0, n, cfg.batch_size):
            idx = order[i:i + cfg.batch_size]
            logits, _ = net(torch.as_tensor(cat["obs"][idx].astype(np.float32)))
            logp = torch.log_softmax(logits.masked_fill(~torch.as_tensor(cat["mask"][idx]), -1e9), dim=1)
            loss = -(torch.as_tensor(cat["pi"][idx].astype(np.float32)) * logp).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
        agree, ce = held_out()
        rows.append({"epoch": epoch + 1, "policy_loss": round(tot / max(n, 1), 4), "held_out_loss": round(ce, 4),
                     "agreement": round(agree, 4)})
        if verbose:
            print(f"epoch {epoch + 1}: policy loss {tot / max(n, 1):.3f}, held-out loss {ce:.3f}, "
                  f"agreement {agree:.3f}", flush=True)
    with (run_dir / FIT_LOG).open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["epoch", "policy_loss", "held_out_loss", "agreement"])
        w.writeheader()
        w.writerows(rows)
    prior_cpu = float(start_meta.get("training_cpu_seconds") or 0.0)
    spent = gen_cpu + time.process_time() - c0
    meta = network_metadata(game, net_config, algorithm="distill", version=__version__,
                            samples=int(n + len(val["obs"])), seed=cfg.seed,
                            training_cpu_seconds=round(prior_cpu + spent, 1),
                            distill_config=cfg.to_json(), distill_cpu_seconds=round(spent, 1),
                            distill_chunks=len(chunks), init_metadata=start_meta or None,
                            distill_generation_cpu_seconds=round(gen_cpu, 1),
                            distill_data_dirs=sorted(os.path.relpath(d) for d in counted | set(data_dirs)),
                            command=cfg.command(str(run_dir)))
    out = PolicyValueNet(game, net.arrays(), net_config, meta).save(run_dir / FINAL)
    result = DistillResult(run_dir, Path(out), int(n), before, rows[-1]["agreement"], float(rows[0]["held_out_loss"]),
                           float(rows[-1]["held_out_loss"]), prior_cpu + spent)
    if verbose:
        print(result.summary(), flush=True)
    return result


def distill(cfg: DistillConfig, run_dir: str | Path, *, workers: int = 1, backend: str = "process",
            address: str | None = None, time_limit: float | None = None, torch_threads: int = 1,
            verbose: int = 1) -> DistillResult:
    """Generate what ``run_dir`` lacks of ``cfg.games`` games (within ``time_limit`` seconds), then fit."""
    generate(cfg, run_dir, workers=workers, backend=backend, address=address, time_limit=time_limit,
             verbose=verbose)
    return fit(cfg, run_dir, torch_threads=torch_threads, verbose=verbose)


def samples_equal(a: Sequence[dict[str, np.ndarray]], b: Sequence[dict[str, np.ndarray]]) -> bool:
    """Whether two lists of chunks hold the same samples (for tests of the pool)."""
    return len(a) == len(b) and all(all(np.array_equal(x[k], y[k]) for k in ("obs", "mask", "pi"))
                                    for x, y in zip(a, b))
