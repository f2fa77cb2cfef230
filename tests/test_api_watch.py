"""The table's watch state: what the camera sees against the record, shown on /api/game and streamed."""

from __future__ import annotations

from companion_api.board_watch import CellDiff, Watch
from companion_api.events_bus import EventBus, Message
from companion_api.store import Store
from companion_api.table import Observation, Table, header_for


class RecordingBus(EventBus):
    """A bus that keeps what is published (no subscribers needed)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[Message] = []

    def publish(self, message: Message) -> None:
        self.sent.append(message)


def make_table(tmp_path) -> Table:  # type: ignore[no-untyped-def]
    return Table(Store(tmp_path / "t.sqlite3"), RecordingBus(), None, header_for("triolet", ["Ann", "Bob"]))


def test_watch_starts_ok_and_is_shown(tmp_path) -> None:  # type: ignore[no-untyped-def]
    table = make_table(tmp_path)
    assert table.game_json()["watch"] == {"status": "ok", "message": "", "since": None, "cells": []}


def test_a_source_reports_a_difference_and_it_clears(tmp_path) -> None:  # type: ignore[no-untyped-def]
    table = make_table(tmp_path)
    sent = table.bus.sent  # type: ignore[attr-defined]
    diff = Watch.of("differs", (CellDiff("H8", None, {"value": 11, "wild": False}),), since=5.0)
    table.submit(Observation(event=None, watch=diff))
    shown = table.game_json()["watch"]
    assert shown["status"] == "differs" and shown["message"] == "board differs from the record"
    assert shown["cells"] == [{"cell": "H8", "record": None, "seen": {"value": 11, "wild": False}}]
    assert len(sent) == 1  # one state message for the change
    table.submit(Observation(event=None, watch=Watch.of("differs", diff.cells, since=9.0)))
    assert len(sent) == 1  # the same difference again is not news
    table.submit(Observation(event=None, watch=Watch()))
    assert table.game_json()["watch"]["status"] == "ok" and len(sent) == 2
