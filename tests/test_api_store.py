"""Persistence: every event committed on its own; a restart resumes the same game from SQLite."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import api_helpers as h
from fastapi.testclient import TestClient

from companion_api.app import create_app
from companion_api.store import Store


def test_store_uses_wal_and_keeps_tokens(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    store = Store(db)
    first = store.tokens()
    store.close()
    again = Store(db)
    assert again.tokens() == first and first.viewer != first.table
    assert again._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert again._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    again.close()


def test_events_are_append_only_per_game_and_seq(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.sqlite3")
    gid = store.create_game(h.header().to_json())
    store.append_event(gid, 1, {"type": "pass", "player": 0}, {"seq": 1}, b"a", b"b")
    try:
        store.append_event(gid, 1, {"type": "pass", "player": 1}, {"seq": 1})
    except sqlite3.IntegrityError:
        pass
    else:
        raise AssertionError("a second event 1 was accepted")
    assert [e.line for e in store.events(gid)] == [{"type": "pass", "player": 0}]
    assert store.evidence(gid, 1) == (b"a", b"b") and store.evidence(gid, 2) is None
    try:  # evidence must belong to a stored event (foreign key)
        store.append_event(gid + 5, 1, {"type": "pass"}, {}, b"x", None)
    except sqlite3.IntegrityError:
        pass
    else:
        raise AssertionError("an event of a missing game was accepted")
    store.close()


def test_restart_resumes_the_unfinished_game_with_the_same_events(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite3"
    app = create_app(h.settings(db), source_factory=h.sim_factory(0.02))
    with TestClient(app) as c:
        token = app.state.tokens.viewer
        deadline = time.monotonic() + 10
        while len(c.get("/api/events", params={"token": token}).json()["events"]) < 4:
            assert time.monotonic() < deadline
            time.sleep(0.02)
    before = Store(db)
    rows = before.events(before.latest_game().id)  # type: ignore[union-attr]
    before.close()
    assert len(rows) >= 4
    app2 = create_app(h.settings(db), use_source=False)
    with TestClient(app2) as c:
        assert app2.state.tokens.viewer == token
        events = c.get("/api/events", params={"token": token}).json()["events"]
        assert [e["seq"] for e in events] == [r.seq for r in rows]
        assert [{k: e[k] for k in r.line} for e, r in zip(events, rows, strict=True)] == [r.line for r in rows]
        assert [e["totals"] for e in events] == [r.verdict["totals"] for r in rows]  # the sim plays legally
        game = c.get("/api/game", params={"token": token}).json()
        assert game["totals"] == events[-1]["totals"] and game["id"] == rows[0].game_id


def test_simulated_table_resumes_its_racks_after_a_restart(tmp_path: Path) -> None:
    """The sim's racks and bag are stored with each event, so play goes on without illegal moves."""
    db = tmp_path / "s.sqlite3"
    for _ in range(2):
        app = create_app(h.settings(db), source_factory=h.sim_factory(0.01))
        with TestClient(app) as c:
            token = app.state.tokens.viewer
            n = len(c.get("/api/events", params={"token": token}).json()["events"])
            deadline = time.monotonic() + 10
            while len(c.get("/api/events", params={"token": token}).json()["events"]) < n + 3:
                assert time.monotonic() < deadline
                time.sleep(0.02)
    store = Store(db)
    rows = store.events(store.latest_game().id)  # type: ignore[union-attr]
    store.close()
    assert all(r.verdict["legal"] for r in rows)
    squares = [r.line["tiles"][0]["square"] for r in rows if r.line["type"] == "place"]
    assert len(squares) == len(set(squares))


def test_new_game_flag_abandons_the_unfinished_one(tmp_path: Path) -> None:
    db = tmp_path / "n.sqlite3"
    app = create_app(h.settings(db), use_source=False)
    with TestClient(app) as c:
        first = c.get("/api/game", params={"token": app.state.tokens.viewer}).json()["id"]
    app = create_app(h.settings(db, new_game=True), use_source=False)
    with TestClient(app) as c:
        second = c.get("/api/game", params={"token": app.state.tokens.viewer}).json()["id"]
    store = Store(db)
    assert second != first and store.game(first).status == "abandoned"  # type: ignore[union-attr]
    store.close()


def test_resume_picks_the_latest_unfinished_game_of_the_asked_game(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    a = store.create_game({"game": "triolet", "players": ["A", "B"]})
    b = store.create_game({"game": "trigon", "players": ["A", "B"]})
    c = store.create_game({"game": "triolet", "players": ["A", "B"]})
    store.set_status(c, "finished")
    assert store.latest_game(unfinished_only=True, game="triolet").id == a  # type: ignore[union-attr]
    assert store.latest_game(unfinished_only=True, game="trigon").id == b  # type: ignore[union-attr]
    assert store.latest_game(unfinished_only=True).id == b  # type: ignore[union-attr]
    assert store.latest_game().id == c  # type: ignore[union-attr]
    assert store.latest_game(unfinished_only=True, game="triominos") is None
    store.close()


def test_a_game_is_finished_once_ended_and_revealed(tmp_path: Path) -> None:
    db = tmp_path / "f.sqlite3"
    app = create_app(h.settings(db), source_factory=h.sim_factory(0.005))
    with TestClient(app) as c:
        token = app.state.tokens.viewer
        deadline = time.monotonic() + 15
        while (game := c.get("/api/game", params={"token": token}).json())["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.02)
        kinds = [e["type"] for e in c.get("/api/events", params={"token": token}).json()["events"]]
        assert game["ended"] and game["end_rule"] == "X-E" and kinds[-2:] == ["reveal", "reveal"]
        assert kinds.count("place") == h.PLACEMENTS_TO_END
    store = Store(db)
    assert store.game(game["id"]).status == "finished"  # type: ignore[union-attr]
    assert store.latest_game(unfinished_only=True, game=h.GAME) is None  # a restart starts a new game
    store.close()
