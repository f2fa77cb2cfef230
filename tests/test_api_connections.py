"""Floods of connections on a real server: unfinished headers time out, connections are capped,
phones are served again at once, a flood logs one line; ``companion tokens`` rotates."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import api_helpers as h
import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from companion_api.app import create_app
from companion_api.auth import current_tokens
from companion_api.cli import main
from companion_api.connections import FloodFilter, connection_cap, guarded_protocol

HEADER_TIMEOUT = 0.6
CAP = 24


@contextmanager
def guarded_server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    app = create_app(h.settings(tmp_path / "f.sqlite3"), use_source=False)
    port = h.free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", timeout_graceful_shutdown=1,
                            http=guarded_protocol(HEADER_TIMEOUT, CAP), timeout_keep_alive=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(5)


def half_headers(base: str, n: int) -> list[socket.socket]:
    port = int(base.rsplit(":", 1)[1])
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /api/game HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        socks.append(s)
    return socks


def closed_by_server(s: socket.socket, wait: float) -> bool:
    """Whether the server closes ``s`` within ``wait`` seconds (what it still sends is read first)."""
    deadline = time.monotonic() + wait
    try:
        while (left := deadline - time.monotonic()) > 0:
            s.settimeout(left)
            if s.recv(65536) == b"":
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        pass
    return False


def test_unfinished_headers_time_out_and_phones_are_served_again(tmp_path: Path) -> None:
    with guarded_server(tmp_path) as (base, app):
        viewer = {"Authorization": f"Bearer {current_tokens(app).viewer}"}
        socks = half_headers(base, CAP + 16)  # more than the cap: the last ones are refused at once
        try:
            assert closed_by_server(socks[-1], 2.0)
            held = socks[:CAP - 2]
            assert not closed_by_server(held[0], HEADER_TIMEOUT / 3)  # still waiting for its header
            t0 = time.monotonic()
            while True:  # a phone: refused while the cap is full, served once the stragglers are closed
                try:
                    r = httpx.get(base + "/api/game", headers=viewer, timeout=2.0)
                    if r.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() - t0 < HEADER_TIMEOUT + 3.0, "the phone was not served"
                time.sleep(0.05)
            assert all(closed_by_server(s, 2.0) for s in held)
        finally:
            for s in socks:
                s.close()
        # a kept-alive connection that starts a second header and stops is closed too
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            token = current_tokens(app).viewer
            s.sendall(f"GET /api/game HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
            time.sleep(0.3)
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            s.sendall(b"GET /api/game HTTP/1.1\r\nHo")
            t1 = time.monotonic()
            assert closed_by_server(s, 3.0) and time.monotonic() - t1 < HEADER_TIMEOUT + 1.0


def test_a_big_body_without_token_is_refused_on_a_real_socket(tmp_path: Path) -> None:
    with guarded_server(tmp_path) as (base, _app):
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 104857600\r\n\r\n" + b"x" * 65536)
            t0 = time.monotonic()
            head = s.recv(4096)
            assert head.startswith(b"HTTP/1.1 401") and time.monotonic() - t0 < 1.0
            assert closed_by_server(s, 2.0)  # the rest of the body is never waited for


def test_a_flood_logs_one_line_not_a_traceback_each() -> None:
    flt = FloodFilter(every=60)
    logger = logging.getLogger("test.flood")
    logger.propagate = False
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger.addHandler(Keep())
    logger.addFilter(flt)
    try:
        for _ in range(500):
            try:
                raise OSError(24, "Too many open files")
            except OSError:
                logger.error("socket.accept() out of system resource", exc_info=True)
        logger.warning("something else")
    finally:
        logger.removeFilter(flt)
    assert len(records) == 2 and records[0].exc_info is None and "out of system resource" in records[0].getMessage()
    assert records[1].getMessage() == "something else"


def test_connection_cap_stays_below_the_open_files() -> None:
    assert connection_cap(1024) < 1024 - 128 and connection_cap(1 << 20) == 2048 and connection_cap(10) >= 16


def test_tokens_command_rotates_and_a_server_notices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "t.sqlite3"
    app = create_app(h.settings(db), use_source=False)
    with TestClient(app) as c:
        old = current_tokens(app)
        assert main(["tokens", "--db", str(db)]) == 0
        assert f"table token: {old.table}" in capsys.readouterr().out
        assert main(["tokens", "--rotate", "--db", str(db)]) == 0
        out = capsys.readouterr().out
        assert old.table not in out and "table token: " in out
        new_table = out.split("table token: ")[1].split()[0]
        r = c.post("/api/events", json={"type": "pass", "player": 0}, headers={"Authorization": f"Bearer {old.table}"})
        assert r.status_code == 403
        r = c.post("/api/events", json={"type": "pass", "player": 0}, headers={"Authorization": f"Bearer {new_table}"})
        assert r.status_code in (201, 422)  # accepted past the guard (the game may judge the pass)
    assert main(["tokens", "--db", str(tmp_path / "none.sqlite3")]) == 2
    assert "no such database" in capsys.readouterr().err


