"""League databases under faults: killed creation, killed inline play, read-only, corrupted, full, raced, garbage.

Each fault ends in a one-line ``ValueError`` naming the file (exit status 2
from the command line), and a resumed league never holds less than before.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from meeplezoo.training import league_storage
from meeplezoo.training.league import LeagueConfig, league_standings, run_league
from meeplezoo.training.league_storage import LeagueStorage
from toygame import ToyGame

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
AGENTS = ["a=random", "b=random", "c=random", "d=random"]


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    """The command line builds games by id: make the toy game one (its entry module is faked)."""
    import types

    from meeplezoo import registry

    entry = types.ModuleType("toy_v0_entry")
    entry.raw_env = type("raw_env", (), {"game_cls": ToyGame})
    monkeypatch.setitem(sys.modules, "toy_v0_entry", entry)
    monkeypatch.setitem(registry.ENVS, "toy", ("toy_v0_entry", "meeplezoo/Toy-v0"))


def config(**kw) -> LeagueConfig:
    return LeagueConfig(game=ToyGame(3), agents=AGENTS, seed=3, round_size=6, **kw)


def keys(league) -> list[tuple]:
    return [m.key() for m in league.stored_matches()]


def files_of(db: str) -> dict[str, bytes]:
    return {p: open(p, "rb").read() for p in (db, db + "-wal") if os.path.exists(p) and os.path.getsize(p)}


def resume(db: str, matches: int | None = None):
    return run_league(None, db, matches, resume=True, progress=False, game=ToyGame(3))


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """The league every interrupted one must end up equal to (12 matches)."""
    db = str(tmp_path_factory.mktemp("straight") / "s.sqlite")
    with run_league(config(), db, 12, progress=False) as league:
        return keys(league)


def cli(argv, capsys) -> tuple[int, str]:
    from meeplezoo.cli import main

    rc = main(argv)
    err = capsys.readouterr().err
    return rc, err


def one_line_error(err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for w in words:
        assert w in lines[0], (w, err)


# -- 1. creation is all or nothing -------------------------------------------------------------------
def test_league_killed_at_any_statement_of_its_creation_leaves_nothing_or_a_complete_league(
        tmp_path, monkeypatch, straight):
    """Snapshot the folder before every SQL statement and file operation (what a SIGKILL there would leave),
    then check that each snapshot either has no league (a fresh run works) or resumes to the full target."""
    work = tmp_path / "work"
    work.mkdir()
    db = str(work / "l.sqlite")
    snapshots: list[dict[str, bytes]] = []

    def snap(*_: object) -> None:
        snapshots.append({name: (work / name).read_bytes() for name in os.listdir(work) if (work / name).is_file()})

    real_connect, real_link, real_rename = sqlite3.connect, os.link, os.rename

    def connect(*a, **k):
        conn = real_connect(*a, **k)
        conn.set_trace_callback(snap)
        return conn

    def link(*a, **k):
        snap()
        real_link(*a, **k)
        snap()

    monkeypatch.setattr(league_storage.sqlite3, "connect", connect)
    monkeypatch.setattr(league_storage.os, "link", link)
    with run_league(config(), db, 12, progress=False) as league:
        assert keys(league) == straight
    monkeypatch.undo()
    assert sqlite3.connect is real_connect and os.link is real_link and os.rename is real_rename
    snap()
    assert len(snapshots) > 30
    for i, files in enumerate(snapshots):
        d = tmp_path / f"kill{i}"
        d.mkdir()
        for name, data in files.items():
            (d / name).write_bytes(data)
        path = str(d / "l.sqlite")
        if LeagueStorage.exists(path):
            with resume(path) as league:  # the stored target, not a target of 0
                assert keys(league) == straight, f"snapshot {i}"
        else:
            with run_league(config(), path, 12, progress=False) as league:
                assert keys(league) == straight, f"snapshot {i}"


def test_new_league_stores_its_target_at_creation(tmp_path, monkeypatch):
    db = str(tmp_path / "l.sqlite")

    def killed(self, matches, **kw):
        raise KeyboardInterrupt  # the process dies as soon as the database exists

    from meeplezoo.training.league import League

    monkeypatch.setattr(League, "run", killed)
    with pytest.raises(KeyboardInterrupt):
        run_league(config(), db, 12, progress=False)
    monkeypatch.undo()
    with LeagueStorage.open(db, readonly=True) as store:
        assert store.target_matches == 12
    with resume(db) as league:
        assert league.storage.count() == 12


def test_creation_removes_what_a_killed_creation_left_behind(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".l.sqlite.creating-{dead.pid}-0000"
    stale.write_bytes(b"half a database")
    alive = tmp_path / f".l.sqlite.creating-{os.getpid()}-1111"  # a creation still running: left alone
    alive.write_bytes(b"in progress")
    with run_league(config(), str(tmp_path / "l.sqlite"), 6, progress=False) as league:
        assert league.storage.count() == 6
    assert not stale.exists() and alive.exists()


# -- 2. inline play commits each match ----------------------------------------------------------------
INLINE_KILL = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from toygame import ToyGame
from meeplezoo.training import league
from meeplezoo.training.league import LeagueConfig, run_league

real = league.play_task

def play_task(spec, task):
    if task.index == {kill_at}:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(spec, task)

league.play_task = play_task
cfg = LeagueConfig(game=ToyGame(3), agents={agents!r}, seed=3, round_size=12)
run_league(cfg, sys.argv[1], 24, workers=1, progress=False).close()
"""


