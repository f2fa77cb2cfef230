"""Candidate outlines of a square Blokus board in a whole picture, without markers.

The board is a light, low-saturation plate whose squares are either empty (light) or covered by
strongly coloured translucent plastic; a wooden or patterned table around it is of middling
saturation. On a copy at most ``WORK_SIDE`` pixels across, pixels that are light and nearly
grey, or strongly saturated, are joined by a closing about one square wide (the grid lines and
dark piece edges fall inside), and each large blob's convex hull gives a quadrilateral: its
sides are lines fitted to the hull points nearest each side of the hull's 4-gon approximation.
Several thresholds are tried, since tables and lights differ; ``grid`` then keeps the candidate
whose rectified view shows the square lattice most clearly.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: longest side of the working copy the outline is searched on (pixels)
WORK_SIDE = 900
#: (saturation below which a light pixel counts as board, saturation above which a pixel counts
#: as a piece) pairs tried, on OpenCV's 0–255 HSV scale
MASK_THRESHOLDS = ((40, 150), (60, 170), (28, 130), (80, 200))
#: distances from the table's colour (8-bit Lab units) above which a pixel counts as not table
TABLE_DISTANCES = (14.0, 24.0)
#: the picture's second main direction of straight segments lies at least this far from the first (degrees)
SEGMENT_FAMILIES_APART = 35.0
#: segments within this many degrees of a main direction belong to it (perspective bends the families)
SEGMENT_SPREAD = 12.0
#: a candidate blob covers at least this share of the picture
MIN_AREA_SHARE = 0.03


def working_copy(image: U8) -> tuple[U8, float]:
    """The picture downscaled so its longest side is at most ``WORK_SIDE``, and the scale used."""
    h, w = image.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    if scale >= 1.0:
        return image, 1.0
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return np.asarray(small, np.uint8), scale


def board_masks(small: U8) -> list[U8]:
    """Binary masks (255 = maybe board): for each threshold pair of ``MASK_THRESHOLDS``, on the copy
    white-balanced on its brightest pixels (the light plate, under a lamp of any colour); far from
    the table's colour; dense in edges; and covered by the grid's straight segments."""
    hsv = cv2.cvtColor(white_balanced(small), cv2.COLOR_BGR2HSV)
    s, v = hsv[:, :, 1], hsv[:, :, 2]
    light = v >= np.percentile(v, 35)
    side = max(small.shape[:2])
    k = max(3, round(side / 60)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    out = []
    raw = [(((s < s_lo) & light) | ((s > s_hi) & (v > 60))) for s_lo, s_hi in MASK_THRESHOLDS]
    far = table_distance(small)
    raw += [far > t for t in TABLE_DISTANCES]
    raw.append(edge_density(small, k))
    for r in raw:
        m = r.astype(np.uint8) * 255
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
        out.append(np.asarray(m, np.uint8))
    out += grid_segments(small, k)
    return [np.asarray(cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel), np.uint8) for m in out]


def grid_segments(small: U8, k: int) -> list[U8]:
    """Masks (255) closed over about two squares: where straight segments of the picture's two main
    directions lie (the grid lines and the board's edges), and where the two directions cross (the
    grid's crossings, one every square); then both again opened over two squares. A table as light
    and grey as the board (marble, a pale cloth) has curved or scattered markings, few of them
    straight, fewer still crossing in the board's two directions."""
    # local contrast first: faint grid lines under a dim lamp still give segments
    g = cv2.createCLAHE(3.0, (8, 8)).apply(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    side = max(small.shape[:2])
    mask = np.zeros(small.shape[:2], np.uint8)
    found = cv2.createLineSegmentDetector().detect(g)[0]
    if found is None:
        return [mask] * 4
    segs = np.asarray(found, np.float64).reshape(-1, 4)
    d = segs[:, 2:] - segs[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > side / 90
    segs, d, length = segs[keep], d[keep], length[keep]
    if len(segs) == 0:
        return [mask] * 4
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180
    hist = np.zeros(180)
    np.add.at(hist, ang.astype(int) % 180, length)
    hist = np.convolve(np.r_[hist[-7:], hist, hist[:7]], np.ones(15), "valid")
    first = int(np.argmax(hist))
    apart = _angle_apart_deg(np.arange(180.0), first) > SEGMENT_FAMILIES_APART
    second = int(np.argmax(np.where(apart, hist, -1.0)))
    thick = max(1, k // 3)
    near = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    families = []
    for main in (first, second):
        fam = np.zeros_like(mask)
        for x0, y0, x1, y1 in segs[_angle_apart_deg(ang, main) < SEGMENT_SPREAD]:
            cv2.line(fam, (round(x0), round(y0)), (round(x1), round(y1)), 255, thick)
        families.append(cv2.dilate(fam, near))
    wide = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * k + 1, 2 * k + 1))
    # where either family lies, and where the two cross (the grid's crossings, one every square)
    both = cv2.bitwise_or(families[0], families[1])
    cross = cv2.bitwise_and(families[0], families[1])
    closed = [np.asarray(cv2.morphologyEx(m, cv2.MORPH_CLOSE, wide), np.uint8) for m in (both, cross)]
    # and each also opened as wide: stray segments just off the board are no corner of it (but a
    # board with few clear lines near an edge may lose that edge, so both are kept)
    return closed + [np.asarray(cv2.morphologyEx(m, cv2.MORPH_OPEN, wide), np.uint8) for m in closed]


def _angle_apart_deg(a: F64, b: float) -> F64:
    """Angles (degrees) between undirected directions ``a`` and ``b``."""
    return np.asarray(np.abs((a - b + 90.0) % 180.0 - 90.0), np.float64)


def edge_density(small: U8, k: int) -> NDArray[np.bool_]:
    """Where edges are dense over about a square (grid lines and piece edges; a plain or grained
    table has fewer): Otsu's split of the box-filtered gradient magnitude."""
    g = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mag = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1))
    dens = cv2.boxFilter(mag, -1, (k, k))
    scaled = np.clip(dens * (255.0 / max(float(dens.max()), 1e-6)), 0, 255).astype(np.uint8)
    t, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return np.asarray(scaled > t, np.bool_)


