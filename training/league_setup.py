"""What a league is: its configuration, the agents resolved and checked, its stored identity, and the schedule.

The schedule (:func:`schedule_round`) draws each round's groups from the ratings after the rounds that
end ``rating_lag`` rounds before it and a generator seeded by ``(league seed, round)``, so a league is a
pure function of its configuration; :mod:`.league` plays it (see its documentation).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations, combinations_with_replacement
from typing import Any

import numpy as np

from meeplezoo.agents import make, parse_spec
from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.envs.core import Game
from meeplezoo.knobs import Knob
from meeplezoo.registry import ENVS, make_game

from .league_storage import AgentRecord, canonical_json, file_sha256
from .ratings import RatingConfig, RatingTracker, group_priority
from .run import SHARED

#: the format of a league's stored identity
LEAGUE_FORMAT = 1
#: a group's weight is divided by 1 + this times the round's earlier appearances of its agents (spreads play)
ROUND_REPEAT_DISCOUNT = 0.5
#: more candidate groups than this are sampled rather than enumerated
MAX_CANDIDATE_GROUPS = 4096
#: a new league's rating lag by default: the fewest rounds holding this many matches (at least one round)
LAG_MATCHES = 64

_LABEL = re.compile(r"^([A-Za-z_][A-Za-z0-9_.#+-]*)=(.+)$")


# -- configuration ---------------------------------------------------------------------------
def parse_agent_entry(entry: str) -> tuple[str, str]:
    """``"mcts:sims=200"`` -> ``("mcts:sims=200", "mcts:sims=200")``; ``"strong=mcts:sims=800"`` -> label, spec.

    A label (before ``=``, ahead of the first ``:``) names the agent in tables;
    without one the spec is the name.
    """
    if not isinstance(entry, str) or not entry.strip():
        raise ValueError(f"agent entries must be non-empty strings, got {entry!r}")
    entry = entry.strip()
    head = entry.split(":", 1)[0]
    m = _LABEL.match(head)
    if m:
        label = m.group(1)
        spec = entry[len(label) + 1:].strip()
        if not spec:
            raise ValueError(f"agent entry {entry!r} has a label but no spec")
        return label, spec
    return entry, entry


def spec_files(spec: str, game: Any = None) -> dict[str, str]:
    """``{path: sha256}`` of every existing file a spec names (checkpoints), so a changed file is noticed;
    for ``pretrained`` with a ``game``, the shipped checkpoint it plays."""
    name, args, kwargs = parse_spec(spec)
    out = {}
    if name == "pretrained" and game is not None:
        path = checkpoint_path(game)
        out[f"pretrained/{path.name}"] = file_sha256(path)
    for value in [*args, *kwargs.values()]:
        if isinstance(value, str) and os.path.isfile(value):
            out[value] = file_sha256(value)
    if name in ("ppo", "net", "netmcts") and args and args[0] not in out:
        raise ValueError(f"agent {spec!r}: checkpoint {args[0]!r} does not exist")
    return out


@dataclass
class LeagueConfig:
    """What defines a league (and its stored identity).

    ``game`` is a registry id or a :class:`~meeplezoo.envs.core.Game` object
    (which also fixes ``num_players`` and the rule options).  ``agents`` are
    agent specs, optionally labelled ``label=spec``.  ``round_size``
    (matches per scheduling round, a multiple of the player count) defaults
    to ``num_players * max(4, len(agents))``.  ``rating_lag`` ``L``: round
    ``r`` is drawn from the ratings after rounds ``0 .. r-1-L``, so ``L + 1``
    rounds may be played at once; ``None`` means the stored lag for a resumed
    league and :func:`default_rating_lag` for a new one (0: every round waits
    for the one before it).
    """

    game: Any
    agents: Sequence[str]
    num_players: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    round_size: int | None = None
    rating: RatingConfig = field(default_factory=RatingConfig)
    max_decisions: int = 100_000
    rating_lag: int | None = None


def default_rating_lag(round_size: int) -> int:
    """A new league's rating lag: the fewest rounds of ``round_size`` matches that hold ``LAG_MATCHES``
    matches, at least 1 (enough matches to keep a few dozen workers busy)."""
    return max(1, -(-LAG_MATCHES // int(round_size)))


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to play any match of the league (picklable)."""

    game: Any  # a Game object
    agents: tuple[tuple[str, str], ...]  # (name, spec)
    max_decisions: int


@dataclass(frozen=True)
class MatchTask:
    index: int
    round: int
    seed: int
    seats: tuple[int, ...]  # agent index per seat


