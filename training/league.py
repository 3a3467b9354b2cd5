"""Self-play leagues: many agents, rated from every finishing order, stored in SQLite.

A league is a game configuration plus named agents (``random``,
``heuristic``, ``mcts:sims=200``, PPO checkpoints, ...).  It plays matches of
the configuration's player count, rates every agent with openskill from the
full finishing order (:mod:`.ratings`) and stores each match in one SQLite
transaction (:mod:`.league_storage`)::

    from meeplezoo.training.league import LeagueConfig, run_league

    cfg = LeagueConfig(game="kerala", num_players=4,
                       agents=["random", "heuristic", "mcts:sims=200", "best=ppo:runs/kerala/best.zip"])
    league = run_league(cfg, "league.sqlite", matches=400, workers=2)
    print(league.standings().format())

**Schedule.**  Matches are played in rounds of ``round_size`` matches.  A
round is a set of groups of ``num_players`` agents; every group plays
``num_players`` matches with its seating rotated, so each of its agents plays
every seat once, and all rotations share one deal seed (duplicate format, as
in duplicate bridge: the deal's luck cancels within the group).  Groups are
drawn with probability proportional to how close and how uncertain their
ratings are (:func:`.ratings.group_priority`); every agent plays in every
round (the first groups of a round seat the agents not yet drawn), and
agents already drawn in the round are mildly discounted.  The draw for round ``r`` uses
a generator seeded by ``(league seed, r)`` and the ratings after rounds
``0 .. r-1``; a match's seed is a function of the league seed and its
index.  So the whole league is a pure function of its configuration:
whichever backend, worker count or number of interruptions produced it, the
stored matches are identical, and extending a finished league to more
matches gives the league that would have been played with the larger target.

**Execution.**  One code path: the matches of a round go to an executor that
returns ``concurrent.futures`` futures: in-process (``workers=1``), a local
process pool (``workers>1``, spawn start method) or Ray tasks
(``backend="ray"``).  Each match runs :func:`play_task`, which builds fresh
agents seeded from the match seed, so a match does not depend on what its
worker played before.  Results are committed as they arrive, each under its
match index; ratings advance in index order at the end of each round.

**Resume.**  ``run_league(..., resume=True)`` (``--resume``) re-derives the
schedule from the stored matches, checks that every stored match is the one
the schedule asks for, and plays only the missing indices: after a SIGKILL at
any moment no match is lost or duplicated.

Agents whose moves depend on wall-clock time (``mcts:time=...``) make a
league depend on machine load; use simulation counts for reproducible leagues.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, combinations_with_replacement
from typing import Any

import numpy as np

from meeplezoo.agents import make, parse_spec
from meeplezoo.agents.pretrained import checkpoint_path
from meeplezoo.envs.core import Game
from meeplezoo.registry import ENVS, game_class, make_game

from .arena import play_match
from .executor import BACKENDS, RayExecutor, RaySession, check_execution, make_executor
from .league_storage import AgentRecord, LeagueStorage, StoredMatch, canonical_json, config_hash, file_sha256
from .ratings import RatingConfig, RatingTracker, Standings, group_priority, standings

LEAGUE_FORMAT = 1
__all__ = ["LeagueConfig", "ResolvedLeague", "League", "run_league", "open_league", "prepare_league", "read_league",
           "league_standings", "describe", "plot_league", "play_task", "BACKENDS", "RayExecutor", "RaySession"]
#: a group's weight is divided by 1 + this times the round's earlier appearances of its agents (spreads play)
ROUND_REPEAT_DISCOUNT = 0.5
#: more candidate groups than this are sampled rather than enumerated
MAX_CANDIDATE_GROUPS = 4096

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
    to ``num_players * max(4, len(agents))``.
    """

    game: Any
    agents: Sequence[str]
    num_players: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    round_size: int | None = None
    rating: RatingConfig = field(default_factory=RatingConfig)
    max_decisions: int = 100_000


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
        if isinstance(config.seed, bool) or not isinstance(config.seed, (int, np.integer)) \
                or not 0 <= config.seed < 2**64:
            raise ValueError(f"league seed must be a non-negative integer below 2**64, got {config.seed!r}")
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
        if isinstance(round_size, bool) or not isinstance(round_size, (int, np.integer)) or round_size < n \
                or round_size % n:
            raise ValueError(f"round_size must be a positive multiple of the player count {n}, got {round_size!r}")
        if not isinstance(config.max_decisions, int) or config.max_decisions < 1:
            raise ValueError(f"max_decisions must be a positive int, got {config.max_decisions!r}")
        if not isinstance(config.rating, RatingConfig):
            raise ValueError(f"rating must be a RatingConfig, got {config.rating!r}")
        self.round_size = int(round_size)
        self.seed = int(config.seed)
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
        """What the database stores and a resumed league must match exactly."""
        return {
            "format": LEAGUE_FORMAT,
            "game": self.game.name,
            "game_config": self.game.config,
            "agents": [r.to_dict() for r in self.records],
            "seed": self.seed,
            "round_size": self.round_size,
            "rating": self.rating.to_dict(),
            "max_decisions": self.max_decisions,
        }

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
                            max_decisions=identity["max_decisions"])
    except (KeyError, TypeError) as e:
        raise ValueError(f"the stored league configuration is incomplete ({type(e).__name__}: {e})") from None


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
    """The ``round_size`` matches of round ``round_index``, given the ratings after all earlier rounds."""
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


