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

from .geometry import hexagon_corners
from .grid import fit_grid, grid_score, local_offsets, rotation_board, snap_shift, view_homography
from .hexagon import candidate_hexagons

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: Plate circumradius in board units assumed before the grid fit (rims vary: 0.84–0.99 of it).
PLATE_RADIUS = 9 / 0.915
#: Below this comb score the grid is not clear enough to call it a board.
MIN_GRID_SCORE = 0.9
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
    low = raw <= np.percentile(raw, 40)
    a0, b0 = float(np.median(a[low])), float(np.median(b[low]))
    coloured = (np.hypot(a - a0, b - b0) > 16).astype(np.uint8)
    coloured = cv2.dilate(coloured, np.ones((5, 5), np.uint8))
    gray = cv2.cvtColor(v, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return gray, (1 - coloured).astype(np.float32)


def refine_board(gray: U8, plate_img: F64) -> tuple[F64, float]:
    """Board-units → image homography and grid score for one plate candidate (corners clockwise)."""
    src = hexagon_corners(1) * PLATE_RADIUS
    found, _ = cv2.findHomography(src, plate_img, 0)
    if found is None:
        return np.eye(3), -1.0
    h0 = np.asarray(found, np.float64)
    size = int(2 * VIEW_UNIT * 9 / 0.8) + 8
    v, wt = _view(gray, h0, size)
    f1 = fit_grid(v, size / 2, VIEW_UNIT, scale_range=(0.88, 1.12), weight=wt)
    h1 = _compose(h0, size, f1.matrix, f1.offset)
    # coarse to fine: the middle first (least hurt by a poor outline), then rings further out
    v, wt = _view(gray, h1, size)
    f2 = fit_grid(v, size / 2, VIEW_UNIT, scale_range=(0.95, 1.05), weight=wt, inner=0.45)
    h2 = _compose(h1, size, f2.matrix, f2.offset)
    h2 = local_refine(gray, h2, size, 3.2)
    v, wt = _view(gray, h2, size)
    f2 = fit_grid(v, size / 2, VIEW_UNIT, scale_range=(0.97, 1.03), weight=wt)
    h2 = _compose(h2, size, f2.matrix, f2.offset)
    options = [h2]
    v, wt = _view(gray, h2, size)
    shift, ratio = snap_shift(v, size / 2, VIEW_UNIT)
    if shift.any() and ratio < 0.8:
        options.append(h2 @ np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1.0]]))
    best: tuple[float, F64] = (-np.inf, h2)
    for h in options:
        v, wt = _view(gray, h, size)
        f3 = fit_grid(v, size / 2, VIEW_UNIT, scale_range=(0.98, 1.02), inner=0.95, weight=wt)
        h = _compose(h, size, f3.matrix, f3.offset)
        v, wt = _view(gray, h, size)
        score = grid_score(v, size / 2, VIEW_UNIT, weight=wt)
        if score > best[0]:
            best = (score, h)
    h = best[1]
    for _ in range(2):
        h = local_refine(gray, h, size)
    v, wt = _view(gray, h, size)
    score = grid_score(v, size / 2, VIEW_UNIT, weight=wt)
    if score >= best[0] - 0.05:
        return h, score
    return best[1], best[0]


#: Board points where the grid is fitted locally to correct perspective (centre and a ring).
SPOTS = np.array([[0.0, 0.0]] + [[5.2 * np.cos(a), 5.2 * np.sin(a)] for a in np.arange(6) * np.pi / 3 + np.pi / 6])


def local_refine(image: U8, h: F64, size: int, ring: float = 5.2) -> F64:
    """Re-fit the board homography from local grid offsets at ``SPOTS`` (corrects perspective that the
    affine fits leave)."""
    v, wt = _view(image, h, size)
    src, dst = [], []
    for spot in SPOTS * (ring / 5.2):
        off = local_offsets(v, size / 2, VIEW_UNIT, spot, 2.6 * ring / 5.2, wt)
        if off is None or float(np.linalg.norm(off)) > 0.45 * VIEW_UNIT:
            continue
        src.append(spot)
        dst.append(size / 2 + spot * VIEW_UNIT + off)
    if len(src) < 5:
        return h
    found, _ = cv2.findHomography(np.array(src), np.array(dst), 0)
    if found is None:
        return h
    hv = view_homography(h, VIEW_UNIT, size)
    out = np.linalg.inv(hv) @ np.asarray(found, np.float64)
    return np.asarray(out / out[2, 2], np.float64)


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
    """The Trigon board in ``image`` (BGR); ``BoardNotLocatedError`` when no grid is clear enough."""
    t0 = time.perf_counter()
    h, w = image.shape[:2]
    f = min(1.0, WORK_SIZE / max(h, w))
    small = np.asarray(cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), np.uint8) if f < 1 else image
    cands = candidate_hexagons(small, max_candidates)
    t1 = time.perf_counter()
    gray = image  # colour: the views leave out coloured pixels
    best: tuple[float, F64, F64] | None = None
    for hexa in cands:
        plate = hexa / f
        hb, score = refine_board(gray, plate)
        if best is None or score > best[0]:
            best = (score, hb, plate)
    t2 = time.perf_counter()
    if best is None or best[0] < MIN_GRID_SCORE:
        raise BoardNotLocatedError("no Trigon board found: no hexagon with a clear triangle grid in the picture")
    score, hb, plate = best
    hb = orient(hb)
    pc = apply_h(np.asarray(np.linalg.inv(hb), np.float64), plate)
    radius = float(np.linalg.norm(pc, axis=1).mean())
    return TrigonBoard(homography=hb, plate_px=plate, score=score, plate_radius=radius,
                       timings_ms={"candidates": (t1 - t0) * 1e3, "grid": (t2 - t1) * 1e3})
