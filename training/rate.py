"""Rate any agent against a reference ladder: ``meeplezoo rate GAME --players N --agent SPEC``.

The agent plays a fixed, seeded schedule of games against the ladder's members (:mod:`.ladder`): game ``i``
seats the agent at ``i mod N`` and fills the other seats with members drawn uniformly (without repetition
where the ladder has enough members) from a generator seeded by ``(seed, i)``; the deal is seeded the same
way.  After each game, in game order, the agent's openskill rating is updated from the finishing order with
every member held at its shipped rating, so the result is a pure function of (agent, ladder, games, seed),
whatever the number of workers.  The interval narrows roughly as one over the square root of the games.

What can be rated: any agent spec (``heuristic``, ``mcts:sims=200``, ``net:PATH.zip``, ``sb3:PATH.zip`` for a
stable-baselines3 model, ``external:PATH`` for a program speaking the JSON-lines protocol of
:mod:`meeplezoo.agents.external`) or an importable class following the Agent protocol (``module:Class``,
built as ``Class(game=..., num_players=..., seed=...)`` or, if it takes none of those, ``Class()``).

An agent that raises (an external program that times out, crashes or answers an illegal move) forfeits that
game: it is ranked last, the reason is listed in the report, and the run goes on.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeplezoo.agents import make as make_agent
from meeplezoo.agents.base import Agent
from meeplezoo.agents.registry import known_agents, parse_spec
from meeplezoo.knobs import Knob, Knobs, is_int

from .arena import play_match
from .executor import make_executor
from .ladder import DEFAULT_GAMES, Ladder, _elo, load_ladder
from .ratings import PairStats

#: the settings of a rating (the command's flags and the Python call's arguments)
RATE_KNOBS = Knobs("rate", [
    Knob("games", int, DEFAULT_GAMES, "games to play (the interval narrows roughly as 1/sqrt(games))", low=1),
    Knob("seed", int, 0, "seed of the schedule (opponents, seats, deals)", low=0),
    Knob("workers", int, None, "parallel games (default: every core; the result does not depend on it)", low=1,
         optional=True),
])

_CLASS_SPEC = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*):([A-Za-z_][A-Za-z0-9_]*)$")


def build_agent(spec: str, game: Any, num_players: int, seed: int | None = None) -> Agent:
    """An agent from a registered spec or an importable ``module:Class`` (see the module docstring)."""
    name = parse_spec(spec)[0]
    m = _CLASS_SPEC.match(spec.strip())
    if name in known_agents() or m is None:
        return make_agent(spec, game, num_players=num_players, seed=seed)
    module, cls_name = m.groups()
    try:
        cls = getattr(importlib.import_module(module), cls_name)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"agent {spec!r}: not a registered agent and not an importable module:Class ({e})") from None
    params = inspect.signature(cls).parameters
    given = {"game": game.name, "num_players": num_players, "seed": seed}
    kwargs = {k: v for k, v in given.items() if k in params}
    agent = cls(**kwargs)
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"agent {spec!r}: {module}.{cls_name} has no act(observation, action_mask, *, state=None)")
    for attr, default in (("uses_state", False), ("uses_observation", True), ("name", spec)):
        if not hasattr(agent, attr):
            setattr(agent, attr, default)
    if not hasattr(agent, "reset"):
        agent.reset = lambda seed=None: None
    return agent


@dataclass(frozen=True)
class RateGame:
    """One scheduled game: its index, deal seed, the agent's seat and the member in every other seat."""

    index: int
    seed: int
    seat: int
    members: tuple[int, ...]  # member index per seat (the agent's seat holds -1)


def schedule(num_members: int, num_players: int, games: int, seed: int) -> list[RateGame]:
    """The fixed schedule of a rating (see the module docstring)."""
    out = []
    for i in range(games):
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x4A7E, i]))
        k = num_players - 1
        drawn = rng.choice(num_members, size=k, replace=num_members < k).tolist()
        seat = i % num_players
        seats = [*drawn[:seat], -1, *drawn[seat:]]
        deal = int(rng.integers(2**62))
        out.append(RateGame(i, deal, seat, tuple(int(x) for x in seats)))
    return out


class _Guard(Agent):
    """Wraps the rated agent: its first failure in a game is recorded and the game is forfeited."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "agent")
        self.uses_state = getattr(inner, "uses_state", False)
        self.uses_observation = getattr(inner, "uses_observation", True)

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        try:
            a = self.inner.act(observation, action_mask, state=state)
        except Exception as e:  # noqa: BLE001 - any failure of the rated agent forfeits the game
            raise _Forfeit(f"{type(e).__name__}: {e}") from None
        if not is_int(a) or not 0 <= a < len(action_mask) \
                or not action_mask[a]:
            raise _Forfeit(f"answered {a!r}, which is not a legal action")
        return int(a)


class _Forfeit(Exception):
    pass


def play_rate_game(job: dict[str, Any]) -> dict[str, Any]:
    """Play one scheduled game (a worker task: picklable in, picklable out)."""
    game, g = job["game"], job["task"]
    n = game.num_players
    seeds = np.random.SeedSequence([g.seed, g.index]).generate_state(n, dtype=np.uint32)
    t0 = time.process_time()
    agents: list[Agent] = []
    try:
        for s, m in enumerate(g.members):
            if m < 0:
                agents.append(_Guard(build_agent(job["agent"], game, n, int(seeds[s]))))
            else:
                agents.append(make_agent(job["members"][m], game, num_players=n, seed=int(seeds[s])))
        result = play_match(game, agents, g.seed)
        placements, forfeit = [int(p) for p in result.placements], None
    except _Forfeit as e:
        placements, forfeit = [int(s == g.seat) for s in range(n)], str(e)
    finally:
        for a in agents:
            close = getattr(getattr(a, "inner", a), "close", None)
            if callable(close):
                close()
    return {"index": g.index, "placements": placements, "forfeit": forfeit, "cpu": time.process_time() - t0}


@dataclass
class MemberResult(PairStats):
    """The rated agent (``a``) against one member (``b``): games shared and ``wins`` (finished ahead 1, tie 1/2),
    beside the member's shipped ``elo``."""

    elo: float = 0.0

    @property
    def label(self) -> str:
        return self.b


