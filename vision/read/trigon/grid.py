"""Fit the Trigon cell grid in a rectified view: three families of parallel cell-edge lines.

The view maps board units (cell edge = 1, centre at the origin) to pixels. Each family of lines
(horizontal, ±60°) gives a profile of edge strength across the lines; a comb of period √3/2
(scaled) fitted to it yields that family's scale and offset, and the three together an affine
correction of the board-to-view map.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read.trigon.geometry import SQRT3, hexagon_corners

F64 = NDArray[np.float64]
F32 = NDArray[np.float32]


@dataclass(frozen=True)
class GridFit:
    """Affine correction ``view = centre + M·board + t`` and the comb score (higher = clearer grid)."""

    matrix: F64  # 2×2, in view pixels per board unit
    offset: F64  # 2, view pixels
    score: float


@dataclass(frozen=True)
class FamilyImages:
    """A view turned so each family's lines run horizontally: per family the edge strength across
    its lines (|∂/∂y| of the turned view), the turned weight (0–1, ``None``: all pixels count) and
    the turn (2×3 affine, view → turned view). Made once per view, read for every area measured."""

    edges: tuple[F32, ...]
    weights: tuple[F32 | None, ...]
    turns: tuple[F64, ...]


def family_images(gray: F32, centre: float, weight: F32 | None = None) -> FamilyImages:
    """The three turned edge images of ``gray`` (and of ``weight``) about the view centre."""
    size = gray.shape[0]
    edges: list[F32] = []
    weights: list[F32 | None] = []
    turns: list[F64] = []
    for j in range(3):
        rot = cv2.getRotationMatrix2D((centre, centre), 60.0 * j, 1.0)
        g = cv2.warpAffine(gray, rot, (size, size), flags=cv2.INTER_LINEAR) if j else gray
        edges.append(np.asarray(np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)), np.float32))
        if weight is None:
            weights.append(None)
        else:
            weights.append(np.asarray(cv2.warpAffine(weight, rot, (size, size), flags=cv2.INTER_LINEAR), np.float32)
                           if j else weight)
        turns.append(np.asarray(rot, np.float64))
    return FamilyImages(tuple(edges), tuple(weights), tuple(turns))


def _disc_crop(size: int, centre: F64, radius: float) -> tuple[int, int, int, int, F32] | None:
    """A filled disc as ``(y0, y1, x0, x1, mask)``: the mask over rows ``y0:y1`` and columns
    ``x0:x1`` of a ``size``² view (``None`` when the disc lies outside it)."""
    r = int(np.ceil(radius)) + 1
    cx, cy = round(float(centre[0])), round(float(centre[1]))
    x0, x1 = max(0, cx - r), min(size, cx + r + 1)
    y0, y1 = max(0, cy - r), min(size, cy + r + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    m = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.circle(m, (cx - x0, cy - y0), round(radius), 1.0, -1)
    return y0, y1, x0, x1, m


def _profiles(gray: F32 | FamilyImages, centre: float, radius_px: float, weight: F32 | None = None,
              disc: tuple[F64, float] | None = None) -> list[tuple[F64, F64]]:
    """Per family: (profile of |∂/∂normal| across its lines, unit normal in view coordinates), over
    the board hexagon of ``radius_px`` or, with ``disc`` = (centre, radius) in view pixels, over that
    disc only. ``weight`` (0–1 per pixel) leaves out hands and other non-board pixels; over the
    whole board it is ignored when it keeps less than a quarter of it."""
    fam = gray if isinstance(gray, FamilyImages) else family_images(gray, centre, weight)
    size = fam.edges[0].shape[0]
    out = []
    for j in range(3):
        rot = fam.turns[j]
        if disc is None:
            m = np.zeros((size, size), np.float32)
            hexa = centre + hexagon_corners(1) * radius_px
            hexa = hexa @ rot[:, :2].T + rot[:, 2]
            cv2.fillPoly(m, [np.round(hexa).astype(np.int32)], 1.0)
            w = fam.weights[j]
            if w is not None and float((w * m).sum()) > 0.25 * float(m.sum()):
                m = m * w
            num = (fam.edges[j] * m).sum(axis=1)
            den = m.sum(axis=1).astype(np.float64)
        else:
            # only the rows and columns the disc covers
            num, den = np.zeros(size), np.zeros(size)
            crop = _disc_crop(size, rot[:, :2] @ disc[0] + rot[:, 2], disc[1])
            if crop is not None:
                y0, y1, x0, x1, m = crop
                w = fam.weights[j]
                if w is not None:
                    m = m * w[y0:y1, x0:x1]
                num[y0:y1] = (fam.edges[j][y0:y1, x0:x1] * m).sum(axis=1)
                den[y0:y1] = m.sum(axis=1)
        prof = np.where(den > 2, num / np.maximum(den, 1), 0.0)
        prof = cv2.GaussianBlur(prof.astype(np.float64).reshape(-1, 1), (1, 0), 1.5).ravel()
        prof[den <= 2] = 0.0
        out.append((np.asarray(prof, np.float64), np.asarray(rot[1, :2], np.float64)))
    return out


def _comb(prof: F64, centre: float, periods: F64, shifts_frac: F64, half_lines: int) -> F64:
    """Score[period, shift]: mean profile on the lines minus mean between them, over the profile's spread."""
    k = np.arange(-half_lines, half_lines + 1, dtype=np.float64)
    km = np.arange(-half_lines, half_lines, dtype=np.float64) + 0.5
    sd = float(prof[prof > 0].std()) + 1e-6 if np.any(prof > 0) else 1.0
    xs = np.arange(len(prof), dtype=np.float64)
    p = periods[:, None, None]
    d = shifts_frac[None, :, None] * p
    on = np.interp(centre + d + k[None, None, :] * p, xs, prof).mean(axis=2)
    off = np.interp(centre + d + km[None, None, :] * p, xs, prof).mean(axis=2)
    return np.asarray((on - off) / sd)


