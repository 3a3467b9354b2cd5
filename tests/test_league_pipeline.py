"""Leagues with several rounds in flight (training/league_pipeline.py) and generation that keeps every worker busy.

A league keeps two matches per worker submitted; round r is drawn from the ratings after rounds 0 .. r-1-L
(the stored ``rating_lag``), so the stored matches and ratings are the same for any worker count, finishing
order and interruption; a lag of 0 (and a stored league without the key) plays the old barrier rounds; a
resume keeps the stored lag.  Distillation's and expert iteration's generation give the same data for any
worker count.
"""

from __future__ import annotations

import concurrent.futures as cf
import random
import threading
import time

import numpy as np
import pytest

from meeplezoo.training import distill, league_pipeline
from meeplezoo.training.executor import Executor, imap
from meeplezoo.training.exit import GENERATE_JOBS, ExItConfig, generate
from meeplezoo.training.league import (
    LeagueConfig,
    RatingTracker,
    ResolvedLeague,
    open_league,
    play_task,
    run_league,
    schedule_round,
)
from meeplezoo.training.league_setup import LAG_MATCHES, default_rating_lag
from meeplezoo.training.league_storage import LeagueStorage
from toygame import ToyGame

AGENTS = ["a=random", "b=random", "c=random", "d=random"]


def config(**kw) -> LeagueConfig:
    kw.setdefault("game", ToyGame(3))
    kw.setdefault("agents", AGENTS)
    kw.setdefault("seed", 5)
    return LeagueConfig(**kw)


class ThreadExecutor(Executor):
    """``workers`` threads with a random delay before each job (results finish out of order); counts how many
    jobs were submitted and how many ran at once; ``fail_at`` makes the league match of that index fail."""

    def __init__(self, workers: int, jitter: float = 0.004, seed: int = 0, fail_at: int | None = None) -> None:
        self.workers = workers
        self.pool = cf.ThreadPoolExecutor(workers)
        self.rng = random.Random(seed)
        self.jitter, self.fail_at = jitter, fail_at
        self.lock = threading.Lock()
        self.outstanding = self.running = self.peak_outstanding = self.peak_running = self.jobs = 0

    def submit(self, fn, *args) -> cf.Future:
        with self.lock:
            self.outstanding += 1
            self.jobs += 1
            self.peak_outstanding = max(self.peak_outstanding, self.outstanding)
        return self.pool.submit(self._run, fn, args, self.rng.uniform(0, self.jitter))

    def _run(self, fn, args, delay):
        with self.lock:
            self.running += 1
            self.peak_running = max(self.peak_running, self.running)
        try:
            time.sleep(delay)
            if self.fail_at is not None and getattr(args[-1], "index", None) == self.fail_at:
                raise RuntimeError("injected failure")
            return fn(*args)
        finally:
            with self.lock:
                self.running -= 1
                self.outstanding -= 1

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True)


def played(db: str, matches: int, executor: Executor | None = None, cfg: LeagueConfig | None = None,
           resume: bool = False) -> tuple[list[tuple], list]:
    """Play the league in ``db`` to ``matches`` (on ``executor``, or inline); its match keys and ratings."""
    with open_league(db, cfg if cfg is not None else (None if resume else config()), resume=resume,
                     game=ToyGame(3)) as league:
        league.run(matches, progress=False, executor=executor)
        return [m.key() for m in league.stored_matches()], league.tracker.snapshot()


# -- in flight ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("workers", [2, 3])
def test_a_league_keeps_two_matches_per_worker_in_flight(tmp_path, workers):
    ex = ThreadExecutor(workers, jitter=0.01)
    with ex:
        played(str(tmp_path / "l.sqlite"), 60, ex)
    assert ex.peak_outstanding == 2 * workers and ex.peak_running == workers and ex.jobs == 60


def test_a_barrier_league_has_at_most_a_round_in_flight(tmp_path):
    ex = ThreadExecutor(8)
    with ex:
        played(str(tmp_path / "l.sqlite"), 24, ex, config(rating_lag=0, round_size=6))
    assert ex.peak_outstanding == 6