@dataclass
class RateReport:
    """The outcome of :func:`rate`: the rating on the ladder's scale and the results per member."""

    agent: str
    ladder: str
    games: int
    seed: int
    mu: float
    sigma: float
    elo: float
    elo_low: float
    elo_high: float
    first_place: float
    cpu_seconds: float
    wall_seconds: float
    members: list[MemberResult] = field(default_factory=list)
    forfeits: list[tuple[int, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "ladder": self.ladder, "games": self.games, "seed": self.seed,
                "mu": self.mu, "sigma": self.sigma, "elo": self.elo, "elo_interval": [self.elo_low, self.elo_high],
                "first_place": self.first_place, "cpu_seconds": self.cpu_seconds, "wall_seconds": self.wall_seconds,
                "members": [{"member": m.label, "member_elo": m.elo, "games": m.games, "score": m.win_rate,
                             "interval": list(m.interval)} for m in self.members],
                "forfeits": [{"game": i, "reason": r} for i, r in self.forfeits]}

    def format(self) -> str:
        lines = [f"{self.agent} on ladder {self.ladder}: {self.games} games (seed {self.seed}), "
                 f"{self.cpu_seconds / 60:.1f} CPU min, {self.wall_seconds / 60:.1f} min",
                 f"rating: elo {self.elo:.0f} [{self.elo_low:.0f}, {self.elo_high:.0f}] (95%; mu {self.mu:.2f}, "
                 f"sigma {self.sigma:.2f}); first place in {self.first_place:.3f} of its games",
                 f"{'member':<22} {'member elo':>10} {'games':>6} {'score':>6} {'95% interval':>15}"]
        for m in sorted(self.members, key=lambda m: -m.elo):
            lo, hi = m.interval
            lines.append(f"{m.label:<22} {m.elo:>10.0f} {m.games:>6} {m.win_rate:>6.3f} {f'[{lo:.3f}, {hi:.3f}]':>15}")
        lines.append("score: the share of games the agent finished ahead of that member (ties 1/2)")
        for i, reason in self.forfeits:
            lines.append(f"forfeit in game {i}: {reason}")
        return "\n".join(lines)


def _run(jobs: Sequence[dict[str, Any]], workers: int, progress: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def tick(r: dict[str, Any]) -> None:
        out.append(r)
        if progress:
            done = len(out)
            bar = "#" * (30 * done // len(jobs))
            print(f"\rrate [{bar:<30}] {done}/{len(jobs)} games", end="", file=sys.stderr, flush=True)

    with make_executor(workers) as ex:
        for fut in [ex.submit(play_rate_game, j) for j in jobs]:
            tick(fut.result())
    if progress:
        print(file=sys.stderr)
    return sorted(out, key=lambda r: r["index"])


def rate(agent: str, game: str, num_players: int | None = None, options: dict[str, Any] | None = None, *,
         games: int = DEFAULT_GAMES, seed: int = 0, workers: int | None = None, progress: bool = False,
         ladder: Ladder | None = None) -> RateReport:
    """Place ``agent`` (a spec, see the module docstring) on the shipped ladder of a configuration.

    ``workers`` defaults to the machine's cores (the result does not depend on it).  Returns a
    :class:`RateReport`; ``print(report.format())`` shows it.
    """
    RATE_KNOBS.validate({"games": games, "seed": seed, "workers": workers})
    ladder = ladder if ladder is not None else load_ladder(game, num_players, options)
    g = ladder.spec.make_game()
    n = g.num_players
    build_agent(agent, g, n, 0)  # a bad spec fails here, before any game is played
    workers = (os.cpu_count() or 1) if workers is None else workers
    specs = [m.spec for m in ladder.members]
    tasks = schedule(len(specs), n, games, seed)
    t0 = time.perf_counter()
    results = _run([{"game": g, "task": t, "agent": agent, "members": specs} for t in tasks],
                   min(workers, games), progress)
    cfg = ladder.rating
    model = cfg.build()
    mu, sigma = float(cfg.mu), float(cfg.sigma)
    table = [MemberResult(agent, m.label, elo=m.elo(cfg)[0]) for m in ladder.members]
    forfeits, firsts = [], 0
    for t, r in zip(tasks, results):
        teams = [[model.rating(mu=mu, sigma=sigma)] if m < 0 else
                 [model.rating(mu=ladder.members[m].mu, sigma=ladder.members[m].sigma)] for m in t.members]
        new = model.rate(teams, ranks=r["placements"])
        mu, sigma = float(new[t.seat][0].mu), float(new[t.seat][0].sigma)
        mine = r["placements"][t.seat]
        firsts += mine == 0
        for s, m in enumerate(t.members):
            if m >= 0:
                other = r["placements"][s]
                table[m].games += 1
                table[m].wins += 1.0 if mine < other else 0.5 if mine == other else 0.0
        if r["forfeit"]:
            forfeits.append((t.index, r["forfeit"]))
    elo, lo, hi = _elo(mu, sigma, cfg)
    return RateReport(agent, ladder.name, games, seed, mu, sigma, elo, lo, hi, firsts / games,
                      sum(r["cpu"] for r in results), time.perf_counter() - t0, table, forfeits)
