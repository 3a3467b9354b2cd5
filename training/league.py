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
``0 .. r-1-L``, ``L`` the league's stored ``rating_lag`` (by default for a new
league the fewest rounds holding 64 matches, at least 1; 0 for a league
stored before the lag existed); a match's seed is a function of the league
seed and its index.  So the whole league is a pure function of its configuration:
whichever backend, worker count or number of interruptions produced it, the
stored matches are identical, and extending a finished league to more
matches gives the league that would have been played with the larger target.

**Execution.**  One code path (:class:`~.league_pipeline.Pipeline`): the
matches go to an executor that returns ``concurrent.futures`` futures:
in-process (``workers=1``), a local process pool (``workers>1``, spawn start
method) or Ray tasks (``backend="ray"``), two per worker at a time; up to
``L + 1`` rounds are open at once, a round being drawn as soon as the ratings
it depends on are final.  Each match runs :func:`play_task`, which builds
fresh agents seeded from the match seed, so a match does not depend on what
its worker played before.  Results are committed as they arrive, each under
its match index; ratings advance round by round in index order.

**Resume.**  ``run_league(..., resume=True)`` (``--resume``) re-derives the
schedule from the stored matches, checks that every stored match is the one
the schedule asks for, and plays only the missing indices: after a SIGKILL at
any moment no match is lost or duplicated.

Agents whose moves depend on wall-clock time (``mcts:time=...``) make a
league depend on machine load; use simulation counts for reproducible leagues.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from meeplezoo.agents import make
from meeplezoo.knobs import Knob
from meeplezoo.registry import game_class

from .arena import play_match
from .executor import BACKENDS, RayExecutor, RaySession, check_execution, make_executor
from .league_pipeline import IN_FLIGHT_PER_WORKER, Pipeline
from .league_setup import (
    LEAGUE_FORMAT,
    LeagueConfig,
    MatchTask,
    ResolvedLeague,
    WorkerSpec,
    config_from_identity,
    describe_difference,
    parse_agent_entry,
    resume_config,
    schedule_round,
    spec_files,
)
from .league_storage import LeagueStorage, StoredMatch, config_hash
from .ratings import RatingConfig, RatingTracker, Standings, standings

__all__ = ["LeagueConfig", "ResolvedLeague", "League", "run_league", "open_league", "prepare_league", "read_league",
           "league_standings", "describe", "plot_league", "play_task", "BACKENDS", "RayExecutor", "RaySession",
           "LEAGUE_FORMAT", "MatchTask", "WorkerSpec", "config_from_identity", "describe_difference",
           "parse_agent_entry", "schedule_round", "spec_files"]
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
    Knob("matches", int, None, "matches the league should hold", low=0).validate(matches, "league")
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
        rounds = -(-matches // self.resolved.round_size)
        tracker = RatingTracker(self.names, self.resolved.rating)
        self.tracker = tracker
        bar = None
        done = sum(1 for i in stored if i < matches)
        if progress and done < matches:
            from tqdm import tqdm

            bar = tqdm(total=matches, initial=done, desc=f"league {self.game.name}", unit="match",
                       dynamic_ncols=True)

        def on_draw(r: int) -> None:
            if bar is not None:
                best = max(self.names, key=lambda a: tracker.rating(a).ordinal) if tracker.matches else "-"
                bar.set_postfix_str(f"round {r + 1}/{rounds}, leader {best}")

        own_executor = executor is None
        in_flight = IN_FLIGHT_PER_WORKER * max(int(workers), int(getattr(executor, "workers", 1) or 1))
        started: list[tuple[Any, Any]] = [] if executor is None else [(executor, executor.share(
            self.resolved.worker_spec()))]

        def submit(task: MatchTask) -> cf.Future:
            if not started:  # the workers start with the first match to play
                ex = make_executor(workers, backend, address, who="league")
                started.append((ex, ex.share(self.resolved.worker_spec())))
            ex, spec = started[0]
            return ex.submit(play_task, spec, task)

        try:
            pipe = Pipeline(self.resolved, matches, stored, tracker, self.storage.path, on_draw)
            pipe.run(submit, lambda t, fut: self._finish(fut, stored, on_match, bar), in_flight)
        finally:
            if own_executor and started:
                started[0][0].shutdown()
            if bar is not None:
                bar.close()
        return self.standings(tracker if len(stored) == tracker.matches else None)

    def _finish(self, fut: cf.Future, stored: dict[int, StoredMatch], on_match: Callable[[StoredMatch], None] | None,
                bar: Any) -> BaseException | None:
        """Commit one finished match at once (whatever the backend), or return its failure."""
        try:
            m = fut.result()
        except Exception as e:  # noqa: BLE001 - keep the other matches, then report
            return e
        self.storage.add_match(m)
        stored[m.index] = m
        if on_match is not None:
            on_match(m)
        if bar is not None:
            bar.update(1)
        return None

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
        if config is None:
            config = config_from_identity(stored_identity, game)
        else:
            config = resume_config(config, stored_identity)
        resolved = ResolvedLeague(config)
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
