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

from engine.core.events import Event, EventMeta
from engine.core.session import Entry, Session
from engine.core.verdict import Verdict

from .layout import GridLayout
from .observer import CellRead

Reread = Callable[[Sequence[str]], dict[str, CellRead]]


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
