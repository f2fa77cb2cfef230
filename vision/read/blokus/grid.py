"""The square lattice of a Blokus board: from a rough outline to a homography of the playing area.

A rough outline (the plate's rim, from ``locate``) is rectified to a square view; the sums of
horizontal and vertical brightness edges along each axis are periodic with the square pitch
(empty squares are recessed, each piece square has its own raised edges). The pitch and phase
come from the strongest Fourier component of each profile in the range the rim allows, and the
``n``-square window is the one centred in the outline. Two more rounds rectify on that grid and
fit each grid line on its own (its position in several bands across the board, a straight line
through them), and the lines' crossings give the final homography; perspective the outline got
slightly wrong, and a board a little bent, are taken up there. ``lattice_score`` (share of the
edge energy at the pitch) tells a board from clutter.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

#: pixels per square in the views the lattice is fitted on
FIT_UNIT = 24
#: view margin around the grid, in squares
MARGIN = 1
#: bands across the board each grid line is located in
BANDS = 5
#: whole squares the grid window may move by after a fit (an outline that missed part of the board)
MAX_SHIFT = 3
#: rounds of per-line refinement after the first whole-grid fit
REFINE_ROUNDS = 2
#: a band is crossed by grid lines when its crossing strength is this share of the grid's typical band
CROSSED_SHARE = 0.3


@dataclass(frozen=True)
class GridFit:
    """``homography``: board units (square (c, r) spans ``[c, c+1]×[r, r+1]``, r from the top of
    the outline's frame) → picture pixels; ``score``: lattice strength of the final view (0–1)."""

    homography: F64
    score: float


def view_transform(unit: float, margin: float) -> F64:
    """View pixel → board units (pixel centres at half units)."""
    return np.array([[1 / unit, 0, 0.5 / unit - margin], [0, 1 / unit, 0.5 / unit - margin], [0, 0, 1]], np.float64)


class Pyramid:
    """The picture and its halvings, so views are sampled from a level near their resolution."""

    def __init__(self, image: U8) -> None:
        self.levels: list[U8] = [image]
        while max(self.levels[-1].shape[:2]) > 600:
            self.levels.append(np.asarray(cv2.pyrDown(self.levels[-1]), np.uint8))

    def view(self, h_units_img: F64, size: int, unit: float, margin: float) -> U8:
        """``size``×``size`` view at ``unit`` px per square, ``margin`` squares around the grid."""
        to_img = h_units_img @ view_transform(unit, margin)
        # source pixels per view pixel, at the view's centre
        c = np.array([size / 2, size / 2, 1.0])
        pts = np.array([c, c + np.array([1.0, 0, 0]), c + np.array([0, 1.0, 0])]) @ to_img.T
        pts = pts[:, :2] / pts[:, 2:3]
        step = max(np.hypot(*(pts[1] - pts[0])), np.hypot(*(pts[2] - pts[0])))
        level = 0
        while level + 1 < len(self.levels) and step >= 2.0:
            level += 1
            step /= 2
        scale = np.diag([0.5 ** level, 0.5 ** level, 1.0])
        # pyrDown maps pixel centres x → (x + 0.5) / 2 - 0.5, close enough to x / 2 here
        m = scale @ to_img
        out = cv2.warpPerspective(self.levels[level], m, (size, size),
                                  flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(out, np.uint8)


def edge_profiles(view: U8, lo: int, hi: int) -> tuple[F64, F64]:
    """Sums of |∂/∂x| over rows ``lo:hi`` (a profile along x) and of |∂/∂y| over columns ``lo:hi``."""
    g = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
    return gx[lo:hi].sum(axis=0).astype(np.float64), gy[:, lo:hi].sum(axis=1).astype(np.float64)


def comb(profile: F64, lo: int, hi: int, pitches: F64) -> tuple[float, float, float]:
    """Best pitch among ``pitches`` for the profile's part ``lo:hi``: (pitch, phase x0 of a line,
    strength = |Fourier component| / total)."""
    e = profile[lo:hi] - profile[lo:hi].mean()
    total = float(np.abs(profile[lo:hi]).sum()) + 1e-9
    # an elementwise product, not a BLAS call: BLAS threads only contend on these small sizes
    s = (_waves(lo, hi, tuple(float(p) for p in pitches)) * e[None, :]).sum(axis=1)
    i = int(np.argmax(np.abs(s)))
    p = float(pitches[i])
    x0 = (-np.angle(s[i]) / (2 * np.pi)) * p
    return p, float(x0 % p), float(np.abs(s[i]) / total)


@lru_cache(maxsize=64)
def _waves(lo: int, hi: int, pitches: tuple[float, ...]) -> NDArray[np.complex128]:
    """``exp(-2πi x / p)`` for x in ``lo:hi`` (columns) and each pitch (rows)."""
    x = np.arange(lo, hi, dtype=np.float64)
    p = np.array(pitches, np.float64)
    return np.asarray(np.exp(-2j * np.pi * x[None, :] / p[:, None]), np.complex128)


def _wrap(d: float, p: float) -> float:
    return (d + p / 2) % p - p / 2


def first_fit(pyr: Pyramid, quad: F64, n: int) -> tuple[F64, float] | None:
    """Grid homography (units → picture) from an outline ``quad`` (picture px, clockwise from the
    top-left), by whole-profile lattice fits; ``None`` if no lattice shows."""
    u, m = FIT_UNIT, MARGIN
    size = (n + 2 * m) * u
    unit_sq = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    h0 = cv2.getPerspectiveTransform(unit_sq.astype(np.float32), quad.astype(np.float32)).astype(np.float64)
    view = pyr.view(h0, size, u, m)
    lo, hi = round(m * u * 0.5), round(size - m * u * 0.5)
    px, py = edge_profiles(view, m * u, (n + m) * u)
    pitches = np.linspace(0.86 * u, 1.04 * u, 73)
    ends = []
    strengths = []
    for prof in (px, py):
        p, x0, strength = comb(prof, lo, hi, pitches)
        centre = (m + n / 2) * u - 0.5
        start = centre - n * p / 2
        start = x0 + round((start - x0) / p) * p
        ends.append((start, start + n * p))
        strengths.append(strength)
    (x_a, x_b), (y_a, y_b) = ends
    to_units = view_transform(u, m)
    view_pts = np.array([[x_a, y_a, 1], [x_b, y_a, 1], [x_b, y_b, 1], [x_a, y_b, 1]], np.float64)
    units = view_pts @ to_units.T
    img = units @ h0.T
    img = img[:, :2] / img[:, 2:3]
    h1 = cv2.getPerspectiveTransform(unit_sq.astype(np.float32), img.astype(np.float32)).astype(np.float64)
    return h1, min(strengths)


def _line_positions(profile: F64, lo: int, hi: int, n: int, u: float, m: int) -> F64 | None:
    """Positions (view px) of the ``n + 1`` grid lines along a band's profile, the grid expected
    to start at ``m * u``; pitch within 5 % of ``u``."""
    p, x0, strength = comb(profile, lo, hi, np.linspace(0.95 * u, 1.05 * u, 21))
    if strength <= 0:
        return None
    expected = m * u - 0.5
    start = expected + _wrap(x0 - expected, p)
    # the grid's centre stays where the previous round put it; the pitch scales about it
    mid = expected + n * u / 2
    k_mid = (mid - start) / p
    first = mid - k_mid * p
    return np.asarray(first + np.arange(n + 1) * p, np.float64)


def refine(pyr: Pyramid, h: F64, n: int) -> tuple[F64, float]:
    """One round of per-line fitting on the view of grid ``h``: the new homography and the view's
    lattice strength."""
    u, m = FIT_UNIT, MARGIN
    size = (n + 2 * m) * u
    view = pyr.view(h, size, u, m)
    g = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
    lo, hi = m * u, (n + m) * u
    edges = np.linspace(lo, hi, BANDS + 1).round().astype(int)
    centres = (edges[:-1] + edges[1:]) / 2
    vert = []  # per band, x of each vertical line
    horz = []
    for a, b in itertools.pairwise(edges):
        vx = _line_positions(gx[a:b].sum(axis=0).astype(np.float64), lo - u // 2, hi + u // 2, n, u, m)
        hy = _line_positions(gy[:, a:b].sum(axis=1).astype(np.float64), lo - u // 2, hi + u // 2, n, u, m)
        if vx is None or hy is None:
            return h, 0.0
        vert.append(vx)
        horz.append(hy)
    va = np.array(vert)  # (bands, n+1): x of vertical line k at band centre y
    ha = np.array(horz)  # (bands, n+1): y of horizontal line k at band centre x
    # each line as x = a + b·y (vertical) and y = c + d·x (horizontal), robust to one bad band
    vl = [_robust_line(centres, va[:, k]) for k in range(n + 1)]
    hl = [_robust_line(centres, ha[:, k]) for k in range(n + 1)]
    src, dst = [], []
    for i, (a, b) in enumerate(vl):
        for j, (c, d) in enumerate(hl):
            # x = a + b y, y = c + d x
            x = (a + b * c) / (1 - b * d)
            y = c + d * x
            src.append((i, j))
            dst.append((x, y))
    dst_units = np.c_[np.array(dst), np.ones(len(dst))] @ view_transform(u, m).T
    hv, _ = cv2.findHomography(np.array(src, np.float64), dst_units[:, :2] / dst_units[:, 2:3], 0)
    if hv is None:
        return h, 0.0
    px = gx[lo:hi].sum(axis=0).astype(np.float64)
    py = gy[:, lo:hi].sum(axis=1).astype(np.float64)
    strength = min(comb(px, lo, hi, np.array([float(u)]))[2], comb(py, lo, hi, np.array([float(u)]))[2])
    return h @ np.asarray(hv, np.float64), strength


def _robust_line(t: F64, v: F64) -> tuple[float, float]:
    """``v ≈ a + b·t`` by least squares, refitted without the worst point if it sticks out."""
    b, a = np.polyfit(t, v, 1)
    res = np.abs(v - (a + b * t))
    if len(t) > 3 and res.max() > 2.0:
        keep = res < res.max()
        b, a = np.polyfit(t[keep], v[keep], 1)
    return float(a), float(b)


def axis_evidence(pyr: Pyramid, h: F64, n: int, reach: int) -> tuple[tuple[F64, F64], tuple[F64, F64]]:
    """For columns, then rows, from ``-reach`` to ``n + reach``: each grid line's edge strength (the
    largest summed |gradient| across the grid's span within 2 px of it), and each band's crossing
    strength (band ``j`` lies between lines ``j`` and ``j + 1``; how much stronger the other
    family's lines are inside it than the middles of the squares between them). A row of squares
    is crossed by the column lines; the board's plain rim, and the table beyond, are not."""
    u, m = FIT_UNIT, reach + 1
    view = pyr.view(h, (n + 2 * m) * u, u, m)
    g = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
    ks = np.arange(-reach, n + reach + 1)
    lines_at = (np.arange(n + 1) + m) * u  # view pixels just after the other family's lines
    out = []
    # along x: the column lines' strength in gx, and the column bands crossed by the row lines (gy)
    for along, across in ((gx, gy), (gy.T, gx.T)):
        prof = along[m * u:(n + m) * u].sum(axis=0)
        e = []
        for k in ks:
            x = (k + m) * u - 0.5
            lo, hi = max(0, round(x - 2)), min(len(prof), round(x + 3))
            e.append(float(prof[lo:hi].max()) if hi > lo else 0.0)
        # band k: view columns between lines k and k + 1, less a sixth of a square each side;
        # each band summed across into a profile over the other family's lines (one column each)
        starts = (ks + m) * u + u // 6
        cuts = np.stack([starts, starts + u - 2 * (u // 6)], axis=1).ravel()
        bands = np.add.reduceat(across, cuts, axis=1)[:, ::2].astype(np.float64)
        window = np.arange(-3, 2)
        on = bands[lines_at[:, None] + window].max(axis=1).mean(axis=0)
        mid = bands[lines_at[:-1, None] + u // 2 + window].mean(axis=1).mean(axis=0)
        out.append((np.asarray(e, np.float64), np.asarray(on - mid, np.float64)))
    return out[0], out[1]


def window_shift(energy: F64, cross: F64, n: int, reach: int) -> int:
    """Whole squares to move an axis's window of ``n`` squares by (within ``MAX_SHIFT``), from the
    lines' ``energy`` and the bands' ``cross`` at ``-reach … n + reach``. A band is a row (or
    column) of squares when the other family's lines cross it clearly (``CROSSED_SHARE`` of the
    grid's typical band); the window takes in as many such bands as it can, and one just outside
    it counts against it twice: the rim beyond the grid is plain, whatever edges it has (the
    board's outer edge a whole square out looks like one more grid line by strength alone). Ties
    go to the window whose ``n + 1`` lines are strongest, then to the smallest move."""
    inner = cross[reach + 1:reach + n - 1]
    crossed = cross > CROSSED_SHARE * max(float(np.median(inner)), 1e-9)
    best: tuple[float, float, float, int] | None = None
    for s in range(-MAX_SHIFT, MAX_SHIFT + 1):
        a = reach + s  # index of the window's first band (and first line)
        score = float(crossed[a:a + n].sum()) - 2.0 * float(crossed[a - 1] + crossed[a + n])
        key = (score, float(energy[a:a + n + 1].sum()), -abs(s), s)
        if best is None or key > best:
            best = key
    return 0 if best is None else int(best[3])


def best_shift(pyr: Pyramid, h: F64, n: int) -> tuple[int, int]:
    """Whole squares (columns, rows) to move the grid window by so it spans the board's squares and
    no more (``window_shift`` on each axis)."""
    reach = MAX_SHIFT + 1
    (ex, cx), (ey, cy) = axis_evidence(pyr, h, n, reach)
    return window_shift(ex, cx, n, reach), window_shift(ey, cy, n, reach)


def shifted(h: F64, dx: int, dy: int) -> F64:
    """The grid homography with its window moved by whole squares."""
    return np.asarray(h @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64), np.float64)


def fit_grid(pyr: Pyramid, quad: F64, n: int) -> GridFit | None:
    """The board's grid from an outline: first fit, then ``REFINE_ROUNDS`` per-line rounds, the
    window moved by whole squares where its outer lines are not the grid's."""
    first = first_fit(pyr, quad, n)
    if first is None:
        return None
    h, _ = first
    score = 0.0
    for _ in range(REFINE_ROUNDS):
        h, score = refine(pyr, h, n)
    for _ in range(MAX_SHIFT):
        dx, dy = best_shift(pyr, h, n)
        if not (dx or dy):
            break
        h, score = refine(pyr, shifted(h, dx, dy), n)
    return GridFit(h, score)
