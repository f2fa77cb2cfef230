"""The tracker-backed table source: the tracker's and the table's event numbers kept in step.

Both sessions log every placement, illegal attempt, undo, correction and manual event in the same
order (docs/TRACKER.md "Tracker API for the server"), so their numbers agree; undos and corrections
are translated both ways through the maps.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import api_helpers as h
import numpy as np
from fastapi.testclient import TestClient

from companion_api.app import create_app
from companion_api.table import SourceContext, TableSource
from companion_api.tracker_source import TrackerSource
from engine.core import Event, Session


@dataclass
class Out:
    kind: str
    event: Event | None
    seq: int | None
    before_png: bytes | None = b"\x89PNG-before"
    after_png: bytes | None = b"\x89PNG-after"


class FakeTracker:
    """Plays a script: frame -> what the tracker reports; keeps a real engine session."""

    def __init__(self, script: dict[int, list[tuple[str, dict[str, Any]]]]) -> None:
        self.session = Session(h.header())
        self.script = script
        self.told: list[dict[str, Any]] = []

    def submit(self, event: Event) -> Any:
        self.told.append(event.to_json())
        return self.session.submit(event)

    def feed(self, index: int, t: float, image: Any) -> list[Out]:
        outs = []
        for kind, obj in self.script.get(index, []):
            event = h.TilesGame.parse_event(obj, h.header())
            entry = self.session.submit(event)  # illegal attempts are logged too (not applied)
            assert entry.verdict.legal == (kind != "illegal"), entry.to_json()
            outs.append(Out(kind, event, entry.seq))
        return outs


def frames(n: int, gate: dict[int, float]) -> Iterator[tuple[int, float, Any]]:
    """``n`` black frames; before frame ``i`` in ``gate`` wait that many seconds."""
    for i in range(n):
        time.sleep(gate.get(i, 0.0))
        yield i, i * 0.01, np.zeros((20, 20, 3), np.uint8)


def place(player: int, square: str, value: int) -> dict[str, Any]:
    return {"type": "place", "player": player, "tiles": [{"square": square, "value": value}]}


def test_seqs_are_translated_between_tracker_and_table(tmp_path: Path) -> None:
    fake = FakeTracker({
        2: [("place", place(0, "C3", 5))],
        4: [("illegal", place(1, "C3", 4))],
        12: [("place", place(0, "C4", 6))],  # player 1 exchanged by hand in between
        14: [("undo", {"type": "undo", "seq": 4})],
    })
    sources: list[TrackerSource] = []

    def make(ctx: SourceContext) -> TableSource:
        sources.append(TrackerSource("test", ctx, pace=False, frames=frames(20, {8: 0.6}),
                                     make_tracker=lambda _frames, _corners: fake))
        return sources[-1]

    app = create_app(h.settings(tmp_path / "t.sqlite3"), source_factory=make)
    with TestClient(app) as c:
        tok = app.state.tokens
        deadline = time.monotonic() + 5
        while len(c.get("/api/events", params={"token": tok.viewer}).json()["events"]) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        r = c.post("/api/events", json={"type": "exchange", "player": 1, "count": 2}, params={"token": tok.table})
        assert r.json()["seq"] == 3 and r.json()["legal"]
        while len(c.get("/api/events", params={"token": tok.viewer}).json()["events"]) < 5:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        events = c.get("/api/events", params={"token": tok.viewer}).json()["events"]
        assert app.state.table.source_error is None
    assert [(e["seq"], e["type"]) for e in events] == [(1, "place"), (2, "illegal"), (3, "exchange"),
                                                      (4, "place"), (5, "undo")]
    assert events[4]["target"] == 4 and events[4]["totals"] == [5, 0]  # the C4 placement taken back
    assert events[0]["evidence"] == "1" and events[1]["evidence"] == "2"
    assert fake.told == [{"type": "exchange", "player": 1, "count": 2, "source": "manual"}]
    assert fake.session.state.totals() == [5, 0]
    assert sources[0].to_table == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5}  # the illegal attempt is mapped too


def test_phone_amendments_of_illegal_attempts_and_corrections_keep_the_logs_in_step(tmp_path: Path) -> None:
    """An undo typed on the phone for an illegal attempt the tracker logged, and a tracker's own
    correction, carry the tracker's seqs: both logs keep the same numbers afterwards."""
    fake = FakeTracker({
        2: [("place", place(0, "C3", 5))],
        4: [("illegal", place(1, "C3", 4))],
        6: [("correct", {"type": "correct", "seq": 1, "event": place(0, "C3", 6)})],
        14: [("place", place(1, "C4", 7))],
    })
    sources: list[TrackerSource] = []

    def make(ctx: SourceContext) -> TableSource:
        sources.append(TrackerSource("test", ctx, pace=False, frames=frames(20, {8: 0.8}),
                                     make_tracker=lambda _f, _c: fake))
        return sources[-1]

    app = create_app(h.settings(tmp_path / "c.sqlite3"), source_factory=make)
    with TestClient(app) as c:
        t = {"token": app.state.tokens.table}
        deadline = time.monotonic() + 5
        while len(c.get("/api/events", params=t).json()["events"]) < 3:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        r = c.post("/api/events", json={"type": "undo", "seq": 2}, params=t)  # the illegal attempt
        assert r.json()["seq"] == 4
        while len(c.get("/api/events", params=t).json()["events"]) < 5:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        events = c.get("/api/events", params=t).json()["events"]
    assert [e["type"] for e in events][:3] == ["place", "illegal", "correct"]
    assert fake.told == [{"type": "undo", "seq": 2, "source": "manual"}]
    assert [e.seq for e in fake.session.entries] == [e["seq"] for e in events]  # same numbering
    assert sources[0].to_table == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5}
    assert events[4]["totals"] == fake.session.state.totals() == [6, 7]


def test_manual_amendments_reach_the_tracker_with_its_seq(tmp_path: Path) -> None:
    fake = FakeTracker({1: [("illegal", place(1, "A1", 3))]})  # table seq 1 = tracker seq 1

    def make(ctx: SourceContext) -> TableSource:
        return TrackerSource("test", ctx, pace=False, frames=frames(10, {3: 0.8}), make_tracker=lambda _f, _c: fake)

    app = create_app(h.settings(tmp_path / "m.sqlite3"), source_factory=make)
    with TestClient(app) as c:
        t = {"token": app.state.tokens.table}
        deadline = time.monotonic() + 5
        while not c.get("/api/events", params=t).json()["events"]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert c.post("/api/events", json=place(0, "A1", 3), params=t).json()["seq"] == 2
        assert c.post("/api/events", json={"type": "undo", "seq": 2}, params=t).json()["legal"]
        c.post("/api/events", json={"type": "undo", "seq": 1}, params=t)  # the tracker's illegal attempt
        while len(fake.told) < 3:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.1)
    assert fake.told == [{**place(0, "A1", 3), "source": "manual"}, {"type": "undo", "seq": 2, "source": "manual"},
                         {"type": "undo", "seq": 1, "source": "manual"}]
    assert fake.session.state.totals() == [0, 0]