def table_distance(small: U8) -> NDArray[np.float32]:
    """Each pixel's Lab distance from the table's colour (the median of the picture's outer
    border, lightness counting half): the board stands out from the table whatever its colours."""
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    b = max(2, min(small.shape[:2]) // 30)
    border = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                             lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    ref = np.median(border, axis=0)
    d = lab - ref
    d[:, :, 0] *= 0.5
    out = np.sqrt((d ** 2).sum(axis=2))
    return np.asarray(cv2.medianBlur(out.astype(np.float32), 5), np.float32)


def white_balanced(small: U8) -> U8:
    """The copy with von Kries gains that make the mean of its brightest tenth (below clipping) grey."""
    f = small.astype(np.float32)
    lum = f.sum(axis=2)
    sel = (lum >= np.percentile(lum, 90)) & (f.max(axis=2) < 250)
    if sel.sum() < 50:
        return small
    ref = f[sel].mean(axis=0)
    gains = ref.mean() / np.maximum(ref, 1.0)
    return np.asarray(np.clip(f * gains, 0, 255), np.uint8)


def _line_fit(pts: F64) -> tuple[F64, F64] | None:
    """A point on, and the direction of, the total-least-squares line through ``pts``."""
    if len(pts) < 2:
        return None
    c = pts.mean(axis=0)
    _, _, vt = np.linalg.svd(pts - c, full_matrices=False)
    return c, vt[0]


def _intersect(a: tuple[F64, F64], b: tuple[F64, F64]) -> F64 | None:
    (p, d), (q, e) = a, b
    m = np.array([d, -e]).T
    if abs(np.linalg.det(m)) < 1e-9:
        return None
    t = np.linalg.solve(m, q - p)
    return np.asarray(p + t[0] * d, np.float64)


def quad_from_hull(hull: F64) -> F64 | None:
    """Four corners of the quadrilateral best fitting a convex hull (points ``(n, 2)``), or ``None``."""
    peri = cv2.arcLength(hull.astype(np.float32), True)
    approx = None
    for f in (0.02, 0.03, 0.045, 0.06, 0.08, 0.1):
        a = cv2.approxPolyDP(hull.astype(np.float32), f * peri, True).reshape(-1, 2)
        if len(a) == 4:
            approx = a.astype(np.float64)
            break
    if approx is None:
        box = cv2.boxPoints(cv2.minAreaRect(hull.astype(np.float32)))
        approx = np.asarray(box, np.float64)
    # densify the hull outline, then refit each side to the outline points nearest to it
    dense = []
    n = len(hull)
    for i in range(n):
        a, b = hull[i], hull[(i + 1) % n]
        steps = max(1, int(np.hypot(*(b - a)) / 2))
        t = np.linspace(0, 1, steps, endpoint=False)[:, None]
        dense.append(a + t * (b - a))
    pts = np.concatenate(dense)
    lines: list[tuple[F64, F64]] = []
    for i in range(4):
        a, b = approx[i], approx[(i + 1) % 4]
        d = b - a
        length = np.hypot(*d)
        if length < 1e-6:
            return None
        u = d / length
        rel = pts - a
        along = rel @ u
        off = np.abs(rel @ np.array([-u[1], u[0]]))
        near = (along > 0.15 * length) & (along < 0.85 * length) & (off < max(3.0, 0.03 * length))
        fit = _line_fit(pts[near]) if near.sum() >= 5 else None
        lines.append(fit if fit is not None else (a, u))
    corners = []
    for i in range(4):
        p = _intersect(lines[i - 1], lines[i])
        if p is None:
            return None
        corners.append(p)
    return np.asarray(corners, np.float64)


def candidate_quads(small: U8, max_per_mask: int = 2) -> list[F64]:
    """Plausible board outlines (4 corners each, working-copy pixels), most likely first."""
    h, w = small.shape[:2]
    found: list[tuple[float, F64]] = []
    for m in board_masks(small):
        _, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        order = np.argsort(-stats[1:, cv2.CC_STAT_AREA])[:max_per_mask] + 1
        for lab in order:
            area = float(stats[lab, cv2.CC_STAT_AREA])
            if area < MIN_AREA_SHARE * h * w:
                continue
            blob = (labels == lab).astype(np.uint8)
            cnts, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            cnt = max(cnts, key=cv2.contourArea)
            # holes (dark pieces the masks missed) count as blob: the outline is what matters
            blob = np.zeros_like(blob)
            cv2.drawContours(blob, [cnt], -1, 1, -1)
            hull = cv2.convexHull(cnt).reshape(-1, 2).astype(np.float64)
            quads = [quad_from_hull(hull), *quads_from_lines(cnt, area)]
            for q in quads:
                if q is None:
                    continue
                q = order_corners(q)
                if not _plausible(q, w, h):
                    continue
                # a board fills its outline: an outline taking in much that is not the blob is wrong
                qa = max(cv2.contourArea(q.astype(np.float32)), 1.0)
                inside = np.zeros_like(blob)
                cv2.fillConvexPoly(inside, np.round(q).astype(np.int32), 1)
                covered = float((inside & blob).sum())
                fill = covered / qa
                if fill < 0.8:
                    continue
                found.append((fill * covered, q))
    found.sort(key=lambda t: -t[0])
    out: list[F64] = []
    for _, q in found:
        if all(np.abs(q - o).max() > 4.0 for o in out):
            out.append(q)
    return out


def quads_from_lines(contour: NDArray[np.int32], area: float, per_side: int = 3) -> list[F64 | None]:
    """Outlines from the straight runs of a blob's boundary (Hough lines): for each of the two main
    directions the ``per_side`` strongest lines on each side of the blob's centre, all pairings.
    A blob that has grown into a bright table or a cup keeps the board's straight sides."""
    x0, y0, bw, bh = cv2.boundingRect(contour)
    canvas = np.zeros((bh + 4, bw + 4), np.uint8)
    cv2.drawContours(canvas, [contour - [x0 - 2, y0 - 2]], -1, 255, 1)
    size = float(np.sqrt(area))
    lines = cv2.HoughLines(canvas, 1, np.pi / 360, max(10, int(0.15 * size)))
    if lines is None:
        return []
    kept: list[tuple[float, float]] = []
    for rho, theta in lines[:, 0, :]:
        if all(abs(rho - r) > 0.04 * size or _angle_gap(theta, t) > np.radians(4) for r, t in kept):
            kept.append((float(rho), float(theta)))
        if len(kept) >= 40:
            break
    if not kept:  # OpenCV may answer an empty array rather than None
        return []
    m = cv2.moments(contour)
    cx, cy = m["m10"] / max(m["m00"], 1e-9) - (x0 - 2), m["m01"] / max(m["m00"], 1e-9) - (y0 - 2)
    t1 = kept[0][1]
    groups = []
    for ref in (t1, t1 + np.pi / 2):
        sides: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for rho, theta in kept:
            if np.cos(theta - ref) < 0:  # the same line with its normal turned towards ref's
                rho, theta = -rho, theta - np.pi
            if _angle_gap(theta, ref) < np.radians(25):
                d = cx * np.cos(theta) + cy * np.sin(theta) - rho
                if abs(d) > 0.15 * size:
                    sides[bool(d > 0)].append((rho, theta))
        groups.append([(a, b) for a in sides[True][:per_side] for b in sides[False][:per_side]])
    out: list[F64 | None] = []
    for a1, a2 in groups[0]:
        for b1, b2 in groups[1]:
            pts = [_hough_cross(a1, b1), _hough_cross(b1, a2), _hough_cross(a2, b2), _hough_cross(b2, a1)]
            if any(p is None for p in pts):
                continue
            out.append(np.asarray(pts, np.float64) + np.array([x0 - 2.0, y0 - 2.0]))
    return out


def _angle_gap(a: float, b: float) -> float:
    """Angle between two line normals, lines being undirected (0 – π/2)."""
    d = abs(a - b) % np.pi
    return float(min(d, np.pi - d))


def _hough_cross(a: tuple[float, float], b: tuple[float, float]) -> F64 | None:
    m = np.array([[np.cos(a[1]), np.sin(a[1])], [np.cos(b[1]), np.sin(b[1])]])
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    return np.asarray(np.linalg.solve(m, [a[0], b[0]]), np.float64)


def _plausible(q: F64, w: int, h: int) -> bool:
    """Convex, not tiny, sides of comparable length, corners not far outside the picture."""
    if not cv2.isContourConvex(q.astype(np.float32)):
        return False
    if cv2.contourArea(q.astype(np.float32)) < MIN_AREA_SHARE * w * h:
        return False
    sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
    if sides.min() < 0.25 * sides.max():
        return False
    pad = 0.1 * max(w, h)
    return bool((q[:, 0] > -pad).all() and (q[:, 0] < w + pad).all() and (q[:, 1] > -pad).all()
                and (q[:, 1] < h + pad).all())


def order_corners(q: F64) -> F64:
    """The 4 corners clockwise on screen (y down), starting from the one with the smallest x + y."""
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]
    start = int(np.argmin(q.sum(axis=1)))
    return np.asarray(np.roll(q, -start, axis=0), np.float64)
