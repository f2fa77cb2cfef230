"""Candidate outlines of the Trigon plate: convex hexagons found in colour and edge masks."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]


#: Shares of densely textured pixels over a few cells that mark the plate (``candidate_masks``).
DENSE_TEXTURE = (0.6, 0.75)


def _cross(a: F64, b: F64) -> float:
    """z of the 2-D cross product."""
    return float(a[0] * b[1] - a[1] * b[0])


def order_clockwise(pts: F64) -> F64:
    """Points sorted clockwise in the image (y down) around their mean."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    return np.asarray(pts[np.argsort(ang)])


def _fill_holes(mask: U8) -> U8:
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    h, w = padded.shape
    ff = np.zeros((h + 2, w + 2), np.uint8)
    cv2.floodFill(padded, ff, (0, 0), 255)
    holes = cv2.bitwise_not(padded)[1:-1, 1:-1]
    return np.asarray(cv2.bitwise_or(mask, holes), np.uint8)


def _line_intersection(p1: F64, d1: F64, p2: F64, d2: F64) -> F64 | None:
    a = np.array([d1, -d2]).T
    if abs(np.linalg.det(a)) < 1e-9:
        return None
    t = np.linalg.solve(a, p2 - p1)
    return np.asarray(p1 + t[0] * d1)


def fit_hexagon(contour: NDArray[np.int32]) -> F64 | None:
    """Six clockwise corners of a convex hexagon fitted to ``contour`` (its hull), or ``None``."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    approx = None
    more: F64 | None = None
    for eps in np.linspace(0.005, 0.08, 16):
        a = cv2.approxPolyDP(hull, eps * peri, True)
        if len(a) == 6:
            approx = a.reshape(-1, 2).astype(np.float64)
            break
        if len(a) > 6:
            more = a.reshape(-1, 2).astype(np.float64)
        else:
            break
    if approx is None and more is not None and len(more) <= 12:
        approx = _reduce_to(more, 6)
    if approx is None:
        return None
    approx = order_clockwise(approx)
    # refine each side by a line fit to the hull's dense points near it
    dense = _densify(hull.reshape(-1, 2).astype(np.float64))
    lines = []
    for i in range(6):
        p, q = approx[i], approx[(i + 1) % 6]
        d = q - p
        length = float(np.linalg.norm(d))
        if length < 1:
            return None
        u = d / length
        n = np.array([-u[1], u[0]])
        rel = dense - p
        along = rel @ u
        off = np.abs(rel @ n)
        sel = (along > 0.15 * length) & (along < 0.85 * length) & (off < max(2.0, 0.03 * length))
        if sel.sum() >= 5:
            vx, vy, x0, y0 = cv2.fitLine(dense[sel].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
        else:
            lines.append((p, u))
    out = []
    for i in range(6):
        x = _line_intersection(lines[i - 1][0], lines[i - 1][1], lines[i][0], lines[i][1])
        if x is None:
            return None
        out.append(x)
    res = np.array(out)
    if not _convex(res):
        return None
    if float(np.abs(res - approx).max()) > 0.15 * math.sqrt(max(cv2.contourArea(approx.astype(np.float32)), 1.0)):
        return approx
    return res


def _reduce_to(poly: F64, n: int) -> F64:
    """Drop the vertices whose removal loses the least area until ``n`` remain."""
    p = [q for q in poly]
    while len(p) > n:
        losses = []
        for i in range(len(p)):
            a, b, c = p[i - 1], p[i], p[(i + 1) % len(p)]
            losses.append(abs(float(_cross(b - a, c - a))))
        p.pop(int(np.argmin(losses)))
    return np.array(p)


def _densify(poly: F64, step: float = 2.0) -> F64:
    pts = []
    for i in range(len(poly)):
        p, q = poly[i], poly[(i + 1) % len(poly)]
        n = max(1, int(np.linalg.norm(q - p) / step))
        t = np.linspace(0, 1, n, endpoint=False)[:, None]
        pts.append(p + (q - p) * t)
    return np.concatenate(pts)


def _convex(q: F64) -> bool:
    n = len(q)
    s = [_cross(q[(i + 1) % n] - q[i], q[(i + 2) % n] - q[(i + 1) % n]) for i in range(n)]
    return all(v > 0 for v in s) or all(v < 0 for v in s)


def hexagon_quality(hexa: F64) -> float:
    """0–1: how close the hexagon's sides are to equal and its angles to 120° (loose: views tilt)."""
    sides = np.linalg.norm(np.roll(hexa, -1, axis=0) - hexa, axis=1)
    return float(sides.min() / sides.max())


