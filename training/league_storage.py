"""SQLite storage of a league: its configuration, its agents and every match.

One file (the user's ``--db`` path) holds a whole league, so it can be copied,
inspected with ``sqlite3`` and resumed anywhere.  Every match is written in
its own transaction (the ``matches`` row and its ``match_seats`` rows
together) in WAL mode with ``synchronous=FULL``: a league killed at any
instant, even by SIGKILL, holds only whole matches, and a resumed league
re-derives everything else (schedule, ratings) from them.

A new database is written whole under a temporary name beside ``path``
(schema, configuration, agents and match target in one transaction) and
then linked into place, which fails if ``path`` appeared meanwhile: a
creation killed at any instant leaves either no league or a complete one,
and of two processes creating the same league one wins and the other is
told so.  Every SQLite failure (read-only file, full disk, corrupted page,
a row that is not what it should be) is reported as a one-line
``ValueError`` naming the file.

Tables::

    meta(key, value)                      schema version, configuration (JSON) and its hash, target
    agents(id, name, spec, files)         files: {path: sha256} of checkpoints the spec names
    matches(idx, round, seed, seats, scores, placements, length, actions, duration_s, finished_at)
    match_seats(match_idx, seat, agent_id, score, placement)   one row per seat, for SQL queries

``seats``, ``scores``, ``placements`` and ``actions`` are JSON arrays indexed
by seat (actions: the replay's decision list; with the game configuration and
``seed`` it replays the match exactly).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from meeplezoo.knobs import is_int

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS agents (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    spec TEXT NOT NULL,
    files TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS matches (
    idx INTEGER PRIMARY KEY,
    round INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    scores TEXT NOT NULL,
    placements TEXT NOT NULL,
    length INTEGER NOT NULL,
    actions TEXT NOT NULL,
    duration_s REAL,
    finished_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS match_seats (
    match_idx INTEGER NOT NULL REFERENCES matches(idx),
    seat INTEGER NOT NULL,
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    score REAL NOT NULL,
    placement INTEGER NOT NULL,
    PRIMARY KEY (match_idx, seat)
);
CREATE INDEX IF NOT EXISTS match_seats_agent ON match_seats(agent_id);
"""


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def config_hash(config: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(config).encode()).hexdigest()


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def describe_sqlite_error(e: BaseException) -> str:
    """A short account of an SQLite failure: what it means for the user, then SQLite's own words."""
    msg = str(e) or type(e).__name__
    low = msg.lower()
    if "readonly" in low or "read-only" in low or "read only" in low:
        problem = "the database is read-only"
    elif "full" in low:
        problem = "the disk is full"
    elif "malformed" in low or "not a database" in low or "corrupt" in low or "encrypted" in low:
        problem = "the database file is corrupted"
    elif "locked" in low or "busy" in low:
        problem = "the database is locked by another process"
    elif "unable to open" in low or "cannot open" in low:
        problem = "the database file cannot be opened"
    elif "i/o" in low:
        problem = "a disk I/O error"
    else:
        problem = "an SQLite error"
    return f"{problem} (sqlite: {msg})"


@contextlib.contextmanager
def sqlite_errors(path: str, doing: str) -> Iterator[None]:
    """Turn ``sqlite3.Error`` (and OS errors) into ``ValueError("PATH: cannot DOING: PROBLEM")``."""
    try:
        yield
    except sqlite3.Error as e:
        raise ValueError(f"{path}: cannot {doing}: {describe_sqlite_error(e)}") from None
    except OSError as e:
        raise ValueError(f"{path}: cannot {doing}: {e.strerror or e}") from None


