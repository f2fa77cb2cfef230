"""Classify each Trigon triangle as empty or covered by a blue, yellow, red or green piece.

Colours are judged in a board view white-balanced on the plain rim (von Kries gains that make the
rim neutral grey), as Lab chroma and hue relative to that grey, so translucent plastic, warm lamps
and the board's own tint matter little. Pixels blown out by glare are ignored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from .geometry import SQRT3, cell_table, hexagon_corners

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

COLOURS = ("blue", "yellow", "red", "green")
#: Lab hue (degrees, atan2(b, a)) of each piece colour seen over grey.
HUES = {"blue": -85.0, "yellow": 85.0, "red": 35.0, "green": 150.0}
#: Chroma (Lab units, relative to the rim grey) above which a triangle counts as covered.
MIN_CHROMA = 14.0
VIEW_UNIT = 16.0


@dataclass(frozen=True)
class CellColour:
    """One triangle's verdict: ``colour`` (``None`` = empty), confidence 0–1, chroma and hue measured."""

    colour: str | None
    confidence: float
    chroma: float
    hue: float


@lru_cache(maxsize=4)
def _cell_pixels(side: int, unit: float, size: int) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """(labels image index array, per-pixel cell index) for shrunken triangles in the view."""
    cells, verts, cents = cell_table(side)
    lab = np.full((size, size), -1, np.int32)
    c = size / 2
    for i in range(len(cells)):
        v = cents[i] + (verts[i] - cents[i]) * 0.62
        poly = np.round((c + v * unit) * 16).astype(np.int32)
        m = np.zeros((size, size), np.uint8)
        cv2.fillPoly(m, [poly], 1, cv2.LINE_8, 4)
        lab[m > 0] = i
    idx = np.nonzero(lab.ravel() >= 0)[0].astype(np.int32)
    return idx, lab.ravel()[idx]


def _rim_mask(size: int, unit: float, side: int, plate_radius: float) -> U8:
    c = size / 2
    outer = np.round(c + hexagon_corners(1) * (min(plate_radius, side / 0.84) - 0.25) * unit).astype(np.int32)
    inner = np.round(c + hexagon_corners(side) * (1 + 0.25 / side) * unit).astype(np.int32)
    m = np.zeros((size, size), np.uint8)
    cv2.fillPoly(m, [outer], 1)
    cv2.fillPoly(m, [inner], 0)
    return m


def board_view(image: U8, h_board_img: F64, size: int, unit: float = VIEW_UNIT) -> U8:
    """The board seen straight on: board units × ``unit`` pixels around the view centre."""
    a = np.array([[unit, 0, size / 2], [0, unit, size / 2], [0, 0, 1.0]])
    hv = a @ np.linalg.inv(h_board_img)
    return np.asarray(cv2.warpPerspective(image, hv, (size, size), flags=cv2.INTER_LINEAR), np.uint8)


def classify_cells(image: U8, h_board_img: F64, plate_radius: float, side: int = 9
                   ) -> tuple[list[CellColour], U8]:
    """A verdict for every cell of ``cell_table(9)`` (side-9 frame) and the white-balanced view."""
    size = int(2 * VIEW_UNIT * max(plate_radius, 9.2)) + 8
    view = board_view(image, h_board_img, size).astype(np.float32)
    rim = _rim_mask(size, VIEW_UNIT, side, plate_radius) > 0
    rim_px = view[rim]
    lum = rim_px.mean(axis=1)
    keep = (lum > np.percentile(lum, 20)) & (lum < np.percentile(lum, 90)) if len(lum) > 50 else np.ones(len(lum), bool)
    ref = np.median(rim_px[keep], axis=0) if keep.sum() > 10 else np.median(view.reshape(-1, 3), axis=0)
    gains = ref.mean() / np.maximum(ref, 1.0)
    balanced = np.clip(view * gains[None, None, :], 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(balanced, cv2.COLOR_BGR2LAB).astype(np.float32)
    idx, owner = _cell_pixels(9, VIEW_UNIT, size)
    flat = lab.reshape(-1, 3)[idx]
    n = len(cell_table(9)[0])
    out: list[CellColour] = []
    # per-cell robust statistics: drop glare (the brightest, least coloured pixels)
    order = np.argsort(owner, kind="stable")
    owner_s, flat_s = owner[order], flat[order]
    bounds = np.searchsorted(owner_s, np.arange(n + 1))
    for i in range(n):
        px = flat_s[bounds[i]:bounds[i + 1]]
        if len(px) == 0:
            out.append(CellColour(None, 0.0, 0.0, 0.0))
            continue
        a, b = px[:, 1] - 128, px[:, 2] - 128
        ch = np.hypot(a, b)
        glare = (px[:, 0] > 245) & (ch < MIN_CHROMA)
        if (~glare).sum() >= 5:
            a, b, ch = a[~glare], b[~glare], ch[~glare]
        am, bm = float(np.median(a)), float(np.median(b))
        chroma = math.hypot(am, bm)
        hue = math.degrees(math.atan2(bm, am))
        out.append(_verdict(chroma, hue))
    return out, balanced


def _hue_gap(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _verdict(chroma: float, hue: float) -> CellColour:
    if chroma < MIN_CHROMA:
        conf = min(1.0, 0.5 + (MIN_CHROMA - chroma) / MIN_CHROMA)
        return CellColour(None, round(conf, 3), chroma, hue)
    gaps = sorted((_hue_gap(hue, h), name) for name, h in HUES.items())
    best, second = gaps[0], gaps[1]
    hue_conf = min(1.0, (second[0] - best[0]) / 40.0)
    chroma_conf = min(1.0, (chroma - MIN_CHROMA) / MIN_CHROMA + 0.3)
    return CellColour(best[1], round(max(0.05, min(hue_conf, chroma_conf)), 3), chroma, hue)


def prototype_hue(rgb: tuple[int, int, int]) -> float:
    """Lab hue of an sRGB colour (for checking ``HUES``)."""
    px = np.array([[rgb[::-1]]], np.uint8)
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB).astype(np.float32)[0, 0]
    return math.degrees(math.atan2(lab[2] - 128, lab[1] - 128))


__all__ = ["COLOURS", "SQRT3", "CellColour", "board_view", "classify_cells", "prototype_hue"]
