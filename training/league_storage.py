"""SQLite storage of a league: its configuration, its agents and every match.

One file (the user's ``--db`` path) holds a whole league, so it can be copied,
inspected with ``sqlite3`` and resumed anywhere.  Every match is written in
its own transaction (the ``matches`` row and its ``match_seats`` rows
together) in WAL mode with ``synchronous=FULL``: a league killed at any
instant, even by SIGKILL, holds only whole matches, and a resumed league
re-derives everything else (schedule, ratings) from them.

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

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

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
        try:
            conn = cls._connect(path, readonly)
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as e:
            raise ValueError(f"{path!r} is not a league database ({e})") from None
        if not {"meta", "agents", "matches", "match_seats"} <= tables:
            conn.close()
            raise ValueError(f"{path!r} is not a league database (tables {sorted(tables)})")
        store = cls(path, conn, readonly)
        version = store._meta("schema_version")
        if version != str(SCHEMA_VERSION):
            conn.close()
            raise ValueError(f"{path!r}: league database schema {version}, this meeplezoo reads {SCHEMA_VERSION}")
        return store

    @classmethod
    def create(cls, path: str, config: dict[str, Any], agents: Sequence[AgentRecord]) -> LeagueStorage:
        """A new league database at ``path`` (which must not hold one already)."""
        if cls.exists(path):
            raise ValueError(f"{path!r} already exists; resume it or choose another path")
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise ValueError(f"cannot create {path!r}: directory {parent!r} does not exist")
        conn = cls._connect(path, readonly=False)
        store = cls(path, conn, readonly=False)
        with store._transaction():
            for statement in _SCHEMA.split(";"):  # executescript would commit the open transaction
                if statement.strip():
                    conn.execute(statement)
            rows = {"schema_version": str(SCHEMA_VERSION), "config": canonical_json(config),
                    "config_hash": config_hash(config), "created_at": _now(), "target_matches": "0"}
            conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", list(rows.items()))
            conn.executemany("INSERT INTO agents(id, name, spec, files) VALUES (?, ?, ?, ?)",
                             [(i, a.name, a.spec, canonical_json(a.files)) for i, a in enumerate(agents)])
        return store

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> LeagueStorage:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    @property
    def config(self) -> dict[str, Any]:
        return json.loads(self._meta("config") or "{}")

    @property
    def config_hash(self) -> str:
        return self._meta("config_hash") or ""

    @property
    def target_matches(self) -> int:
        return int(self._meta("target_matches") or 0)

    def agents(self) -> list[AgentRecord]:
        rows = self.conn.execute("SELECT name, spec, files FROM agents ORDER BY id").fetchall()
        return [AgentRecord(n, s, json.loads(f)) for n, s, f in rows]

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def indices(self) -> set[int]:
        return {r[0] for r in self.conn.execute("SELECT idx FROM matches")}

    def matches(self, *, with_actions: bool = True) -> list[StoredMatch]:
        """All matches in index order."""
        cols = "idx, round, seed, seats, scores, placements, length, duration_s" + (", actions" if with_actions else "")
        out = []
        for row in self.conn.execute(f"SELECT {cols} FROM matches ORDER BY idx"):
            out.append(StoredMatch(
                index=row[0], round=row[1], seed=row[2], agents=json.loads(row[3]), scores=json.loads(row[4]),
                placements=json.loads(row[5]), length=row[6], duration_s=row[7],
                actions=json.loads(row[8]) if with_actions else [],
            ))
        return out

    # -- writing ----------------------------------------------------------------
    def _transaction(self) -> _Transaction:
        if self.readonly:
            raise ValueError(f"{self.path!r} was opened read-only")
        return _Transaction(self.conn)

    def set_target(self, matches: int) -> None:
        with self._transaction():
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('target_matches', ?)", (str(matches),))

    def add_match(self, m: StoredMatch) -> None:
        """Write one match and its seats in a single transaction (a duplicate index raises ``ValueError``)."""
        ids = {name: i for i, name in enumerate(a.name for a in self.agents())}
        try:
            seat_ids = [ids[a] for a in m.agents]
        except KeyError as e:
            raise ValueError(f"match {m.index}: agent {e.args[0]!r} is not in this league") from None
        try:
            with self._transaction():
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
        except sqlite3.IntegrityError as e:
            raise ValueError(f"match {m.index} is already stored in {self.path!r} ({e})") from None


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rollback on error) on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