def _solve(normals: F64, s: F64, unit_px: float) -> F64:
    """The affine part ``M`` with ``Mᵀ n_j = s_j·unit·n_j`` (least squares; the translation is
    ``consistent_offset``'s)."""
    a = np.zeros((6, 4))
    rhs = np.zeros(6)
    for j in range(3):
        n = normals[j]
        a[2 * j] = [n[0], 0, n[1], 0]
        a[2 * j + 1] = [0, n[0], 0, n[1]]
        rhs[2 * j], rhs[2 * j + 1] = s[j] * n[0] * unit_px, s[j] * n[1] * unit_px
    return np.asarray(np.linalg.lstsq(a, rhs, rcond=None)[0].reshape(2, 2), np.float64)


def consistent_offset(normals: F64, deltas: F64, periods: F64) -> F64:
    """The translation ``t`` (view pixels) closest to zero whose lines fall on all three families'
    measured phases: ``n_j · t ≡ δ_j (mod p_j)``. Each family alone is only known modulo its period;
    solving the three least-squares without that (as if every ``δ_j`` were exact) can put the
    grid half a cell off, between the lines of two families."""
    best: tuple[float, float, F64] | None = None
    inv2 = np.linalg.inv(normals[:2])
    pinv = np.linalg.pinv(normals)
    for m0 in (-1, 0, 1):
        for m1 in (-1, 0, 1):
            t2 = inv2 @ np.array([deltas[0] + m0 * periods[0], deltas[1] + m1 * periods[1]])
            m2 = round(float(normals[2] @ t2 - deltas[2]) / float(periods[2]))
            rhs = deltas + np.array([m0, m1, m2]) * periods
            t = pinv @ rhs
            resid = float(np.sqrt(np.mean((normals @ t - rhs) ** 2)) / np.mean(periods))
            key = (0.0 if resid < 0.15 else resid, float(np.linalg.norm(t)), t)
            if best is None or key[:2] < best[:2]:
                best = key
    assert best is not None
    return np.asarray(best[2], np.float64)


