"""Find triangular tiles on a table: face masks, then a triangular lattice fitted to each blob.

Each blob of tile-face colour is a union of tiles. Its edges (outline and the gaps between tiles)
run in three directions; per direction the spacing and phase of the edge lines come from the
strongest first harmonic of the edge profile (as for the Trigon grid). Two families define an
affine lattice over the blob; the third tells how each parallelogram splits into two triangles.
A lattice triangle is a tile when the face mask covers most of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]


def _cross(a: F64, b: F64) -> float:
    """z of the 2-D cross product."""
    return float(a[0] * b[1] - a[1] * b[0])


@dataclass(frozen=True)
class FoundTile:
    """A tile's corners (3×2 image px), the fraction of it the face mask covers, and its blob id."""

    corners: F64
    coverage: float
    blob: int


@dataclass(frozen=True)
class LineFamily:
    """Lines ``n·p = offset + k·period`` (image px); ``strength``: harmonic magnitude, normalised."""

    normal: F64
    period: float
    offset: float
    strength: float


def _close(mask: U8, k: int) -> U8:
    return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))),
                      np.uint8)


def _fill_holes(mask: U8) -> U8:
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    h, w = padded.shape
    ff = np.zeros((h + 2, w + 2), np.uint8)
    cv2.floodFill(padded, ff, (0, 0), 255)
    return np.asarray(cv2.bitwise_or(mask, cv2.bitwise_not(padded)[1:-1, 1:-1]), np.uint8)