# -- playing (runs in workers) ------------------------------------------------------------------
def play_task(spec: WorkerSpec, task: MatchTask) -> StoredMatch:
    """Play one league match: fresh agents seeded from the match seed, so the result depends on the task alone."""
    game = spec.game
    n = game.num_players
    seeds = np.random.SeedSequence([task.seed, task.index]).generate_state(n, dtype=np.uint32)
    agents = []
    for seat, a in enumerate(task.seats):
        name, agent_spec = spec.agents[a]
        agent = make(agent_spec, game, num_players=n, seed=int(seeds[seat]))
        agent.name = name
        agents.append(agent)
    t0 = time.perf_counter()
    result = play_match(game, agents, task.seed, max_decisions=spec.max_decisions)
    return StoredMatch(index=task.index, round=task.round, seed=task.seed,
                       agents=[spec.agents[a][0] for a in task.seats], scores=[float(s) for s in result.scores],
                       placements=[int(p) for p in result.placements],
                       length=result.length, actions=[int(a) for a in result.actions],
                       duration_s=time.perf_counter() - t0)


def check_run_args(matches: int | None, workers: int, backend: str, address: str | None) -> None:
    """Validate how a league is to be run (before anything is written)."""
    if matches is not None and (isinstance(matches, bool) or not isinstance(matches, (int, np.integer))
                                or matches < 0):
        raise ValueError(f"matches must be an int >= 0, got {matches!r}")
    check_execution(workers, backend, address, who="league")