def fit_grid(gray: F32, centre: float, unit_px: float, side: int = 9, scale_range: tuple[float, float] = (0.97, 1.03),
             inner: float = 0.85, weight: F32 | None = None) -> GridFit:
    """Fit the three line families in a view where board units are about ``unit_px`` pixels around
    ``centre``: per family, the period (searched in ``scale_range``) and phase of the strongest
    first harmonic of the edge profile over the inner ``inner`` of the board."""
    profs = _profiles(gray, centre, unit_px * side * inner, weight)
    base = unit_px * SQRT3 / 2
    scales = np.arange(scale_range[0], scale_range[1] + 1e-9, 0.001)
    s = np.zeros(3)
    delta = np.zeros(3)
    combs = []
    for j, (prof, _n) in enumerate(profs):
        ys = np.nonzero(prof > 0)[0]
        g = prof[ys] - prof[ys].mean()
        rel = ys.astype(np.float64) - centre
        periods = scales * base
        z = (g[None, :] * np.exp(-2j * np.pi * rel[None, :] / periods[:, None])).sum(axis=1)
        i = int(np.argmax(np.abs(z)))
        s[j] = scales[i]
        delta[j] = -float(np.angle(z[i])) / (2 * np.pi) * periods[i]
        combs.append(float(_comb(prof, centre, np.array([periods[i]]), np.array([delta[j] / periods[i]]),
                                 int(side * inner))[0, 0]))
    normals = np.array([n for _, n in profs])
    return GridFit(matrix=_solve(normals, s, unit_px), offset=consistent_offset(normals, delta, s * base),
                   score=float(np.mean(combs)))


def local_offsets(gray: F32 | FamilyImages, centre: float, unit_px: float, spot: F64, radius: float,
                  weight: F32 | None = None) -> F64 | None:
    """Where the grid lines near board point ``spot`` (board units) really are, relative to where the
    view puts them: a 2-vector in view pixels, or ``None`` when the area shows too little grid.
    ``gray`` may be the view's ``family_images`` (made once for many spots; ``weight`` is then theirs)."""
    fam = gray if isinstance(gray, FamilyImages) else family_images(gray, centre, weight)
    size = fam.edges[0].shape[0]
    cpx = centre + spot * unit_px
    rpx = radius * unit_px
    crop = _disc_crop(size, np.asarray(cpx, np.float64), rpx)
    if crop is None:
        return None
    y0, y1, x0, x1, disc = crop
    w0 = fam.weights[0]  # the first family's view is not turned
    kept = float(disc.sum()) if w0 is None else float((disc * w0[y0:y1, x0:x1]).sum())
    if kept < rpx ** 2:
        return None
    profs = _profiles(fam, centre, 0.0, disc=(np.asarray(cpx, np.float64), rpx))
    base = unit_px * SQRT3 / 2
    periods = np.arange(0.94, 1.06, 0.002) * base
    normals, deltas, found = [], [], []
    for prof, n in profs:
        ys = np.nonzero(prof > 0)[0]
        if len(ys) < base * 2:
            return None
        g = prof[ys] - prof[ys].mean()
        rel = ys.astype(np.float64) - centre
        z = (g[None, :] * np.exp(-2j * np.pi * rel[None, :] / periods[:, None])).sum(axis=1)
        i = int(np.argmax(np.abs(z)))
        p = periods[i]
        d = -float(np.angle(z[i])) / (2 * np.pi) * p
        r = float(n @ (spot * unit_px))
        k = round(r / base)
        cand = d + round((k * base - d) / p) * p
        normals.append(n)
        deltas.append(cand - k * base)
        found.append(p)
    off = consistent_offset(np.array(normals), np.array(deltas), np.array(found))
    return np.asarray(off, np.float64)


def grid_score(gray: F32, centre: float, unit_px: float, side: int = 9, weight: F32 | None = None) -> float:
    """Comb score of the exact grid (scale 1, no shift) over the whole board."""
    profs = _profiles(gray, centre, unit_px * side * 1.0, weight)
    base = unit_px * SQRT3 / 2
    return float(np.mean([_comb(p, centre, np.array([base]), np.array([0.0]), side)[0, 0] for p, _ in profs]))


def view_homography(h_board_to_img: F64, unit_px: float, size: int) -> F64:
    """Homography image → view where board units are ``unit_px`` pixels around the view centre."""
    c = size / 2.0
    a = np.array([[unit_px, 0, c], [0, unit_px, c], [0, 0, 1.0]])
    return np.asarray(a @ np.linalg.inv(h_board_to_img))


def rotation_board(sixths: int) -> F64:
    """3×3 board-unit rotation by ``sixths``×60° (a symmetry of the hexagon)."""
    ang = sixths * math.pi / 3
    return np.array([[math.cos(ang), -math.sin(ang), 0], [math.sin(ang), math.cos(ang), 0], [0, 0, 1.0]])


