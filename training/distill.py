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

import glob
import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from meeplezoo._version import __version__
from meeplezoo.agents import make as make_agent
from meeplezoo.agents.network import network_metadata
from meeplezoo.agents.registry import parse_spec
from meeplezoo.knobs import knob

from .executor import check_execution, imap, make_executor
from .run import ARCHITECTURE, TrainerConfig, learner, load_start, shared, write_csv

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


def _teacher(spec: Any) -> str:
    if not isinstance(spec, str) or parse_spec(spec)[0] not in TEACHERS:
        raise ValueError(f"must be a search ({', '.join(TEACHERS)}), got {spec!r}")
    return spec


def _init(value: Any) -> str:
    if not isinstance(value, str) or (value not in INIT_KINDS and not os.path.isfile(value)):
        raise ValueError(f"must be {' or '.join(INIT_KINDS)} or a checkpoint file, got {value!r}")
    return value


def _directories(value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(isinstance(d, str) for d in value):
        raise ValueError(f"must be a list of run directories, got {value!r}")
    return tuple(value)


@dataclass(frozen=True)
class DistillConfig(TrainerConfig, algo="distill", grows=("games",)):
    """What a distillation run generates and how it fits (``meeplezoo train --algo distill``)."""

    teacher: str = knob("mcts:sims=50", "the search whose visit counts are the targets (mcts, netmcts, "
                        "pretrained with sims= or time=)", check=_teacher, metavar="SPEC")
    opponent: str = knob("heuristic", "the agent spec in every other seat", metavar="SPEC")
    games: int = knob(400, "teacher games to have generated (a continued run goes on to this many)", low=1)
    chunk: int = knob(10, "games per chunk file", low=1)
    seed: int = shared("seed")
    init: str = knob("pretrained", "the network fine-tuned: pretrained (the shipped one), scratch (a new network "
                     "of the widths below) or a checkpoint file", type=str, check=_init, metavar="CHECKPOINT")
    epochs: int = shared("epochs", 4, doc="passes over the samples")
    lr: float = shared("lr", 3e-4)
    batch_size: int = shared("batch_size")
    weight_decay: float = shared("weight_decay")
    holdout: int = knob(10, "every N-th chunk is held out of the fit (agreement is measured on it)", low=2)
    width: int = shared("width", 256, doc="hidden width of the flat layers and the trunk of a network built "
                        "from scratch (a checkpoint start keeps its shape)")
    channels: int = shared("channels")
    conv_layers: int = shared("conv_layers")
    board_channels: int = shared("board_channels")
    trunk_layers: int = shared("trunk_layers")
    action_hidden: int = shared("action_hidden")
    behaviour: str = knob("", "DAgger: this agent (e.g. net:PATH) moves in the teacher's seat, the teacher only "
                          "labels (empty: the teacher moves)", metavar="SPEC")
    extra_data: tuple[str, ...] = knob((), "another distill run directory whose chunks are fit too",
                                       type=object, check=_directories, repeat=True, metavar="DIR")

    def generation(self) -> dict[str, Any]:
        """The settings the samples depend on (a run directory is bound to them)."""
        return {"game": self.game, "players": self.num_players, "teacher": self.teacher, "seed": self.seed,
                "chunk": self.chunk, "opponent": self.opponent, "options": dict(self.options),
                "behaviour": self.behaviour}

    def net_config(self) -> dict[str, int]:
        """The :class:`~meeplezoo.training.networks.BlockNetConfig` widths of a network built from scratch."""
        return {"flat_hidden": self.width, "trunk_hidden": self.width,
                **{name: getattr(self, name) for name in ARCHITECTURE}}


# -- generation (numpy only) ----------------------------------------------------------------------------
def teacher_game(cfg: DistillConfig, index: int, game: Any = None) -> dict[str, np.ndarray]:
    """Game ``index`` of the run: the teacher (in seat ``index % num_players``) against ``opponent``;
    the teacher's samples (obs, mask, pi) and the final returns (``win`` mode, per seat).  With
    ``behaviour`` that agent makes the moves of the teacher's seat (seeded after the others)."""
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
        p, mask = state.current_player, state.legal_mask()
        legal = np.flatnonzero(mask)
        if len(legal) == 1:  # a forced move is no sample
            a = int(legal[0])
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
        old = {"opponent": "heuristic", "options": {}, "behaviour": "",  # written before these were recorded
               **json.loads(path.read_text())}
        diff = sorted(k for k in GENERATION_KEYS if old.get(k) != want[k])
        if diff:
            raise ValueError(f"distill: {run_dir} holds samples of another setting (differs in {diff}: "
                             f"{ {k: old.get(k) for k in diff} }); use another --out")
    if write:
        path.write_text(json.dumps(want, indent=1))


def generate(cfg: DistillConfig, run_dir: str | Path, *, workers: int = 1, backend: str = "process",
             address: str | None = None, time_limit: float | None = None, verbose: int = 1) -> int:
    """Write the chunks of ``cfg.games`` games that ``run_dir`` lacks, ``workers`` chunks in flight (a new one
    starts as soon as any ends); stops starting new chunks after ``time_limit`` seconds.  A chunk's games
    and seeds depend on the configuration alone, so the samples are the same for any worker count.
    Returns how many chunks exist now."""
    run_dir = Path(run_dir)
    check_execution(workers, backend, address, who="distill")
    _bind(cfg, run_dir)
    todo = [c for c in range(cfg.games // cfg.chunk) if not chunk_path(run_dir, c).exists()]
    start = time.time()

    def jobs() -> Iterator[dict[str, Any]]:
        for c in todo:
            if time_limit is not None and time.time() - start > time_limit:
                return
            yield {"config": cfg.to_json(), "run_dir": str(run_dir), "chunk": c}

    with make_executor(workers, backend, address, who="distill") as pool:
        for d in imap(pool, _write_chunk, jobs()):  # one chunk per worker in flight, a new one as any ends
            if verbose:
                print(f"chunk {d['chunk']}: {d['samples']} samples, {d['cpu_seconds']:.0f} CPU s, "
                      f"teacher's seat won {d['teacher_won']:.2f}", flush=True)
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


# -- fitting (torch, through the learner) --------------------------------------------------------------------
@dataclass
class DistillResult:
    """What a fit did: the checkpoint, samples, agreement with the teacher and cross-entropy, CPU seconds."""

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


def _initial(cfg: DistillConfig, game: Any, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    """The learner (on ``device``) on the network to fine-tune, and the metadata that network came with."""
    if cfg.init == "scratch":
        return learner().Learner(game, cfg.net_config(), lr=cfg.lr, weight_decay=cfg.weight_decay, seed=cfg.seed,
                                 device=device), {}
    start = load_start(cfg.init, game, "distill")
    return (learner().Learner(game, start.config, lr=cfg.lr, weight_decay=cfg.weight_decay, start=start,
                              device=device), dict(start.metadata))


def _data(cfg: DistillConfig, run_dir: Path, game: Any, counted: set[str], max_chunks: int | None
          ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], float, list[str], int]:
    """The samples to fit and those held out, the generation CPU seconds not yet counted in the start
    network, the data directories and the number of own chunks."""
    chunks, gen_cpu = load_chunks(run_dir, max_chunks)
    held = [c for i, c in enumerate(chunks) if i % cfg.holdout == cfg.holdout - 1] or chunks[-1:]
    train = [c for i, c in enumerate(chunks) if i % cfg.holdout != cfg.holdout - 1] or chunks
    # the generation CPU of a data set counts once: not again when the start network was fit on it already
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
    cat = {k: np.concatenate([c[k] for c in train]) for k in ("obs", "mask", "pi")}
    val = {k: np.concatenate([c[k] for c in held]) for k in ("obs", "mask", "pi")}
    return cat, val, gen_cpu, data_dirs, len(chunks)


def _held_out(lib: Any, learner: Any, val: dict[str, np.ndarray]) -> tuple[float, float]:
    """How often the greedy move is the teacher's most visited one, and the cross-entropy to its visits."""
    learner.net.eval()
    pi = val["pi"].astype(np.float32)
    with lib.no_grad():
        logits, _ = learner.forward(learner.tensor(val["obs"]))
        mask = learner.tensor(val["mask"])
        ce = float(lib.cross_entropy(logits, mask, learner.tensor(pi)))
        chosen = logits.masked_fill(~mask, -1e9).argmax(1).cpu().numpy()
    return float((chosen == pi.argmax(1)).mean()), ce


def fit(cfg: DistillConfig, run_dir: str | Path, *, torch_threads: int = 1, verbose: int = 1,
        max_chunks: int | None = None, device: str = "cpu") -> DistillResult:
    """Fine-tune ``cfg.init`` on the chunks in ``run_dir`` (on ``device``: ``cpu``, ``cuda``, ``cuda:N``,
    ``auto``); writes ``final.zip`` and ``fit.csv``."""
    lib = learner()
    lib.set_threads(torch_threads)
    run_dir = Path(run_dir)
    game = cfg.make_game()
    _bind(cfg, run_dir, write=False)
    c0 = time.process_time()
    net, start_meta = _initial(cfg, game, device)
    counted = {os.path.realpath(d) for d in start_meta.get("distill_data_dirs") or []}
    cat, val, gen_cpu, data_dirs, n_chunks = _data(cfg, run_dir, game, counted, max_chunks)
    n = len(cat["obs"])
    before, ce = _held_out(lib, net, val)
    rows = [{"epoch": 0, "policy_loss": "", "held_out_loss": round(ce, 4), "agreement": round(before, 4)}]
    if verbose:
        print(f"{n} teacher decisions to fit, {len(val['obs'])} held out; agreement before {before:.3f}", flush=True)

    def loss(b: dict[str, Any]) -> tuple[Any, dict[str, float]]:
        logits, _ = net.forward(b["obs"])
        value = lib.cross_entropy(logits, b["mask"], b["pi"])
        return value, {"policy_loss": value.item() * len(b["obs"])}

    def on_epoch(epoch: int, sums: dict[str, float]) -> None:
        agree, held_ce = _held_out(lib, net, val)
        rows.append({"epoch": epoch + 1, "policy_loss": round(sums["policy_loss"] / max(n, 1), 4),
                     "held_out_loss": round(held_ce, 4), "agreement": round(agree, 4)})
        if verbose:
            print(f"epoch {epoch + 1}: policy loss {sums['policy_loss'] / max(n, 1):.3f}, held-out loss "
                  f"{held_ce:.3f}, agreement {agree:.3f}", flush=True)

    net.fit(cat, cfg.epochs, cfg.batch_size, cfg.seed, loss, on_epoch=on_epoch)
    write_csv(run_dir / FIT_LOG, rows)
    prior_cpu = float(start_meta.get("training_cpu_seconds") or 0.0)
    spent = gen_cpu + time.process_time() - c0
    meta = network_metadata(game, net.config, algorithm="distill", version=__version__,
                            samples=int(n + len(val["obs"])), seed=cfg.seed,
                            training_cpu_seconds=round(prior_cpu + spent, 1),
                            distill_config=cfg.to_json(), distill_cpu_seconds=round(spent, 1),
                            distill_chunks=n_chunks, init_metadata=start_meta or None,
                            distill_generation_cpu_seconds=round(gen_cpu, 1),
                            distill_data_dirs=sorted(os.path.relpath(d) for d in counted | set(data_dirs)),
                            command=cfg.command(str(run_dir)))
    out = net.numpy_net(meta).save(run_dir / FINAL)
    result = DistillResult(run_dir, Path(out), int(n), before, rows[-1]["agreement"], float(rows[0]["held_out_loss"]),
                           float(rows[-1]["held_out_loss"]), prior_cpu + spent)
    if verbose:
        print(result.summary(), flush=True)
    return result


def distill(cfg: DistillConfig, run_dir: str | Path, *, workers: int = 1, backend: str = "process",
            address: str | None = None, time_limit: float | None = None, torch_threads: int = 1,
            verbose: int = 1, device: str = "cpu") -> DistillResult:
    """Generate what ``run_dir`` lacks of ``cfg.games`` games (within ``time_limit`` seconds), then fit."""
    generate(cfg, run_dir, workers=workers, backend=backend, address=address, time_limit=time_limit,
             verbose=verbose)
    return fit(cfg, run_dir, torch_threads=torch_threads, verbose=verbose, device=device)


def samples_equal(a: Sequence[dict[str, np.ndarray]], b: Sequence[dict[str, np.ndarray]]) -> bool:
    """Whether two lists of chunks hold the same samples (for tests of the pool)."""
    return len(a) == len(b) and all(all(np.array_equal(x[k], y[k]) for k in ("obs", "mask", "pi"))
                                    for x, y in zip(a, b))