def face_masks(image: U8) -> list[tuple[str, U8]]:
    """Candidate tile-face masks: light low-chroma faces, and dark faces."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    lum = lab[..., 0]
    chroma = np.hypot(lab[..., 1].astype(np.float32) - 128, lab[..., 2].astype(np.float32) - 128)
    out: list[tuple[str, U8]] = []
    blur = cv2.GaussianBlur(lum, (5, 5), 0)
    otsu, _ = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    hi = float(np.percentile(blur, 99.5))
    for t in (otsu, (otsu + hi) / 2):
        m = ((blur > t) & (chroma < 40)).astype(np.uint8) * 255
        out.append(("light", m))
    lo = float(np.percentile(blur, 0.5))
    for t in ((otsu + lo) / 2,):
        m = ((blur < t) & (chroma < 25)).astype(np.uint8) * 255
        out.append(("dark", m))
    # local contrast: faces brighter (darker) than their surroundings
    k = max(31, int(min(lum.shape) / 6) | 1)
    local = cv2.blur(blur.astype(np.float32), (k, k))
    out.append(("light", ((blur > local + 12) & (chroma < 40)).astype(np.uint8) * 255))
    out.append(("dark", ((blur < local - 25) & (chroma < 25)).astype(np.uint8) * 255))
    # neutral faces on a coloured table (wood, felt, cloth): chroma well below the surroundings
    chroma_b = cv2.GaussianBlur(chroma, (5, 5), 0)
    local_c = cv2.blur(chroma_b, (k, k))
    if float(np.median(local_c)) > 18:
        out.append(("neutral", (chroma_b < np.minimum(14.0, 0.45 * local_c)).astype(np.uint8) * 255))
    cleaned = []
    for kind, m in out:
        m = np.asarray(cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
        cleaned.append((kind, _fill_holes(m)))
    return cleaned


def _orientation_peaks(gx: NDArray[np.float32], gy: NDArray[np.float32], sel: NDArray[np.bool_]) -> list[float]:
    """The normal direction (radians, mod π) of the strongest edge orientation, then +60°, +120°."""
    ang = np.arctan2(gy[sel], gx[sel]) % math.pi
    mag = np.hypot(gx[sel], gy[sel])
    bins = 180
    hist, _ = np.histogram(ang, bins=bins, range=(0, math.pi), weights=mag)
    # fold to 60° period: the three families of an equilateral lattice coincide
    folded = hist.reshape(3, bins // 3).sum(axis=0)
    folded = np.convolve(np.concatenate([folded[-3:], folded, folded[:3]]), np.ones(5) / 5, mode="same")[3:-3]
    base = (int(np.argmax(folded)) + 0.5) * math.pi / bins
    out = []
    for k in range(3):
        centre = base + k * math.pi / 3
        # refine each family's angle locally (affine views skew the 60° spacing)
        idx = (np.arange(-12, 13) + int(centre / math.pi * bins)) % bins
        local = hist[idx]
        if local.sum() > 0:
            best = idx[int(np.argmax(np.convolve(local, np.ones(3) / 3, mode="same")))]
            out.append((best + 0.5) * math.pi / bins)
        else:
            out.append(centre)
    return out


def _family(gx: NDArray[np.float32], gy: NDArray[np.float32], ys: NDArray[np.intp], xs: NDArray[np.intp],
            theta: float, periods: F64, multiples: bool = True) -> LineFamily:
    n = np.array([math.cos(theta), math.sin(theta)])
    gxs, gys = gx[ys, xs], gy[ys, xs]
    along = np.abs(gxs * n[0] + gys * n[1])
    aligned = along > 0.94 * np.hypot(gxs, gys)
    proj = (xs * n[0] + ys * n[1])[aligned]
    w = along[aligned]
    if len(proj) < 10:
        return LineFamily(n, float(periods[0]), 0.0, 0.0)
    lo = float(proj.min())
    bins = np.floor(proj - lo).astype(np.int64)
    prof = np.bincount(bins, weights=w).astype(np.float64)
    prof = np.asarray(cv2.GaussianBlur(prof.reshape(-1, 1), (1, 0), 1.0), np.float64).ravel()
    pos = np.arange(len(prof), dtype=np.float64) + lo
    g = prof - prof.mean()
    z = (g[None, :] * np.exp(-2j * np.pi * pos[None, :] / periods[:, None])).sum(axis=1)
    mag = np.abs(z) / (np.abs(g).sum() + 1e-9)
    i = int(np.argmax(mag))
    # a harmonic (period/2, period/3) can beat the fundamental: prefer the longest strong multiple
    for k in ((3, 2) if multiples else ()):
        target = periods[i] * k
        if target > periods[-1]:
            continue
        near = np.nonzero(np.abs(periods - target) <= 0.04 * target)[0]
        if len(near) == 0:
            continue
        j = int(near[np.argmax(mag[near])])
        if mag[j] >= 0.45 * mag[i]:
            i = j
            break
    off = -float(np.angle(z[i])) / (2 * np.pi) * periods[i]
    return LineFamily(n, float(periods[i]), off, float(mag[i]))


def fit_lattice(gray: U8, blob: U8, side_range: tuple[float, float]) -> list[LineFamily] | None:
    """Three line families fitted to the edges inside ``blob`` (dilated), or ``None``."""
    m = cv2.dilate(blob, np.ones((5, 5), np.uint8))
    g = gray.astype(np.float32)
    gx = np.asarray(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), np.float32)
    gy = np.asarray(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3), np.float32)
    sel = m > 0
    if sel.sum() < 50:
        return None
    thetas = _orientation_peaks(gx, gy, sel)
    ys, xs = np.nonzero(sel)
    periods = np.arange(side_range[0], side_range[1], 0.25) * math.sqrt(3) / 2
    fams = [_family(gx, gy, ys, xs, t, periods) for t in thetas]
    # one lattice, one scale: a family locked on a multiple of the others' period is refitted
    for _ in range(2):
        med = float(np.median([f.period for f in fams]))
        near = periods[(periods > 0.7 * med) & (periods < 1.4 * med)]
        if len(near) == 0:
            break
        changed = False
        for j, f in enumerate(fams):
            if not 0.7 * med < f.period < 1.4 * med:
                fams[j] = _family(gx, gy, ys, xs, thetas[j], near, multiples=False)
                changed = True
        if not changed:
            break
    return fams


@dataclass(frozen=True)
class Lattice:
    """Image → lattice coordinates: ``u = (n1·p − o1)/d1``, ``v = (n2·p − o2)/d2``; ``diag`` +1 when the
    third family is u + v = const, −1 when it is u − v = const."""

    a: F64  # 2×2: rows grad u, grad v
    b: F64  # 2
    diag: int

    def uv(self, p: F64) -> F64:
        return np.asarray(p @ self.a.T - self.b)

    def px(self, uv: F64) -> F64:
        return np.asarray(np.linalg.solve(self.a, (uv + self.b).T).T)


def lattice_from(fams: list[LineFamily]) -> Lattice:
    """Build the affine lattice from the three families (the most parallel-consistent pair first)."""
    f1, f2, f3 = fams
    a = np.array([f1.normal / f1.period, f2.normal / f2.period])
    b = np.array([f1.offset / f1.period, f2.offset / f2.period])
    g3 = f3.normal / f3.period
    plus, minus = a[0] + a[1], a[0] - a[1]
    cp = abs(float(plus @ g3)) / (np.linalg.norm(plus) * np.linalg.norm(g3))
    cm = abs(float(minus @ g3)) / (np.linalg.norm(minus) * np.linalg.norm(g3))
    return Lattice(a, b, 1 if cp > cm else -1)


def lattice_triangles(lat: Lattice, blob: U8, min_cover: float = 0.6) -> list[tuple[F64, float]]:
    """Lattice triangles covered by ``blob`` at least ``min_cover``: (corners 3×2 px, coverage)."""
    ys, xs = np.nonzero(blob)
    if len(xs) == 0:
        return []
    pts = np.stack([xs, ys], axis=1).astype(np.float64) + 0.0
    uv = lat.uv(pts)
    fu, fv = np.floor(uv[:, 0]), np.floor(uv[:, 1])
    ru, rv = uv[:, 0] - fu, uv[:, 1] - fv
    half = (ru + rv >= 1) if lat.diag > 0 else (ru < rv)
    keys = np.stack([fu, fv, half.astype(np.float64)], axis=1).astype(np.int64)
    uniq, counts = np.unique(keys, axis=0, return_counts=True)
    out = []
    for (iu, iv, hf), cnt in zip(uniq, counts, strict=True):
        if lat.diag > 0:
            tri_uv = (np.array([[0, 0], [1, 0], [0, 1]]) if hf == 0 else np.array([[1, 0], [1, 1], [0, 1]]))
        else:
            tri_uv = (np.array([[0, 0], [1, 0], [1, 1]]) if hf == 0 else np.array([[0, 0], [1, 1], [0, 1]]))
        corners = lat.px(tri_uv.astype(np.float64) + np.array([iu, iv], np.float64))
        area = 0.5 * abs(float(_cross(corners[1] - corners[0], corners[2] - corners[0])))
        cover = cnt / max(area, 1.0)
        if cover >= min_cover:
            out.append((corners, float(min(cover, 1.0))))
    return out


def _grad(gray: U8) -> NDArray[np.float32]:
    g = gray.astype(np.float32)
    return np.asarray(cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)))


def side_edges(grad: NDArray[np.float32], tri: F64, samples: int = 16) -> float:
    """The weakest of the triangle's three sides: mean (over points along it) of the strongest edge
    within a few pixels across it. Real tiles show an edge (outline or gap) on every side."""
    h, w = grad.shape
    side = float(np.linalg.norm(tri[1] - tri[0]))
    reach = max(2, round(0.05 * side))
    cen = tri.mean(axis=0)
    worst = np.inf
    for i in range(3):
        p, q = tri[i], tri[(i + 1) % 3]
        t = np.linspace(0.2, 0.8, samples)[:, None]
        pts = p + (q - p) * t
        n = (pts.mean(axis=0) - cen)
        n = n / (np.linalg.norm(n) + 1e-9)
        best = np.zeros(samples, np.float32)
        for r in range(-reach, reach + 1):
            qq = np.round(pts + n * r).astype(np.int64)
            ok = (qq[:, 0] >= 0) & (qq[:, 0] < w) & (qq[:, 1] >= 0) & (qq[:, 1] < h)
            vals = np.zeros(samples, np.float32)
            vals[ok] = grad[qq[ok, 1], qq[ok, 0]]
            best = np.maximum(best, vals)
        worst = min(worst, float(best.mean()))
    return worst


def single_triangle(blob: U8, side_range: tuple[float, float]) -> tuple[F64, float] | None:
    """(corners, fill) when the blob is one roughly equilateral triangle of tile size, else ``None``."""
    k = max(3, int(0.12 * math.sqrt(float((blob > 0).sum()))) | 1)
    filled = _fill_holes(_close(blob, k))
    cnts, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        return None
    cnt = max(cnts, key=cv2.contourArea)
    area = float(cv2.contourArea(cnt))
    if area <= 0:
        return None
    _, tri = cv2.minEnclosingTriangle(cnt.astype(np.float32))
    if tri is None:
        return None
    tri = np.asarray(tri, np.float64).reshape(3, 2)
    tri_area = 0.5 * abs(float(_cross(tri[1] - tri[0], tri[2] - tri[0])))
    sides = np.linalg.norm(np.roll(tri, -1, axis=0) - tri, axis=1)
    fill = area / max(tri_area, 1.0)
    if fill < 0.8 or sides.min() / sides.max() < 0.5:
        return None
    if not side_range[0] <= float(sides.mean()) <= side_range[1]:
        return None
    return tri, fill


def refine_corners(gx: NDArray[np.float32], gy: NDArray[np.float32], tri: F64) -> F64:
    """Move each side of a lattice triangle across itself (±12 % of a side) onto the strongest edge
    line nearby, and return the corners where the moved sides meet (local perspective correction)."""
    side = float(np.mean(np.linalg.norm(np.roll(tri, -1, axis=0) - tri, axis=1)))
    h, w = gx.shape
    cen = tri.mean(axis=0)
    lines = []
    t = np.linspace(0.1, 0.9, 32)[:, None]
    offsets = np.arange(-0.12, 0.1201, 0.015) * side
    for i in range(3):
        p, q = tri[i], tri[(i + 1) % 3]
        n = (p + q) / 2 - cen
        n = n / (np.linalg.norm(n) + 1e-9)
        pts = p + (q - p) * t
        best, best_o = -1.0, 0.0
        for o in offsets:
            qq = np.round(pts + n * o).astype(np.int64)
            ok = (qq[:, 0] >= 0) & (qq[:, 0] < w) & (qq[:, 1] >= 0) & (qq[:, 1] < h)
            if ok.sum() < 12:
                continue
            g = np.abs(gx[qq[ok, 1], qq[ok, 0]] * n[0] + gy[qq[ok, 1], qq[ok, 0]] * n[1])
            v = float(np.median(g)) * (1.0 - 0.8 * abs(o) / side)
            if v > best:
                best, best_o = v, float(o)
        lines.append((p + n * best_o, q - p))
    out = []
    for i in range(3):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        a = np.array([d1, -d2]).T
        if abs(np.linalg.det(a)) < 1e-9:
            return tri
        s = np.linalg.solve(a, p2 - p1)
        out.append(p1 + s[0] * d1)
    res = np.array(out)
    if float(np.abs(res - tri).max()) > 0.25 * side:
        return tri
    return res


def _angles_ok(fams: list[LineFamily]) -> bool:
    """The three normals lie roughly 60° apart and the periods are of one scale (tilted views allowed)."""
    th = sorted(math.atan2(float(f.normal[1]), float(f.normal[0])) % math.pi for f in fams)
    gaps = [th[1] - th[0], th[2] - th[1], math.pi - (th[2] - th[0])]
    if min(gaps) < math.radians(30):
        return False
    per = [f.period for f in fams]
    return min(per) / max(per) > 0.45


def _blob_tiles(gray: U8, blob: U8, side_range: tuple[float, float]) -> tuple[float, list[tuple[F64, float]]]:
    """(score, tiles) for one blob; score 0 when it does not look like a tile field."""
    fams = fit_lattice(gray, blob, side_range)
    if fams is None or min(f.strength for f in fams) < 0.12 or not _angles_ok(fams):
        return 0.0, []
    lat = lattice_from(fams)
    side = float(np.mean([f.period for f in fams])) * 2 / math.sqrt(3)
    k = max(3, int(0.2 * side) | 1)
    blob = _fill_holes(_close(blob, k))
    tris = lattice_triangles(lat, blob)
    if not tris:
        return 0.0, []
    grad = _grad(gray)
    strong = float(np.percentile(grad[blob > 0], 90)) if (blob > 0).any() else 0.0
    tris = [t for t in tris if side_edges(grad, t[0]) > max(30.0, 0.25 * strong)]
    if not tris:
        return 0.0, []
    c = tris[0][0]
    tri_area = 0.5 * abs(float(_cross(c[1] - c[0], c[2] - c[0])))
    area = float((blob > 0).sum())
    explained = len(tris) * tri_area / max(area, 1.0)
    cover = float(np.mean([t[1] for t in tris]))
    if not (0.4 < explained < 1.3) or cover < 0.75:
        return 0.0, []
    strength = float(np.mean([f.strength for f in fams]))
    return strength * cover * min(explained, 1 / explained), tris


def find_tiles(image: U8, side_range: tuple[float, float] = (14.0, 160.0), max_blobs: int = 25,
               work_size: int = 1100) -> list[FoundTile]:
    """Tiles found in ``image`` (BGR), searched in a copy at most ``work_size`` pixels wide."""
    h, w = image.shape[:2]
    f = min(1.0, work_size / max(h, w))
    if f >= 1.0:
        return _find_tiles(image, side_range, max_blobs)
    small = np.asarray(cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), np.uint8)
    found = _find_tiles(small, (max(10.0, side_range[0] * f), side_range[1] * f), max_blobs)
    return [FoundTile(t.corners / f, t.coverage, t.blob) for t in found]


def _find_tiles(image: U8, side_range: tuple[float, float], max_blobs: int) -> list[FoundTile]:
    """Every face mask's blobs that fit a lattice; overlaps resolved in favour of the better fit."""
    gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    h, w = gray.shape
    cands: list[tuple[float, FoundTile]] = []
    blob_id = 0
    smooth = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    gx_full = np.asarray(cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3), np.float32)
    gy_full = np.asarray(cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3), np.float32)
    for _kind, mask in face_masks(image):
        k = max(3, round(min(h, w) / 150) | 1)
        joined = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        _n, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
        areas = stats[1:, cv2.CC_STAT_AREA]
        order = np.argsort(-areas)[:max_blobs] + 1
        for i in order:
            area = stats[i, cv2.CC_STAT_AREA]
            if area < side_range[0] ** 2 * 0.43 * 0.7 or area > 0.25 * h * w:
                continue
            x, y, bw, bh = stats[i, :4]
            if max(bw, bh) < side_range[0] * 0.8:
                continue
            pad = 8
            x0, y0 = max(0, x - pad), max(0, y - pad)
            x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
            blob = np.asarray(((labels[y0:y1, x0:x1] == i) & (mask[y0:y1, x0:x1] > 0)).astype(np.uint8) * 255, np.uint8)
            single = single_triangle(blob, side_range)
            if single is not None:
                score, tris = 0.5 * single[1], [single]
            else:
                score, tris = _blob_tiles(gray[y0:y1, x0:x1], blob, side_range)
            if score <= 0:
                continue
            blob_id += 1
            for corners, cover in tris:
                moved = refine_corners(gx_full, gy_full, corners + np.array([x0, y0], np.float64))
                cands.append((score, FoundTile(moved, cover, blob_id)))
    cands.sort(key=lambda t: -t[0])
    kept: list[FoundTile] = []
    for _score, t in cands:
        c = t.corners.mean(axis=0)
        side = float(np.linalg.norm(t.corners[0] - t.corners[1]))
        if all(float(np.linalg.norm(k.corners.mean(axis=0) - c)) > 0.4 * side for k in kept):
            kept.append(t)
    return kept
