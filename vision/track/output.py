"""What the tracker reports: an accepted event, an illegal attempt, an undo, or a cleared attempt."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from numpy.typing import NDArray

from engine.core.events import Event
from engine.core.session import Entry
from engine.core.verdict import Verdict
from vision.track.evidence import png_bytes

Image = NDArray[Any]


@dataclass
class TrackerOutput:
    """One thing the tracker saw happen.

    ``kind``: ``place`` (committed), ``illegal`` (reported, not committed), ``undo`` (a committed
    placement taken back), ``correct`` (an earlier placement re-read: a ``Correct`` event) or
    ``cleared`` (an illegal attempt taken back; ``event`` is ``None``).
    ``entry`` is the tracker session's entry (seq, verdict, totals, next turn). ``before`` and
    ``after`` are BGR crops of the area (``before_png``/``after_png`` encode them on demand).
    """

    kind: str
    event: Event | None
    verdict: Verdict | None
    entry: Entry | None
    frame: int
    t: float
    cells: tuple[str, ...]
    before: Image | None = None
    after: Image | None = None
    confidence: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def seq(self) -> int | None:
        return None if self.entry is None else self.entry.seq

    @cached_property
    def before_png(self) -> bytes | None:
        return png_bytes(self.before)

    @cached_property
    def after_png(self) -> bytes | None:
        return png_bytes(self.after)

    def to_json(self) -> dict[str, Any]:
        """The line ``companion replay`` prints (INTERFACES §4): the record form with ``frame``,
        ``ts``, ``score`` and ``totals``; illegal attempts as ``{"type": "illegal", …, "reasons"}``."""
        out: dict[str, Any] = {}
        if self.event is not None:
            out.update(self.event.to_json())
        if self.kind == "illegal":
            out["type"] = "illegal"
            out["attempt"] = self.event.type if self.event is not None else None
        elif self.kind == "cleared":
            out["type"] = "cleared"
            out["cells"] = list(self.cells)
        out["frame"] = self.frame
        out["ts"] = round(self.t, 3)
        if self.verdict is not None:
            if self.kind == "illegal":
                out["reasons"] = [r.to_json() for r in self.verdict.reasons]
            else:
                out["score"] = self.verdict.score
        if self.entry is not None and self.kind != "illegal":
            out["totals"] = list(self.entry.totals)
            out["next"] = self.entry.turn.to_json()
        out.update(self.extra)
        return out
