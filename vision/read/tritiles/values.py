"""Read the value at each corner of a found tile: numerals (0–5, foot toward the centre) or pips
(k dots near the corner, 0 blank), on light or dark faces, in one ink or one colour per value.

Each corner is brought to the top of an upright canonical triangle (so its numeral stands upright),
ink is what differs from the face colour, and the corner window is scored per value 0–5. The
scores are then pooled over corners meeting at one lattice point (M-P1: they show one number) and
decoded per tile under M-B1 (values ascend clockwise: a rotation of a ≤ b ≤ c).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.nets import MODELS_DIR

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

L = 96.0  # canonical side in pixels
SIZE = 112
APEX = np.array([SIZE / 2, 10.0])
ROW = L * math.sqrt(3) / 2
CANON = np.array([APEX, APEX + np.array([L / 2, ROW]), APEX + np.array([-L / 2, ROW])])
CENTROID = CANON.mean(axis=0)
GLYPH_CENTRE = APEX + (CENTROID - APEX) * 0.42
GLYPH = (20, 28)  # template width, height
#: side of the corner crop the value net reads: the corner's mark and its surroundings, centred on
#: ``GLYPH_CENTRE`` of the upright canonical tile
CORNER_CROP = 56
VALUES_PATH = MODELS_DIR / "tile_values.npz"


def clockwise(tri: F64) -> F64:
    """Corners ordered clockwise in the image (y down)."""
    c = tri.mean(axis=0)
    ang = np.arctan2(tri[:, 1] - c[1], tri[:, 0] - c[0])
    return np.asarray(tri[np.argsort(ang)])


def corner_patch(image: U8, tri_cw: F64, i: int) -> U8:
    """The tile seen upright with its corner ``i`` (of the clockwise corners) at the top."""
    src = np.array([tri_cw[i], tri_cw[(i + 1) % 3], tri_cw[(i + 2) % 3]], np.float32)
    m = cv2.getAffineTransform(src, CANON.astype(np.float32))
    return np.asarray(cv2.warpAffine(image, m, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


def corner_crop(image: U8, tri_cw: F64, i: int) -> U8:
    """``CORNER_CROP`` px square around the mark of corner ``i`` (of the clockwise corners), the
    tile turned upright with that corner on top (the value net's input)."""
    src = np.array([tri_cw[i], tri_cw[(i + 1) % 3], tri_cw[(i + 2) % 3]], np.float32)
    m = cv2.getAffineTransform(src, CANON.astype(np.float32))
    m[:, 2] += CORNER_CROP / 2 - GLYPH_CENTRE
    return np.asarray(cv2.warpAffine(image, m, (CORNER_CROP, CORNER_CROP), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE))


@lru_cache(maxsize=1)
def _inside_mask() -> NDArray[np.bool_]:
    m = np.zeros((SIZE, SIZE), np.uint8)
    cen = CENTROID
    inner = cen + (CANON - cen) * 0.86
    cv2.fillPoly(m, [np.round(inner).astype(np.int32)], 1)
    return m > 0


def ink_mask(patch: U8) -> U8:
    """Pixels that differ from the tile face (the face is the dominant colour inside the tile)."""
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    inside = _inside_mask()
    face = np.median(lab[inside], axis=0)
    d = np.sqrt(((lab - face) ** 2).sum(axis=2))
    vals = d[inside]
    t = max(22.0, float(np.percentile(vals, 50)) * 3.0)
    win = _window(d)
    if win.size and float(win.max()) > t:
        scaled = np.clip(win / max(float(win.max()), 1e-6) * 255, 0, 255).astype(np.uint8)
        otsu, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        t = max(t, otsu / 255.0 * float(win.max()))
    return np.asarray(((d > t) & inside).astype(np.uint8) * 255, np.uint8)


def _window(mask: NDArray[Any]) -> NDArray[Any]:
    cx, cy = GLYPH_CENTRE
    hw, hh = 0.2 * L, 0.19 * L
    return mask[int(cy - hh):int(cy + hh), int(cx - hw):int(cx + hw)]


@lru_cache(maxsize=1)
def _templates() -> list[tuple[int, NDArray[np.float32]]]:
    out = []
    fonts = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
             cv2.FONT_HERSHEY_PLAIN]
    for v in range(6):
        for f in fonts:
            for th in (1, 2, 3, 4):
                canvas = np.zeros((80, 80), np.uint8)
                scale = 2.0 if f != cv2.FONT_HERSHEY_PLAIN else 3.5
                cv2.putText(canvas, str(v), (15, 62), f, scale, 255, th, cv2.LINE_AA)
                # slanted variants stand in for italic typefaces
                for sx, shear in ((1.0, 0.0), (1.0, -0.22)):
                    m = np.array([[sx, shear, 40 * (1 - sx) - shear * 40], [0, 1, 0]], np.float32)
                    g = _normalise(np.asarray(cv2.warpAffine(canvas, m, (80, 80)), np.uint8))
                    if g is not None:
                        out.append((v, g))
    return out


