"""Simple top-down pictures of a square-grid board (the simulated table's evidence) and PNG helpers.

STAND-IN for camera crops: the vision tracker's evidence are crops of real frames.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

CELL = 40
MARGIN = 6

#: Triolet's special squares (RULES T-B2), coloured on the drawing.
DOUBLE = {"H8", "D8", "L8", "H4", "H12", "E5", "K5", "E11", "K11"}
TRIPLE = {"E2", "K2", "E14", "K14", "B5", "N5", "B11", "N11"}
REPLAY = {"A8", "O8", "H1", "H15", "B2", "N2", "B14", "N14"}

BG = (60, 110, 40)  # BGR: green cloth
SQUARE = (205, 225, 215)
TILE = (220, 245, 250)
NEW = (0, 140, 255)


def square_pos(name: str) -> tuple[int, int] | None:
    """(column, row) from 0 of a square name like ``H8``; ``None`` if it is not one."""
    if len(name) < 2 or not name[0].isalpha() or not name[1:].isdigit():
        return None
    return ord(name[0].upper()) - ord("A"), int(name[1:]) - 1


def crop_around(squares: list[str], size: int, pad: int = 2) -> tuple[int, int, int, int]:
    """The square region (c0, r0, c1, r1), inclusive, around ``squares`` with ``pad`` squares."""
    pos = [p for p in (square_pos(s) for s in squares) if p is not None]
    if not pos:
        mid = size // 2
        return max(0, mid - 2), max(0, mid - 2), min(size - 1, mid + 2), min(size - 1, mid + 2)
    cols = [p[0] for p in pos]
    rows = [p[1] for p in pos]
    return (max(0, min(cols) - pad), max(0, min(rows) - pad), min(size - 1, max(cols) + pad),
            min(size - 1, max(rows) + pad))


class BoardPicture:
    """Draws a ``size``×``size`` board with its tiles."""

    def __init__(self, size: int = 15) -> None:
        self.size = size

    def draw(self, board: dict[str, list[Any]], highlight: set[str] | None = None) -> Image:
        """The whole board; ``board`` maps squares to ``[value, wild]``; ``highlight``: new tiles."""
        highlight = highlight or set()
        side = self.size * CELL + 2 * MARGIN
        img = np.full((side, side, 3), BG, dtype=np.uint8)
        for r in range(self.size):
            for c in range(self.size):
                name = f"{chr(ord('A') + c)}{r + 1}"
                x0, y0 = MARGIN + c * CELL, MARGIN + r * CELL
                colour = SQUARE
                if self.size == 15:
                    colour = ((90, 170, 250) if name in DOUBLE else (80, 80, 220) if name in TRIPLE
                              else (220, 160, 90) if name in REPLAY else SQUARE)
                cv2.rectangle(img, (x0 + 1, y0 + 1), (x0 + CELL - 2, y0 + CELL - 2), colour, -1)
                tile = board.get(name)
                if tile is None:
                    cv2.putText(img, name, (x0 + 4, y0 + 13), cv2.FONT_HERSHEY_SIMPLEX, 0.32, (110, 120, 110), 1,
                                cv2.LINE_AA)
                    continue
                value, wild = tile[0], bool(tile[1]) if len(tile) > 1 else False
                cv2.rectangle(img, (x0 + 3, y0 + 3), (x0 + CELL - 4, y0 + CELL - 4), TILE, -1)
                if name in highlight:
                    cv2.rectangle(img, (x0 + 2, y0 + 2), (x0 + CELL - 3, y0 + CELL - 3), NEW, 3)
                text = "W" if wild and value is None else str(value)
                scale = 0.6 if len(text) < 2 else 0.5
                (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
                ink = (40, 40, 200) if wild else (30, 30, 30)
                cv2.putText(img, text, (x0 + (CELL - tw) // 2, y0 + (CELL + th) // 2), cv2.FONT_HERSHEY_SIMPLEX,
                            scale, ink, 2, cv2.LINE_AA)
        return img

    def crop(self, img: Image, region: tuple[int, int, int, int]) -> Image:
        c0, r0, c1, r1 = region
        return img[MARGIN + r0 * CELL: MARGIN + (r1 + 1) * CELL, MARGIN + c0 * CELL: MARGIN + (c1 + 1) * CELL].copy()


def png(img: Image) -> bytes:
    """PNG bytes of a BGR image."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise ValueError("could not encode PNG")
    return bytes(buf.tobytes())


def decode_png(data: bytes) -> Image:
    img = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError("not a picture")
    return np.asarray(img, dtype=np.uint8)


def side_by_side(before: bytes | None, after: bytes | None) -> bytes:
    """One PNG: ``before`` on the left, ``after`` on the right, each labelled."""
    parts: list[Image] = []
    for label, data in (("before", before), ("after", after)):
        if data is None:
            continue
        img = decode_png(data)
        bar = np.full((24, img.shape[1], 3), 255, dtype=np.uint8)
        cv2.putText(bar, label, (4, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 1, cv2.LINE_AA)
        parts.append(np.vstack([bar, img]))
    if not parts:
        raise ValueError("no pictures")
    h = max(p.shape[0] for p in parts)
    padded = [np.vstack([p, np.full((h - p.shape[0], p.shape[1], 3), 255, np.uint8)]) for p in parts]
    gap = np.full((h, 8, 3), 255, dtype=np.uint8)
    out = padded[0] if len(padded) == 1 else np.hstack([padded[0], gap, padded[1]])
    return png(out)


def image_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG."""
    img = decode_png(data)
    return int(img.shape[1]), int(img.shape[0])
