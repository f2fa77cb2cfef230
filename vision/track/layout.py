"""The cells a tracker watches: a square grid of named cells in board units, and frame alignment.

Triolet is a 15×15 grid named ``A1``…``O15`` (T-B1). Other games plug in their own layout (a
triangle grid is a list of cells with their bounding boxes in board units).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.track.observer import BoardFix

COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class GridLayout:
    """A ``size`` × ``size`` grid; cell ``(column, row)`` is named column letter + row number."""

    size: int = 15

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f"{COLUMNS[c]}{r + 1}" for r in range(self.size) for c in range(self.size))

    def position(self, name: str) -> tuple[int, int]:
        """``(column, row)`` of a cell name, both 0-based."""
        return COLUMNS.index(name[0].upper()), int(name[1:]) - 1

    def name(self, column: int, row: int) -> str:
        return f"{COLUMNS[column]}{row + 1}"


TRIOLET_LAYOUT = GridLayout(15)


def rotate_cell(layout: GridLayout, name: str, quarter_turns: int) -> str:
    """The name a cell gets in a frame whose corner 0 is this frame's corner ``quarter_turns``.

    Frame B = frame A rotated: B's corner k is A's corner k + q (corners ordered (0,0), (n,0),
    (n,n), (0,n)). A cell at A-coordinates (c, r) has B-coordinates given by turning q times.
    """
    c, r = layout.position(name)
    n = layout.size - 1
    for _ in range(quarter_turns % 4):
        # A's corner 1 (n,0) becomes B's corner 0: B's x runs along A's rows downward
        c, r = r, n - c
    return layout.name(c, r)


def best_rotation(new_corners: np.ndarray, old_corners: np.ndarray) -> int:
    """The quarter turn ``q`` for which ``new`` corner ``k + q`` lies nearest ``old`` corner ``k``."""
    best, best_d = 0, float("inf")
    for q in range(4):
        d = float(np.linalg.norm(np.roll(new_corners, -q, axis=0) - old_corners, axis=1).sum())
        if d < best_d:
            best, best_d = q, d
    return best


def align_fix(new: BoardFix, previous: BoardFix | None) -> BoardFix:
    """``new`` with its frame turned to match ``previous`` (cell names stay those of the game)."""
    if previous is None:
        return new
    q = best_rotation(new.corners_array(), previous.corners_array())
    return new if q == 0 else new.rotated(q)


def corner_shift(a: BoardFix, b: BoardFix) -> float:
    """Largest corner displacement between two fixes, in squares."""
    d = np.linalg.norm(a.corners_array() - b.corners_array(), axis=1).max()
    return float(d) / max(1e-6, a.square_px())


def snap_to_lattice(new: BoardFix, previous: BoardFix, reach: int = 4) -> BoardFix:
    """``new`` moved by whole squares to lie nearest ``previous``.

    A locator can find the lattice of squares right but pick the wrong 15×15 window of it (the
    special squares misjudged under glare or tiles); between two pictures of a nudged board the
    board moves far less than a square, so the window nearest the old one is the right one.
    """
    best, best_d = new, corner_shift(new, previous)
    n = new.size
    unit = np.array([[0, 0, 1], [n, 0, 1], [n, n, 1], [0, n, 1]], np.float64)
    for dx in range(-reach, reach + 1):
        for dy in range(-reach, reach + 1):
            if dx == dy == 0:
                continue
            h = new.homography @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)
            c = unit @ h.T
            if (c[:, 2] <= 0).any():
                continue
            moved = BoardFix.from_corners(c[:, :2] / c[:, 2:3], n, new.confidence)
            d = corner_shift(moved, previous)
            if d < best_d:
                best, best_d = moved, d
    return best
