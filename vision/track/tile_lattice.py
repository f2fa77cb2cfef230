"""Where a Triominos / Trio Domino field's lattice lies in the picture (M-B2, M-B3, D-B1).

A field's lattice is fixed by its first tile: it lies on ``(0, 0)`` when it points up in the
picture (its most nearly horizontal side below its apex), else on ``(1, 0)``. A :class:`FieldMap`
maps lattice points (side 1, ``y`` downward, as ``TriLattice.vertex_xy``) to picture pixels; it is
fitted to every corner of the field's laid tiles (an affine map from one tile, a homography from
more, so perspective is followed). A tile seen in a picture is then placed on its cell, with its
corner values put in M-B3 order, by mapping its corners back onto the lattice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.lattice import Cell, Vertex
from engine.tritiles.geometry import LATTICE, ORIGIN_DOWN, ORIGIN_UP, vertices

F64 = NDArray[np.float64]
ROW = math.sqrt(3.0) / 2.0

#: A tile whose corners land further than this (in tile sides) from its cell's corners is not on
#: the field's lattice.
MAX_FIT_ERROR = 0.3
#: lattice points from which a field's map may follow perspective (a homography)
HOMOGRAPHY_POINTS = 6


def vertex_xy(v: Vertex) -> tuple[float, float]:
    """A lattice point in lattice units (side 1, ``y`` downward)."""
    return LATTICE.vertex_xy(v)


@dataclass(frozen=True)
class FieldMap:
    """Lattice units → picture pixels (``matrix``: a 3×3 homography)."""

    matrix: F64

    def to_image(self, pts: F64) -> F64:
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        q = np.c_[p, np.ones(len(p))] @ self.matrix.T
        return np.asarray(q[:, :2] / q[:, 2:3], np.float64)

    def to_lattice(self, px: F64) -> F64:
        p = np.asarray(px, np.float64).reshape(-1, 2)
        q = np.c_[p, np.ones(len(p))] @ np.linalg.inv(self.matrix).T
        return np.asarray(q[:, :2] / q[:, 2:3], np.float64)

    def side_px(self, cell: Cell) -> float:
        """The mean side of ``cell`` in the picture."""
        pts = self.to_image(np.array([vertex_xy(v) for v in vertices(cell)]))
        return float(np.mean([np.linalg.norm(pts[i] - pts[(i + 1) % 3]) for i in range(3)]))


def fit_field_map(pairs: Sequence[tuple[Vertex, tuple[float, float]]]) -> FieldMap:
    """The map through lattice points and their pixel positions (a point may come more than once;
    at least three, not in a line): a homography once the points reach beyond a couple of tiles,
    else an affine map, both by least squares."""
    verts = [v for v, _ in pairs]
    src = np.array([vertex_xy(v) for v in verts], np.float64)
    dst = np.array([p for _, p in pairs], np.float64)
    ones = np.c_[src, np.ones(len(src))]
    coef, *_ = np.linalg.lstsq(ones, dst, rcond=None)  # least-squares affine map
    affine = np.vstack([coef.T, [0.0, 0.0, 1.0]])
    if len(set(verts)) >= HOMOGRAPHY_POINTS and _spread(src) > 3.0:
        h, _ = cv2.findHomography(src, dst, 0)
        if h is not None and np.linalg.cond(h) < 1e8:
            hm = np.asarray(h, np.float64)
            q = ones @ hm.T
            err = np.linalg.norm(q[:, :2] / q[:, 2:3] - dst, axis=1).max()
            if err <= np.linalg.norm((ones @ affine.T)[:, :2] - dst, axis=1).max() + 1e-6:
                return FieldMap(hm)
    return FieldMap(affine)


def _spread(src: F64) -> float:
    """How far the points reach (lattice units): a homography needs more than a couple of tiles'
    corners to be better than an affine map."""
    return float(np.ptp(src[:, 0]) + np.ptp(src[:, 1]))


def clockwise_from(corners_px: F64, start: int) -> list[int]:
    """Indices of the three corners clockwise in the picture (``y`` downward), from ``start``."""
    c = np.asarray(corners_px, np.float64).reshape(3, 2)
    m = c.mean(axis=0)
    ang = np.arctan2(c[:, 1] - m[1], c[:, 0] - m[0])  # clockwise on screen = increasing angle
    order = [int(i) for i in np.argsort(ang)]
    k = order.index(start)
    return order[k:] + order[:k]


def origin_placement(corners_px: F64) -> tuple[Cell, tuple[int, int, int]]:
    """A field's first tile: its cell (``(0, 0)`` up, ``(1, 0)`` down, M-B3) and the indices of
    its corners in M-B3 order."""
    c = np.asarray(corners_px, np.float64).reshape(3, 2)
    best, apex = -1.0, 0
    for k in range(3):  # the side most nearly horizontal is the lattice's horizontal side
        a, b = c[(k + 1) % 3], c[(k + 2) % 3]
        d = b - a
        flat = abs(float(d[0])) / max(1e-9, float(np.hypot(*d)))
        if flat > best:
            best, apex = flat, k
    base_y = (c[(apex + 1) % 3][1] + c[(apex + 2) % 3][1]) / 2.0
    cell = ORIGIN_UP if c[apex][1] < base_y else ORIGIN_DOWN
    order = clockwise_from(c, apex)
    return cell, (order[0], order[1], order[2])


@dataclass(frozen=True)
class LatticeFit:
    """A tile mapped onto a field's lattice: cell, its corners' indices in M-B3 order, and how far
    (tile sides) its corners lie from the cell's."""

    cell: Cell
    order: tuple[int, int, int]
    error: float


def place_on_lattice(fmap: FieldMap, corners_px: F64) -> LatticeFit:
    """The cell of the field's lattice that a tile with these corners covers."""
    lat = fmap.to_lattice(np.asarray(corners_px, np.float64).reshape(3, 2))
    vx, vy = lat[:, 0] * 2.0, lat[:, 1] / ROW  # lattice-point coordinates
    cx, cy = float(vx.mean()), float(vy.mean())
    x = round(cx)
    options: list[Cell] = [(x, round(cy - 2.0 / 3.0)), (x, round(cy - 1.0 / 3.0))]
    best: LatticeFit | None = None
    for cell in options:
        vs = vertices(cell)
        vpts = np.array([vertex_xy(v) for v in vs])
        # each of the cell's corners takes the nearest seen corner (three different ones)
        d = np.linalg.norm(vpts[:, None, :] - lat[None, :, :], axis=2)
        order = tuple(int(i) for i in np.argmin(d, axis=1))
        if len(set(order)) < 3:
            continue
        err = float(max(d[i, order[i]] for i in range(3)))
        if best is None or err < best.error:
            best = LatticeFit(cell, (order[0], order[1], order[2]), err)
    if best is None:
        return LatticeFit(options[0], (0, 1, 2), float("inf"))
    return best
