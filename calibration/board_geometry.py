"""Where a game's squares or cells lie on its board, given the board's four corners in an image.

Board units and the four corners (INTERFACES §3 order: clockwise from the corner nearest the
image's top-left; the first corner is where square A1 / the board's top-left lies):

- ``triolet``: one unit = one square. The playing area is ``[0, 15] × [0, 15]``; square A1 is
  ``[0, 1] × [0, 1]``, columns A–O run from the first corner to the second, rows 1–15 from the
  first corner to the fourth (RULES T-B1).
- ``trigon``: one unit = one triangle side ``a``; ``h = a·√3/2``. The side-9 hexagon (B-B1) has
  vertices ``(4.5, 0) (13.5, 0) (18, 9h) (13.5, 18h) (4.5, 18h) (0, 9h)``; the four corners are
  the ends of its top and bottom sides: ``(4.5, 0) (13.5, 0) (13.5, 18h) (4.5, 18h)``. Cell
  ``(x, y)`` (y = 0 the top row) spans ``[x/2, x/2 + 1]`` across; it points up iff
  ``x + (18 − y)`` is even (B-B2). The 3-player board is the same physical board.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.trigon.notation import cell_name

FloatArray = NDArray[np.float64]
Point = tuple[float, float]
PointsLike = Sequence[Sequence[float]] | NDArray[np.floating[Any]]
"""Points as a list of ``(x, y)`` or an (n, 2) array."""

H = math.sqrt(3.0) / 2.0
TRIOLET_SIZE = 15
TRIGON_ROWS = 18
BOARD_GAMES = ("triolet", "trigon")


class CornersError(ValueError):
    """Four points that cannot be a board's corners."""


def order_corners(points: PointsLike) -> list[Point]:
    """The 4 points clockwise (as seen in the image, y down), starting nearest the image's top-left."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if pts.shape != (4, 2):
        raise CornersError(f"expected 4 corners, got {len(pts)}")
    if not np.all(np.isfinite(pts)):
        raise CornersError("corners must be finite numbers")
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    ring = pts[np.argsort(angles, kind="stable")]  # increasing angle = clockwise on screen
    start = int(np.argmin(np.hypot(ring[:, 0], ring[:, 1])))
    ring = np.roll(ring, -start, axis=0)
    quad = [(float(x), float(y)) for x, y in ring]
    check_quad(quad)
    return quad


def check_quad(quad: PointsLike, min_side: float = 8.0) -> None:
    """Raise ``CornersError`` unless the 4 points form a convex quadrilateral of usable size."""
    pts = np.asarray(quad, dtype=np.float64)
    crosses = []
    for i in range(4):
        a, b, c = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        u, v = b - a, c - b
        crosses.append(float(u[0] * v[1] - u[1] * v[0]))
        if np.hypot(*(b - a)) < min_side:
            raise CornersError(f"corners {i + 1} and {(i + 1) % 4 + 1} are less than {min_side:g} px apart")
    if not (all(c > 0 for c in crosses) or all(c < 0 for c in crosses)):
        raise CornersError("the 4 corners do not form a convex quadrilateral")


def corner_units(game: str) -> FloatArray:
    """Board-unit positions of the 4 corners, in corner order."""
    if game == "triolet":
        n = float(TRIOLET_SIZE)
        return np.array([[0.0, 0.0], [n, 0.0], [n, n], [0.0, n]])
    if game == "trigon":
        return np.array([[4.5, 0.0], [13.5, 0.0], [13.5, 18 * H], [4.5, 18 * H]])
    raise ValueError(f"{game} has no board (its tiles lie on the bare table)")


def outline_units(game: str) -> FloatArray:
    """The board's outline polygon in board units (clockwise)."""
    if game == "triolet":
        return corner_units(game)
    if game == "trigon":
        return np.array([[4.5, 0.0], [13.5, 0.0], [18.0, 9 * H], [13.5, 18 * H], [4.5, 18 * H], [0.0, 9 * H]])
    raise ValueError(f"{game} has no board (its tiles lie on the bare table)")


def board_homography(game: str, corners: PointsLike) -> FloatArray:
    """3×3 homography from board units to the pixels the corners are given in."""
    src = corner_units(game).astype(np.float32)
    dst = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    return np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)


def apply_homography(hom: FloatArray, points: FloatArray) -> FloatArray:
    """``hom`` applied to points of shape (..., 2)."""
    x, y = points[..., 0], points[..., 1]
    w = hom[2, 0] * x + hom[2, 1] * y + hom[2, 2]
    u = (hom[0, 0] * x + hom[0, 1] * y + hom[0, 2]) / w
    v = (hom[1, 0] * x + hom[1, 1] * y + hom[1, 2]) / w
    return np.stack([u, v], axis=-1)


def triolet_square_name(col: int, row: int) -> str:
    """``A1``-style name of the square at 0-based column and row (T-B1)."""
    return f"{chr(ord('A') + col)}{row + 1}"


def triolet_squares() -> list[tuple[str, Point]]:
    """Every square's name and centre (board units), row by row."""
    return [(triolet_square_name(c, r), (c + 0.5, r + 0.5)) for r in range(TRIOLET_SIZE) for c in range(TRIOLET_SIZE)]


def trigon_cells() -> list[tuple[str, Point, bool]]:
    """Every cell of the side-9 board: name (``r15``), centroid (board units), points up?"""
    cells = []
    for y in range(TRIGON_ROWS):
        inset = 8 - min(y, TRIGON_ROWS - 1 - y)
        row = TRIGON_ROWS - y
        for x in range(inset, 34 - inset + 1):
            up = (x + row) % 2 == 0
            cy = (y + (2.0 / 3.0 if up else 1.0 / 3.0)) * H
            cells.append((cell_name(x, row), (x / 2.0 + 0.5, cy), up))
    return cells
