"""Blokus Classic and Duo follower: a reading of the square board → place, illegal, cleared and undo
events, with the logic of :class:`~.piece_follower.PieceFollower` (one piece per turn; the engine
names the piece and its orientation from the new squares, K-L1…K-L4).

The reader names squares in the picture's frame (the board edge nearest the top of the picture
is the top edge, K-B1), while each colour starts in its own corner (K-L2: classic blue ``a20``,
Duo purple ``e10``). Which quarter turn takes the picture's frame to the engine's is settled by
the first piece: the one turn under which the first colour's piece covers its starting square.
After that, each reading is taken under the turn that shows the most laid squares in their
colours (a camera moved round the table, or looking along a diagonal where the picture's top
edge is a toss-up); the turn is looked for again if the first piece is taken back.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.blokus.events import BlokusPlace, place
from engine.core.events import EventMeta
from engine.core.session import Session
from vision.track.follower import committed_places
from vision.track.piece_follower import PieceFollower, _groups

F64 = NDArray[np.float64]


def turned(col: int, row: int, n: int, turns: int) -> tuple[int, int]:
    """Square ``(col, row from the top)`` of an ``n``×``n`` board after ``turns`` quarter turns
    clockwise."""
    for _ in range(turns % 4):
        col, row = n - 1 - row, col
    return col, row


def square_name(col: int, row: int, n: int) -> str:
    """K-B1 name of ``(col, row from the top)``."""
    return f"{'abcdefghijklmnopqrst'[col]}{n - row}"


def square_at(name: str, n: int) -> tuple[int, int]:
    """``(col, row from the top)`` of a K-B1 name (``ValueError`` off the board)."""
    col = "abcdefghijklmnopqrst"[:n].find(name[:1])
    row = n - int(name[1:]) if name[1:].isdigit() else -1
    if col < 0 or not 0 <= row < n:
        raise ValueError(f"{name!r} is not a square of a {n}×{n} board")
    return col, row


class BlokusFollower(PieceFollower):
    """Turns whole-board Blokus Classic or Duo readings into events (see the module docstring)."""

    PLACE = BlokusPlace
    MAX_PIECE = 5  # squares of the largest polyomino (K-B3)

    def __init__(self) -> None:
        super().__init__()
        #: quarter turns from the picture's frame to the engine's; ``None`` until the first piece
        self.turns: int | None = None

    def _place(self, state: Any, colour: str, cells: list[str], meta: EventMeta) -> BlokusPlace:
        return place(state.variant, colour, cells, meta=meta)

    def _names(self, reading: Any, n: int, turns: int) -> tuple[dict[str, str], dict[str, float]]:
        """The reading's squares named in the engine's frame after ``turns`` quarter turns."""
        seen: dict[str, str] = {}
        confidence: dict[str, float] = {}
        for c in reading.cells:
            try:
                col, row = square_at(str(c.cell), n)
            except ValueError:
                continue
            name = square_name(*turned(col, row, n, turns), n)
            seen[name] = str(c.colour)
            confidence[name] = float(c.confidence)
        return seen, confidence

    def _seen(self, session: Session, reading: Any) -> tuple[dict[str, str], dict[str, float]]:
        state: Any = session.state
        n = int(state.board.side)
        if committed_places(session, BlokusPlace):
            # the turn under which the reading shows the most laid squares in their colours (the
            # picture's frame flips when the camera is moved round the table or looks along a diagonal)
            laid = {c["cell"]: c["colour"] for c in state.board_json()["cells"]}
            best = self.turns or 0
            named = self._names(reading, n, best)
            agree = sum(named[0].get(c) == col for c, col in laid.items())
            for turns in range(4):
                other = self._names(reading, n, turns)
                score = sum(other[0].get(c) == col for c, col in laid.items())
                if score > agree:
                    best, named, agree = turns, other, score
            self.turns = best
            return named
        self.turns = None
        mover = state.to_move().colour
        for turns in range(4):
            seen, confidence = self._names(reading, n, turns)
            for colour, cells in _groups(state.pos.table.board, seen):
                if colour == mover and session.check(self._place(state, colour, sorted(cells), EventMeta())).legal:
                    self.turns = turns
                    return seen, confidence
        return self._names(reading, n, 0)

    def _geometry(self, reading: Any) -> tuple[dict[str, F64], F64] | None:
        corners = getattr(reading, "corners_px", ())
        if len(corners) != 4:
            return None
        n = 14 if str(getattr(reading, "game", "blokus")) == "blokus_duo" else 20
        units = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
        h = cv2.getPerspectiveTransform(units, np.asarray(corners, np.float32))
        verts: dict[str, F64] = {}
        for row in range(n):
            for col in range(n):
                name = square_name(*turned(col, row, n, self.turns or 0), n)
                verts[name] = np.array([[col, row], [col + 1, row], [col + 1, row + 1], [col, row + 1]], np.float64)
        return verts, np.asarray(h, np.float64)
