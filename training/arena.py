"""Playing games between agents: one match, many with rotated seats, and an agent's evaluation.

Used by the CLI's ``arena``, by every trainer's periodic evaluation (:func:`evaluate`) and by leagues.
Matches run on the engine directly (no PettingZoo overhead); the result carries the replay (config, seed,
actions).  Many matches run inline or on an :class:`~meeplezoo.training.executor.Executor`: a match's
agents are reset from its own seed, so the results are the same wherever it is played.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeplezoo.agents import make as make_agent
from meeplezoo.agents.base import Agent
from meeplezoo.envs.core import Game
from meeplezoo.knobs import Knob

from .executor import Executor, chunks

#: seeds are non-negative integers below this
SEED_LIMIT = 2**64
_GAMES = Knob("games", int, 200, "games against each opponent", low=1)


def offset_seed(seed: int, offset: int) -> int:
    """``seed + offset``, wrapped to stay a valid seed (unchanged for all but seeds near 2**64)."""
    return (int(seed) + int(offset)) % SEED_LIMIT


@dataclass
class MatchResult:
    """Outcome of one game. Lists are indexed by seat."""

    game: str
    config: dict[str, Any]
    seed: int
    agents: list[str]
    scores: list[float]
    placements: list[int]
    returns: list[float]
    actions: list[int] = field(default_factory=list)

    @property
    def length(self) -> int:
        return len(self.actions)

    def replay(self) -> dict[str, Any]:
        """The replay document (``meeplezoo replay`` reads it)."""
        return {"game": self.game, "config": self.config, "seed": self.seed, "agents": self.agents,
                "actions": self.actions, "scores": self.scores}


def act_with_writable_mask(agent: Agent, state: Any) -> int:
    """``agent``'s move in ``state``, given a mask it may write to (engines may hand out a cached,
    read-only one; torch warns on those and a policy that edits the mask must not change the engine's)."""
    p = state.current_player
    obs = state.observe(p) if agent.uses_observation else None
    mask = state.legal_mask()
    if not mask.flags.writeable:
        mask = mask.copy()
    return int(agent.act(obs, mask, state=state if agent.uses_state else None))


def play_match(game: Game, agents: Sequence[Agent], seed: int, *, max_decisions: int = 100_000,
               on_step: Callable[[Any, int], None] | None = None) -> MatchResult:
    """Play one game with ``agents[i]`` in seat ``i``; agents are reset with seeds derived from ``seed``."""
    if len(agents) != game.num_players:
        raise ValueError(f"{game.name}: {len(agents)} agents for {game.num_players} seats")
    ss = np.random.SeedSequence(seed)
    for agent, child in zip(agents, ss.spawn(len(agents))):
        agent.reset(int(child.generate_state(1)[0]))
    state = game.new_state(seed)
    actions: list[int] = []
    while not state.is_terminal():
        if len(actions) >= max_decisions:
            raise RuntimeError(f"{game.name}: game did not end within {max_decisions} decisions (seed {seed})")
        a = act_with_writable_mask(agents[state.current_player], state)
        state.apply(a)
        actions.append(a)
        if on_step is not None:
            on_step(state, a)
    # a game cut off by a safety limit (State.is_truncated) has no result: every seat shares first place
    placements = [0] * game.num_players if state.is_truncated() else state.placements()
    return MatchResult(
        game=game.name, config=game.config, seed=seed, agents=[getattr(a, "name", "?") for a in agents],
        scores=[float(s) for s in state.scores()], placements=placements,
        returns=state.returns("win").tolist(), actions=actions,
    )


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (fractional wins allowed)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class AgentStats:
    name: str
    games: int = 0
    wins: float = 0.0  # shared wins split between tied winners
    score_sum: float = 0.0
    margin_sum: float = 0.0  # own score minus the mean of the others
    rank_sum: float = 0.0  # 1 = first

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.games if self.games else 0.0

    @property
    def mean_margin(self) -> float:
        return self.margin_sum / self.games if self.games else 0.0

    @property
    def mean_rank(self) -> float:
        return self.rank_sum / self.games if self.games else 0.0


def record(stats: dict[str, AgentStats], result: MatchResult) -> None:
    """Add one match to per-agent statistics (agents with the same name pool their games)."""
    n = len(result.agents)
    winners = [i for i in range(n) if result.placements[i] == 0]
    for seat, name in enumerate(result.agents):
        st = stats.setdefault(name, AgentStats(name))
        st.games += 1
        st.wins += 1.0 / len(winners) if seat in winners else 0.0
        st.score_sum += result.scores[seat]
        others = [result.scores[j] for j in range(n) if j != seat]
        st.margin_sum += result.scores[seat] - sum(others) / len(others)
        st.rank_sum += result.placements[seat] + 1


def rotated_seatings(num_agents: int, games: int) -> list[list[int]]:
    """Seat orders for ``games`` matches: agent ``i`` sits at seat ``(i + g) % n`` in game ``g``."""
    return [[(i - g) % num_agents for i in range(num_agents)] for g in range(games)]