def test_inline_league_killed_mid_round_keeps_every_finished_match(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(INLINE_KILL.format(tests=TESTS_DIR, agents=AGENTS, kill_at=7)))
    db = str(tmp_path / "inline.sqlite")
    proc = subprocess.run([sys.executable, str(script), db], timeout=120, capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    with LeagueStorage.open(db, readonly=True) as store:
        assert sorted(store.indices()) == list(range(7)), "finished matches of the round were lost"
    with resume(db) as league:
        assert league.storage.count() == 24


# -- 9. database faults ----------------------------------------------------------------------------------
def small_league(tmp_path, matches: int = 6, target: int | None = None) -> str:
    db = str(tmp_path / "l.sqlite")
    with run_league(config(), db, matches, progress=False) as league:
        if target is not None:
            league.storage.set_target(target)
    return db


def test_read_only_database_is_reported_and_left_alone(tmp_path, monkeypatch, capsys):
    db = small_league(tmp_path, 6, target=12)
    before = files_of(db)
    real = LeagueStorage._connect

    # the file cannot be written (tests run as root, so a chmod would not stop SQLite; open it read-only)
    monkeypatch.setattr(LeagueStorage, "_connect", staticmethod(lambda path, readonly: real(path, True)))
    with pytest.raises(ValueError, match=f"{db}: cannot write to the league database: the database is read-only"):
        resume(db)
    rc, err = cli(["league", "run", "--resume", "--db", db, "--matches", "18", "--quiet"], capsys)
    assert rc == 2
    one_line_error(err, db, "read-only")
    assert files_of(db) == before
    monkeypatch.undo()
    with resume(db) as league:
        assert league.storage.count() == 12


def test_corrupted_page_is_reported_and_resume_writes_nothing(tmp_path, capsys):
    db = small_league(tmp_path, 12)
    with sqlite3.connect(db) as conn:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'matches'").fetchone()[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    with open(db, "r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xa5" * page_size)
    before = files_of(db)
    for argv in (["league", "table", "--db", db], ["league", "run", "--resume", "--db", db, "--quiet"],
                 ["league", "run", "--resume", "--db", db, "--matches", "18", "--quiet"]):
        rc, err = cli(argv, capsys)
        assert rc == 2, argv
        one_line_error(err, db, "corrupted")
        assert files_of(db) == before


def test_full_disk_stops_with_a_clear_error_and_loses_nothing(tmp_path, monkeypatch, capsys):
    db = small_league(tmp_path, 6)
    real = LeagueStorage._connect

    def full(path, readonly):
        conn = real(path, readonly)
        if not readonly:  # the database may not grow by a single page
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(LeagueStorage, "_connect", staticmethod(full))
    rc, err = cli(["league", "run", "--resume", "--db", db, "--matches", "120", "--quiet"], capsys)
    assert rc == 2
    one_line_error(err, db, "the disk is full", "--resume")
    monkeypatch.undo()
    with LeagueStorage.open(db, readonly=True) as store:
        indices = sorted(store.indices())
    assert indices == list(range(len(indices))) and 6 <= len(indices) < 120
    with resume(db, 120) as league:
        got = keys(league)
    with run_league(config(), str(tmp_path / "straight.sqlite"), 120, progress=False) as straight:
        assert got == keys(straight)


def test_two_creators_of_one_database_one_wins_the_other_is_told(tmp_path, monkeypatch, straight):
    db = str(tmp_path / "l.sqlite")
    barrier = threading.Barrier(2, timeout=30)
    real = LeagueStorage.create.__func__

    def create(cls, *a, **k):
        barrier.wait()  # both have checked that no league is there
        return real(cls, *a, **k)

    monkeypatch.setattr(LeagueStorage, "create", classmethod(create))
    outcome: dict[int, object] = {}

    def runner(i: int) -> None:
        try:
            with run_league(config(), db, 12, progress=False) as league:
                outcome[i] = keys(league)
        except Exception as e:  # noqa: BLE001 - recorded for the assertions
            outcome[i] = e

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    errors = [o for o in outcome.values() if isinstance(o, Exception)]
    assert len(outcome) == 2 and len(errors) == 1, outcome
    assert isinstance(errors[0], ValueError) and db in str(errors[0]) and "another process" in str(errors[0])
    assert [o for o in outcome.values() if not isinstance(o, Exception)] == [straight]
    assert not [n for n in os.listdir(tmp_path) if ".creating-" in n], "temporary files were left behind"


def test_two_processes_creating_one_database(tmp_path, straight):
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {TESTS_DIR!r})
        from toygame import ToyGame
        from meeplezoo.training.league import LeagueConfig, run_league
        cfg = LeagueConfig(game=ToyGame(3), agents={AGENTS!r}, seed=3, round_size=6)
        try:
            run_league(cfg, sys.argv[1], 12, progress=False).close()
        except ValueError as e:
            print(e)
            sys.exit(2)
    """)
    db = str(tmp_path / "l.sqlite")
    procs = [subprocess.Popen([sys.executable, "-c", code, db], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], outs  # one creates it; the other is refused, whenever it arrives
    for (out, err), p in zip(outs, procs):
        if p.returncode == 2:
            assert db in out and len(out.strip().splitlines()) == 1 and not err.strip(), (out, err)
    with resume(db) as league:
        assert keys(league) == straight


def test_garbage_in_a_stored_row_is_named(tmp_path, capsys):
    db = small_league(tmp_path, 6, target=12)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE matches SET scores = 'oops' WHERE idx = 2")
    before = files_of(db)
    with pytest.raises(ValueError, match=r"match 2: column 'scores' holds 'oops', not a JSON list"):
        league_standings(db)
    for argv in (["league", "table", "--db", db], ["league", "run", "--resume", "--db", db, "--quiet"]):
        rc, err = cli(argv, capsys)
        assert rc == 2
        one_line_error(err, db, "match 2", "'scores'", "oops")
    assert files_of(db) == before
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE matches SET scores = '[1, 2]', placements = '[0, 1, 7]' WHERE idx = 2")
    with pytest.raises(ValueError, match="match 2: column 'scores' holds \\[1, 2\\], not one number per seat"):
        league_standings(db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE matches SET scores = '[1, 2, 3]' WHERE idx = 2")
    with pytest.raises(ValueError, match="match 2: column 'placements' holds \\[0, 1, 7\\]"):
        league_standings(db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '{{' WHERE key = 'config'")
    rc, err = cli(["league", "table", "--db", db], capsys)
    assert rc == 2
    one_line_error(err, db, "'config'")


def test_not_a_league_file_is_refused_without_touching_it(tmp_path, capsys):
    db = tmp_path / "junk.sqlite"
    db.write_bytes(b"this is not SQLite" * 300)
    before = db.read_bytes()
    rc, err = cli(["league", "run", "--resume", "--db", str(db), "--quiet"], capsys)
    assert rc == 2
    one_line_error(err, str(db), "not a league database")
    shutil.copy(db, tmp_path / "copy")
    assert db.read_bytes() == before


# -- 11. a SIGKILLed league on Ray leaves no Ray processes ---------------------------------------------------
RAY_JOB = """
import os, sys
sys.path.insert(0, {tests!r})
from toygame import ToyGame
from meeplezoo.training import league
from meeplezoo.training.league import LeagueConfig, run_league