def test_round_r_is_drawn_from_the_ratings_after_rounds_up_to_r_minus_1_minus_lag(tmp_path, monkeypatch):
    seen = []
    real = league_pipeline.schedule_round

    def spy(league, r, tracker):
        seen.append((r, tracker.matches))
        return real(league, r, tracker)

    monkeypatch.setattr(league_pipeline, "schedule_round", spy)
    ex = ThreadExecutor(3)
    with ex:
        played(str(tmp_path / "l.sqlite"), 66, ex, config(rating_lag=2, round_size=6))
    assert seen == [(r, 6 * max(0, r - 2)) for r in range(11)]


# -- the same league for any worker count -------------------------------------------------------------
def test_worker_counts_finishing_orders_and_interruptions_give_the_same_league(tmp_path):
    expected = played(str(tmp_path / "inline.sqlite"), 70)
    for workers, seed in [(2, 1), (3, 2)]:
        with ThreadExecutor(workers, seed=seed) as ex:
            assert played(str(tmp_path / f"threads{workers}.sqlite"), 70, ex) == expected
    db = str(tmp_path / "switched.sqlite")
    with ThreadExecutor(3, fail_at=31) as ex, pytest.raises(RuntimeError, match="league match 31 .* failed"):
        played(db, 70, ex)  # stops with matches of later rounds stored around the failed one
    with LeagueStorage.open(db, readonly=True) as store:
        indices = store.indices()
    assert 31 not in indices and max(indices) > 31
    assert played(db, 50, resume=True) == (expected[0][:50], played(str(tmp_path / "i50.sqlite"), 50)[1])
    with ThreadExecutor(2, seed=7) as ex:
        assert played(db, 70, ex, resume=True) == expected
    db = str(tmp_path / "pool.sqlite")  # a process pool, then inline
    run_league(config(), db, 33, workers=2, progress=False).close()
    assert played(db, 70, resume=True) == expected


# -- the lag's default, storage and resume ---------------------------------------------------------------
def test_a_new_league_lags_by_the_fewest_rounds_holding_64_matches():
    assert LAG_MATCHES == 64
    assert [default_rating_lag(r) for r in (1, 10, 12, 32, 63, 64, 65, 400)] == [64, 7, 6, 2, 2, 1, 1, 1]
    resolved = ResolvedLeague(config())  # 3 players, 4 agents: rounds of 12 matches
    assert resolved.round_size == 12 and resolved.rating_lag == 6 and resolved.identity["rating_lag"] == 6
    assert ResolvedLeague(config(rating_lag=3)).rating_lag == 3
    with pytest.raises(ValueError, match="rating_lag"):
        ResolvedLeague(config(rating_lag=-1))