def _json_column(path: str, where: str, column: str, text: Any, kind: type) -> Any:
    """``json.loads`` of one stored column, checked to be a ``kind``; a bad value names the row and column."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        value = _BAD
    if not isinstance(value, kind):
        shown = text if not isinstance(text, str) or len(text) <= 60 else text[:57] + "..."
        raise ValueError(f"{path}: {where}: column {column!r} holds {shown!r}, not a JSON "
                         f"{'list' if kind is list else 'object'}; the database was changed by hand or damaged")
    return value


_BAD = object()


@dataclass(frozen=True)
class AgentRecord:
    """A league agent: its table name, its spec and the hashes of the files the spec names."""

    name: str
    spec: str
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "files": dict(sorted(self.files.items()))}


@dataclass
class StoredMatch:
    """One finished match.  Lists are indexed by seat."""

    index: int
    round: int
    seed: int
    agents: list[str]
    scores: list[float]
    placements: list[int]
    length: int
    actions: list[int]
    duration_s: float | None = None

    def key(self) -> tuple:
        """Everything that must be identical whichever backend or run produced the match."""
        return (self.index, self.round, self.seed, tuple(self.agents), tuple(self.scores), tuple(self.placements),
                self.length, tuple(self.actions))


class LeagueStorage:
    """A league database.  Use :meth:`create` for a new league, :meth:`open` for an existing one."""

    def __init__(self, path: str, conn: sqlite3.Connection, readonly: bool) -> None:
        self.path = path
        self.conn = conn
        self.readonly = readonly

    # -- opening ----------------------------------------------------------------
    @staticmethod
    def _connect(path: str, readonly: bool) -> sqlite3.Connection:
        if readonly:
            conn = sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True, timeout=30.0)
        else:
            conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)  # explicit transactions below
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @staticmethod
    def exists(path: str) -> bool:
        """Whether ``path`` holds a league database (a missing or empty file does not)."""
        return os.path.exists(path) and os.path.getsize(path) > 0

    @classmethod
    def read_header(cls, path: str) -> tuple[dict[str, Any], list[AgentRecord]]:
        """Configuration and agents of an existing league, without writing anything."""
        store = cls.open(path, readonly=True)
        try:
            return store.config, store.agents()
        finally:
            store.close()

    @classmethod
    def open(cls, path: str, *, readonly: bool = False) -> LeagueStorage:
        if not cls.exists(path):
            raise ValueError(f"no league database at {path!r}")
        conn = None
        try:
            conn = cls._connect(path, readonly)
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as e:
            if conn is not None:
                conn.close()
            if "not a database" in str(e).lower():
                raise ValueError(f"{path!r} is not a league database ({e})") from None
            raise ValueError(f"{path}: cannot open the league database: {describe_sqlite_error(e)}") from None
        if not {"meta", "agents", "matches", "match_seats"} <= tables:
            conn.close()
            raise ValueError(f"{path!r} is not a league database (tables {sorted(tables)})")
        store = cls(path, conn, readonly)
        try:
            version = store._meta("schema_version")
            if version != str(SCHEMA_VERSION):
                raise ValueError(f"{path!r}: league database schema {version}, this meeplezoo reads {SCHEMA_VERSION}")
            if not readonly:
                store._check_writable()
        except BaseException:
            conn.close()
            raise
        return store

    def _check_writable(self) -> None:
        """Fail now, not after the first match is played, when the file cannot be written (rolled back)."""
        with sqlite_errors(self.path, "write to the league database"):
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
            finally:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")

    @classmethod
    def create(cls, path: str, config: dict[str, Any], agents: Sequence[AgentRecord],
               target: int = 0) -> LeagueStorage:
        """A new league database at ``path`` (which must not hold one already), complete or not at all.

        Everything (schema, configuration, agents, ``target`` matches) is
        committed in one transaction to a temporary file in the same
        directory, which is then hard-linked to ``path`` (failing if ``path``
        appeared meanwhile) and removed.
        """
        if cls.exists(path):
            raise ValueError(f"{path!r} already exists; resume it or choose another path")
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise ValueError(f"cannot create {path!r}: directory {parent!r} does not exist")
        _remove_stale_temporaries(parent, os.path.basename(path))
        tmp = os.path.join(parent, f".{os.path.basename(path)}.creating-{os.getpid()}-{os.urandom(4).hex()}")
        try:
            with sqlite_errors(path, "create the league database"):
                conn = sqlite3.connect(tmp, isolation_level=None)
                try:
                    conn.execute("PRAGMA synchronous=FULL")
                    conn.execute("BEGIN IMMEDIATE")
                    for statement in _SCHEMA.split(";"):  # executescript would commit the open transaction
                        if statement.strip():
                            conn.execute(statement)
                    rows = {"schema_version": str(SCHEMA_VERSION), "config": canonical_json(config),
                            "config_hash": config_hash(config), "created_at": _now(),
                            "target_matches": str(int(target))}
                    conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", list(rows.items()))
                    conn.executemany("INSERT INTO agents(id, name, spec, files) VALUES (?, ?, ?, ?)",
                                     [(i, a.name, a.spec, canonical_json(a.files)) for i, a in enumerate(agents)])
                    conn.execute("COMMIT")
                finally:
                    conn.close()
                _fsync(tmp)
                cls._publish(tmp, path)
                _fsync(parent)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        return cls.open(path)

    @staticmethod
    def _publish(tmp: str, path: str) -> None:
        """Put the finished file ``tmp`` at ``path``, never over a league another process created meanwhile."""
        if os.path.exists(path) and os.path.getsize(path) == 0:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)  # an empty file holds no league (see exists)
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise ValueError(f"{path!r} was created by another process meanwhile; resume it with --resume "
                             "(resume=True) once that one is done, or choose another path") from None
        except OSError:  # a file system without hard links
            if os.path.exists(path):
                raise ValueError(f"{path!r} was created by another process meanwhile; choose another path") \
                    from None
            os.rename(tmp, path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> LeagueStorage:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        with sqlite_errors(self.path, "read the league database"):
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    @property
    def config(self) -> dict[str, Any]:
        return _json_column(self.path, "meta row 'config'", "value", self._meta("config") or "{}", dict)

    @property
    def config_hash(self) -> str:
        return self._meta("config_hash") or ""

    @property
    def target_matches(self) -> int:
        text = self._meta("target_matches") or "0"
        try:
            value = int(text)
        except ValueError:
            value = -1
        if value < 0:
            raise ValueError(f"{self.path}: meta row 'target_matches' holds {text!r}, not a number of matches")
        return value

    def agents(self) -> list[AgentRecord]:
        with sqlite_errors(self.path, "read the league's agents"):
            rows = self.conn.execute("SELECT id, name, spec, files FROM agents ORDER BY id").fetchall()
        return [AgentRecord(n, s, _json_column(self.path, f"agent {i} ({n!r})", "files", f, dict))
                for i, n, s, f in rows]

    def count(self) -> int:
        with sqlite_errors(self.path, "read the league database"):
            return int(self.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def indices(self) -> set[int]:
        with sqlite_errors(self.path, "read the league database"):
            return {r[0] for r in self.conn.execute("SELECT idx FROM matches")}

    def matches(self, *, with_actions: bool = True) -> list[StoredMatch]:
        """All matches in index order (a row that is not a match raises ValueError naming it and the column)."""
        cols = "idx, round, seed, seats, scores, placements, length, duration_s" + (", actions" if with_actions else "")
        with sqlite_errors(self.path, "read the league's matches"):
            rows = self.conn.execute(f"SELECT {cols} FROM matches ORDER BY idx").fetchall()
        return [self._match_from_row(row, with_actions) for row in rows]

    def _match_from_row(self, row: tuple, with_actions: bool) -> StoredMatch:
        idx = row[0]
        where = f"match {idx}"

        def column(i: int, name: str) -> list:
            return _json_column(self.path, where, name, row[i], list)

        agents, scores, placements = column(3, "seats"), column(4, "scores"), column(5, "placements")
        actions = column(8, "actions") if with_actions else []
        problems = []
        for name, value in (("idx", idx), ("round", row[1]), ("seed", row[2]), ("length", row[6])):
            if not is_int(value) or value < 0:
                problems.append(f"column {name!r} holds {value!r}, not an integer >= 0")
        if not all(isinstance(a, str) for a in agents):
            problems.append(f"column 'seats' holds {agents!r}, not agent names")
        if len(scores) != len(agents) or not all(is_int(v) or isinstance(v, float) for v in scores):
            problems.append(f"column 'scores' holds {scores!r}, not one number per seat")
        if len(placements) != len(agents) or not all(is_int(p) and 0 <= p < len(agents) for p in placements):
            problems.append(f"column 'placements' holds {placements!r}, not one place per seat")
        if not all(is_int(a) for a in actions):
            problems.append("column 'actions' holds something other than action numbers")
        if problems:
            raise ValueError(f"{self.path}: match {idx}: {problems[0]}; the database was changed by hand or damaged")
        return StoredMatch(index=idx, round=row[1], seed=row[2], agents=agents, scores=[float(v) for v in scores],
                           placements=placements, length=row[6], duration_s=row[7], actions=actions)

    # -- writing ----------------------------------------------------------------
    def _transaction(self) -> _Transaction:
        if self.readonly:
            raise ValueError(f"{self.path!r} was opened read-only")
        return _Transaction(self.conn)

    def set_target(self, matches: int) -> None:
        with sqlite_errors(self.path, "store the match target"), self._transaction():
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('target_matches', ?)", (str(matches),))

    def add_match(self, m: StoredMatch) -> None:
        """Write one match and its seats in a single transaction (a duplicate index raises ``ValueError``)."""
        ids = {name: i for i, name in enumerate(a.name for a in self.agents())}
        try:
            seat_ids = [ids[a] for a in m.agents]
        except KeyError as e:
            raise ValueError(f"match {m.index}: agent {e.args[0]!r} is not in this league") from None
        try:
            with sqlite_errors(self.path, f"store match {m.index} (the matches stored before it are kept; "
                                          "fix the problem and continue with --resume)"), self._transaction():
                self.conn.execute(
                    "INSERT INTO matches(idx, round, seed, seats, scores, placements, length, actions, duration_s, "
                    "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (m.index, m.round, m.seed, json.dumps(m.agents), json.dumps(m.scores), json.dumps(m.placements),
                     m.length, json.dumps(m.actions, separators=(",", ":")), m.duration_s, _now()),
                )
                self.conn.executemany(
                    "INSERT INTO match_seats(match_idx, seat, agent_id, score, placement) VALUES (?, ?, ?, ?, ?)",
                    [(m.index, s, seat_ids[s], m.scores[s], m.placements[s]) for s in range(len(m.agents))],
                )
        except ValueError as e:
            if "UNIQUE constraint" in str(e):
                raise ValueError(f"match {m.index} is already stored in {self.path!r}") from None
            raise


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rollback on error) on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:  # SQLite may have rolled back already (a full disk, an I/O error)
            self.conn.execute("ROLLBACK")


def _remove_stale_temporaries(parent: str, name: str) -> None:
    """Delete what creations of ``name`` killed half-way left behind (their process is gone)."""
    prefix = f".{name}.creating-"
    try:
        entries = os.listdir(parent)
    except OSError:
        return
    for entry in entries:
        if not entry.startswith(prefix):
            continue
        try:
            pid = int(entry[len(prefix):].split("-", 1)[0])
            os.kill(pid, 0)
        except ProcessLookupError:  # its creator died: nobody will finish it
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(parent, entry))
        except (ValueError, OSError):  # not ours to judge (alive, or another user's)
            continue


def _fsync(path: str) -> None:
    """Flush a file (or a directory entry) to disk where the OS allows it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


