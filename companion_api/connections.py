"""Connection limits of ``companion serve``: what uvicorn offers, and the header timeout it lacks.

uvicorn (0.30 and later) times out a kept-alive connection between requests
(``timeout_keep_alive``) and answers 503 past ``limit_concurrency``, but only once a request's
header is complete: a socket that sends half a header is kept open forever, and enough of them
use up the process's open files, after which nothing is accepted (asyncio logs a traceback for
every refused ``accept``). So:

- ``guarded_protocol`` is uvicorn's h11 protocol with a header timeout: a connection whose
  request header is not complete ``header_timeout`` seconds after it opened (or after its first
  byte following a finished request) is closed; and with a cap: past ``max_connections`` open
  connections a new one is closed at once, so the open files never run out;
- ``raise_open_files`` lifts the soft open-files limit to the hard one, and ``connection_cap``
  keeps the cap below it with room for the database, the camera and the pictures, and for the
  ``BACKLOG`` connections asyncio accepts at once before any of them can be closed;
- ``FloodFilter`` turns the repeated complaints of a flood (asyncio's "out of system resource"
  tracebacks, uvicorn's warnings) into one line per minute.
"""

from __future__ import annotations

import logging
import resource
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a client has to send a complete request header.
HEADER_TIMEOUT = 5.0
#: Open files kept free for everything but connections (database, camera, pictures, logs).
RESERVED_FILES = 64
#: Listening backlog; also how many connections asyncio accepts in one go before the cap can
#: close the extra ones, so the cap keeps that many files free as well.
BACKLOG = 128
#: Most connections served at once whatever the open-files limit (phones hold one each).
MAX_CONNECTIONS = 2048
#: Largest request header (bytes), as h11 counts it.
MAX_HEADER_BYTES = 16 * 1024

log = logging.getLogger("companion.connections")


def raise_open_files() -> int:
    """Lift the soft open-files limit to the hard one (where allowed); the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return int(soft) if soft != resource.RLIM_INFINITY else 1 << 20


def connection_cap(open_files: int, wanted: int = MAX_CONNECTIONS) -> int:
    """How many connections may be open at once with ``open_files`` files allowed."""
    return max(16, min(wanted, open_files - RESERVED_FILES - BACKLOG))


class FloodFilter(logging.Filter):
    """Lets through one record per ``every`` seconds of each repeated kind, without its
    traceback, saying how many were held back; other records pass unchanged."""

    KINDS = ("out of system resource", "Too many open files", "Exceeded concurrency limit",
             "Invalid HTTP request received")

    def __init__(self, every: float = 60.0) -> None:
        super().__init__()
        self.every = every
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" {record.exc_info[1]}"
        kind = next((k for k in self.KINDS if k in text), None)
        if kind is None:
            return True
        now = time.monotonic()
        if now - self._last.get(kind, -1e9) < self.every:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        held = self._held.pop(kind, 0)
        self._last[kind] = now
        record.msg = f"companion serve: {kind.lower()} (a flood of connections?)" + (
            f"; {held} more like it in the last {self.every:.0f} s" if held else "")
        record.args = ()
        record.exc_info = None
        record.exc_text = None
        return True


def install_flood_filter(every: float = 60.0) -> FloodFilter:
    """One ``FloodFilter`` on the loggers a flood fills (asyncio, uvicorn.error)."""
    flt = FloodFilter(every)
    for name in ("asyncio", "uvicorn.error", "companion.connections"):
        logging.getLogger(name).addFilter(flt)
    return flt


def guarded_protocol(header_timeout: float = HEADER_TIMEOUT, max_connections: int = MAX_CONNECTIONS) -> type[Any]:
    """uvicorn's h11 protocol class with a header timeout and a connection cap (module docstring);
    give it to ``uvicorn.Config(http=...)``."""

    class GuardedH11Protocol(H11Protocol):
        """One HTTP connection: closed when its request header is late, or refused when too many."""

        _header_timer: Any = None

        def connection_made(self, transport: Any) -> None:
            if len(self.server_state.connections) >= max_connections:
                self.transport = transport
                log.warning("Exceeded concurrency limit: %d connections open, a new one refused",
                            len(self.server_state.connections))
                transport.abort()
                return
            super().connection_made(transport)
            self._arm_header_timer()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self._arm_header_timer()  # bytes of a next request: its header must come in time
            else:
                self._cancel_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_header_timer()
            if self.flow is None:  # refused in connection_made: nothing was set up
                return
            super().connection_lost(exc)

        def _arm_header_timer(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(header_timeout, self._header_late)

        def _cancel_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _header_late(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol
