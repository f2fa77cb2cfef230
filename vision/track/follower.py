"""Game followers: turn what the camera sees into engine events (one follower per game).

A follower compares the tiles seen with the committed position of a ``Session`` and submits
what changed: placements (legal ones are applied, illegal attempts are logged and not
applied), and undos when committed tiles are taken back. It never asks who moved: the engine
says whose turn it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from engine.core.events import Event, EventMeta, Undo
from engine.core.session import Entry, Session
from engine.core.verdict import Verdict
from vision.track.base import CellCheck
from vision.track.layout import GridLayout
from vision.track.observer import CellRead

Reread = Callable[[Sequence[str]], dict[str, CellRead]]
#: which of the given picture points (N×2 px) lie where the picture has changed
Fresh = Callable[[NDArray[np.float64]], NDArray[np.bool_]]


@dataclass
class Decision:
    """One thing the follower decided: ``kind`` is ``place``, ``illegal``, ``undo``, ``correct`` or
    ``cleared``.

    ``entry`` is the session entry it made (``None`` for ``cleared``); ``cells`` the cells
    involved (for evidence); ``extra`` fields added to the output line (e.g. ``wild_pending``).
    """

    kind: str
    event: Event | None
    verdict: Verdict | None
    entry: Entry | None
    cells: tuple[str, ...]
    confidence: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict)
    #: the picture area of the move (x0, y0, x1, y1), for evidence, where cells name no board squares
    region_px: tuple[float, float, float, float] | None = None


class Follower(Protocol):
    """What the tracker needs from a game follower."""

    layout: GridLayout
    #: video time at which the follower wants another look though nothing moved (a placement it
    #: holds while deciding), or ``None``
    recheck_at: float | None

    def committed_cells(self, session: Session) -> dict[str, str]:
        """Occupied cells of the committed position with their tokens."""
        ...

    def watch_cells(self, session: Session, seen: dict[str, CellRead]) -> list[str]:
        """Cells to look at again after every rest, changed or not (tiles that may have been
        swapped for look-alikes under the hand: an uncommitted attempt, the last placement)."""
        ...

    def decide(self, session: Session, seen: dict[str, CellRead], reread: Reread, meta: EventMeta
               ) -> list[Decision]:
        """Submit to ``session`` what the seen board implies; return what was decided."""
        ...

    def board_check(self, session: Session, seen: dict[str, CellRead]) -> list[CellCheck]:
        """The cells where the board seen is not the record's board (none: they agree)."""
        ...

    def on_manual(self, session: Session, event: Event, seen: dict[str, CellRead]) -> bool:
        """A manual event now in ``session``; whether the board should be checked again."""
        ...

    def trust_record(self, session: Session, cells: Sequence[str], seen: dict[str, CellRead]) -> bool:
        """The players say the record is right on ``cells``; whether the board should be checked again."""
        ...


def committed_places(session: Session, kind: type[Event]) -> list[tuple[int, Any]]:
    """The committed (legal, not undone) placements of type ``kind`` with their seqs, as they
    now stand after corrections, in play order."""
    return [(seq, ev) for seq, ev in session.effective_events()
            if isinstance(ev, kind) and session.entries[seq - 1].verdict.legal]


def undo_decision(session: Session, seq: int, event: Event, cells: tuple[str, ...], meta: EventMeta,
                  region_px: tuple[float, float, float, float] | None = None, **extra: Any) -> Decision | None:
    """Submit an ``undo`` of the placement ``seq`` (``event``); the decision, or ``None`` if the
    engine refuses it."""
    undo = Undo(player=event.player, seq=seq, meta=meta)
    entry = session.submit(undo)
    if not entry.verdict.legal:
        return None
    return Decision("undo", undo, entry.verdict, entry, cells, extra={"undone": event.to_json(), **extra},
                    region_px=region_px)


class SeenTwice:
    """A finding acted on only when the same one is made at two looks in a row (a misread
    rarely repeats; a player's move stays)."""

    def __init__(self) -> None:
        self.key: Any = None

    def reset(self) -> None:
        self.key = None

    def confirmed(self, key: Any) -> bool:
        """Whether ``key`` was also the finding at the last look (then forgotten); else remember it
        (``None``, nothing found, forgets)."""
        if key is not None and key == self.key:
            self.key = None
            return True
        self.key = key
        return False


def corrected_trial(session: Session, correct: Event) -> Session | None:
    """A copy of ``session`` with ``correct`` applied, if the engine takes it and every event keeps
    its verdict (legal stays legal, refused stays refused); else ``None``."""
    trial = Session(session.header)
    for e in session.entries:
        trial.submit(e.event)
    before = [e.verdict.legal for e in trial.entries]
    if not trial.submit(correct).verdict.legal:
        return None
    if [e.verdict.legal for e in trial.entries[:len(before)]] != before:
        return None
    return trial
