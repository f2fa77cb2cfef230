"""Find the Trigon board without markers: plate hexagon candidates, then the cell grid inside.

Returns the homography from board units (cell edge = 1, centre at the origin, side-9 frame) to
image pixels, turned so that the board edge whose midpoint is highest in the image is the top
edge (B-B1 row 1 … ; INTERFACES §3 "rows parallel to the board edge nearest the top").
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import BoardNotLocatedError
from vision.read.trigon.geometry import hexagon_corners
from vision.read.trigon.grid import (
    family_images,
    fit_grid,
    grid_score,
    local_offsets,
    rotation_board,
    snap_shift,
    view_homography,
)
from vision.read.trigon.hexagon import candidate_hexagons

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: Plate circumradius in board units assumed before the grid fit (rims vary: 0.84–0.99 of it).
PLATE_RADIUS = 9 / 0.915
#: Below this comb score the grid is not clear enough to call it a board.
MIN_GRID_SCORE = 0.9
#: A lattice translation replaces the fitted registration when its rim energy is below this share
#: of the fitted one's (the grid lines are as clear one cell off; the plain rim is not).
SHIFT_RATIO = 0.6
#: A grid this clear ends the search (correct fits score 1.7–2.6). Among clear grids the score
#: does not tell the registration apart: one a cell off may score a little higher or lower.
CLEAR_GRID_SCORE = 1.9
#: Refits per picture at most (about 0.7 s each at 1280×960), when no outline gives a clear grid.
MAX_REFITS = 5
#: Refits in a row from the outline a fitted lattice implies, for one outline.
REFIT_PASSES = 2
WORK_SIZE = 720
VIEW_UNIT = 20.0


@dataclass(frozen=True)
class TrigonBoard:
    """``homography``: board units → image pixels; ``plate_px``: the plate outline found;
    ``score``: grid clarity (comb score); ``plate_radius``: plate circumradius in board units."""

    homography: F64
    plate_px: F64
    score: float
    plate_radius: float
    timings_ms: dict[str, float] = field(default_factory=dict)

    def corners_px(self, side: int) -> F64:
        """The playing hexagon's corners in image pixels, clockwise from the top-left one."""
        return apply_h(self.homography, hexagon_corners(side))


def apply_h(h: F64, pts: F64) -> F64:
    """Map N×2 points through a homography."""
    p = np.concatenate([pts, np.ones((len(pts), 1))], axis=1) @ h.T
    return np.asarray(p[:, :2] / p[:, 2:3])


def _compose(h_board_img: F64, view_size: int, fit_m: F64, fit_t: F64) -> F64:
    hv = view_homography(h_board_img, VIEW_UNIT, view_size)
    c = view_size / 2.0
    a = np.array([[fit_m[0, 0], fit_m[0, 1], c + fit_t[0]], [fit_m[1, 0], fit_m[1, 1], c + fit_t[1]], [0, 0, 1.0]])
    h = np.linalg.inv(hv) @ a
    return np.asarray(h / h[2, 2])


