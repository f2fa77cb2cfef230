"""SQLite persistence of games, their append-only event logs, evidence pictures and settings.

Every event is committed in its own transaction together with its evidence, so a crash (even
``kill -9``) loses nothing that was committed. WAL journal, ``synchronous=FULL``, foreign keys on.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    header TEXT NOT NULL,
    created REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished', 'abandoned')),
    source_state TEXT
);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    verdict TEXT NOT NULL,
    ts REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS evidence (
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    before_png BLOB,
    after_png BLOB,
    PRIMARY KEY (game_id, seq),
    FOREIGN KEY (game_id, seq) REFERENCES events(game_id, seq)
);
"""


@dataclass(frozen=True)
class GameRow:
    """One stored game: its database id, header line (JSON object), creation time and status."""

    id: int
    header: dict[str, Any]
    created: float
    status: str
    source_state: dict[str, Any] | None


@dataclass(frozen=True)
class EventRow:
    """One stored event: the record line, the verdict (check line) at commit time, commit time."""

    game_id: int
    seq: int
    line: dict[str, Any]
    verdict: dict[str, Any]
    ts: float


@dataclass(frozen=True)
class Tokens:
    """The viewer (read) and table (write) tokens of this companion."""

    viewer: str
    table: str



def connect(path: str | Path) -> sqlite3.Connection:
    """A connection to the table's database as every writer of it uses one: shared between threads
    (callers lock), autocommit, write-ahead log, every commit synced, waiting up to 5 s for a lock."""
    db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA busy_timeout=5000")
    return db

class Store:
    """A SQLite database file shared by the table loop and the HTTP handlers (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        on_disk = str(path) != ":memory:"
        if on_disk:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            private_file(self.path)  # it holds the tokens: the owner's alone (SQLite gives -wal/-shm its mode)
        self._lock = threading.RLock()
        self._db = connect(path)
        if on_disk:
            for suffix in ("-wal", "-shm"):
                side = self.path.with_name(self.path.name + suffix)
                if side.exists():
                    private_file(side)
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- settings ------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                             "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def tokens(self) -> Tokens:
        """The tokens of this database, created on first use and kept across restarts."""
        with self._lock:
            viewer = self.get_meta("viewer_token")
            table = self.get_meta("table_token")
            if viewer is None:
                viewer = secrets.token_urlsafe(12)
                self.set_meta("viewer_token", viewer)
            if table is None:
                table = secrets.token_urlsafe(18)
                self.set_meta("table_token", table)
        return Tokens(viewer=viewer, table=table)

    # -- games ---------------------------------------------------------------------------------
    def create_game(self, header: dict[str, Any]) -> int:
        """Store a new game (status ``playing``) and return its id."""
        with self._lock:
            cur = self._db.execute("INSERT INTO games(header, created, status) VALUES (?, ?, 'playing')",
                                   (json.dumps(header, ensure_ascii=False), time.time()))
            assert cur.lastrowid is not None
            return int(cur.lastrowid)

    def set_status(self, game_id: int, status: str) -> None:
        with self._lock:
            self._db.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))

    def game(self, game_id: int) -> GameRow | None:
        with self._lock:
            row = self._db.execute("SELECT id, header, created, status, source_state FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
        return None if row is None else _game_row(row)

    def latest_game(self, unfinished_only: bool = False, game: str | None = None) -> GameRow | None:
        """The newest game (only among those still ``playing`` when ``unfinished_only``; of ``game``)."""
        where = ["1"]
        if unfinished_only:
            where.append("status = 'playing'")
        if game is not None:
            where.append("json_extract(header, '$.game') = ?")
        with self._lock:
            row = self._db.execute(f"SELECT id, header, created, status, source_state FROM games "
                                   f"WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT 1",
                                   () if game is None else (game,)).fetchone()
        return None if row is None else _game_row(row)

    def games(self, limit: int = 100) -> list[tuple[GameRow, int]]:
        """The newest games first, each with its number of events."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.header, g.created, g.status, NULL, "
                "(SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) "
                "FROM games g ORDER BY g.id DESC LIMIT ?", (limit,)).fetchall()
        return [(_game_row(r[:5]), int(r[5])) for r in rows]

    # -- events --------------------------------------------------------------------------------
    def append_event(self, game_id: int, seq: int, line: dict[str, Any], verdict: dict[str, Any],
                     before_png: bytes | None = None, after_png: bytes | None = None,
                     source_state: dict[str, Any] | None = None, status: str | None = None) -> float:
        """Commit one event (with its evidence and the source's checkpoint) in one transaction.

        Returns the commit time (seconds since the epoch).
        """
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT INTO events(game_id, seq, line, verdict, ts) VALUES (?, ?, ?, ?, ?)",
                                 (game_id, seq, json.dumps(line, ensure_ascii=False),
                                  json.dumps(verdict, ensure_ascii=False), now))
                if before_png is not None or after_png is not None:
                    self._db.execute("INSERT INTO evidence(game_id, seq, before_png, after_png) VALUES (?, ?, ?, ?)",
                                     (game_id, seq, before_png, after_png))
                if source_state is not None:
                    self._db.execute("UPDATE games SET source_state = ? WHERE id = ?",
                                     (json.dumps(source_state), game_id))
                if status is not None:
                    self._db.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return now

    def events(self, game_id: int, since: int = 0) -> list[EventRow]:
        """The events of a game with ``seq > since``, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT game_id, seq, line, verdict, ts FROM events "
                                    "WHERE game_id = ? AND seq > ? ORDER BY seq", (game_id, since)).fetchall()
        return [EventRow(int(r[0]), int(r[1]), json.loads(r[2]), json.loads(r[3]), float(r[4])) for r in rows]

    def evidence_seqs(self, game_id: int) -> set[int]:
        """The seqs of a game's events that have pictures."""
        with self._lock:
            rows = self._db.execute("SELECT seq FROM evidence WHERE game_id = ?", (game_id,)).fetchall()
        return {int(r[0]) for r in rows}

    def evidence(self, game_id: int, seq: int) -> tuple[bytes | None, bytes | None] | None:
        """The before/after PNGs of an event, or ``None`` when none were stored."""
        with self._lock:
            row = self._db.execute("SELECT before_png, after_png FROM evidence WHERE game_id = ? AND seq = ?",
                                   (game_id, seq)).fetchone()
        if row is None:
            return None
        return (None if row[0] is None else bytes(row[0]), None if row[1] is None else bytes(row[1]))


def private_file(path: Path) -> None:
    """Create ``path`` readable and writable by its owner only (mode 0600), or make it so."""
    os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)


def _game_row(row: tuple[Any, ...]) -> GameRow:
    state = None if row[4] is None else json.loads(row[4])
    return GameRow(id=int(row[0]), header=json.loads(row[1]), created=float(row[2]), status=str(row[3]),
                   source_state=state)