# -- the league ---------------------------------------------------------------------------------
class League:
    """An open league database with its validated configuration and live ratings."""

    def __init__(self, resolved: ResolvedLeague, storage: LeagueStorage) -> None:
        self.resolved = resolved
        self.storage = storage
        #: ratings after every stored match of complete rounds, in index order (kept live during :meth:`run`)
        self.tracker = RatingTracker(resolved.names, resolved.rating)

    @property
    def game(self) -> Any:
        return self.resolved.game

    @property
    def names(self) -> list[str]:
        return self.resolved.names

    def close(self) -> None:
        self.storage.close()

    def __enter__(self) -> League:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def run(self, matches: int, *, workers: int = 1, backend: str = "process", address: str | None = None,
            progress: bool = True, on_match: Callable[[StoredMatch], None] | None = None,
            executor: Any = None) -> Standings:
        """Play until matches ``0 .. matches-1`` are all stored; returns the standings.

        ``executor`` (from :func:`~meeplezoo.training.executor.make_executor`, owned by the caller) replaces
        the one this call would start for ``backend`` and ``workers``.
        """
        if matches is None:
            raise ValueError("give the number of matches the league should hold")
        check_run_args(matches, workers, backend, address)
        matches = int(matches)
        with _RunLock(self.storage.path):
            return self._run(matches, workers, backend, address, progress, on_match, executor)

    def _run(self, matches: int, workers: int, backend: str, address: str | None, progress: bool,
             on_match: Callable[[StoredMatch], None] | None, executor: Any) -> Standings:
        stored = {m.index: m for m in self.storage.matches(with_actions=False)}  # read (and check) before writing
        if matches > self.storage.target_matches:
            self.storage.set_target(matches)
        R = self.resolved.round_size
        rounds = -(-matches // R)
        tracker = RatingTracker(self.names, self.resolved.rating)
        self.tracker = tracker
        bar = None
        done = sum(1 for i in stored if i < matches)
        if progress and done < matches:
            from tqdm import tqdm

            bar = tqdm(total=matches, initial=done, desc=f"league {self.game.name}", unit="match",
                       dynamic_ncols=True)
        own_executor = executor is None
        spec = None if executor is None else executor.share(self.resolved.worker_spec())
        try:
            for r in range(rounds):
                tasks = schedule_round(self.resolved, r, tracker)[: max(0, min(R, matches - r * R))]
                missing = []
                for t in tasks:
                    m = stored.get(t.index)
                    if m is None:
                        missing.append(t)
                    elif m.seed != t.seed or m.agents != [self.names[a] for a in t.seats]:
                        raise ValueError(
                            f"{self.storage.path}: stored match {t.index} (seed {m.seed}, seats {m.agents}) is not "
                            f"the one the schedule asks for (seed {t.seed}, seats {[self.names[a] for a in t.seats]});"
                            " the database was changed or written by an incompatible meeplezoo/openskill version")
                if bar is not None:
                    best = max(self.names, key=lambda a: tracker.rating(a).ordinal) if r else "-"
                    bar.set_postfix_str(f"round {r + 1}/{rounds}, leader {best}")
                if missing:
                    if executor is None:
                        executor = make_executor(workers, backend, address, who="league")
                        spec = executor.share(self.resolved.worker_spec())
                    failed: list[tuple[MatchTask, BaseException]] = []
                    futures: dict[cf.Future, MatchTask] = {}
                    for t in missing:
                        fut = executor.submit(play_task, spec, t)
                        if fut.done():  # played inline: store it before the next one starts
                            self._finish(fut, t, stored, failed, on_match, bar)
                        else:
                            futures[fut] = t
                    for fut in cf.as_completed(futures):
                        self._finish(fut, futures[fut], stored, failed, on_match, bar)
                    if failed:
                        t, e = failed[0]
                        raise RuntimeError(f"league match {t.index} (seed {t.seed}, seats "
                                           f"{[self.names[a] for a in t.seats]}) failed: {type(e).__name__}: {e}; "
                                           "the other matches are stored, --resume retries it") from e
                for t in tasks:  # the round is complete: ratings advance in index order
                    tracker.add(stored[t.index], t.index)
        finally:
            if own_executor and executor is not None:
                executor.shutdown()
            if bar is not None:
                bar.close()
        return self.standings(tracker if len(stored) == tracker.matches else None)

    def _finish(self, fut: cf.Future, task: MatchTask, stored: dict[int, StoredMatch],
                failed: list[tuple[MatchTask, BaseException]], on_match: Callable[[StoredMatch], None] | None,
                bar: Any) -> None:
        """Commit one finished match at once (whatever the backend), or note its failure."""
        try:
            m = fut.result()
        except Exception as e:  # noqa: BLE001 - keep the round's other matches, then report
            failed.append((task, e))
            return
        self.storage.add_match(m)
        stored[m.index] = m
        if on_match is not None:
            on_match(m)
        if bar is not None:
            bar.update(1)

    def stored_matches(self, *, with_actions: bool = True) -> list[StoredMatch]:
        return self.storage.matches(with_actions=with_actions)

    def standings(self, tracker: RatingTracker | None = None) -> Standings:
        """Ratings recomputed from every stored match (index order) and the descriptive statistics."""
        matches = self.storage.matches(with_actions=False)
        return standings(self.names, matches, self.game.num_players, self.resolved.rating, tracker)


class _RunLock:
    """An exclusive lock on ``DB.lock`` while a league plays: two runners would play the same matches.

    ``flock`` locks vanish with their process, so a SIGKILLed league never
    leaves a stale lock behind.  (No locking where ``fcntl`` is missing.)
    """

    def __init__(self, db: str) -> None:
        self.path = db + ".lock"
        self.file: Any = None

    def __enter__(self) -> _RunLock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self
        self.file = open(self.path, "a")
        try:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.file.close()
            self.file = None
            raise ValueError(f"another process is playing the league in {self.path[:-5]!r}; wait for it or stop it") \
                from None
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.file is not None:
            self.file.close()  # releases the lock


def prepare_league(db: str, config: LeagueConfig | None = None, *, resume: bool = False,
                   game: Any = None) -> ResolvedLeague:
    """Validate a league against ``db`` without writing anything (see :func:`open_league`)."""
    exists = LeagueStorage.exists(db)
    if resume:
        if not exists:
            raise ValueError(f"no league database at {db!r} to resume")
        stored_identity, _ = LeagueStorage.read_header(db)
        resolved = ResolvedLeague(config if config is not None else config_from_identity(stored_identity, game))
        if resolved.identity != stored_identity:
            raise ValueError(f"{db!r} holds another league: {describe_difference(stored_identity, resolved.identity)}")
        return resolved
    if config is None:
        raise ValueError("a new league needs a configuration (game and agents)")
    parent = os.path.dirname(os.path.abspath(db))
    if not os.path.isdir(parent):
        raise ValueError(f"cannot create the league database {db!r}: directory {parent!r} does not exist")
    if os.path.isdir(db):
        raise ValueError(f"cannot create the league database {db!r}: it is a directory")
    resolved = ResolvedLeague(config)
    if exists:
        try:
            stored_identity, _ = LeagueStorage.read_header(db)
        except ValueError:
            raise ValueError(f"{db!r} exists and is not a league database; choose another path") from None
        same = config_hash(stored_identity) == config_hash(resolved.identity)
        raise ValueError(f"{db!r} already holds a league" + (" with this configuration; pass --resume (resume=True) "
                         "to continue it" if same else f" with another configuration "
                         f"({describe_difference(stored_identity, resolved.identity)}); choose another path"))
    return resolved


def open_league(db: str, config: LeagueConfig | None = None, *, resume: bool = False, game: Any = None) -> League:
    """Create the league database ``db`` for ``config``, or reopen it (``resume``).

    Everything is validated before anything is written: an unknown agent, a
    checkpoint for another game or a database written for another league
    configuration raises ``ValueError`` and leaves the disk untouched.
    With ``resume`` and no ``config``, the configuration is read from the
    database (``game``: the Game object for an unregistered game).
    """
    resolved = prepare_league(db, config, resume=resume, game=game)
    return _open_resolved(db, resolved, resume)


def _open_resolved(db: str, resolved: ResolvedLeague, resume: bool, target: int | None = None) -> League:
    if resume:
        return League(resolved, LeagueStorage.open(db))
    return League(resolved, LeagueStorage.create(db, resolved.identity, resolved.records, target=target or 0))


def run_league(config: LeagueConfig | None, db: str, matches: int | None = None, *, resume: bool = False,
               workers: int = 1, backend: str = "process", address: str | None = None, progress: bool = True,
               game: Any = None) -> League:
    """Create (or resume) a league and play it to ``matches`` stored matches; returns the open :class:`League`.

    ``matches=None`` on resume keeps the stored target.
    """
    if matches is None and not resume:
        raise ValueError("give the number of matches the league should hold")
    check_run_args(matches, workers, backend, address)
    resolved = prepare_league(db, config, resume=resume, game=game)
    # start (or reach) the workers before the database is written: an unreachable cluster leaves no trace
    executor = make_executor(workers, backend, address, who="league")
    try:
        league = _open_resolved(db, resolved, resume, matches)  # a new league is created with its target
        try:
            target = matches if matches is not None else league.storage.target_matches
            league.run(target, workers=workers, backend=backend, address=address, progress=progress,
                       executor=executor)
        except BaseException:
            league.close()
            raise
    finally:
        executor.shutdown()
    return league


# -- reading a stored league (no agents are built) ---------------------------------------------------
def read_league(db: str) -> tuple[dict[str, Any], list[StoredMatch], int]:
    """``(identity, matches in index order without actions, target)`` of a league database, read-only."""
    with LeagueStorage.open(db, readonly=True) as store:
        return store.config, store.matches(with_actions=False), store.target_matches


def league_standings(db: str, *, history: bool = False) -> tuple[dict[str, Any], Standings, RatingTracker]:
    """Standings recomputed from a database alone (works for any game, registered or not)."""
    identity, matches, _ = read_league(db)
    try:
        names = [a["name"] for a in identity["agents"]]
        n = int(identity["game_config"]["num_players"])
        rating = RatingConfig.from_dict(identity["rating"])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{db!r}: the stored league configuration is incomplete ({e})") from None
    tracker = RatingTracker(names, rating, history=history)
    for m in matches:
        tracker.add(m, m.index)
    return identity, standings(names, matches, n, rating, tracker), tracker


def describe(identity: dict[str, Any], matches: int, target: int | None = None) -> str:
    """One header line: game, configuration, seed, progress."""
    cfg = dict(identity.get("game_config", {}))
    n = cfg.pop("num_players", "?")
    try:  # show only the rule options that differ from the defaults
        defaults = {o.name: o.default for o in game_class(identity.get("game")).options_spec}
        cfg = {k: v for k, v in cfg.items() if defaults.get(k, object()) != v}
    except (ValueError, ImportError):
        pass
    opts = ", ".join(f"{k}={v}" for k, v in cfg.items())
    shown = f"{matches}" + (f"/{target}" if target and target != matches else "")
    return (f"{identity.get('game')} ({n} players{', ' + opts if opts else ''}), league seed {identity.get('seed')}, "
            f"{shown} matches, rating {identity.get('rating', {}).get('model')}")


def plot_league(db: str, out: str) -> str:
    """Rating (mu with a 2-sigma band) over the matches, and the head-to-head win-rate heatmap; writes ``out``."""
    try:  # a bare Figure: no pyplot state, the caller's matplotlib backend is left alone
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError('plotting needs matplotlib: pip install "meeplezoo[train]"') from None
    identity, st, tracker = league_standings(db, history=True)
    if not tracker.history:
        raise ValueError(f"{db!r} holds no matches yet; nothing to plot")
    order = st.ordered()
    names = tracker.agents
    x = np.array([h[0] + 1 for h in tracker.history])
    mu = np.stack([h[1] for h in tracker.history])
    sigma = np.stack([h[2] for h in tracker.history])
    fig = Figure(figsize=(15, 6))
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.4, 1]})
    for a in order:
        i = names.index(a)
        (line,) = ax1.plot(x, mu[:, i], label=a, lw=1.5)
        ax1.fill_between(x, mu[:, i] - 2 * sigma[:, i], mu[:, i] + 2 * sigma[:, i], color=line.get_color(), alpha=0.15)
    ax1.set_xlabel("matches")
    ax1.set_ylabel(f"openskill mu (band: mu +- 2 sigma), {st.config.model}")
    ax1.set_title(describe(identity, st.matches), fontsize=9)
    ax1.legend(fontsize=8, loc="best")
    ax1.grid(alpha=0.3)
    k = len(order)
    grid = np.full((k, k), np.nan)
    for r, a in enumerate(order):
        for c, b in enumerate(order):
            if a != b and st.pairs[(a, b)].games:
                grid[r, c] = st.pairs[(a, b)].win_rate
    im = ax2.imshow(grid, cmap="RdBu", vmin=0.0, vmax=1.0)
    for r in range(k):
        for c in range(k):
            if not np.isnan(grid[r, c]):
                ax2.text(c, r, f"{grid[r, c]:.2f}\n({st.pairs[(order[r], order[c])].games})", ha="center",
                         va="center", fontsize=7, color="white" if abs(grid[r, c] - 0.5) > 0.3 else "black")
    ax2.set_xticks(range(k), [a[:18] for a in order], rotation=45, ha="right", fontsize=8)
    ax2.set_yticks(range(k), [a[:18] for a in order], fontsize=8)
    ax2.set_title("row finished ahead of column (ties 1/2), games in brackets", fontsize=9)
    fig.colorbar(im, ax=ax2, fraction=0.046)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return out