real_init = league.RayExecutor.__init__

def init(self, *a, **k):
    real_init(self, *a, **k)
    print("ray started", flush=True)

league.RayExecutor.__init__ = init
cfg = LeagueConfig(game=ToyGame(3), agents={agents!r}, seed=3, round_size=6)
run_league(cfg, sys.argv[1], 1_000_000, workers=2, backend="ray", progress=False).close()
"""


def descendants(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    kids.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to follow the processes")
def test_sigkilled_ray_league_leaves_no_ray_processes(tmp_path):
    pytest.importorskip("ray", reason="ray is not installed (pip install 'meeplezoo[ray]')")
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(RAY_JOB.format(tests=TESTS_DIR, agents=AGENTS)))
    db = str(tmp_path / "ray.sqlite")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": os.pathsep.join(
        [TESTS_DIR, os.environ.get("PYTHONPATH", "")])}
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.Popen([sys.executable, str(script), db], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env, start_new_session=True)
    started: list[int] = []
    try:
        assert proc.stdout.readline().strip() == "ray started"
        deadline = time.time() + 60
        while time.time() < deadline:  # until matches are being stored (workers are up)
            if LeagueStorage.exists(db):
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                    try:
                        if conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0] >= 6:
                            break
                    except sqlite3.OperationalError:
                        pass
            time.sleep(0.2)
        started = descendants(proc.pid)
        assert len(started) >= 3, "ray did not start its processes"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 15
        while time.time() < deadline and any(alive(p) for p in started):
            time.sleep(0.2)
        left = [p for p in started if alive(p)]
        assert not left, f"ray processes outlived the league: {left}"
    finally:
        for p in started:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow
def test_ray_league_that_finishes_is_not_harmed_by_its_watchdog(tmp_path):
    """The watchdog runs at every normal shutdown too: it must end Ray's processes, never the league."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'meeplezoo[ray]')")
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {TESTS_DIR!r})
        from toygame import ToyGame
        from meeplezoo.training.league import LeagueConfig, run_league
        cfg = LeagueConfig(game=ToyGame(3), agents={AGENTS!r}, seed=3, round_size=6)
        with run_league(cfg, sys.argv[1], 12, workers=2, backend="ray", progress=False) as league:
            print("stored", league.storage.count(), flush=True)
        print("closed", flush=True)
    """)
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": os.pathsep.join(
        [TESTS_DIR, os.environ.get("PYTHONPATH", "")])}  # Ray's workers import the toy game too
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "ray.sqlite")], capture_output=True,
                          text=True, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["stored", "12", "closed"]
