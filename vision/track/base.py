"""What every tracker offers its callers (``companion replay``, the server): frames in, outputs out,
manual events in, the summary line out."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

from numpy.typing import NDArray

from engine.core.events import Event
from engine.core.session import Entry, Session
from vision.track.observer import Frame
from vision.track.output import TrackerOutput


@dataclass(frozen=True)
class CellCheck:
    """One cell where what the camera sees is not what the record's board has there (``None``:
    nothing), in the game's own terms (Triolet ``{"value": 11, "wild": false}``)."""

    cell: str
    record: Mapping[str, Any] | None
    seen: Mapping[str, Any] | None


@dataclass(frozen=True)
class BoardCheck:
    """The board seen at the last rest set against the board the record implies.

    ``waiting``: no rest looked at yet; ``ok``: they agree (or differ only by an attempt being
    decided); ``differs``: ``cells`` lists where they disagree, and nothing is committed from
    those cells until they agree again or the players decide (a correction, an accepted reading).
    """

    status: Literal["waiting", "ok", "differs"] = "waiting"
    cells: tuple[CellCheck, ...] = ()


class _Timed(Protocol):
    frames: int
    seconds: float


S = TypeVar("S", bound=_Timed)


class TrackerBase(Generic[S]):
    """``feed`` / ``submit`` / ``summary_json`` over a subclass's ``_feed(frame)``; the subclass
    sets ``session`` (the engine log) and ``stats`` (with ``frames`` and ``seconds``)."""

    session: Session
    stats: S
    last_outputs: list[TrackerOutput]
    #: the board seen against the record's board, as of the last rest
    board_check: BoardCheck = BoardCheck()

    def feed(self, frame_index: int, t: float, image: NDArray[Any]) -> list[TrackerOutput]:
        """Look at one frame; return the events it completes (most frames: none)."""
        t0 = time.perf_counter()
        try:
            out = self._feed(Frame(frame_index, float(t), image))
        finally:
            self.stats.frames += 1
            self.stats.seconds += time.perf_counter() - t0
        self.last_outputs = out
        return out

    def _feed(self, frame: Frame) -> list[TrackerOutput]:
        raise NotImplementedError

    def submit(self, event: Event) -> Entry:
        """A manual event (from the phone): judged and logged in the tracker's session."""
        return self.session.submit(event)

    def summary_json(self) -> dict[str, Any]:
        """The summary line of INTERFACES §2 for the game so far."""
        return self.session.summary_json()