def _view(image: U8, h_board_img: F64, size: int) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The board seen straight on (grey levels) and a 0/1 weight leaving out coloured pixels (hands,
    pieces, table) with a small margin."""
    hv = view_homography(h_board_img, VIEW_UNIT, size)
    v = cv2.warpPerspective(image, hv, (size, size), flags=cv2.INTER_LINEAR)
    lab = cv2.cvtColor(v, cv2.COLOR_BGR2LAB).astype(np.float32)
    a, b = lab[..., 1] - 128, lab[..., 2] - 128
    raw = np.hypot(a, b)
    # the board's own tint: the least coloured 40 % (every 3rd pixel is plenty)
    sa, sb, sr = a[::3, ::3], b[::3, ::3], raw[::3, ::3]
    low = sr <= np.percentile(sr, 40)
    a0, b0 = float(np.median(sa[low])), float(np.median(sb[low]))
    coloured = (np.hypot(a - a0, b - b0) > 16).astype(np.uint8)
    coloured = cv2.dilate(coloured, np.ones((5, 5), np.uint8))
    gray = cv2.cvtColor(v, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return gray, (1 - coloured).astype(np.float32)


def _inside(shape: tuple[int, ...], h_board_img: F64, size: int) -> NDArray[np.float32]:
    """1 where the straight-on view shows the picture, 0 beyond its edges (and 2 px in from them,
    where the picture's own edge would pass for a line)."""
    hv = view_homography(h_board_img, VIEW_UNIT, size)
    ones = np.full(shape, 255, np.uint8)
    m = cv2.warpPerspective(ones, hv, (size, size), flags=cv2.INTER_NEAREST, borderValue=0)
    m = cv2.erode(m, np.ones((5, 5), np.uint8))
    return np.asarray(m > 0, np.float32)


def refine_board(gray: U8, plate_img: F64) -> tuple[F64, float]:
    """Board-units → image homography and grid score for one plate candidate (corners clockwise)."""
    src = hexagon_corners(1) * PLATE_RADIUS
    found, _ = cv2.findHomography(src, plate_img, 0)
    if found is None:
        return np.eye(3), -1.0
    h0 = np.asarray(found, np.float64)
    size = int(2 * VIEW_UNIT * 9 / 0.8) + 8
    # the middle first, where a poor outline is least wrong, with a wide scale search
    v, wt = _view(gray, h0, size)
    f1 = fit_grid(v, size / 2, VIEW_UNIT, scale_range=(0.88, 1.12), weight=wt, inner=0.5)
    h = grow_lattice(gray, _compose(h0, size, f1.matrix, f1.offset), size)
    # the lattice is right; which of its translations is the board: the one framed by the plain rim
    wide = int(2 * VIEW_UNIT * 12.6) + 8
    v, _wt = _view(gray, h, wide)
    shift, ratio = snap_shift(v, wide / 2, VIEW_UNIT, inside=_inside(gray.shape[:2], h, wide))
    if ratio < SHIFT_RATIO:
        h = h @ np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1.0]])
    v, wt = _view(gray, h, size)
    return h, grid_score(v, size / 2, VIEW_UNIT, weight=wt)


#: Rings of board points where the grid is measured locally, from the middle out:
#: (radius, points on the ring, radius of the disc measured around each, board units).
RINGS = ((0.0, 1, 2.0), (2.2, 6, 1.6), (3.8, 6, 1.8), (5.2, 12, 1.8), (6.6, 12, 1.6), (7.8, 12, 1.3))


def _ring(radius: float, n: int) -> F64:
    if n == 1:
        return np.zeros((1, 2))
    a = np.arange(n) * 2 * np.pi / n + np.pi / 6
    return np.stack([radius * np.cos(a), radius * np.sin(a)], axis=1)


def grow_lattice(image: U8, h: F64, size: int) -> F64:
    """Re-fit the board homography from where the grid lines really are around board points on
    growing rings (``RINGS``): each ring is measured in the view of the homography fitted to all
    points measured so far, so the lines it locks onto are never more than half a line off — one
    fit extrapolated from the middle to the edge (a perspective the outline got wrong) could be."""
    src: list[F64] = []
    dst: list[F64] = []
    for radius, n, disc in RINGS:
        v, wt = _view(image, h, size)
        fam = family_images(v, size / 2, wt)
        inv = np.asarray(np.linalg.inv(view_homography(h, VIEW_UNIT, size)), np.float64)
        for spot in _ring(radius, n):
            off = local_offsets(fam, size / 2, VIEW_UNIT, spot, disc)
            if off is None or float(np.linalg.norm(off)) > 0.45 * VIEW_UNIT:
                continue
            src.append(spot)
            dst.append(apply_h(inv, np.asarray(size / 2 + spot * VIEW_UNIT + off, np.float64)[None])[0])
        if len(src) < 6:
            continue
        cell_px = float(np.linalg.norm(apply_h(h, np.array([[1.0, 0.0]]))[0] - apply_h(h, np.zeros((1, 2)))[0]))
        found, _ = cv2.findHomography(np.array(src), np.array(dst), cv2.RANSAC, 0.25 * cell_px)
        if found is not None:
            h = np.asarray(found / found[2, 2], np.float64)
    return h


