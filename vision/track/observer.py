"""What the tracker needs from a board reader: the ``BoardObserver`` protocol and its data.

The tracker never looks inside a reader. An observer locates the board (returning a
:class:`BoardFix`: a homography from board units to image pixels) and reads a set of cells,
returning per cell a short list of ``(token, probability)`` candidates, best first. Tokens are
game-specific strings; Triolet uses ``"empty"``, ``"wild"`` and ``"0"``…``"15"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
Image = NDArray[Any]

EMPTY = "empty"
WILD = "wild"


@dataclass(frozen=True)
class Frame:
    """One picture of a stream: its index, its time in seconds from the start, the BGR image."""

    index: int
    t: float
    image: Image


@dataclass(frozen=True)
class BoardFix:
    """Where the board is in one picture.

    ``homography`` maps board units to image pixels: one unit is one square, the playing area is
    ``[0, size]²`` with cell ``(column, row)`` at ``[column, column + 1] × [row, row + 1]``.
    ``corners_px`` are the images of the playing area's corners (0,0), (size,0), (size,size),
    (0,size), in that order; cell names follow that frame (for Triolet ``A1`` at (0, 0)).
    """

    homography: F64
    corners_px: tuple[tuple[float, float], ...]
    size: int = 15
    confidence: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @staticmethod
    def from_corners(corners: Sequence[Sequence[float]] | F64, size: int = 15, confidence: float = 1.0,
                     **extra: Any) -> BoardFix:
        """A fix from the 4 playing-area corners in frame order (A1 corner first, then along row 1)."""
        pts = np.asarray(corners, np.float64).reshape(4, 2)
        src = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
        h = np.asarray(cv2.getPerspectiveTransform(src, pts.astype(np.float32)), np.float64)
        return BoardFix(h, tuple((float(x), float(y)) for x, y in pts), size, confidence, dict(extra))

    def corners_array(self) -> F64:
        return np.asarray(self.corners_px, np.float64).reshape(4, 2)

    def square_px(self) -> float:
        """Average side of one square in pixels."""
        c = self.corners_array()
        perimeter = sum(float(np.linalg.norm(c[(i + 1) % 4] - c[i])) for i in range(4))
        return perimeter / (4 * self.size)

    def rotated(self, quarter_turns: int) -> BoardFix:
        """The same board with its frame turned: corner ``k`` of the result is corner ``k + quarter_turns``."""
        c = np.roll(self.corners_array(), -quarter_turns, axis=0)
        return BoardFix.from_corners(c, self.size, self.confidence, **self.extra)


@dataclass(frozen=True)
class CellRead:
    """A reader's view of one cell: candidates ``(token, probability)``, best first."""

    cell: str
    candidates: tuple[tuple[str, float], ...]

    @property
    def best(self) -> str:
        return self.candidates[0][0] if self.candidates else EMPTY

    @property
    def confidence(self) -> float:
        return self.candidates[0][1] if self.candidates else 0.0

    def prob(self, token: str) -> float:
        return sum(p for t, p in self.candidates if t == token)

    @property
    def occupied(self) -> bool:
        """Whether a tile is more likely there than not."""
        return self.prob(EMPTY) < 0.5

    @staticmethod
    def certain(cell: str, token: str) -> CellRead:
        return CellRead(cell, ((token, 1.0),))


def merge_reads(a: CellRead, b: CellRead) -> CellRead:
    """Two reads of one cell combined (probabilities averaged, best first)."""
    probs: dict[str, float] = {}
    for read in (a, b):
        for tok, p in read.candidates:
            probs[tok] = probs.get(tok, 0.0) + p / 2
    ordered = sorted(probs.items(), key=lambda kv: -kv[1])
    return CellRead(a.cell, tuple(ordered))


@runtime_checkable
class BoardObserver(Protocol):
    """A board reader as the tracker sees it."""

    game: str

    def locate(self, frame: Frame, hint: BoardFix | None = None) -> BoardFix | None:
        """The board in ``frame`` (``hint``: where it was last), or ``None`` if it is not found."""
        ...

    def read(self, frame: Frame, fix: BoardFix, cells: Sequence[str], effort: int = 0) -> dict[str, CellRead]:
        """Candidates for ``cells`` (named in ``fix``'s frame); ``effort`` > 0 asks for a closer look."""
        ...
