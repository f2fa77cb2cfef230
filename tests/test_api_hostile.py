"""Hostile and broken requests are refused cleanly: the token before the body, size limits, strict
JSON, bounded fields, corners always validated, token rotation while serving, a private database."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import api_helpers as h
import pytest
from fastapi.testclient import TestClient

from companion_api.app import create_app
from companion_api.auth import current_tokens
from companion_api.limits import MAX_BODY_BYTES
from companion_api.tokens import REPAIR, rotate_tokens

WRITES = ["/api/events", "/api/games", "/api/corners"]


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(h.settings(tmp_path / "c.sqlite3"), use_source=False)
    with TestClient(app) as c:
        yield c


def write(c: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {current_tokens(c.app).table}", "Content-Type": "application/json"}


def view(c: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {current_tokens(c.app).viewer}"}


class Body:
    """A request body that counts how much of it the server pulled."""

    def __init__(self, size: int, chunk: int = 64 * 1024) -> None:
        self.size, self.chunk, self.sent = size, chunk, 0

    def __iter__(self) -> Iterator[bytes]:
        while self.sent < self.size:
            n = min(self.chunk, self.size - self.sent)
            self.sent += n
            yield b"x" * n


@pytest.mark.parametrize("path", WRITES)
def test_no_token_is_refused_before_the_body_is_read(client: TestClient, path: str) -> None:
    body = Body(20 * MAX_BODY_BYTES)
    r = client.post(path, content=body, headers={"Content-Length": str(body.size)})
    assert r.status_code == 401 and "token" in r.json()["detail"]
    assert body.sent <= 2 * body.chunk  # the test client hands over at most what it had buffered
    r = client.post(path, content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 401  # not 422: nobody without the token learns how bodies are read
    r = client.post(path, content=b"{not json", headers={**view(client), "Content-Type": "application/json"})
    assert r.status_code == 403 and "table token" in r.json()["detail"]


def test_a_declared_or_streamed_body_over_the_limit_is_413(client: TestClient) -> None:
    body = Body(20 * MAX_BODY_BYTES)
    r = client.post("/api/events", content=body, headers={**write(client), "Content-Length": str(body.size)})
    assert r.status_code == 413 and "larger than" in r.json()["detail"] and body.sent <= 2 * body.chunk
    chunked = Body(3 * MAX_BODY_BYTES)  # no Content-Length: counted as it arrives
    r = client.post("/api/events", content=chunked, headers=write(client))
    assert r.status_code == 413 and "larger than" in r.json()["detail"]
    r = client.post("/api/events", content=b"{}", headers={**write(client), "Content-Length": "1e9"})
    assert r.status_code == 400


@pytest.mark.parametrize(("raw", "words"), [
    (b'{"type": "exchange", "player": 0, "count": NaN}', "NaN"),
    (b'{"type": "exchange", "player": 0, "count": Infinity}', "Infinity"),
    (b'{"type": "exchange", "player": 0, "count": 1e400}', "too large"),
    (b'{"type": "exchange", "player": 0, "count": 99999999999999999999999}', "too large"),
    (b'{"type": "pass", "player": 0, "note": "\\ud800"}', "surrogate"),
    (b'{"type": "pass", "player": 0, "note": "\xff\xfe"}', "UTF-8"),
    (b'{"type": "pass", "player": 0' + b"}" * 3, "not valid JSON"),
    (b'{"type": "correct", "seq": 1, "event": ' * 100 + b"{}" + b"}" * 100, "nested"),
    (b"[" * 100_000 + b"]" * 100_000, "nested"),
])
def test_malformed_json_is_a_422_with_one_sentence(client: TestClient, raw: bytes, words: str) -> None:
    r = client.post("/api/events", content=raw, headers=write(client))
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and words in detail and "\n" not in detail and len(detail) < 300


def test_a_body_that_is_not_json_is_415(client: TestClient) -> None:
    r = client.post("/api/events", content=b"\xff\xfe type=pass", headers={
        **write(client), "Content-Type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.json()["detail"]


@pytest.mark.parametrize("body", [
    {"players": ["x" * 41]},
    {"players": ["A"] * 7},
    {"players": [""]},
    {"players": ["A", "B"], "first_player": 10**12},
    {"game": "g" * 500},
    {"options": {str(i): i for i in range(100)}},
    {"players": ["A", "B"], "colour": "red"},
])
def test_new_game_fields_are_bounded(client: TestClient, body: dict[str, Any]) -> None:
    r = client.post("/api/games", json=body, headers=write(client))
    assert r.status_code == 422 and isinstance(r.json()["detail"], str)
    assert client.get("/api/game", headers=view(client)).json()["players"] == ["P1", "P2"]


@pytest.mark.parametrize("corners", [
    [[10, 10], [float("nan"), 12], [188, 90], [12, 88]],
    [[10, 10], [1e308, 12], [188, 90], [12, 88]],
    [[10, 10], [-5, 12], [188, 90], [12, 88]],
    [[10, 10], [190, 12], [12, 88], [188, 90]],  # crossed: not in order round the board
    [[10, 10], [10, 10], [10, 10], [10, 10]],
])
def test_corners_are_validated_even_before_any_frame(client: TestClient, corners: list[list[float]]) -> None:
    raw = json.dumps({"corners": corners}).encode()  # NaN as Python writes it, not JSON
    r = client.post("/api/corners", content=raw, headers=write(client))
    assert r.status_code == 422 and isinstance(r.json()["detail"], str)
    assert client.get("/api/corners", headers=view(client)).json() == {"corners_px": None}
    good = {"corners": [[10, 10], [190, 12], [188, 90], [12, 88]]}
    ok = client.post("/api/corners", json=good, headers=write(client))
    assert ok.status_code == 201


def test_validation_errors_never_echo_the_input(client: TestClient) -> None:
    r = client.post("/api/games", json={"players": ["x" * 500_000]}, headers=write(client))
    assert r.status_code == 422 and len(r.content) < 2000
    assert all("input" not in e for e in r.json()["errors"])


@pytest.mark.parametrize("last", ["²", "٣", "-1", "1" * 40, "  ", "abc"])
def test_any_last_event_id_resumes_or_starts_over(client: TestClient, last: str) -> None:
    client.post("/api/events", json={"type": "place", "player": 0, "tiles": [{"square": "A1", "value": 1}]},
                headers=write(client))
    headers = {"Last-Event-ID": last.encode()}
    with client.stream("GET", "/api/stream", params={"token": current_tokens(client.app).viewer},
                       headers=headers) as r:
        assert r.status_code == 200
        msgs = h.parse_sse(r.iter_lines(), 2)
    assert [m["event"] for m in msgs] == ["place", "state"]


def test_rotated_tokens_stop_working_at_once_and_phones_are_told(client: TestClient, tmp_path: Path) -> None:
    old = current_tokens(client.app)
    with client.stream("GET", "/api/stream", params={"token": old.viewer}) as r:
        lines = r.iter_lines()
        assert [m["event"] for m in h.parse_sse(lines, 1)] == ["state"]
        new = rotate_tokens(tmp_path / "c.sqlite3")  # as `companion tokens --rotate` does, from outside
        assert new != old and current_tokens(client.app) == new
        assert client.get("/api/game", headers={"Authorization": f"Bearer {old.viewer}"}).status_code == 403
        r2 = client.post("/api/events", json={"type": "place", "player": 0, "tiles": [{"square": "A1", "value": 1}]},
                         headers={"Authorization": f"Bearer {old.table}"})
        assert r2.status_code == 403
        r3 = client.post("/api/events", json={"type": "place", "player": 0, "tiles": [{"square": "A1", "value": 1}]},
                         headers={"Authorization": f"Bearer {new.table}"})
        assert r3.status_code == 201
        msg = h.parse_sse(lines, 1)[0]  # the event wakes the old phone's stream: it is told to pair again
        assert msg["event"] == "tokens" and msg["data"] == {"detail": REPAIR}
    assert client.get("/api/game", headers={"Authorization": f"Bearer {new.viewer}"}).status_code == 200


def test_the_database_is_private(tmp_path: Path) -> None:
    db = tmp_path / "sub" / "p.sqlite3"
    app = create_app(h.settings(db), use_source=False)
    with TestClient(app) as c:
        c.post("/api/events", json={"type": "pass", "player": 0}, headers=write(c))
        for f in [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]:
            if f.exists():
                assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    old = tmp_path / "old.sqlite3"
    old.write_bytes(b"")
    old.chmod(0o644)
    rotate_tokens(old)
    assert stat.S_IMODE(old.stat().st_mode) == 0o600