def _band_mean(grad: F32, pts: F64) -> float:
    """Mean of ``grad`` over a polygon; NaN when the polygon leaves the view."""
    if float(pts.min()) < 0 or float(pts.max()) > min(grad.shape) - 1:
        return float("nan")
    x0, y0 = np.floor(pts.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [np.round(pts - [x0, y0]).astype(np.int32)], 1)
    cnt = int(m.sum())
    return float((grad[y0:y1, x0:x1] * m).sum() / cnt) if cnt else float("nan")


def _band(p: F64, q: F64, u: F64, n: F64, a: float, b: float, origin: F64, unit_px: float) -> F64:
    """A strip along side p→q (shortened by one unit at each end) from ``a`` to ``b`` along normal ``n``."""
    poly = np.array([p + u + n * a, q - u + n * a, q - u + n * b, p + u + n * b])
    return np.asarray(origin + poly * unit_px)


#: A rim band counts only where this share of it shows the picture (``rim_energy``).
IN_PICTURE = 0.98


def rim_energy(grad: F32 | tuple[F32, F32], centre: float, unit_px: float, side: int, shift: F64,
               inside: F32 | None = None) -> float:
    """Mean (over the six sides) ratio of the edge strength in a thin band just outside the playing
    hexagon translated by ``shift`` (view pixels) to that in its outermost cell row: low when the
    band lies on the plain rim and the row on cells.

    ``grad``: the view's gradient magnitude, or its ``(gx, gy)``; given the components, only the
    gradient along each side counts — the slanted cell edges that cross a band, not lines parallel
    to the side (the board's own edge, the slab's face and its shadow, which lie on the rim a row's
    height out when the rim is narrow and would pass for the next row of cells). ``inside`` (1 where
    the view shows the picture): a side whose band leaves the picture counts 1 (no sign of a rim):
    beyond the picture's edge the view is blank, and a blank band must not pass for a plain rim."""
    hexa = hexagon_corners(side)
    ratios = []
    h = SQRT3 / 2
    for i in range(6):
        p, q = hexa[i], hexa[(i + 1) % 6]
        mid = (p + q) / 2
        n = mid / np.linalg.norm(mid)
        u = (q - p) / np.linalg.norm(q - p)
        g = grad if not isinstance(grad, tuple) else np.abs(grad[0] * u[0] + grad[1] * u[1])
        band = _band(p, q, u, n, 0.12 * h, 0.4 * h, centre + shift, unit_px)
        outer = _band_mean(g, band)
        inner = _band_mean(g, _band(p, q, u, n, -0.9 * h, -0.1 * h, centre + shift, unit_px))
        if not (np.isfinite(outer) and np.isfinite(inner)):
            return float("inf")
        if inside is not None and _band_mean(inside, band) < IN_PICTURE:
            ratios.append(1.0)
            continue
        ratios.append(outer / max(inner, 1e-3))
    return float(np.mean(ratios))


@cache
def lattice_shifts(reach: float = 3.0) -> tuple[F64, ...]:
    """Translations (board units) that map the cell grid onto itself, no longer than ``reach``,
    shortest first (0 first)."""
    out = []
    n = int(reach) + 2
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            v = np.array([i + j / 2, j * SQRT3 / 2])
            if float(np.linalg.norm(v)) <= reach + 1e-6:
                out.append(v)
    out.sort(key=lambda v: (round(float(np.linalg.norm(v)), 6), float(np.arctan2(v[1], v[0]))))
    return tuple(out)


def snap_shift(gray: F32, centre: float, unit_px: float, side: int = 9,
               inside: F32 | None = None) -> tuple[F64, float]:
    """The lattice translation (board units, up to 3 cells) that puts the playing hexagon's edges on
    the plain rim, and the ratio of its rim energy to the unshifted one (< 1 means the shift helped).
    ``inside``: 1 where the view shows the picture (``rim_energy``)."""
    gx = np.asarray(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), np.float32)
    gy = np.asarray(cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3), np.float32)
    shifts = lattice_shifts()
    energies = [rim_energy((gx, gy), centre, unit_px, side, s * unit_px, inside) for s in shifts]
    i = int(np.argmin(energies))
    return shifts[i], energies[i] / max(energies[0], 1e-6)