def _same_outline(a: F64, b: F64) -> bool:
    """Whether two plate outlines (image pixels) lie within a third of a cell of each other, corner by corner."""
    cell = float(np.linalg.norm(np.roll(a, -1, axis=0) - a, axis=1).mean()) / PLATE_RADIUS
    return float(np.linalg.norm(a - b, axis=1).max()) < cell / 3


def pick_best(best: tuple[float, F64, F64] | None, cand: tuple[float, F64, F64]) -> tuple[float, F64, F64]:
    """The clearer of two ``(grid score, homography, plate outline)`` fits (the earlier on a tie)."""
    return cand if best is None or cand[0] > best[0] else best


def orient(h: F64) -> F64:
    """Turn the board frame by a multiple of 60° so its top edge is the image-topmost edge."""
    best, best_y = h, np.inf
    for k in range(6):
        hk = h @ rotation_board(k)
        c = apply_h(hk, hexagon_corners(9))
        y = (c[0, 1] + c[1, 1]) / 2
        # the top edge must also run left to right (a mirror view is impossible, but guard anyway)
        if y < best_y and c[1, 0] > c[0, 0]:
            best, best_y = hk, y
    return np.asarray(best / best[2, 2])


def locate_trigon(image: NDArray[np.uint8], max_candidates: int = 6) -> TrigonBoard:
    """The Trigon board in ``image`` (BGR): the first clear grid over the outline candidates, else the
    clearest after refits from the fitted lattices; ``BoardNotLocatedError`` when no grid is clear enough."""
    t0 = time.perf_counter()
    h, w = image.shape[:2]
    f = min(1.0, WORK_SIZE / max(h, w))
    small = np.asarray(cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), np.uint8) if f < 1 else image
    cands = candidate_hexagons(small, max_candidates)
    t1 = time.perf_counter()
    gray = image  # colour: the views leave out coloured pixels
    fits: list[tuple[float, F64, F64]] = []
    for hexa in cands:
        plate = hexa / f
        if any(_same_outline(plate, p) for _, _, p in fits):
            continue
        hb, score = refine_board(gray, plate)
        fits.append((score, hb, plate))
        if score >= CLEAR_GRID_SCORE:
            break
    best = max(fits, key=lambda t: t[0]) if fits else None
    # no outline gives a clear grid: one a cell or two off still leaves a lattice partly right, and
    # the outline that lattice implies is nearer the board, so fit again from it (the clearest
    # fits first) while the grid gets clearer
    refits = 0
    for score, hb, plate in sorted(fits, key=lambda t: -t[0]):
        if best is None or best[0] >= CLEAR_GRID_SCORE or refits >= MAX_REFITS:
            break
        for _ in range(REFIT_PASSES):
            if score >= CLEAR_GRID_SCORE or refits >= MAX_REFITS:
                break
            h2, s2 = refine_board(gray, apply_h(hb, hexagon_corners(1) * PLATE_RADIUS))
            refits += 1
            if s2 <= score:
                break
            hb, score = h2, s2
        best = pick_best(best, (score, hb, plate))
    t2 = time.perf_counter()
    if best is None or best[0] < MIN_GRID_SCORE:
        raise BoardNotLocatedError("no Trigon board found: no hexagon with a clear triangle grid in the picture")
    score, hb, plate = best
    hb = orient(hb)
    pc = apply_h(np.asarray(np.linalg.inv(hb), np.float64), plate)
    radius = float(np.linalg.norm(pc, axis=1).mean())
    return TrigonBoard(homography=hb, plate_px=plate, score=score, plate_radius=radius,
                       timings_ms={"candidates": (t1 - t0) * 1e3, "grid": (t2 - t1) * 1e3})
