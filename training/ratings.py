"""Multi-player ratings and league statistics from finishing orders.

Ratings use the `openskill <https://openskill.me>`_ Weng-Lin models
(Plackett-Luce by default): every match is one update from the full
finishing order of its seats, tied players sharing a rank.  Each agent has
``mu`` (skill estimate), ``sigma`` (uncertainty) and the conservative
``ordinal = mu - 3 sigma`` used for ordering tables.

League agents are frozen (a checkpoint does not learn while it is rated), so
the default dynamics factor ``tau`` is 0: the posterior keeps tightening as
evidence accumulates instead of being inflated before every match as it would
for human players whose skill drifts.

The Elo-like number is a *display* derived from ``mu``: under Plackett-Luce
with two players and small ``sigma``, ``P(i beats j) = 1 / (1 + exp(-(mu_i -
mu_j) / (sqrt(2) beta)))``, which is Elo's logistic curve with
``D = 400 (mu_i - mu_j) / (sqrt(2) beta ln 10)``.  Elo 1500 is the prior ``mu``.

Everything here is a pure function of the matches in index order, so
ratings recomputed from a league database equal the ratings the running
league kept.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any, Protocol

import numpy as np

from .arena import AgentStats, record, wilson_interval

# option value -> openskill class name
MODELS: dict[str, str] = {
    "plackett_luce": "PlackettLuce",
    "bradley_terry_full": "BradleyTerryFull",
    "bradley_terry_part": "BradleyTerryPart",
    "thurstone_mosteller_full": "ThurstoneMostellerFull",
    "thurstone_mosteller_part": "ThurstoneMostellerPart",
}

ELO_BASE = 1500.0


class MatchLike(Protocol):
    """What the statistics need of a match: names, scores and placements by seat."""

    agents: list[str]
    scores: list[float]
    placements: list[int]


@dataclass(frozen=True)
class RatingConfig:
    """The rating model and its priors (part of a league's identity)."""

    model: str = "plackett_luce"
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 0.0

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"unknown rating model {self.model!r}; known models: {', '.join(MODELS)}")
        for name in ("sigma", "beta"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and value > 0 and math.isfinite(value)):
                raise ValueError(f"rating {name} must be a positive number, got {value!r}")
        if not (isinstance(self.tau, (int, float)) and self.tau >= 0):
            raise ValueError(f"rating tau must be >= 0, got {self.tau!r}")
        if not (isinstance(self.mu, (int, float)) and math.isfinite(self.mu)):
            raise ValueError(f"rating mu must be a finite number, got {self.mu!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RatingConfig:
        unknown = set(d) - {"model", "mu", "sigma", "beta", "tau"}
        if unknown:
            raise ValueError(f"unknown rating setting(s) {', '.join(sorted(unknown))}")
        return cls(**d)

    def build(self) -> Any:
        """The openskill model object."""
        import openskill.models

        cls = getattr(openskill.models, MODELS[self.model])
        return cls(mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau)

    @property
    def elo_per_mu(self) -> float:
        """Elo points per unit of ``mu`` (see the module docstring)."""
        return 400.0 / (math.sqrt(2.0) * self.beta * math.log(10.0))


@dataclass
class Rating:
    """One agent's rating."""

    name: str
    mu: float
    sigma: float
    games: int = 0
    elo_per_mu: float = field(default=0.0, repr=False)
    mu0: float = field(default=25.0, repr=False)

    @property
    def ordinal(self) -> float:
        """Conservative skill: ``mu - 3 sigma`` (openskill's ordering)."""
        return self.mu - 3.0 * self.sigma

    @property
    def interval(self) -> tuple[float, float]:
        """About 95% of the posterior: ``mu +- 2 sigma``."""
        return (self.mu - 2.0 * self.sigma, self.mu + 2.0 * self.sigma)

    @property
    def elo(self) -> float:
        return ELO_BASE + self.elo_per_mu * (self.mu - self.mu0)

    @property
    def elo_interval(self) -> tuple[float, float]:
        lo, hi = self.interval
        return (ELO_BASE + self.elo_per_mu * (lo - self.mu0), ELO_BASE + self.elo_per_mu * (hi - self.mu0))


class RatingTracker:
    """openskill ratings of a fixed set of agents, updated one match at a time.

    An agent that fills several seats of one match (leagues with fewer agents
    than seats) is rated once per seat from its pre-match rating; its new
    rating is the mean of those seat posteriors.
    """

    def __init__(self, agents: Sequence[str], config: RatingConfig | None = None, *, history: bool = False) -> None:
        if len(set(agents)) != len(agents):
            raise ValueError(f"agent names must be unique, got {list(agents)}")
        self.config = config or RatingConfig()
        self.model = self.config.build()
        self.agents = list(agents)
        self.index = {a: i for i, a in enumerate(self.agents)}
        self.mu = [float(self.config.mu)] * len(agents)
        self.sigma = [float(self.config.sigma)] * len(agents)
        self.games = [0] * len(agents)
        self.matches = 0
        self.keep_history = history
        #: after each match: (match index, mu array, sigma array) when ``history``
        self.history: list[tuple[int, np.ndarray, np.ndarray]] = []

    def update(self, seat_agents: Sequence[str], placements: Sequence[int], match_index: int | None = None) -> None:
        """Rate one match from its finishing order (0 = first; equal placements are ties)."""
        if len(seat_agents) != len(placements) or len(seat_agents) < 2:
            raise ValueError(f"a match needs >= 2 seats with one placement each, got {seat_agents}, {placements}")
        try:
            ids = [self.index[a] for a in seat_agents]
        except KeyError as e:
            raise ValueError(f"agent {e.args[0]!r} is not rated in this league; agents: {self.agents}") from None
        teams = [[self.model.rating(mu=self.mu[i], sigma=self.sigma[i])] for i in ids]
        new = self.model.rate(teams, ranks=[int(p) for p in placements])
        sums: dict[int, list[float]] = {}
        for i, team in zip(ids, new):
            acc = sums.setdefault(i, [0.0, 0.0, 0])
            acc[0] += team[0].mu
            acc[1] += team[0].sigma
            acc[2] += 1
        for i, (mu, sigma, k) in sums.items():
            self.mu[i] = mu / k if k > 1 else mu
            self.sigma[i] = sigma / k if k > 1 else sigma
            self.games[i] += 1
        self.matches += 1
        if self.keep_history:
            idx = self.matches - 1 if match_index is None else int(match_index)
            self.history.append((idx, np.array(self.mu), np.array(self.sigma)))

    def add(self, match: MatchLike, match_index: int | None = None) -> None:
        self.update(match.agents, match.placements, match_index)

    def rating(self, name: str) -> Rating:
        i = self.index[name]
        return Rating(name, self.mu[i], self.sigma[i], self.games[i], self.config.elo_per_mu, self.config.mu)

    def ratings(self) -> dict[str, Rating]:
        return {a: self.rating(a) for a in self.agents}

    def snapshot(self) -> list[tuple[str, float, float]]:
        """``(name, mu, sigma)`` per agent: exact floats, for comparisons."""
        return [(a, self.mu[i], self.sigma[i]) for i, a in enumerate(self.agents)]


def recompute(agents: Sequence[str], matches: Iterable[MatchLike], config: RatingConfig | None = None, *,
              history: bool = False) -> RatingTracker:
    """Ratings from scratch over ``matches`` (in the order given: match-index order for a league)."""
    t = RatingTracker(agents, config, history=history)
    for k, m in enumerate(matches):
        t.add(m, getattr(m, "index", k))
    return t


# -- scheduling support -------------------------------------------------------------
def closeness(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float, beta: float) -> float:
    """How open a game between two agents is: 1 for equal ``mu``, lower as the gap grows past the uncertainty.

    The exponential factor of TrueSkill's match quality: a gap counts less
    while either rating is still uncertain.
    """
    var = 2.0 * beta * beta + sigma_a * sigma_a + sigma_b * sigma_b
    return math.exp(-((mu_a - mu_b) ** 2) / (2.0 * var))


def group_priority(tracker: RatingTracker, group: Sequence[int]) -> float:
    """Scheduling weight of a group of agent indices: close ratings times their uncertainty."""
    beta = tracker.config.beta
    distinct = sorted(set(group))
    pairs = list(combinations(distinct, 2))
    close = (sum(closeness(tracker.mu[a], tracker.sigma[a], tracker.mu[b], tracker.sigma[b], beta)
                 for a, b in pairs) / len(pairs)) if pairs else 0.0
    uncertainty = sum(tracker.sigma[i] for i in group) / (len(group) * tracker.config.sigma)
    return close * uncertainty


# -- descriptive statistics -----------------------------------------------------------
@dataclass
class PairStats:
    """Head-to-head record of agent ``a`` against agent ``b`` (seats they shared in the same matches)."""

    a: str
    b: str
    games: int = 0
    wins: float = 0.0  # a placed ahead of b; a tie counts one half
    margin_sum: float = 0.0  # a's score minus b's score

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def mean_margin(self) -> float:
        return self.margin_sum / self.games if self.games else float("nan")


def pairwise(matches: Iterable[MatchLike], agents: Sequence[str]) -> dict[tuple[str, str], PairStats]:
    """For every ordered pair of distinct agents: how often ``a`` finished ahead of ``b``, and the score margin."""
    out = {(a, b): PairStats(a, b) for a in agents for b in agents if a != b}
    for m in matches:
        n = len(m.agents)
        for i in range(n):
            for j in range(n):
                a, b = m.agents[i], m.agents[j]
                if a == b:
                    continue
                st = out[(a, b)]
                st.games += 1
                pi, pj = m.placements[i], m.placements[j]
                st.wins += 1.0 if pi < pj else 0.5 if pi == pj else 0.0
                st.margin_sum += m.scores[i] - m.scores[j]
    return out


@dataclass
class SeatStats:
    """How the seat itself fares, whoever sits there."""

    seat: int
    games: int = 0
    wins: float = 0.0  # ties for first split
    score_sum: float = 0.0
    rank_sum: float = 0.0  # 1 = first

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.games if self.games else float("nan")

    @property
    def mean_rank(self) -> float:
        return self.rank_sum / self.games if self.games else float("nan")


def seat_advantage(matches: Iterable[MatchLike], num_players: int) -> list[SeatStats]:
    """Win share, mean score and mean rank per seat (a fair seat wins ``1 / num_players``)."""
    seats = [SeatStats(s) for s in range(num_players)]
    for m in matches:
        winners = [i for i, p in enumerate(m.placements) if p == 0]
        for s, st in enumerate(seats):
            st.games += 1
            st.wins += 1.0 / len(winners) if s in winners else 0.0
            st.score_sum += m.scores[s]
            st.rank_sum += m.placements[s] + 1
    return seats


@dataclass
class Standings:
    """Everything a league table shows."""

    ratings: dict[str, Rating]
    agent_stats: dict[str, AgentStats]
    pairs: dict[tuple[str, str], PairStats]
    seats: list[SeatStats]
    matches: int
    config: RatingConfig

    def ordered(self) -> list[str]:
        """Agents by ordinal, best first (ties by name, for a stable table)."""
        return sorted(self.ratings, key=lambda a: (-self.ratings[a].ordinal, a))

    def to_dict(self) -> dict[str, Any]:
        order = self.ordered()
        return {
            "matches": self.matches,
            "rating_model": self.config.to_dict(),
            "agents": [
                {"rank": k + 1, "agent": a, "mu": self.ratings[a].mu, "sigma": self.ratings[a].sigma,
                 "ordinal": self.ratings[a].ordinal, "elo": self.ratings[a].elo,
                 "elo_interval": list(self.ratings[a].elo_interval), "games": self.agent_stats[a].games,
                 "win_rate": self.agent_stats[a].win_rate, "win_interval": list(self.agent_stats[a].interval),
                 "mean_rank": self.agent_stats[a].mean_rank, "mean_score": self.agent_stats[a].mean_score,
                 "mean_margin": self.agent_stats[a].mean_margin}
                for k, a in enumerate(order)
            ],
            "pairwise": [
                {"agent": p.a, "opponent": p.b, "games": p.games, "win_rate": _nan_none(p.win_rate),
                 "interval": list(p.interval), "mean_margin": _nan_none(p.mean_margin)}
                for p in self.pairs.values()
            ],
            "seats": [
                {"seat": s.seat, "games": s.games, "win_rate": _nan_none(s.win_rate), "interval": list(s.interval),
                 "mean_score": _nan_none(s.mean_score), "mean_rank": _nan_none(s.mean_rank)}
                for s in self.seats
            ],
        }

    def format(self) -> str:
        """A readable table: ratings with intervals, head-to-head win rates, seat advantage."""
        order = self.ordered()
        lines = [f"{'#':>2} {'agent':<28} {'mu':>6} {'sigma':>6} {'ordinal':>8} {'elo':>6} {'elo 95%':>13} "
                 f"{'games':>6} {'win':>6} {'win 95%':>13} {'rank':>5} {'margin':>7}"]
        for k, a in enumerate(order):
            r, st = self.ratings[a], self.agent_stats[a]
            elo_lo, elo_hi = r.elo_interval
            lo, hi = st.interval
            lines.append(f"{k + 1:>2} {a[:28]:<28} {r.mu:>6.2f} {r.sigma:>6.2f} {r.ordinal:>8.2f} {r.elo:>6.0f} "
                         f"{f'[{elo_lo:.0f},{elo_hi:.0f}]':>13} {st.games:>6} {st.win_rate:>6.3f} "
                         f"{f'[{lo:.2f},{hi:.2f}]':>13} {st.mean_rank:>5.2f} {st.mean_margin:>7.2f}")
        short = {a: f"{k + 1}" for k, a in enumerate(order)}
        lines.append("")
        lines.append("head to head: row agent finished ahead of column agent (ties count 1/2), games in brackets")
        lines.append(f"{'':>31}" + "".join(f"{'vs ' + short[b]:>14}" for b in order))
        for a in order:
            cells = []
            for b in order:
                if a == b:
                    cells.append(f"{'-':>14}")
                    continue
                p = self.pairs[(a, b)]
                cells.append(f"{'n/a':>14}" if not p.games else f"{f'{p.win_rate:.3f} ({p.games})':>14}")
            lines.append(f"{short[a]:>2} {a[:28]:<28}" + "".join(cells))
        lines.append("")
        lines.append(f"{'seat':>4} {'games':>6} {'win':>6} {'win 95%':>13} {'mean score':>11} {'mean rank':>9}")
        for s in self.seats:
            lo, hi = s.interval
            lines.append(f"{s.seat:>4} {s.games:>6} {s.win_rate:>6.3f} {f'[{lo:.2f},{hi:.2f}]':>13} "
                         f"{s.mean_score:>11.2f} {s.mean_rank:>9.2f}")
        return "\n".join(lines)


def _nan_none(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def standings(agents: Sequence[str], matches: Sequence[MatchLike], num_players: int,
              config: RatingConfig | None = None, tracker: RatingTracker | None = None) -> Standings:
    """Ratings (recomputed unless ``tracker`` is given) and all descriptive statistics of a league."""
    config = config or RatingConfig()
    if tracker is None:
        tracker = recompute(agents, matches, config)
    stats = {a: AgentStats(a) for a in agents}
    for m in matches:
        record(stats, m)  # type: ignore[arg-type]
    return Standings(ratings=tracker.ratings(), agent_stats=stats, pairs=pairwise(matches, agents),
                     seats=seat_advantage(matches, num_players), matches=len(matches), config=config)
