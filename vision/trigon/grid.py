"""Fit the Trigon cell grid in a rectified view: three families of parallel cell-edge lines.

The view maps board units (cell edge = 1, centre at the origin) to pixels. Each family of lines
(horizontal, ±60°) gives a profile of edge strength across the lines; a comb of period √3/2
(scaled) fitted to it yields that family's scale and offset, and the three together an affine
correction of the board-to-view map.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from .geometry import SQRT3, hexagon_corners

F64 = NDArray[np.float64]
F32 = NDArray[np.float32]


@dataclass(frozen=True)
class GridFit:
    """Affine correction ``view = centre + M·board + t`` and the comb score (higher = clearer grid)."""

    matrix: F64  # 2×2, in view pixels per board unit
    offset: F64  # 2, view pixels
    score: float


def _profiles(gray: F32, centre: float, radius_px: float, weight: F32 | None = None) -> list[tuple[F64, F64]]:
    """Per family: (profile of |∂/∂normal| across its lines, unit normal in view coordinates).
    ``weight`` (0–1 per pixel) can leave out hands and other non-board pixels."""
    size = gray.shape[0]
    mask0 = np.zeros((size, size), np.uint8)
    hexa = centre + hexagon_corners(1) * radius_px
    cv2.fillPoly(mask0, [np.round(hexa).astype(np.int32)], 1)
    mask = mask0.astype(np.float32)
    if weight is not None and float((weight * mask).sum()) > 0.25 * float(mask.sum()):
        mask = mask * weight
    out = []
    for j in range(3):
        rot = cv2.getRotationMatrix2D((centre, centre), 60.0 * j, 1.0)
        g = cv2.warpAffine(gray, rot, (size, size), flags=cv2.INTER_LINEAR) if j else gray
        m = cv2.warpAffine(mask, rot, (size, size), flags=cv2.INTER_LINEAR) if j else mask
        dy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
        num = (dy * m).sum(axis=1)
        den = m.sum(axis=1).astype(np.float64)
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


def _solve(normals: F64, s: F64, delta: F64, unit_px: float) -> tuple[F64, F64]:
    """Affine ``M``, ``t`` with ``Mᵀ n_j = s_j·unit·n_j`` and ``n_j · t = δ_j`` (least squares)."""
    a = np.zeros((6, 4))
    rhs = np.zeros(6)
    for j in range(3):
        n = normals[j]
        a[2 * j] = [n[0], 0, n[1], 0]
        a[2 * j + 1] = [0, n[0], 0, n[1]]
        rhs[2 * j], rhs[2 * j + 1] = s[j] * n[0] * unit_px, s[j] * n[1] * unit_px
    m = np.linalg.lstsq(a, rhs, rcond=None)[0].reshape(2, 2)
    t = np.linalg.lstsq(normals, delta, rcond=None)[0]
    return np.asarray(m, np.float64), np.asarray(t, np.float64)


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
    m, t = _solve(normals, s, delta, unit_px)
    return GridFit(matrix=m, offset=t, score=float(np.mean(combs)))


def local_offsets(gray: F32, centre: float, unit_px: float, spot: F64, radius: float, weight: F32 | None = None
                  ) -> F64 | None:
    """Where the grid lines near board point ``spot`` (board units) really are, relative to where the
    view puts them: a 2-vector in view pixels, or ``None`` when the area shows too little grid."""
    size = gray.shape[0]
    disc = np.zeros((size, size), np.float32)
    cpx = centre + spot * unit_px
    cv2.circle(disc, (round(float(cpx[0])), round(float(cpx[1]))), round(radius * unit_px), 1.0, -1)
    w = disc if weight is None else disc * weight
    if float(w.sum()) < (radius * unit_px) ** 2:
        return None
    profs = _profiles(gray, centre, unit_px * 9 * 1.0, w)
    base = unit_px * SQRT3 / 2
    periods = np.arange(0.94, 1.06, 0.002) * base
    normals, deltas = [], []
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
    off = np.linalg.lstsq(np.array(normals), np.array(deltas), rcond=None)[0]
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
    m = np.zeros(grad.shape, np.uint8)
    cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 1)
    cnt = int(m.sum())
    return float((grad * m).sum() / cnt) if cnt else float("nan")


def _band(p: F64, q: F64, u: F64, n: F64, a: float, b: float, origin: F64, unit_px: float) -> F64:
    """A strip along side p→q (shortened by one unit at each end) from ``a`` to ``b`` along normal ``n``."""
    poly = np.array([p + u + n * a, q - u + n * a, q - u + n * b, p + u + n * b])
    return np.asarray(origin + poly * unit_px)


def rim_energy(grad: F32, centre: float, unit_px: float, side: int, shift: F64) -> float:
    """Mean (over the six sides) ratio of the edge strength in a thin band just outside the playing
    hexagon translated by ``shift`` (view pixels) to that in its outermost cell row: low when the
    band lies on the plain rim and the row on cells."""
    hexa = hexagon_corners(side)
    ratios = []
    h = SQRT3 / 2
    for i in range(6):
        p, q = hexa[i], hexa[(i + 1) % 6]
        mid = (p + q) / 2
        n = mid / np.linalg.norm(mid)
        u = (q - p) / np.linalg.norm(q - p)

        outer = _band_mean(grad, _band(p, q, u, n, 0.12 * h, 0.4 * h, centre + shift, unit_px))
        inner = _band_mean(grad, _band(p, q, u, n, -0.9 * h, -0.1 * h, centre + shift, unit_px))
        if not (np.isfinite(outer) and np.isfinite(inner)):
            return float("inf")
        ratios.append(outer / max(inner, 1e-3))
    return float(np.mean(ratios))


def lattice_shifts() -> list[F64]:
    """Translations (board units) that map the cell grid onto itself: 0 and the 6 shortest ones."""
    out = [np.zeros(2)]
    for k in range(6):
        a = k * math.pi / 3
        out.append(np.array([math.cos(a), math.sin(a)]))
    return out


def snap_shift(gray: F32, centre: float, unit_px: float, side: int = 9) -> tuple[F64, float]:
    """The lattice translation (board units) that puts the playing hexagon's edges on the plain rim,
    and the ratio of its rim energy to the unshifted one (< 1 means the shift helped)."""
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    grad = np.asarray(cv2.magnitude(gx, gy), np.float32)
    energies = [rim_energy(grad, centre, unit_px, side, s * unit_px) for s in lattice_shifts()]
    i = int(np.argmin(energies))
    return lattice_shifts()[i], energies[i] / max(energies[0], 1e-6)
