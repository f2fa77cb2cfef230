"""Pips counted per corner, in the tile's own frame, whatever their colour.

Each found tile is warped to an upright canonical triangle (``SIDE`` px a side). A pip is a peak
of a blob response at a pip's scale (the Lab difference of Gaussians: a blob lighter, darker or of
another hue than the face around it — white, black, yellow, blue, red pips on wood or plastic
alike); peaks lie at least two pip radii apart, so touching pips count one by one. Each pip
belongs to the corner it lies nearest; a corner's value is its count (0: no pip). A picture's
tiles carry pips when most blobs are round (a numeral's strokes make stretched ones).

An edition learned by ``calibrate tiles`` (``tile_lesson``) adds the pips' colours: where colour
follows the count, each blob's colour votes for a count too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: canonical side (px) of the warped tile
SIDE = 120.0
SIZE = 136
_TOP = np.array([SIZE / 2, (SIZE - SIDE * math.sqrt(3) / 2) / 2])
CANON = np.array([_TOP, _TOP + np.array([SIDE / 2, SIDE * math.sqrt(3) / 2]),
                  _TOP + np.array([-SIDE / 2, SIDE * math.sqrt(3) / 2])])
CENTROID = CANON.mean(axis=0)
#: a pip's expected radius as a share of the side (editions differ: blobs from a third to three
#: times its area are pips)
PIP_RADIUS = 0.042
PIP_AREA = math.pi * (PIP_RADIUS * SIDE) ** 2
#: the part of the tile searched for pips: the triangle shrunk about its centre (edges and the
#: tile's sides stay out)
INNER = 0.84
#: a pip's blob response must reach this (Lab units), and this many times the tile's median response
MIN_RESPONSE = 8.0
RESPONSE_OVER_MEDIAN = 3.0
#: weight of lightness against the two colour axes in the blob response
LIGHTNESS_WEIGHT = 0.6
#: a pip's blob (the response above half its peak) is at most this elongated (a numeral's stroke
#: runs on)
ROUND_ELONGATION = 1.6
#: share of round blobs that makes a picture's tiles pip tiles
PIP_SHARE = 0.62
#: with the edition's pip colours known, a peak this share of the threshold counts when its colour
#: lies within ``KNOWN_COLOUR`` (Lab) of one of them
KNOWN_COLOUR_SHARE = 0.6
KNOWN_COLOUR = 15.0
#: a pip's response is at least this share of the strongest at its corner
ALIKE = 0.5
#: two pips' centres lie at least this many pip radii apart
PEAK_GAP = 2.2
#: log-likelihood lost per pip of difference between a corner's count and a value
PER_PIP = 3.0


@dataclass(frozen=True)
class Blob:
    """A pip blob in the canonical frame: centre, area (px), mean Lab colour, the corner it belongs
    to, whether it is round, its blob response."""

    x: float
    y: float
    area: float
    lab: tuple[float, float, float]
    corner: int
    round: bool
    strength: float = 0.0


def canonical(image: U8, tri_cw: F64) -> U8:
    """The tile warped upright: clockwise corner 0 on top, 1 bottom right, 2 bottom left."""
    m = cv2.getAffineTransform(np.asarray(tri_cw, np.float32), CANON.astype(np.float32))
    return np.asarray(cv2.warpAffine(image, m, (SIZE, SIZE), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE), np.uint8)


@lru_cache(maxsize=1)
def _face() -> NDArray[np.bool_]:
    """The top face, a little inside its edges."""
    m = np.zeros((SIZE, SIZE), np.uint8)
    cv2.fillPoly(m, [np.round(CENTROID + (CANON - CENTROID) * 0.96).astype(np.int32)], 1)
    return m > 0


@lru_cache(maxsize=1)
def _inner() -> NDArray[np.bool_]:
    m = np.zeros((SIZE, SIZE), np.uint8)
    cv2.fillPoly(m, [np.round(CENTROID + (CANON - CENTROID) * INNER).astype(np.int32)], 1)
    return m > 0


def response(patch: U8) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """A blob response per pixel (the Lab difference of Gaussians at a pip's scale, lightness counted
    at ``LIGHTNESS_WEIGHT``: a pip of any colour on a face of any colour stands out, and shading or
    grain, mostly lightness, less), and the Lab image."""
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    r = PIP_RADIUS * SIDE
    face = _face().astype(np.float32)
    # blurred over the face alone: the table beyond the tile's edges does not leak in
    masked = lab * face[..., None]

    def blur(sigma: float) -> NDArray[np.float32]:
        num = cv2.GaussianBlur(masked, (0, 0), sigma)
        den = cv2.GaussianBlur(face, (0, 0), sigma)[..., None]
        return np.asarray(num / np.maximum(den, 1e-3), np.float32)
    fine, coarse = blur(0.45 * r), blur(1.8 * r)
    d = fine - coarse
    d[..., 0] *= LIGHTNESS_WEIGHT
    return np.sqrt((d * d).sum(axis=2)).astype(np.float32), lab


def tile_blobs(image: U8, tri_cw: F64, colours: F64 | None = None) -> list[Blob]:
    """The pips on one tile (clockwise corners): peaks of the blob response, each with its corner.
    ``colours`` (n×3 Lab, the edition's pip colours): a weaker peak counts when its colour is one
    of them (``KNOWN_COLOUR``)."""
    patch = canonical(image, tri_cw)
    resp, lab = response(patch)
    inner = _inner()
    r = PIP_RADIUS * SIDE
    thr = max(MIN_RESPONSE, RESPONSE_OVER_MEDIAN * float(np.median(resp[inner])))
    k = max(3, round(PEAK_GAP * r) | 1)  # pips lie at least about two radii apart
    low = thr * (KNOWN_COLOUR_SHARE if colours is not None and len(colours) else 1.0)
    peak = (resp >= cv2.dilate(resp, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) & (resp > low) & inner
    ys, xs = np.nonzero(peak)
    out = []
    ri = round(0.6 * r)
    for yy, xx in zip(ys, xs, strict=True):
        y, x = int(yy), int(xx)
        y0, x0 = max(0, y - 2 * ri), max(0, x - 2 * ri)
        win = (resp[y0:y + 2 * ri + 1, x0:x + 2 * ri + 1] > 0.5 * resp[y, x]).astype(np.uint8)
        _n, lab_w = cv2.connectedComponents(win)
        part = np.argwhere(lab_w == lab_w[y - y0, x - x0]).astype(np.float64)
        area = float(len(part))
        ev = np.linalg.eigvalsh(np.cov(part.T)) if len(part) > 2 else np.array([1.0, 1.0])
        elong = math.sqrt(max(float(ev[1]), 1e-6) / max(float(ev[0]), 1e-6))
        corner = int(np.argmin(np.linalg.norm(CANON - np.array([x, y]), axis=1)))
        col = lab[max(0, y - ri):y + ri + 1, max(0, x - ri):x + ri + 1].reshape(-1, 3).mean(axis=0)
        if resp[y, x] <= thr and (colours is None or float(np.linalg.norm(colours - col, axis=1).min()) > KNOWN_COLOUR):
            continue
        out.append(Blob(float(x), float(y), area, (float(col[0]), float(col[1]), float(col[2])), corner,
                        elong < ROUND_ELONGATION, float(resp[y, x])))
    # a corner's pips are alike: a much weaker peak among them is the dip between neighbours
    top = [max((b.strength for b in out if b.corner == k), default=0.0) for k in range(3)]
    return [b for b in out if b.strength >= ALIKE * top[b.corner]]


def looks_like_pips(blobs: list[list[Blob]]) -> bool:
    """Whether the picture's tiles carry pips: most blobs are round (isolated, not stretched)."""
    allb = [b for bs in blobs for b in bs]
    if len(allb) < 3:
        return False
    return float(np.mean([b.round for b in allb])) >= PIP_SHARE


def corner_counts(blobs: list[Blob]) -> list[int]:
    """Pips per corner."""
    counts = [0, 0, 0]
    for b in blobs:
        counts[b.corner] += 1
    return counts


def _colour_votes(blobs: list[Blob], colours: dict[int, tuple[float, float, float]]) -> F64:
    """Log-likelihood per value 1–5 (index 0: none) that a corner's blobs are of that value's colour."""
    out = np.zeros(6)
    if not blobs or not colours:
        return out
    for b in blobs:
        d = {v: float(np.linalg.norm(np.subtract(b.lab, c) * np.array([0.7, 1.0, 1.0]))) for v, c in colours.items()}
        best = min(d.values())
        for v in range(1, 6):
            out[v] += -min(4.0, (d[v] - best) / 12.0) if v in d else -2.0
    return out / len(blobs)


def pip_scores(image: U8, tiles_cw: list[F64], learned: dict[str, Any] | None = None) -> list[list[F64]]:
    """Per tile (clockwise corners), per corner: log-likelihoods of values 0–5 from the pips counted
    there (and, when ``learned`` holds the edition's pip colours, from their colours)."""
    colours: dict[int, tuple[float, float, float]] = {}
    if learned and learned.get("colour_follows_count"):
        colours = {int(k): (float(v[0]), float(v[1]), float(v[2])) for k, v in learned.get("pip_colours", {}).items()}
    known = np.array(list(colours.values()), np.float64) if colours else None
    blobs = [tile_blobs(image, cw, known) for cw in tiles_cw]
    out: list[list[F64]] = []
    vals = np.arange(6, dtype=np.float64)
    for bs in blobs:
        counts = corner_counts(bs)
        row = []
        for k in range(3):
            s = -PER_PIP * np.abs(vals - min(counts[k], 6))
            mine = [b for b in bs if b.corner == k]
            if colours and mine:
                s = s + 2.0 * _colour_votes(mine, colours)
                s[0] -= 4.0
            row.append(s)
        out.append(row)
    return out