def _normalise(glyph: U8) -> NDArray[np.float32] | None:
    ys, xs = np.nonzero(glyph > 127)
    if len(xs) < 4:
        return None
    crop = glyph[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = crop.shape
    scale = min(GLYPH[0] / w, GLYPH[1] / h)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA)
    box = np.zeros((GLYPH[1], GLYPH[0]), np.float32)
    y0, x0 = (GLYPH[1] - nh) // 2, (GLYPH[0] - nw) // 2
    box[y0:y0 + nh, x0:x0 + nw] = small.astype(np.float32) / 255.0
    box = np.asarray(cv2.GaussianBlur(box, (3, 3), 0), np.float32)
    box -= box.mean()
    n = float(np.linalg.norm(box))
    return box / n if n > 0 else None


def _main_blob(win: U8) -> U8:
    """The ink components near the window centre (drops bits of neighbouring numerals and edges)."""
    n, lab, stats, cents = cv2.connectedComponentsWithStats(win, connectivity=8)
    if n <= 1:
        return win
    h, w = win.shape
    # the biggest component near the centre is the numeral; keep what lies within its reach
    best, best_i = -1.0, 0
    for i in range(1, n):
        cx, cy = cents[i]
        d = math.hypot((cx - w / 2) / w, (cy - h / 2) / h)
        score = stats[i, cv2.CC_STAT_AREA] * max(0.0, 1.0 - 2.2 * d)
        if score > best:
            best, best_i = score, i
    if best <= 0:
        return np.zeros_like(win)
    bx, by, bw, bh = stats[best_i, :4]
    keep = np.zeros(n, bool)
    for i in range(1, n):
        x, y, ww, hh = stats[i, :4]
        if x + ww >= bx - 0.25 * bw and x <= bx + 1.25 * bw and y + hh >= by - 0.15 * bh and y <= by + 1.15 * bh \
                and stats[i, cv2.CC_STAT_AREA] >= 4:
            keep[i] = True
    return np.asarray((keep[lab]).astype(np.uint8) * 255, np.uint8)


def numeral_scores(win: U8) -> F64:
    """Similarity (−1…1) of the ink in a corner window to each numeral 0–5."""
    g = _normalise(_main_blob(win))
    out = np.full(6, -1.0)
    if g is None:
        return out
    for v, t in _templates():
        out[v] = max(out[v], float((g * t).sum()))
    return out


_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)]}
PIP_R = 0.037 * L / 0.92
PIP_STEP = 0.068 * L / 0.92 * 0.75


def _unit(img: NDArray[np.float32]) -> NDArray[np.float32] | None:
    b = cv2.GaussianBlur(img, (5, 5), 0)
    b = b - b.mean()
    n = float(np.linalg.norm(b))
    return b / n if n > 0 else None


@lru_cache(maxsize=1)
def _pip_templates() -> dict[int, list[NDArray[np.float32]]]:
    """Dot layouts for 1–5 (both diagonals for 2 and 3, since editions differ) in window coordinates."""
    shape = _window(np.zeros((SIZE, SIZE), np.float32)).shape
    cx, cy = shape[1] / 2, shape[0] / 2
    out: dict[int, list[NDArray[np.float32]]] = {}
    for v, layout in _PIPS.items():
        variants = [layout, [(-x, y) for x, y in layout]]
        for lay in variants:
            img = np.zeros(shape, np.float32)
            for x, y in lay:
                cv2.circle(img, (round((cx + x * PIP_STEP) * 16), round((cy + y * PIP_STEP) * 16)), round(PIP_R * 16),
                           1.0, -1, cv2.LINE_AA, 4)
            u = _unit(img)
            if u is not None:
                out.setdefault(v, []).append(u)
    return out


def pip_scores(win: U8) -> F64:
    """Similarity (−1…1) of the ink in a corner window to dot layouts 1–5; index 0: blankness."""
    out = np.full(6, -1.0)
    ink = float((win > 0).sum())
    pip_area = math.pi * PIP_R ** 2
    out[0] = 1.0 if ink < 0.35 * pip_area else -1.0
    u = _unit((win > 0).astype(np.float32))
    if u is None:
        return out
    for v, temps in _pip_templates().items():
        out[v] = max(float((u * t).sum()) for t in temps)
    return out