class ResolvedLeague:
    """A validated league configuration: the Game, the agent records and the stored identity."""

    def __init__(self, config: LeagueConfig, *, check_agents: bool = True) -> None:
        game = config.game
        if isinstance(game, Game):
            if config.num_players is not None and config.num_players != game.num_players:
                raise ValueError(f"num_players={config.num_players} contradicts the Game object "
                                 f"({game.num_players} players)")
            if config.options:
                raise ValueError("pass rule options through the Game object, not beside it")
        elif isinstance(game, str):
            game = make_game(game, config.num_players, **dict(config.options))
        else:
            raise ValueError(f"game must be a registry id or a Game object, got {game!r}")
        self.game = game
        n = game.num_players
        seed = SHARED["seed"].validate(config.seed, "league")
        if isinstance(config.agents, str):
            raise ValueError("agents must be a list of specs (split a comma-separated string first)")
        entries = [parse_agent_entry(e) for e in config.agents]
        if len(entries) < 2:
            raise ValueError(f"a league needs at least 2 agents, got {len(entries)}")
        names = [nm for nm, _ in entries]
        dup = sorted({nm for nm in names if names.count(nm) > 1})
        if dup:
            raise ValueError(f"agent name(s) {', '.join(dup)} appear twice; label them apart, e.g. a=random,b=random")
        self.records = [AgentRecord(nm, spec, spec_files(spec, game)) for nm, spec in entries]
        k = len(entries)
        round_size = config.round_size if config.round_size is not None else n * max(4, k)
        round_size = Knob("round_size", int, None, "matches per scheduling round", low=n,
                          what=f"a positive multiple of the player count {n}").validate(round_size, "league")
        if round_size % n:
            raise ValueError(f"league: round_size must be a positive multiple of the player count {n}, "
                             f"got {round_size!r}")
        if not isinstance(config.max_decisions, int) or config.max_decisions < 1:
            raise ValueError(f"max_decisions must be a positive int, got {config.max_decisions!r}")
        if not isinstance(config.rating, RatingConfig):
            raise ValueError(f"rating must be a RatingConfig, got {config.rating!r}")
        self.round_size = int(round_size)
        lag = config.rating_lag if config.rating_lag is not None else default_rating_lag(self.round_size)
        #: round r is drawn from the ratings after rounds 0 .. r-1-rating_lag
        self.rating_lag = int(Knob("rating_lag", int, None, "rounds a round's draw lags behind the ratings",
                                   low=0).validate(lag, "league"))
        self.seed = seed
        self.rating = config.rating
        self.max_decisions = int(config.max_decisions)
        if check_agents:
            self._check_agents()

    def _check_agents(self) -> None:
        """Build every agent once: unknown names, bad options, checkpoints for another game fail here."""
        for rec in self.records:
            try:
                agent = make(rec.spec, self.game, num_players=self.game.num_players, seed=0)
            except ValueError as e:
                raise ValueError(f"agent {rec.name!r}: {e}") from None
            except (OSError, ImportError, KeyError, RuntimeError) as e:
                raise ValueError(f"agent {rec.name!r} ({rec.spec}) cannot be built: {type(e).__name__}: {e}") from None
            built_for = getattr(agent, "game", None)
            if isinstance(built_for, Game) and not built_for.same_rules(self.game):  # observations may differ
                raise ValueError(f"agent {rec.name!r} ({rec.spec}) is for {built_for!r}, "
                                 f"but the league plays {self.game!r}")

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.records]

    @property
    def identity(self) -> dict[str, Any]:
        """What the database stores and a resumed league must match exactly (a lag of 0 is not written: the
        leagues stored before the lag existed hold no key and play barrier rounds)."""
        identity = {
            "format": LEAGUE_FORMAT,
            "game": self.game.name,
            "game_config": self.game.config,
            "agents": [r.to_dict() for r in self.records],
            "seed": self.seed,
            "round_size": self.round_size,
            "rating": self.rating.to_dict(),
            "max_decisions": self.max_decisions,
        }
        if self.rating_lag:
            identity["rating_lag"] = self.rating_lag
        return identity

    def worker_spec(self) -> WorkerSpec:
        return WorkerSpec(self.game, tuple((r.name, r.spec) for r in self.records), self.max_decisions)


def config_from_identity(identity: dict[str, Any], game: Any = None) -> LeagueConfig:
    """The :class:`LeagueConfig` a stored league was created with (``game``: a Game object for unregistered games)."""
    try:
        game_config = dict(identity["game_config"])
        n = game_config.pop("num_players")
        if game is None:
            if identity["game"] not in ENVS:
                raise ValueError(f"the league's game {identity['game']!r} is not a registered game; pass its Game")
            game = identity["game"]
            options = game_config
        else:
            options = {}
            if game.name != identity["game"] or game.config != identity["game_config"]:
                raise ValueError(f"the Game given ({game!r}) is not the league's game "
                                 f"({identity['game']} {identity['game_config']})")
            n = None
        agents = [a["spec"] if a["name"] == a["spec"] else f"{a['name']}={a['spec']}" for a in identity["agents"]]
        return LeagueConfig(game=game, agents=agents, num_players=n, options=options, seed=identity["seed"],
                            round_size=identity["round_size"], rating=RatingConfig.from_dict(identity["rating"]),
                            max_decisions=identity["max_decisions"], rating_lag=stored_rating_lag(identity))
    except (KeyError, TypeError) as e:
        raise ValueError(f"the stored league configuration is incomplete ({type(e).__name__}: {e})") from None


