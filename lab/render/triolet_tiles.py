"""Triolet tile faces: a large dark numeral, the small count digit lower right, or a star (T-B3)."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.triolet.tiles import VALUE_COUNTS
from lab.render.fonts import glyph_mask, star_mask
from lab.render.styles import TILE_FINISHES, bgr

U8 = NDArray[np.uint8]

#: Tiles per value (T-B3); the small digit printed on each tile.
TILE_COUNTS = dict(enumerate(VALUE_COUNTS))


def _blend(img: NDArray[np.float32], mask: U8, x: int, y: int, colour: tuple[int, int, int]) -> None:
    h, w = mask.shape
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    a = mask[y0 - y:y1 - y, x0 - x:x1 - x].astype(np.float32)[..., None] / 255.0
    img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - a) + np.array(colour, np.float32) * a


def _face_marks(value: int | None, typeface: str, size: int, numeral_scale: float,
                star_outline: bool) -> list[tuple[U8, int, int]]:
    """What is printed on a tile's top, as (mask, x, y) placements on a ``size``-px face: the
    numeral and the count digit, or the wild's star."""
    if value is None:
        s = max(3, round(size * 0.6))
        return [(star_mask(s, 5, 0.45, star_outline), (size - s) // 2, (size - s) // 2)]
    g = glyph_mask(str(value), typeface, max(3, round(size * numeral_scale)))
    gh, gw = g.shape
    if gw > size * 0.8:  # wide two-digit numbers: shrink to fit
        f = size * 0.8 / gw
        g = np.asarray(cv2.resize(g, (max(1, round(gw * f)), max(1, round(gh * f))),
                                  interpolation=cv2.INTER_AREA), np.uint8)
        gh, gw = g.shape
    c = glyph_mask(str(TILE_COUNTS[value]), typeface, max(2, round(size * 0.15)))
    ch, cw = c.shape
    return [(g, (size - gw) // 2, round(size * 0.47 - gh / 2)), (c, round(size * 0.9 - cw), round(size * 0.9 - ch))]


@lru_cache(maxsize=256)
def face_ink(value: int | None, typeface: str, size: int, numeral_scale: float = 0.56,
             star_outline: bool = False) -> U8:
    """``size``×``size`` mask (0/255) of the ink on a tile's top, upright: where its value shows."""
    out = np.zeros((size, size), np.uint8)
    for mask, x, y in _face_marks(value, typeface, size, numeral_scale, star_outline):
        h, w = mask.shape
        x0, y0, x1, y1 = max(0, x), max(0, y), min(size, x + w), min(size, y + h)
        if x1 > x0 and y1 > y0:
            out[y0:y1, x0:x1] = np.maximum(out[y0:y1, x0:x1], mask[y0 - y:y1 - y, x0 - x:x1 - x])
    return np.asarray(out > 127, np.uint8) * 255


@lru_cache(maxsize=1024)
def tile_face(value: int | None, typeface: str, finish: str, size: int, numeral_scale: float = 0.56,
              star_outline: bool = False) -> U8:
    """The top of one tile, upright, ``size``×``size`` BGRA (alpha: rounded corners).

    ``value`` ``None`` draws a wild (a star, no numeral).
    """
    fin = TILE_FINISHES[finish]
    img = np.empty((size, size, 3), np.float32)
    img[:] = bgr(fin.face)
    # bevel: darker rim, slightly lighter centre
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    edge = np.minimum.reduce([xx, yy, size - 1 - xx, size - 1 - yy]) / max(1.0, size * 0.07)
    img *= (0.88 + 0.12 * np.clip(edge, 0, 1))[..., None]
    ink = bgr(fin.ink)
    for mask, x, y in _face_marks(value, typeface, size, numeral_scale, star_outline):
        _blend(img, mask, x, y, ink)
    alpha = np.zeros((size, size), np.uint8)
    rad = max(1, round(size * 0.09))
    cv2.rectangle(alpha, (rad, 0), (size - 1 - rad, size - 1), 255, -1)
    cv2.rectangle(alpha, (0, rad), (size - 1, size - 1 - rad), 255, -1)
    for cx, cy in ((rad, rad), (size - 1 - rad, rad), (rad, size - 1 - rad), (size - 1 - rad, size - 1 - rad)):
        cv2.circle(alpha, (cx, cy), rad, 255, -1, cv2.LINE_AA)
    out = np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha])
    return np.ascontiguousarray(out)
