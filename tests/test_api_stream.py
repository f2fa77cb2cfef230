"""Live updates over Server-Sent Events: message shape, Last-Event-ID resume, then live events."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import api_helpers as h
import pytest
from fastapi.testclient import TestClient

from companion_api.app import create_app


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(h.settings(tmp_path / "s.sqlite3"), use_source=False)
    with TestClient(app) as c:
        yield c


def put(c: TestClient, player: int, square: str, value: int) -> None:
    body = {"type": "place", "player": player, "tiles": [{"square": square, "value": value}]}
    r = c.post("/api/events", json=body, headers={"Authorization": f"Bearer {c.app.state.tokens.table}"})  # type: ignore[attr-defined]
    assert r.status_code == 201


def stream(c: TestClient, **headers: str):  # type: ignore[no-untyped-def]
    return c.stream("GET", "/api/stream", params={"token": c.app.state.tokens.viewer},  # type: ignore[attr-defined]
                    headers=headers)


def test_stream_sends_the_game_then_state_then_live_events(client: TestClient) -> None:
    put(client, 0, "C3", 5)
    put(client, 1, "C3", 6)  # illegal
    with stream(client) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        lines = r.iter_lines()
        first = h.parse_sse(lines, 3)
        assert [(m["event"], m.get("id")) for m in first] == [("place", "1"), ("illegal", "2"), ("state", None)]
        assert first[0]["data"]["seq"] == 1 and first[0]["data"]["score"] == 5 and first[0]["data"]["totals"] == [5, 0]
        assert first[1]["data"]["reasons"][0]["rule"] == "X-P"
        assert first[2]["data"]["totals"] == [5, 0] and first[2]["data"]["turn"]["player"] == 1
        put(client, 1, "C4", 4)
        live = h.parse_sse(lines, 2)
        assert [(m["event"], m.get("id")) for m in live] == [("place", "3"), ("state", None)]
        assert live[0]["data"]["totals"] == [5, 4] and live[1]["data"]["seq"] == 3


def test_last_event_id_resumes_after_that_event(client: TestClient) -> None:
    for i, (p, sq) in enumerate([(0, "A1"), (1, "A2"), (0, "A3"), (1, "A4")]):
        put(client, p, sq, i + 1)
    with stream(client, **{"Last-Event-ID": "2"}) as r:
        lines = r.iter_lines()
        msgs = h.parse_sse(lines, 3)
        assert [m.get("id") for m in msgs] == ["3", "4", None]
        assert msgs[0]["data"]["tiles"] == [{"square": "A3", "value": 3}]
        put(client, 0, "A5", 9)
        live = h.parse_sse(lines, 1)
        assert live[0]["id"] == "5" and live[0]["data"]["totals"] == [1 + 3 + 9, 2 + 4]
    with stream(client, **{"Last-Event-ID": "5"}) as r:  # nothing missed: only the state
        msgs = h.parse_sse(r.iter_lines(), 1)
        assert msgs[0]["event"] == "state" and msgs[0]["data"]["seq"] == 5


def test_new_game_is_announced_with_id_zero(client: TestClient) -> None:
    put(client, 0, "A1", 1)
    with stream(client, **{"Last-Event-ID": "1"}) as r:
        lines = r.iter_lines()
        assert h.parse_sse(lines, 1)[0]["event"] == "state"
        auth = {"Authorization": f"Bearer {client.app.state.tokens.table}"}  # type: ignore[attr-defined]
        assert client.post("/api/games", json={"players": 3}, headers=auth).status_code == 201
        msg = h.parse_sse(lines, 1)[0]
        assert msg["event"] == "game" and msg["id"] == "0" and msg["data"]["totals"] == [0, 0, 0]
        put(client, 0, "B2", 3)
        assert h.parse_sse(lines, 1)[0]["id"] == "1"  # seqs restart with the new game


def test_stream_from_a_running_simulated_table(tmp_path: Path) -> None:
    app = create_app(h.settings(tmp_path / "live.sqlite3"), source_factory=h.sim_factory(0.05))
    with TestClient(app) as c, stream(c) as r:
        msgs = h.parse_sse(r.iter_lines(), 12, timeout=20)
        ids = [int(m["id"]) for m in msgs if m.get("id")]
        assert ids == sorted(ids) and len(set(ids)) == len(ids) and ids[0] == 1
        places = [m["data"] for m in msgs if m["event"] == "place"]
        assert places and all(p["source"] == "vision" and p["evidence"] == str(p["seq"]) for p in places)


def test_closed_streams_unsubscribe(client: TestClient) -> None:
    bus = client.app.state.bus  # type: ignore[attr-defined]
    with stream(client) as r:
        lines = r.iter_lines()  # kept: httpx2 closes the stream when a dropped line iterator is collected
        h.parse_sse(lines, 1)
        assert bus.subscribers == 1
    deadline = time.monotonic() + 5
    while bus.subscribers:
        assert time.monotonic() < deadline, "the closed stream is still subscribed"
        time.sleep(0.02)
