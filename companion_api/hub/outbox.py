"""The table's outbox: committed events the broker has not acknowledged yet, in the table's database.

A row is added when an event is committed and deleted when the broker acknowledges it (PUBACK), so
after an outage, or a restart of ``companion serve``, the table publishes what is left in commit
order. It uses its own connection to the table's SQLite file (WAL lets it sit beside the store's).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from ..store import connect

SCHEMA = """
CREATE TABLE IF NOT EXISTS hub_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    payload TEXT NOT NULL,
    UNIQUE (game_id, seq)
);
"""


@dataclass(frozen=True)
class OutboxRow:
    """One event waiting for the broker: its row id (commit order), game id, seq and JSON text."""

    id: int
    game_id: int
    seq: int
    payload: str


class Outbox:
    """Thread-safe queue of unacknowledged events kept in a SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self._lock = threading.Lock()
        self._db = connect(path)
        with self._lock:
            self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add(self, game_id: int, seq: int, payload: str) -> None:
        """Keep an event until the broker has it (a second add of the same event is ignored)."""
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO hub_outbox(game_id, seq, payload) VALUES (?, ?, ?)",
                             (game_id, seq, payload))

    def pending(self, after: int = 0, limit: int = 100) -> list[OutboxRow]:
        """Unacknowledged events with a row id above ``after``, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT id, game_id, seq, payload FROM hub_outbox WHERE id > ? "
                                    "ORDER BY id LIMIT ?", (after, limit)).fetchall()
        return [OutboxRow(int(r[0]), int(r[1]), int(r[2]), str(r[3])) for r in rows]

    def acknowledge(self, ids: list[int]) -> None:
        """The broker has these rows: forget them."""
        if not ids:
            return
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("DELETE FROM hub_outbox WHERE id = ?", [(i,) for i in ids])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM hub_outbox").fetchone()[0])
