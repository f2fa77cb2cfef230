"""Per-square feature vectors from the rectified board: gradient-orientation histograms (shape),
a small normalised thumbnail (ink layout: which corner holds the count digit), and colour."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import SIZE
from vision.read.triolet.geometry import MARGIN, PITCH

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

CROP = 56  # px: 1.4 squares around the square centre (room for askew, off-centre tiles)
CORE = 40  # px: the tile itself (one square) for the fine features
FINE_CELL = 5  # HOG cell of the core, px
COARSE_CELL = 8  # HOG cell of the whole crop, px
BINS = 9
THUMB = 16
#: every square ``(col, row)``, row by row (the order of a full board's crops and probabilities)
ALL_SQUARES: tuple[tuple[int, int], ...] = tuple((c, r) for r in range(SIZE) for c in range(SIZE))


def square_crops(rect: U8, squares: Sequence[tuple[int, int]] = ALL_SQUARES, pitch: int = PITCH,
                 margin: float = MARGIN, offset: tuple[int, int] = (0, 0)) -> U8:
    """``CROP``×``CROP`` BGR crops centred on squares ``(col, row)`` (all 225, row by row, by
    default), or ``offset`` (x, y) px away from their centres."""
    out = np.empty((len(squares), CROP, CROP, 3), np.uint8)
    half = CROP // 2
    pad = half + max(abs(offset[0]), abs(offset[1]))
    padded = cv2.copyMakeBorder(rect, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    for k, (c, r) in enumerate(squares):
        cx = round((margin + c + 0.5) * pitch) + pad + offset[0]
        cy = round((margin + r + 0.5) * pitch) + pad + offset[1]
        out[k] = padded[cy - half:cy + half, cx - half:cx + half]
    return out


#: orientation binning without a modulo: floor(angle·BINS/π) over [0, 2π] → unsigned bin (a
#: 256-entry table for ``cv2.LUT``; only the first 2·BINS + 1 entries are ever looked up)
_HALF_TURN_BIN = np.zeros(256, np.uint8)
_HALF_TURN_BIN[:2 * BINS + 1] = [k % BINS for k in range(2 * BINS)] + [BINS - 1]


#: per (side, cell): each pixel's first histogram bin, crop after crop (grown on demand)
_CELL_INDEX: dict[tuple[int, int], NDArray[np.int32]] = {}
#: batches up to this many crops use the kept index (a board's reads: 225 crops at a time; the
#: training script's chunks: 2,048); larger ones build their own
CELL_INDEX_KEEP = 4096


def _cell_index(n: int, side: int, cell: int) -> NDArray[np.integer]:
    """(n, side, side) index of the first histogram bin of each pixel's cell in a batch of ``n``
    crops' concatenated histograms."""
    have = _CELL_INDEX.get((side, cell))
    if have is None or len(have) < n:
        nc = side // cell
        block = np.minimum(np.arange(side) // cell, nc - 1)
        cell_of = (block[:, None] * nc + block[None, :]) * BINS
        rows = max(n, 2 * SIZE * SIZE)
        built = np.asarray(np.arange(rows, dtype=np.int64)[:, None, None] * (nc * nc * BINS) + cell_of[None], np.int64)
        if n > CELL_INDEX_KEEP:
            return built[:n]
        have = built.astype(np.int32)
        _CELL_INDEX[(side, cell)] = have
    return have[:n]


def _hog(g: F32, cell: int) -> F32:
    """Unsigned gradient-orientation histograms per ``cell``×``cell`` block (mean magnitude per
    bin), L2-normalised per crop and square-rooted; ``g`` is (n, s, s) normalised gray."""
    n, side = g.shape[0], g.shape[1]
    gx = np.empty_like(g)
    gy = np.empty_like(g)
    gx[:, :, 0] = gx[:, :, -1] = 0.0
    gy[:, 0, :] = gy[:, -1, :] = 0.0
    np.subtract(g[:, :, 2:], g[:, :, :-2], out=gx[:, :, 1:-1])
    np.subtract(g[:, 2:, :], g[:, :-2, :], out=gy[:, 1:-1, :])
    mag_t, ang_t = cv2.cartToPolar(gx.reshape(n * side, side), gy.reshape(n * side, side))
    b = cv2.LUT((ang_t * np.float32(BINS / np.pi)).astype(np.uint8), _HALF_TURN_BIN)
    nc = side // cell
    idx = _cell_index(n, side, cell).reshape(n * side, side) + b
    hist = np.bincount(idx.ravel(), weights=mag_t.ravel(), minlength=n * nc * nc * BINS)
    flat = (hist * (1.0 / (cell * cell))).astype(np.float32).reshape(n, -1)
    flat /= np.linalg.norm(flat, axis=1, keepdims=True) + 1e-3
    return np.asarray(np.sqrt(flat), np.float32)


def features(crops: U8) -> F32:
    """Feature matrix (n, d) for BGR crops of shape (n, CROP, CROP, 3): fine shape of the tile
    core (the numeral and the count digit's corner), coarse shape of the whole crop, a
    normalised thumbnail of the core, and colour statistics (occupancy)."""
    n = len(crops)
    if n == 0:
        return np.zeros((0, feature_size()), np.float32)
    tall = np.ascontiguousarray(crops.reshape(n * CROP, CROP, 3))
    gray = cv2.cvtColor(tall, cv2.COLOR_BGR2GRAY).reshape(n, CROP, CROP).astype(np.float32)
    mu = gray.mean(axis=(1, 2), keepdims=True)
    sd = gray.std(axis=(1, 2), keepdims=True)
    g = (gray - mu) / (sd + 8.0)
    o = (CROP - CORE) // 2
    core = np.ascontiguousarray(g[:, o:o + CORE, o:o + CORE])
    fine = _hog(core, FINE_CELL)
    coarse = _hog(g, COARSE_CELL)
    thumb = cv2.resize(core.reshape(n * CORE, CORE), (THUMB, n * THUMB), interpolation=cv2.INTER_AREA).reshape(n, -1)
    lab = cv2.cvtColor(tall, cv2.COLOR_BGR2LAB)
    # per crop: the sums of its rows (exact integers), then of those
    row_sums = cv2.reduce(lab, 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S).reshape(n, CROP, 3)
    whole_mean = row_sums.sum(axis=1) / float(CROP * CROP)
    q = CROP // 3
    centres = lab.reshape(n, CROP, CROP, 3)[:, q:2 * q, q:2 * q]
    centre = np.empty((n, 2, 3))
    for i in range(n):
        mean, dev = cv2.meanStdDev(centres[i])
        centre[i, 0], centre[i, 1] = mean.ravel(), dev.ravel()
    colour = np.concatenate([centre[:, 0] / 64.0 - 2.0, whole_mean / 64.0 - 2.0,
                             centre[:, 1] / 32.0, (sd.reshape(n, 1) / 32.0)], axis=1)
    return np.concatenate([fine, coarse, thumb, colour], axis=1).astype(np.float32)


def feature_size() -> int:
    """Length of one feature vector."""
    return ((CORE // FINE_CELL) ** 2 + (CROP // COARSE_CELL) ** 2) * BINS + THUMB * THUMB + 10