def barrier_league(cfg: LeagueConfig, matches: int) -> tuple[list[tuple], list]:
    """The league as played before the lag: every round drawn after the one before it is rated."""
    resolved = ResolvedLeague(cfg)
    tracker, spec, size, keys = RatingTracker(resolved.names, resolved.rating), resolved.worker_spec(), \
        resolved.round_size, []
    for r in range(-(-matches // size)):
        tasks = schedule_round(resolved, r, tracker)[: min(size, matches - r * size)]
        for t in tasks:
            m = play_task(spec, t)
            tracker.add(m, t.index)
            keys.append(m.key())
    return keys, tracker.snapshot()


def test_lag_0_is_the_barrier_league_stored_without_the_key(tmp_path):
    cfg = config(rating_lag=0)
    expected = barrier_league(cfg, 40)
    db = str(tmp_path / "l.sqlite")
    with ThreadExecutor(3) as ex:
        assert played(db, 20, ex, cfg) == (expected[0][:20], barrier_league(cfg, 20)[1])
    with LeagueStorage.open(db, readonly=True) as store:
        assert "rating_lag" not in store.config  # what every league stored before the lag holds
    assert set(ResolvedLeague(cfg).identity) == {"format", "game", "game_config", "agents", "seed", "round_size",
                                                 "rating", "max_decisions"}
    with ThreadExecutor(2) as ex:  # resumed without a lag (None: the stored one), and from the stored config
        assert played(db, 30, ex, config(), resume=True) == (expected[0][:30], barrier_league(cfg, 30)[1])
    assert played(db, 40, resume=True) == expected
    two = {"game": ToyGame(2), "round_size": 16}
    lagged = played(str(tmp_path / "lagged.sqlite"), 64, cfg=config(**two))  # the default lag: another league
    assert lagged[0] != barrier_league(config(rating_lag=0, **two), 64)[0]


def test_a_resume_keeps_the_stored_lag_and_refuses_another(tmp_path, capsys):
    from meeplezoo.cli import main

    db = str(tmp_path / "l.sqlite")
    played(db, 12, cfg=config(rating_lag=2))
    with pytest.raises(ValueError, match=r"rating_lag 2, a resumed league keeps it \(asked for 3\)"):
        run_league(config(rating_lag=3), db, 24, resume=True, progress=False)
    with pytest.raises(ValueError, match=r"rating_lag 2, a resumed league keeps it \(asked for 0\)"):
        run_league(config(rating_lag=0), db, 24, resume=True, progress=False)
    with run_league(config(rating_lag=2), db, 18, resume=True, progress=False) as league:
        assert league.resolved.rating_lag == 2
    with run_league(config(), db, 24, resume=True, progress=False) as league:
        assert league.resolved.rating_lag == 2 and league.storage.count() == 24
    cli_db = str(tmp_path / "cli.sqlite")
    args = ["league", "run", "--game", "haus_der_sonne", "--agents", "x=random,y=random", "--db", cli_db, "--quiet"]
    assert main([*args, "--matches", "4", "--rating-lag", "1"]) == 0
    capsys.readouterr()
    assert main(["league", "run", "--db", cli_db, "--resume", "--matches", "6", "--rating-lag", "3"]) == 2
    assert "a resumed league keeps it (asked for 3)" in capsys.readouterr().err
    assert main(["league", "run", "--db", cli_db, "--resume", "--matches", "6", "--quiet"]) == 0
    with LeagueStorage.open(cli_db, readonly=True) as store:
        assert store.config["rating_lag"] == 1 and store.count() == 6


# -- generation for distillation and expert iteration ------------------------------------------------------
def _square(x: int) -> int:
    return x * x


def test_imap_keeps_the_workers_busy_and_the_job_order():
    with ThreadExecutor(3, jitter=0.01) as ex:
        assert list(imap(ex, _square, range(20))) == [x * x for x in range(20)]
    assert ex.peak_outstanding == 3 and ex.peak_running == 3
    read = []

    def stream():  # read one job per start: a stream may stop early (distillation's time limit)
        for j in range(100):
            if j == 5:
                return
            read.append(j)
            yield j

    with ThreadExecutor(2) as ex:
        results = imap(ex, _square, stream())
        assert next(results) == 0 and len(read) <= 3
        assert list(results) == [1, 4, 9, 16] and read == [0, 1, 2, 3, 4]


def test_distill_generation_is_the_same_for_any_worker_count(tmp_path, monkeypatch):
    cfg = distill.DistillConfig(game="template", teacher="mcts:sims=4", opponent="random", games=6,
                                chunk=1)
    distill.generate(cfg, tmp_path / "inline", verbose=0)
    pools = []

    def threads(workers, *a, **k):
        pools.append(ThreadExecutor(3, seed=4))
        return pools[-1]

    monkeypatch.setattr(distill, "make_executor", threads)
    assert distill.generate(cfg, tmp_path / "threads", workers=3, verbose=0) == 6
    assert pools[0].peak_running == 3 and pools[0].jobs == 6
    a, _ = distill.load_chunks(tmp_path / "inline")
    b, _ = distill.load_chunks(tmp_path / "threads")
    assert distill.samples_equal(a, b)


def test_expert_iteration_generation_is_the_same_for_any_worker_count():
    cfg = ExItConfig(game="kerala", warm_start_games=1)
    seeds = list(range(300, 306))
    inline = generate(cfg, "imitation", seeds)
    for workers in (2, 4):
        with ThreadExecutor(workers, seed=workers) as ex:
            pooled = generate(cfg, "imitation", seeds, workers=workers, pool=ex)
        assert ex.jobs == min(len(seeds), GENERATE_JOBS) and ex.peak_outstanding == workers
        for k in ("obs", "mask", "pi", "z"):
            np.testing.assert_array_equal(inline[k], pooled[k])
    assert len(inline["obs"]) > 10