def run_arena(game: Game, agents: Sequence[Agent], games: int, seed: int = 0, *,
              progress: bool = False, desc: str | None = None,
              executor: Executor | None = None) -> tuple[dict[str, AgentStats], list[MatchResult]]:
    """Play ``games`` matches rotating seats (each agent plays every seat equally often).

    ``agents`` has one entry per seat; agents with equal names are told apart as ``random#1``,
    ``random#2``, ... in the statistics.  With an ``executor`` of several workers the matches are split
    into contiguous runs played in parallel (the agents are sent to the workers); the results are those
    of inline play.
    """
    n = game.num_players
    if len(agents) != n:
        raise ValueError(f"{game.name}: {len(agents)} agents given for {n} seats")
    names = [a.name for a in agents]
    labels = [f"{nm}#{names[:i].count(nm) + 1}" if names.count(nm) > 1 else nm for i, nm in enumerate(names)]
    stats: dict[str, AgentStats] = {label: AgentStats(label) for label in labels}
    seeds = [int(s % (2**63)) for s in np.random.SeedSequence(seed).generate_state(games, dtype=np.uint64)]
    jobs = [(game, list(agents), labels, [(g, seeds[g]) for g in run])
            for run in chunks(range(games), executor.workers if executor is not None else 1)]
    if executor is None or executor.workers <= 1 or len(jobs) <= 1:
        results = []
        for job in jobs:
            results += _play_rotated(job, progress, desc)
    else:
        results = [r for part in executor.map(_play_rotated, jobs) for r in part]
    for result in results:
        record(stats, result)
    return stats, results


def _play_rotated(job: tuple[Game, list[Agent], list[str], list[tuple[int, int]]], progress: bool = False,
                  desc: str | None = None) -> list[MatchResult]:
    """Matches ``g`` on their seeds with the seats rotated by ``g`` (a job of :func:`run_arena`)."""
    game, agents, labels, todo = job
    n = game.num_players
    it: Any = todo
    if progress:
        from tqdm import tqdm

        it = tqdm(todo, desc=desc or f"{game.name} arena", unit="game")
    out = []
    for g, match_seed in it:
        order = [(i - g) % n for i in range(n)]  # seat s is played by agent order[s]
        result = play_match(game, [agents[order[s]] for s in range(n)], match_seed)
        result.agents = [labels[order[s]] for s in range(n)]
        out.append(result)
    return out


def evaluate(agent: Agent, game: Game, against: Sequence[str] = ("random", "heuristic"), games: int = 200,
             seed: int = 0, progress: bool = False, executor: Executor | None = None) -> dict[str, AgentStats]:
    """The agent's statistics against each opponent spec (N-1 copies of it), seats rotated.

    ``games`` per opponent; with rotation every seat is played equally often (for 2 players: half the
    games first, half second).  The trainers' periodic evaluations and ``meeplezoo evaluate`` use it.
    """
    games = _GAMES.validate(games, "evaluate")
    out: dict[str, AgentStats] = {}
    learner = _Labelled(agent, "learner")
    n = game.num_players
    for k, spec in enumerate(against):
        opponents = [make_agent(spec, game, num_players=n, seed=offset_seed(seed * 7, 1000 * k + i))
                     for i in range(n - 1)]
        stats, _ = run_arena(game, [learner, *opponents], games, seed=offset_seed(seed, 7919 * k),
                             progress=progress, desc=f"against {spec}", executor=executor)
        st = stats["learner"]
        st.name = spec
        out[spec] = st
    return out


class _Labelled(Agent):
    """The same agent under another table name (so it is never confused with an opponent)."""

    def __init__(self, agent: Agent, name: str) -> None:
        self.agent, self.name, self.uses_state = agent, name, agent.uses_state

    def act(self, observation: np.ndarray, action_mask: np.ndarray, *, state: Any = None) -> int:
        return self.agent.act(observation, action_mask, state=state)

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)


def format_evaluation(results: dict[str, AgentStats]) -> str:
    """The table of :func:`evaluate`'s results: games, win rate with its interval, score margin."""
    rows = [f"{'against':<28} {'games':>6} {'win rate':>9} {'95% interval':>16} {'score margin':>13}"]
    for spec, st in results.items():
        lo, hi = st.interval
        rows.append(f"{spec:<28} {st.games:>6} {st.win_rate:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>16} "
                    f"{st.mean_margin:>13.2f}")
    return "\n".join(rows)


def format_table(stats: dict[str, AgentStats]) -> str:
    rows = [f"{'agent':<32} {'games':>6} {'win rate':>9} {'95% interval':>16} {'mean score':>11} {'margin':>8} "
            f"{'mean rank':>9}"]
    for st in sorted(stats.values(), key=lambda s: -s.win_rate):
        lo, hi = st.interval
        rows.append(f"{st.name:<32} {st.games:>6} {st.win_rate:>9.3f} {f'[{lo:.3f}, {hi:.3f}]':>16} "
                    f"{st.mean_score:>11.2f} {st.mean_margin:>8.2f} {st.mean_rank:>9.2f}")
    return "\n".join(rows)
