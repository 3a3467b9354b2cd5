"""The opponent pool of PPO training: fixed agents with weights plus frozen snapshots of the learner.

The pool is the ``sampler`` of :class:`~meeplezoo.envs.core.gym.SingleAgentEnv`:
at every episode reset the env calls ``sample(k, rng)`` for the ``k`` other
seats; each seat draws one pool member independently with probability
proportional to its weight.

Self-play: :meth:`OpponentPool.add_snapshot` adds a checkpoint of the learner
(frozen: loaded as a :class:`~meeplezoo.agents.ppo.PPOAgent` that samples from
its policy).  The pool keeps the ``keep_last`` most recent snapshots plus the
best-scoring one ever added; together they share ``self_play_weight``
equally.  Fixed agents keep their own weights, so ``random:1, heuristic:1``
with ``self_play_weight=2`` draws a snapshot half of the time.

The pool holds only names, paths and numbers (``state_dict()``); agents are
built lazily in the process that samples, so training can copy the pool into
subprocess workers after each change.  Nothing here imports torch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from meeplezoo.agents import make
from meeplezoo.agents.ppo import PPOAgent
from meeplezoo.knobs import Knob, Knobs

#: the settings of an opponent pool
POOL_KNOBS = Knobs("opponent pool", [
    Knob("keep_last", int, 5, "snapshots kept (plus the best)", low=1),
    Knob("self_play_weight", float, 0.0, "total weight of the snapshots", low=0),
    Knob("weight", float, 1.0, "an opponent's weight", low=0),
])


@dataclass
class PoolEntry:
    """One pool member: a fixed agent spec, or a snapshot checkpoint of the learner."""

    spec: str  #: agent spec (``"heuristic"``, ``"mcts:sims=50"``) or, for snapshots, the checkpoint path
    weight: float = 1.0  #: fixed agents only; snapshots share the pool's self_play_weight
    snapshot: bool = False
    step: int = 0  #: training step at which the snapshot was taken
    score: float | None = None  #: evaluation score of the snapshot (higher is better), if measured


def parse_weighted_specs(text: str | Mapping[str, float] | Iterable[Any]) -> dict[str, float]:
    """``"random:1,heuristic:2,mcts:sims=50"`` -> ``{"random": 1.0, "heuristic": 2.0, "mcts:sims=50": 1.0}``.

    Agent specs contain ':' themselves, so the weight is the last ':'-part
    only when it is a plain number; otherwise the weight is 1.  A mapping or
    a sequence of specs / (spec, weight) pairs is accepted too.  Weights must
    be finite and >= 0, with a positive total.
    """
    if isinstance(text, str):
        items: list[tuple[str, float]] = []
        for part in text.split(","):
            part = part.strip()
            if not part:
                continue
            spec, sep, last = part.rpartition(":")
            weight = _number(last) if sep else None
            if weight is None:
                spec, weight = part, 1.0
            items.append((spec.strip(), weight))
    elif isinstance(text, Mapping):
        items = [(str(k), v) for k, v in text.items()]
    else:
        items = [(t, 1.0) if isinstance(t, str) else (str(t[0]), t[1]) for t in text]
    out: dict[str, float] = {}
    for spec, w in items:
        if not spec:
            raise ValueError(f"empty agent spec in opponents {text!r}")
        out[spec] = out.get(spec, 0.0) + POOL_KNOBS["weight"].validate(w, f"opponent {spec!r}")
    if out and sum(out.values()) <= 0:
        raise ValueError(f"opponent weights must not all be 0: {text!r}")
    return out


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


class OpponentPool:
    """Weighted opponents for training; a sampler with ``sample(k, rng)``.

    Args:
        game: the Game (engine object) the opponents play.
        fixed: fixed opponents as ``{spec: weight}`` (or a string, see
            :func:`parse_weighted_specs`).
        self_play_weight: total weight shared by the snapshots (0: none drawn).
        keep_last: how many of the most recent snapshots stay in the pool.
        keep_best: also keep the best-scoring snapshot when it is older.
        snapshot_deterministic: whether snapshots play their argmax action
            (default False: they sample, which keeps opponents varied).
    """

    def __init__(self, game: Any, fixed: Mapping[str, float] | str | None = None, *,
                 self_play_weight: float = 0.0, keep_last: int = 5, keep_best: bool = True,
                 snapshot_deterministic: bool = False) -> None:
        checked = POOL_KNOBS.validate({"keep_last": keep_last, "self_play_weight": self_play_weight})
        keep_last, self_play_weight = checked["keep_last"], checked["self_play_weight"]
        fixed_weights = parse_weighted_specs(fixed) if fixed is not None else {}
        if not fixed_weights and self_play_weight <= 0:
            raise ValueError("the opponent pool needs at least one fixed opponent or self_play_weight > 0")
        self.game = game
        self.fixed = [PoolEntry(spec, w) for spec, w in fixed_weights.items()]
        self.snapshots: list[PoolEntry] = []
        self.self_play_weight = float(self_play_weight)
        self.keep_last = keep_last
        self.keep_best = keep_best
        self.snapshot_deterministic = snapshot_deterministic
        self._agents: dict[tuple[str, bool, int], Any] = {}
        self._builds = 0

    # -- membership ----------------------------------------------------------------
    def add_snapshot(self, path: str, step: int, score: float | None = None) -> list[PoolEntry]:
        """Add a frozen learner checkpoint; returns the snapshots dropped to keep last-K plus best."""
        if any(s.spec == str(path) for s in self.snapshots):
            raise ValueError(f"snapshot {path!r} is already in the pool")
        self.snapshots.append(PoolEntry(str(path), snapshot=True, step=int(step), score=score))
        return self._prune()

    def set_score(self, path: str, score: float) -> None:
        """Record a snapshot's evaluation score (for the keep-the-best rule)."""
        for s in self.snapshots:
            if s.spec == str(path):
                s.score = float(score)
                return
        raise ValueError(f"snapshot {path!r} is not in the pool")

    @property
    def best(self) -> PoolEntry | None:
        """The highest-scoring snapshot in the pool (None if none has a score)."""
        scored = [s for s in self.snapshots if s.score is not None]
        return max(scored, key=lambda s: (s.score, s.step)) if scored else None

    def _prune(self) -> list[PoolEntry]:
        keep = {id(s) for s in self.snapshots[-self.keep_last:]}
        best = self.best if self.keep_best else None
        if best is not None:
            keep.add(id(best))
        dropped = [s for s in self.snapshots if id(s) not in keep]
        self.snapshots = [s for s in self.snapshots if id(s) in keep]
        for s in dropped:
            for key in [k for k in self._agents if k[0] == s.spec and k[1]]:
                del self._agents[key]
        return dropped

    def members(self) -> list[tuple[PoolEntry, float]]:
        """Every member with its probability of being drawn for one seat."""
        entries = list(self.fixed)
        weights = [e.weight for e in self.fixed]
        if self.snapshots and self.self_play_weight > 0:
            entries += self.snapshots
            weights += [self.self_play_weight / len(self.snapshots)] * len(self.snapshots)
        total = sum(weights)
        if total <= 0:
            raise ValueError("the opponent pool has nothing to draw: no fixed opponent and no snapshot yet")
        return [(e, w / total) for e, w in zip(entries, weights)]

    # -- sampling --------------------------------------------------------------------
    def sample(self, k: int, rng: np.random.Generator) -> list[Any]:
        """``k`` opponents, one per seat, each drawn independently by weight."""
        members = self.members()
        idx = rng.choice(len(members), size=k, p=np.array([p for _, p in members]))
        return [self._agent(members[i][0], slot) for slot, i in enumerate(idx)]

    def _agent(self, entry: PoolEntry, slot: int) -> Any:
        # One instance per (member, seat slot): two seats never share an agent's state in one game.
        key = (entry.spec, entry.snapshot, slot)
        agent = self._agents.get(key)
        if agent is None:
            self._builds += 1
            seed = 7919 * self._builds + slot
            if entry.snapshot:
                agent = PPOAgent.load(entry.spec, game=self.game, seed=seed,
                                      deterministic=self.snapshot_deterministic)
                agent.name = f"snapshot@{entry.step}"
            else:
                try:
                    agent = make(entry.spec, self.game, num_players=self.game.num_players, seed=seed)
                except ImportError as e:  # e.g. a game whose heuristic has not been written
                    raise ValueError(f"opponent {entry.spec!r} is not available for {self.game.name}: {e}") from None
            self._agents[key] = agent
        return agent

    def check(self) -> None:
        """Build every member once, so a bad spec fails before training starts."""
        for slot in range(max(1, self.game.num_players - 1)):
            for entry, _ in self.members():
                self._agent(entry, slot)

    # -- copying to worker processes ------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"fixed": [asdict(e) for e in self.fixed], "snapshots": [asdict(e) for e in self.snapshots],
                "self_play_weight": self.self_play_weight, "keep_last": self.keep_last,
                "keep_best": self.keep_best, "snapshot_deterministic": self.snapshot_deterministic}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Take over another pool's members (agents of members still present are kept)."""
        self.fixed = [PoolEntry(**e) for e in state["fixed"]]
        self.snapshots = [PoolEntry(**e) for e in state["snapshots"]]
        self.self_play_weight = float(state["self_play_weight"])
        self.keep_last = int(state["keep_last"])
        self.keep_best = bool(state["keep_best"])
        self.snapshot_deterministic = bool(state["snapshot_deterministic"])
        present = {(e.spec, e.snapshot) for e in self.fixed + self.snapshots}
        self._agents = {k: a for k, a in self._agents.items() if (k[0], k[1]) in present}

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["_agents"] = {}  # agents are rebuilt where the pool is used
        return d

    def __repr__(self) -> str:
        parts = [f"{e.spec}:{e.weight:g}" for e in self.fixed]
        parts += [f"snapshot@{s.step}" + (f"(score {s.score:.3f})" if s.score is not None else "")
                  for s in self.snapshots]
        return f"OpponentPool({', '.join(parts)}; self_play_weight={self.self_play_weight:g})"