def candidate_masks(small: NDArray[np.uint8]) -> list[U8]:
    """Binary masks whose blobs may be the plate: low chroma at a few levels (a plate unlike the
    table), dense edges (the cell grid), the same joined across the pieces (closed wide, with the
    pieces' saturated colours), and fine texture (gradient energy, Otsu threshold: a plate on a
    table of its own colour)."""
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    a, b = lab[..., 1] - 128, lab[..., 2] - 128
    raw = np.hypot(a, b)
    low = raw <= np.percentile(raw, 30)
    a0, b0 = float(np.median(a[low])), float(np.median(b[low]))
    chroma = cv2.GaussianBlur(np.hypot(a - a0, b - b0), (0, 0), 1.5)
    h, w = chroma.shape
    k = max(5, int(min(h, w) / 40) | 1)
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    masks = []
    for t in (7.0, 12.0, 20.0):
        m = (chroma < t).astype(np.uint8) * 255
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        m = np.asarray(cv2.morphologyEx(m, cv2.MORPH_CLOSE, kern), np.uint8)
        masks.append(_fill_holes(m))
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 30, 90)
    e = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, kern)
    e = cv2.morphologyEx(e, cv2.MORPH_OPEN, kern)
    masks.append(_fill_holes(np.asarray(e, np.uint8)))
    wide = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3 * k, 3 * k))
    saturated = (raw > 35).astype(np.uint8) * 255
    for src in (edges, cv2.bitwise_or(edges, saturated)):
        e = cv2.morphologyEx(src, cv2.MORPH_CLOSE, wide)
        masks.append(_fill_holes(np.asarray(cv2.morphologyEx(e, cv2.MORPH_OPEN, kern), np.uint8)))
    g = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1))
    energy = cv2.blur(g, (k, k))
    e8 = np.clip(energy / (float(np.percentile(energy, 99)) + 1e-6) * 255, 0, 255).astype(np.uint8)
    _, m = cv2.threshold(e8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    textured = m
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, kern)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
    masks.append(_fill_holes(np.asarray(m, np.uint8)))
    # where the fine texture is dense over a few cells: the grid fills the plate, while a patterned
    # table's veins or grain, as textured as the grid where they run, leave most of any patch plain
    # (closing the texture mask above joins them to the plate)
    density = cv2.blur((textured > 0).astype(np.float32), (3 * k, 3 * k))
    cut = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
    for t in DENSE_TEXTURE:
        d = cv2.morphologyEx((density > t).astype(np.uint8) * 255, cv2.MORPH_OPEN, cut)
        masks.append(_fill_holes(np.asarray(d, np.uint8)))
    return masks


def candidate_hexagons(small: NDArray[np.uint8], max_candidates: int = 8) -> list[F64]:
    """Plate outline candidates (clockwise corners in ``small``'s pixels), biggest first."""
    h, w = small.shape[:2]
    found: list[tuple[float, F64]] = []
    for m in candidate_masks(small):
        n, lab, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        for i in range(1, n):
            area = stats[i, cv2.CC_STAT_AREA]
            if area < 0.03 * h * w:
                continue
            comp = (lab == i).astype(np.uint8)
            cnts, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            if not cnts:
                continue
            cnt = max(cnts, key=cv2.contourArea)
            hexa = fit_hexagon(cnt)
            if hexa is None:
                continue
            harea = cv2.contourArea(hexa.astype(np.float32))
            fill = area / max(harea, 1.0)
            if fill < 0.6 or hexagon_quality(hexa) < 0.25:
                continue
            found.append((harea * min(1.0, fill), hexa))
    found.sort(key=lambda t: -t[0])
    out: list[F64] = []
    for _, hx in found:
        if all(float(np.abs(hx - o).max()) > 4 for o in out):
            out.append(hx)
        if len(out) >= max_candidates:
            break
    return out