def _drop_border(win: U8) -> U8:
    """Ink touching the window's border is a tile edge or a neighbour's mark, not this corner's value."""
    n, lab, stats, _c = cv2.connectedComponentsWithStats(win, connectivity=8)
    h, w = win.shape
    keep = np.zeros(n, bool)
    for i in range(1, n):
        x, y, bw, bh = stats[i, :4]
        keep[i] = x > 0 and y > 0 and x + bw < w and y + bh < h
    return np.asarray((keep[lab]).astype(np.uint8) * 255, np.uint8)


def corner_windows(image: U8, tri: F64) -> tuple[F64, list[U8]]:
    """Clockwise corners of a tile and the ink window of each corner."""
    cw = clockwise(tri)
    wins = []
    for i in range(3):
        patch = corner_patch(image, cw, i)
        wins.append(_drop_border(_window(ink_mask(patch))))
    return cw, wins


def is_pip_edition(windows: list[U8]) -> bool:
    """Whether the picture's tiles carry pips rather than numerals: most inked corner windows match a
    dot layout better than any numeral."""
    diffs = []
    for w in windows:
        if (w > 0).sum() < 0.5 * math.pi * PIP_R ** 2:
            continue
        diffs.append(float(pip_scores(w)[1:].max() - numeral_scores(w).max()))
    return bool(diffs) and float(np.mean([d > 0.05 for d in diffs])) > 0.6


def mark_quality(windows: list[U8], pips: bool) -> float:
    """Mean over a tile's corners of how cleanly its mark matches a numeral or a dot layout
    (a blank corner counts 0.6 on pip tiles, where it means 0, and 0 on numeral tiles)."""
    q = 0.0
    for w in windows:
        if (w > 0).sum() < 0.35 * math.pi * PIP_R ** 2:
            q += 0.6 if pips else 0.0
            continue
        q += float(pip_scores(w)[1:].max()) if pips else float(numeral_scores(w).max())
    return q / max(1, len(windows))


def net_value_scores(image: U8, tiles_cw: list[F64], path: str | None = None) -> list[list[F64]]:
    """Per tile (clockwise corners), per corner: log-probabilities of values 0–5 from the corner-value
    net (``VALUES_PATH``: the Triolet reader's square-CNN architecture with six outputs, trained by
    ``lab/train/train_tile_values.py``)."""
    from vision.read.triolet.cnn import load_cnn

    if not tiles_cw:
        return []
    net = load_cnn(path or str(VALUES_PATH))
    crops = np.stack([corner_crop(image, cw, i) for cw in tiles_cw for i in range(3)])
    logp = np.log(np.maximum(net.proba(crops).astype(np.float64), 1e-6))
    return [[logp[3 * k + i] for i in range(3)] for k in range(len(tiles_cw))]


def value_scores(win: U8, pips: bool) -> F64:
    """Scores (0 best, negative worse) for values 0–5 at one corner."""
    sc = pip_scores(win) if pips else numeral_scores(win)
    if pips and sc[0] > 0:
        s = np.full(6, -5.0)
        s[0] = 0.0
        return s
    return np.asarray((sc - sc.max()) * 10.0, np.float64)


@lru_cache(maxsize=1)
def valid_triples() -> tuple[tuple[int, int, int], ...]:
    """Clockwise readings allowed by M-B1: rotations of a ≤ b ≤ c."""
    out = set()
    for a in range(6):
        for b in range(a, 6):
            for c in range(b, 6):
                out.update({(a, b, c), (b, c, a), (c, a, b)})
    return tuple(sorted(out))


def decode_tile(scores: list[F64]) -> tuple[tuple[int, int, int], float]:
    """The best M-B1-valid clockwise triple and a confidence 0–1 (margin over the runner-up)."""
    best: list[tuple[float, tuple[int, int, int]]] = []
    for t in valid_triples():
        best.append((sum(float(scores[i][t[i]]) for i in range(3)), t))
    best.sort(key=lambda x: -x[0])
    margin = best[0][0] - best[1][0] if len(best) > 1 else 10.0
    return best[0][1], margin_confidence(margin)


def margin_confidence(margin: float) -> float:
    """A reading's confidence 0–1 from its log-likelihood margin over the runner-up."""
    return float(1.0 - math.exp(-max(margin, 0.0) / 2.0))
