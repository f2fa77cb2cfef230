"""The Triolet board as a flat texture in the board's own frame (T-B1, T-B2).

Texture pixel ``(u, v)`` is world point ``(X, Y) = (u, v) / ppm − outer/2`` mm (board centre at
the origin). Square ``(c, r)`` (0-based column A=0, row 1 = 0) spans
``X ∈ [(c − 7.5)·s, (c − 6.5)·s]``, ``Y`` likewise, for square pitch ``s``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.triolet.board import DOUBLE_SQUARES, NAMES, REPLAY_SQUARES, TRIPLE_SQUARES
from lab.render.styles import BOARD_SCHEMES, BoardScheme, bgr

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

COLUMNS = "ABCDEFGHIJKLMNO"
#: the special squares (T-B2) by name, as the engine has them
DOUBLE = frozenset(NAMES[i] for i in DOUBLE_SQUARES)
TRIPLE = frozenset(NAMES[i] for i in TRIPLE_SQUARES)
REPLAY = frozenset(NAMES[i] for i in REPLAY_SQUARES)


def square_name(c: int, r: int) -> str:
    """``(0, 0)`` → ``A1`` (T-B1)."""
    return f"{COLUMNS[c]}{r + 1}"


def parse_square(name: str) -> tuple[int, int]:
    """``H8`` → ``(7, 7)``."""
    return COLUMNS.index(name[0].upper()), int(name[1:]) - 1


def premium_kind(name: str) -> str:
    """``double``, ``triple``, ``replay``, ``centre`` or ``plain`` (T-B2)."""
    if name == "H8":
        return "centre"
    if name in DOUBLE:
        return "double"
    if name in TRIPLE:
        return "triple"
    if name in REPLAY:
        return "replay"
    return "plain"


def rotate_square(c: int, r: int, quarter_turns: int) -> tuple[int, int]:
    """Square ``(c, r)`` of the board in a frame whose A1 is board corner ``quarter_turns``
    (0 A1, 1 O1, 2 O15, 3 A15, clockwise)."""
    for _ in range(quarter_turns % 4):
        c, r = r, 14 - c
    return c, r


def _text(img: U8, text: str, centre: tuple[float, float], height: float, colour: tuple[int, int, int],
          thick: float = 0.14, face: int = cv2.FONT_HERSHEY_DUPLEX, angle: float = 0.0) -> None:
    """Draw ``text`` centred at ``centre`` about ``height`` px tall (rotated by ``angle`` degrees)."""
    if height < 3:
        return
    scale = height / 22.0
    th = max(1, round(height * thick))
    (tw, tht), _ = cv2.getTextSize(text, face, scale, th)
    if angle == 0.0:
        org = (round(centre[0] - tw / 2), round(centre[1] + tht / 2))
        cv2.putText(img, text, org, face, scale, colour, th, cv2.LINE_AA)
        return
    pad = th + 2
    patch = np.zeros((tht + 2 * pad + 6, tw + 2 * pad), np.uint8)
    cv2.putText(patch, text, (pad, tht + pad), face, scale, 255, th, cv2.LINE_AA)
    ph, pw = patch.shape
    m = cv2.getRotationMatrix2D((pw / 2, ph / 2), -angle, 1.0)
    m[:, 2] += np.array(centre) - np.array([pw / 2, ph / 2])
    alpha = cv2.warpAffine(patch, m, (img.shape[1], img.shape[0])).astype(np.float32)[..., None] / 255.0
    img[:] = (img * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)


def _compass(img: U8, cx: float, cy: float, r: float, colour: tuple[int, int, int],
             accent: tuple[int, int, int]) -> None:
    """A compass rose (centre square H8)."""
    sh = 4
    pts_big: list[NDArray[np.int32]] = []
    for k in range(8):
        a = k * math.pi / 4
        rr = r if k % 2 == 0 else r * 0.6
        w = r * 0.16
        tip = (cx + rr * math.sin(a), cy - rr * math.cos(a))
        left = (cx + w * math.sin(a - math.pi / 2), cy - w * math.cos(a - math.pi / 2))
        right = (cx + w * math.sin(a + math.pi / 2), cy - w * math.cos(a + math.pi / 2))
        pts_big.append(np.round(np.array([tip, left, (cx, cy), right]) * (1 << sh)).astype(np.int32))
    for k, p in enumerate(pts_big):
        cv2.fillPoly(img, [p], accent if k % 2 else colour, cv2.LINE_AA, sh)
    cv2.circle(img, (round(cx * 16), round(cy * 16)), round(r * 0.9 * 16), colour, max(1, round(r * 0.05)),
               cv2.LINE_AA, 4)


@lru_cache(maxsize=8)
def board_texture(scheme_name: str, square_mm: float, ppm: float, seed: int = 0) -> U8:
    """The printed board (BGR) at ``ppm`` pixels per mm, border included."""
    sc: BoardScheme = BOARD_SCHEMES[scheme_name]
    border = sc.border_ratio * square_mm
    outer = 15 * square_mm + 2 * border
    n = round(outer * ppm)
    s = square_mm * ppm
    b = border * ppm
    img = np.empty((n, n, 3), np.uint8)
    img[:] = bgr(sc.border)
    # playing area
    x0 = b
    area = (round(x0), round(x0 + 15 * s))
    if sc.inset_squares:
        img[area[0]:area[1], area[0]:area[1]] = bgr(sc.grid)
    else:
        img[area[0]:area[1], area[0]:area[1]] = bgr(sc.base)
    gw = max(1.0, sc.grid_ratio * s)
    for r in range(15):
        for c in range(15):
            name = square_name(c, r)
            kind = premium_kind(name)
            colour = {"double": sc.double, "triple": sc.triple, "replay": sc.replay, "centre": sc.centre,
                      "plain": sc.base}[kind]
            if kind == "plain" and not sc.inset_squares:
                continue
            inset = gw / 2 if not sc.inset_squares else gw
            p0 = (x0 + c * s + inset, x0 + r * s + inset)
            p1 = (x0 + (c + 1) * s - inset, x0 + (r + 1) * s - inset)
            cv2.rectangle(img, (round(p0[0] * 16), round(p0[1] * 16)), (round(p1[0] * 16 - 16), round(p1[1] * 16 - 16)),
                          bgr(colour), -1, cv2.LINE_AA, 4)
            mid = ((p0[0] + p1[0]) / 2, (p0[1] + p1[1]) / 2)
            ink = bgr(sc.ink)
            if kind == "replay":
                _text(img, "BIS", mid, s * 0.28, ink, 0.12)
            elif kind == "centre":
                _compass(img, mid[0], mid[1], s * 0.42, ink, bgr(sc.triple))
            elif sc.premium_text and kind in ("double", "triple"):
                _text(img, "x2" if kind == "double" else "x3", mid, s * 0.3, ink, 0.12)
    if not sc.inset_squares:
        th = max(1, round(gw))
        for i in range(16):
            p = x0 + i * s
            cv2.line(img, (round(p * 16), round(x0 * 16)), (round(p * 16), round((x0 + 15 * s) * 16)), bgr(sc.grid),
                     th, cv2.LINE_AA, 4)
            cv2.line(img, (round(x0 * 16), round(p * 16)), (round((x0 + 15 * s) * 16), round(p * 16)), bgr(sc.grid),
                     th, cv2.LINE_AA, 4)
    # border decoration
    if b > 6:
        label_col = bgr(sc.grid) if sc.border != sc.base else bgr(sc.ink)
        if sc.border_labels:
            for i in range(15):
                _text(img, COLUMNS[i], (x0 + (i + 0.5) * s, b / 2), min(b * 0.5, s * 0.4), label_col, 0.1)
                _text(img, str(i + 1), (b / 2, x0 + (i + 0.5) * s), min(b * 0.5, s * 0.4), label_col, 0.1)
        if sc.title:
            _text(img, sc.title, (n / 2, n - b / 2), min(b * 0.6, s * 0.8), label_col, 0.14, cv2.FONT_HERSHEY_TRIPLEX)
            _text(img, sc.title, (n / 2, b / 2), min(b * 0.6, s * 0.8), label_col, 0.14, cv2.FONT_HERSHEY_TRIPLEX,
                  angle=180.0)
    # print texture: faint mottling
    rng = np.random.default_rng(seed)
    small = rng.normal(0, 1, (max(2, n // 24), max(2, n // 24), 1)).astype(np.float32)
    mottle = cv2.resize(small, (n, n), interpolation=cv2.INTER_CUBIC)[..., None]
    out = img.astype(np.float32) * (1.0 + 0.025 * mottle)
    return np.clip(out, 0, 255).astype(np.uint8)


def board_outer_mm(scheme_name: str, square_mm: float) -> float:
    """Side of the whole board (playing area plus border) in mm."""
    return 15 * square_mm + 2 * BOARD_SCHEMES[scheme_name].border_ratio * square_mm
