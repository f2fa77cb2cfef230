"""Numeral glyphs as masks in many typefaces: cv2 Hershey fonts, own stroke fonts, outline fonts.

``glyph_mask(text, typeface, height)`` returns a uint8 mask (255 = ink) cropped to the ink, whose
height is ``height`` pixels. Own stroke fonts: ``geometric`` (Futura-like circles and lines),
``rounded`` (soft curves, round ends), ``condensed`` (squared, DIN-like).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.styles import TYPEFACES, Typeface

U8 = NDArray[np.uint8]
Pts = list[tuple[float, float]]

_CANON = 160  # canonical glyph height in pixels


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 28) -> Pts:
    return [(cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
            for a in np.linspace(a0, a1, n)]


def _flip(strokes: list[Pts]) -> list[Pts]:
    return [[(0.6 - x, 1.0 - y) for x, y in s] for s in strokes]


def _geometric() -> dict[str, list[Pts]]:
    six = [_arc(.3, .7, .3, .3, 0, 360), [(.5, 0), (.05, .6)]]
    return {
        "0": [_arc(.3, .5, .3, .5, 0, 360, 48)],
        "1": [[(.12, .2), (.34, 0), (.34, 1)]],
        "2": [[*_arc(0.3, 0.28, 0.28, 0.28, 180, 395), (0.02, 1), (0.6, 1)]],
        "3": [[(0.04, 0), (0.56, 0), (0.26, 0.4), *_arc(0.3, 0.69, 0.3, 0.31, 262, 520)]],
        "4": [[(.44, 1), (.44, 0), (0, .7), (.6, .7)]],
        "5": [[(0.54, 0), (0.1, 0), (0.06, 0.44), *_arc(0.3, 0.68, 0.3, 0.32, 226, 515)]],
        "6": six,
        "7": [[(0, 0), (.6, 0), (.18, 1)]],
        "8": [_arc(.3, .25, .23, .25, 0, 360), _arc(.3, .73, .29, .27, 0, 360)],
        "9": _flip(six),
    }


def _rounded() -> dict[str, list[Pts]]:
    six = [_arc(.3, .7, .29, .3, 0, 360), _arc(.62, .72, .6, .72, 180, 258)]
    return {
        "0": [_arc(.3, .5, .3, .5, 0, 360, 48)],
        "1": [[(.1, .18), (.32, 0), (.32, 1)], [(.08, 1), (.56, 1)]],
        "2": [[*_arc(0.3, 0.27, 0.27, 0.27, 170, 380), (0.45, 0.55), (0.2, 0.78), (0.02, 1), (0.6, 1)]],
        "3": [_arc(.3, .26, .25, .26, 200, 450), _arc(.3, .74, .29, .26, 270, 520)],
        "4": [[(.36, 0), (.02, .68), (.6, .68)], [(.46, .38), (.46, 1)]],
        "5": [[(0.55, 0), (0.12, 0), (0.08, 0.42), *_arc(0.3, 0.68, 0.3, 0.32, 220, 510)]],
        "6": six,
        "7": [[(0, 0), (.6, 0), (.36, .45), (.26, 1)]],
        "8": [_arc(.3, .25, .23, .25, 0, 360), _arc(.3, .73, .29, .27, 0, 360)],
        "9": _flip(six),
    }


def _condensed() -> dict[str, list[Pts]]:
    six = [[(.55, 0), (.1, 0), (0, .1), (0, .9), (.1, 1), (.5, 1), (.6, .9), (.6, .55), (.5, .45), (0, .45)]]
    return {
        "0": [[(.1, 0), (.5, 0), (.6, .1), (.6, .9), (.5, 1), (.1, 1), (0, .9), (0, .1), (.1, 0)]],
        "1": [[(.12, .15), (.35, 0), (.35, 1)]],
        "2": [[(0, .12), (.1, 0), (.5, 0), (.6, .1), (.6, .4), (0, .9), (0, 1), (.6, 1)]],
        "3": [[(0, .08), (.08, 0), (.52, 0), (.6, .08), (.6, .42), (.52, .5), (.15, .5)],
              [(.52, .5), (.6, .58), (.6, .92), (.52, 1), (.08, 1), (0, .92)]],
        "4": [[(.45, 1), (.45, 0), (0, .65), (.6, .65)]],
        "5": [[(.6, 0), (0, 0), (0, .45), (.5, .45), (.6, .55), (.6, .9), (.5, 1), (0, 1)]],
        "6": six,
        "7": [[(0, 0), (.6, 0), (.6, .15), (.2, 1)]],
        "8": [[(.1, 0), (.5, 0), (.6, .1), (.6, .38), (.5, .47), (.1, .47), (0, .38), (0, .1), (.1, 0)],
              [(.1, .47), (0, .57), (0, .9), (.1, 1), (.5, 1), (.6, .9), (.6, .57), (.5, .47)]],
        "9": _flip(six),
    }


_STROKE_FONTS = {"geometric": _geometric(), "rounded": _rounded(), "condensed": _condensed()}


def _crop(mask: U8) -> U8:
    ys, xs = np.nonzero(mask > 20)
    if len(ys) == 0:
        return mask[:1, :1]
    return np.ascontiguousarray(mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1])


def _stroke_text(text: str, tf: Typeface) -> U8:
    font = _STROKE_FONTS[tf.variant]
    s = _CANON / (1.0 + tf.weight)
    th = max(1, round(tf.weight * _CANON))
    pad = th + 4
    adv = 0.6 + 0.16 + tf.weight * 0.5
    w = int(s * adv * len(text) + 2 * pad + 4)
    canvas = np.zeros((int(s + 2 * pad + 2), w), np.uint8)
    for i, ch in enumerate(text):
        for stroke in font.get(ch, []):
            pts = np.array([[pad + (x + i * adv) * s, pad + y * s] for x, y in stroke], np.float64)
            cv2.polylines(canvas, [np.round(pts * 16).astype(np.int32)], False, 255, th, cv2.LINE_AA, 4)
    return _crop(canvas)


def _hershey_text(text: str, tf: Typeface) -> U8:
    scale = 5.0
    (_, cap), _ = cv2.getTextSize("8", tf.face, scale, 1)
    th = max(2, round(tf.weight * cap * 0.8))
    (tw, tht), base = cv2.getTextSize(text, tf.face, scale, th)
    canvas = np.zeros((tht + base + 2 * th + 20, tw + 2 * th + 20), np.uint8)
    cv2.putText(canvas, text, (th + 10, tht + th + 10), tf.face, scale, 255, th, cv2.LINE_AA)
    return _crop(canvas)


def _ttf_text(text: str, tf: Typeface) -> U8 | None:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:  # pragma: no cover - pillow is installed with the dev tools
        return None
    try:
        if tf.path:
            if not Path(tf.path).exists():
                return None
            font: Any = ImageFont.truetype(tf.path, size=200)
        else:
            font = ImageFont.load_default(size=200)
    except (OSError, AttributeError, TypeError):
        return None
    img = Image.new("L", (200 * (len(text) + 1), 300), 0)
    ImageDraw.Draw(img).text((20, 20), text, fill=255, font=font)
    return _crop(np.asarray(img, dtype=np.uint8))


@lru_cache(maxsize=512)
def _canonical(text: str, name: str) -> U8:
    tf = TYPEFACES[name]
    mask: U8 | None
    if tf.kind == "hershey":
        mask = _hershey_text(text, tf)
    elif tf.kind == "stroke":
        mask = _stroke_text(text, tf)
    else:
        mask = _ttf_text(text, tf)
        if mask is None:
            return _canonical(text, tf.fallback)
    h, w = mask.shape
    mask = np.asarray(cv2.resize(mask, (max(1, round(w * _CANON / h * tf.aspect)), _CANON),
                                 interpolation=cv2.INTER_AREA), np.uint8)
    if tf.slant:
        extra = int(abs(tf.slant) * _CANON) + 2
        m = np.array([[1.0, -tf.slant, tf.slant * _CANON], [0.0, 1.0, 0.0]])
        mask = np.asarray(cv2.warpAffine(mask, m, (mask.shape[1] + extra, _CANON)), np.uint8)
        mask = _crop(mask)
    if tf.underline_69 and text in ("6", "9"):
        h, w = mask.shape
        bar = max(2, round(0.09 * _CANON))
        gap = round(0.07 * _CANON)
        out = np.zeros((h + gap + bar, w), np.uint8)
        out[:h] = mask
        out[h + gap:, round(w * 0.1):round(w * 0.9)] = 255
        mask = out
    return np.ascontiguousarray(mask)


@lru_cache(maxsize=4096)
def glyph_mask(text: str, typeface: str, height: int) -> U8:
    """The ink of ``text`` in ``typeface``, ``height`` pixels tall (digit height; underlines add)."""
    canon = _canonical(text, typeface)
    scale = height / _CANON
    h, w = canon.shape
    return np.asarray(cv2.resize(canon, (max(1, round(w * scale)), max(1, round(h * scale))),
                                 interpolation=cv2.INTER_AREA), dtype=np.uint8)


def resolved_typeface(name: str) -> str:
    """The typeface actually drawn for ``name`` on this machine (outline fonts may fall back)."""
    tf = TYPEFACES[name]
    if tf.kind == "ttf" and _ttf_text("8", tf) is None:
        return resolved_typeface(tf.fallback)
    return name


@lru_cache(maxsize=64)
def star_mask(size: int, points: int = 5, inner: float = 0.45, outline: bool = False) -> U8:
    """A star (the wild tile's mark), ``size`` pixels across."""
    n = 2 * points
    ang = -math.pi / 2 + np.arange(n) * math.pi / points
    r = np.where(np.arange(n) % 2 == 0, 1.0, inner) * (size * 4 / 2 - 4)
    c = size * 4 / 2
    pts = np.stack([c + r * np.cos(ang), c + r * np.sin(ang)], axis=1)
    big = np.zeros((size * 4, size * 4), np.uint8)
    if outline:
        cv2.polylines(big, [np.round(pts).astype(np.int32)], True, 255, max(2, size // 3), cv2.LINE_AA)
    else:
        cv2.fillPoly(big, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)
    return np.asarray(cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA), dtype=np.uint8)
