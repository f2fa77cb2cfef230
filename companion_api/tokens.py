"""The table's tokens as they stand in the database now, and their rotation.

``companion tokens --rotate`` writes new tokens into the database while a server may be running
on it; the server reads the tokens on every request through ``LiveTokens``, so the old ones stop
working at the next request. ``LiveTokens`` keeps its own read connection and re-reads the two
rows only when SQLite's ``PRAGMA data_version`` says another connection changed the file.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from pathlib import Path

from .store import Store, Tokens

#: What a phone whose token was just replaced is told (the stream's ``tokens`` message).
REPAIR = "the table's tokens were changed: scan the table's new pairing code (or ask for the new link)"
#: What a read with an unknown token is answered (HTTP 403 ``detail``).
UNKNOWN_TOKEN = "this token is not valid for this table (if its tokens were changed, scan its new pairing code)"


def new_tokens() -> Tokens:
    """Fresh random tokens (the table token longer: it writes)."""
    return Tokens(viewer=secrets.token_urlsafe(12), table=secrets.token_urlsafe(18))


def rotate_tokens(db: str | Path) -> Tokens:
    """Replace the tokens kept in the database ``db`` (created if missing) by new ones."""
    store = Store(db)
    try:
        tokens = new_tokens()
        store.set_meta("viewer_token", tokens.viewer)
        store.set_meta("table_token", tokens.table)
        return tokens
    finally:
        store.close()


class LiveTokens:
    """The tokens of the database at ``path``, current at every call of ``get``."""

    def __init__(self, path: str | Path, first: Tokens) -> None:
        self._lock = threading.Lock()
        self._tokens = first
        self._version = -1
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA busy_timeout=1000")

    def get(self) -> Tokens:
        """The tokens as the database holds them now (the last ones read if it cannot be read)."""
        with self._lock:
            try:
                version = int(self._db.execute("PRAGMA data_version").fetchone()[0])
                if version != self._version:
                    rows = dict(self._db.execute(
                        "SELECT key, value FROM meta WHERE key IN ('viewer_token', 'table_token')").fetchall())
                    if "viewer_token" in rows and "table_token" in rows:
                        self._tokens = Tokens(viewer=str(rows["viewer_token"]), table=str(rows["table_token"]))
                    self._version = version
            except sqlite3.Error:
                pass  # busy or closed: keep the tokens read last
            return self._tokens

    def close(self) -> None:
        with self._lock:
            self._db.close()
