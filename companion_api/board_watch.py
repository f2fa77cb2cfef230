"""What the camera sees set against what the record says: the table's *watch* state.

The record is the truth the board must match. At every rest a source reports what the camera
reads; where that differs from the board the record implies, and the difference is not an
attempt one turn can hold, the table shows **"board differs from the record"** with the cells
that differ, keeps watching, and returns to ``ok`` by itself once board and record agree again.

``GET /api/game`` and every ``state`` stream message carry it as ``"watch"``::

    {"status": "differs", "message": "board differs from the record", "since": 1733551200.5,
     "cells": [{"cell": "H8", "record": null, "seen": {"value": 11, "wild": false}}]}

A cell's ``record`` / ``seen`` is what lies there (``null``: nothing), in the game's own terms:
Triolet ``{"value": 11, "wild": false}`` (a wild: ``{"value": null, "wild": true}``), Trigon and
Blokus ``{"colour": "blue"}``, Triominos and Trio Domino ``{"values": [0, 1, 2]}`` with the cell
named ``"x,y"`` (``"x,y@F"`` on field F).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

WatchStatus = Literal["ok", "differs", "camera_lost", "waiting"]

#: The one line the phone shows for each status.
MESSAGES: dict[str, str] = {
    "ok": "",
    "differs": "board differs from the record",
    "camera_lost": "camera lost: waiting for it to come back",
    "waiting": "waiting for the camera",
}


@dataclass(frozen=True)
class CellDiff:
    """One cell where the camera and the record disagree."""

    cell: str
    record: Mapping[str, Any] | None
    seen: Mapping[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {"cell": self.cell,
                "record": None if self.record is None else dict(self.record),
                "seen": None if self.seen is None else dict(self.seen)}


@dataclass(frozen=True)
class Watch:
    """The table's watch state: ``ok``, or why the record is not being extended."""

    status: WatchStatus = "ok"
    cells: tuple[CellDiff, ...] = ()
    since: float | None = None
    message: str = ""

    @classmethod
    def of(cls, status: WatchStatus, cells: tuple[CellDiff, ...] = (), since: float | None = None) -> Watch:
        """A watch state with its standard message."""
        return cls(status=status, cells=cells, since=since, message=MESSAGES[status])

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "message": self.message or MESSAGES[self.status], "since": self.since,
                "cells": [c.to_json() for c in self.cells]}

    def same_as(self, other: Watch) -> bool:
        """Whether the phone would show the same thing (``since`` aside)."""
        return self.status == other.status and self.cells == other.cells