def stored_rating_lag(identity: dict[str, Any]) -> int:
    """The rating lag of a stored league (0 where the key is missing: a league stored before it existed)."""
    lag = identity.get("rating_lag", 0)
    if isinstance(lag, bool) or not isinstance(lag, int) or lag < 0:
        raise ValueError(f"the stored league configuration's rating_lag is {lag!r}, not a number of rounds >= 0")
    return lag


def resume_config(config: LeagueConfig, identity: dict[str, Any]) -> LeagueConfig:
    """``config`` for resuming the stored league ``identity``: it keeps the stored rating lag (``None`` takes
    it; another lag is refused, since it would change the schedule of the matches still to play)."""
    stored = stored_rating_lag(identity)
    if config.rating_lag is None:
        return replace(config, rating_lag=stored)
    if config.rating_lag != stored:
        raise ValueError(f"league: the stored league has rating_lag {stored}, a resumed league keeps it "
                         f"(asked for {config.rating_lag!r}); leave the lag out or give {stored}")
    return config


def describe_difference(stored: dict[str, Any], requested: dict[str, Any]) -> str:
    parts = []
    for key in sorted(set(stored) | set(requested)):
        if stored.get(key) != requested.get(key):
            old, new = canonical_json(stored.get(key)), canonical_json(requested.get(key))
            parts.append(f"{key}: stored {old}, requested {new}")
    return "; ".join(parts)


# -- schedule ---------------------------------------------------------------------------------
def match_seed(league_seed: int, group: int) -> int:
    """The deal seed of a group's matches (a 63-bit int, a pure function of league seed and group number)."""
    state = np.random.SeedSequence([int(league_seed), 0x1EA6E, int(group)]).generate_state(1, dtype=np.uint64)
    return int(state[0]) >> 1


def candidate_groups(num_agents: int, n: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Every group of ``n`` seats over ``num_agents`` agents (distinct agents when there are enough)."""
    if num_agents >= n:
        total = math.comb(num_agents, n)
        if total <= MAX_CANDIDATE_GROUPS:
            return list(combinations(range(num_agents), n))
        seen: set[tuple[int, ...]] = set()
        while len(seen) < MAX_CANDIDATE_GROUPS:
            seen.add(tuple(sorted(rng.choice(num_agents, size=n, replace=False).tolist())))
        return sorted(seen)
    # fewer agents than seats: agents fill several seats; a group needs at least two different agents
    return [g for g in combinations_with_replacement(range(num_agents), n) if len(set(g)) > 1]


def schedule_round(league: ResolvedLeague, round_index: int, tracker: RatingTracker) -> list[MatchTask]:
    """The ``round_size`` matches of round ``round_index``, given ``tracker``: the ratings after rounds
    ``0 .. round_index-1-rating_lag`` (the caller's part: the draw depends on nothing else)."""
    n = league.game.num_players
    k = len(league.records)
    rng = np.random.default_rng(np.random.SeedSequence([league.seed, 0x5C4ED, round_index]))
    candidates = candidate_groups(k, n, rng)
    base = np.array([group_priority(tracker, g) for g in candidates], dtype=np.float64)
    members = np.zeros((len(candidates), k), dtype=np.float64)
    for c, g in enumerate(candidates):
        for a in g:
            members[c, a] += 1.0
    used = np.zeros(k, dtype=np.float64)
    tasks = []
    groups_per_round = league.round_size // n
    for g in range(groups_per_round):
        # coverage first: while some agent has not played this round, draw among the groups seating most of them
        cover = members @ (used == 0)
        eligible = cover == cover.max()
        w = (base + 1e-12) * eligible / (1.0 + ROUND_REPEAT_DISCOUNT * (members @ used))
        choice = candidates[int(rng.choice(len(candidates), p=w / w.sum()))]
        used += members[candidates.index(choice)]
        order = [int(a) for a in rng.permutation(np.array(choice))]
        group_number = round_index * groups_per_round + g
        seed = match_seed(league.seed, group_number)
        for rot in range(n):
            index = round_index * league.round_size + g * n + rot
            seats = tuple(order[(s + rot) % n] for s in range(n))
            tasks.append(MatchTask(index=index, round=round_index, seed=seed, seats=seats))
    return tasks


