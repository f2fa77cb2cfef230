"""Contact sheets: a grid of rendered frames with captions, small enough to commit."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

U8 = NDArray[np.uint8]


def contact_sheet(images: Sequence[U8], captions: Sequence[str] = (), cols: int = 4, width: int = 1600) -> U8:
    """Tile ``images`` (BGR) into a grid ``width`` pixels wide, each with its caption."""
    if not images:
        raise ValueError("no images for the contact sheet")
    cell_w = width // cols
    aspect = images[0].shape[0] / images[0].shape[1]
    cell_h = round(cell_w * aspect)
    rows = (len(images) + cols - 1) // cols
    sheet = np.full((rows * cell_h, cols * cell_w, 3), 255, np.uint8)
    for i, img in enumerate(images):
        r, c = divmod(i, cols)
        tile = cv2.resize(img, (cell_w - 4, cell_h - 4), interpolation=cv2.INTER_AREA)
        y, x = r * cell_h + 2, c * cell_w + 2
        sheet[y:y + cell_h - 4, x:x + cell_w - 4] = tile
        if i < len(captions) and captions[i]:
            cv2.rectangle(sheet, (x, y), (x + 9 * len(captions[i]) + 6, y + 18), (0, 0, 0), -1)
            cv2.putText(sheet, captions[i], (x + 3, y + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1,
                        cv2.LINE_AA)
    return sheet


def save_sheet(sheet: U8, path: str | Path, max_bytes: int = 1_000_000) -> int:
    """Write a PNG (palette-quantized when needed to stay under ``max_bytes``); return its size."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    ok, buf = cv2.imencode(".png", sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    data = bytes(buf) if ok else b""
    if len(data) > max_bytes:
        try:
            from PIL import Image
            rgb = Image.fromarray(cv2.cvtColor(sheet, cv2.COLOR_BGR2RGB))
            for colours in (256, 128, 64):
                q = rgb.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
                out = io.BytesIO()
                q.save(out, format="PNG", optimize=True)
                data = out.getvalue()
                if len(data) <= max_bytes:
                    break
        except ImportError:  # pragma: no cover - pillow ships with the dev tools
            small = cv2.resize(sheet, (sheet.shape[1] * 3 // 4, sheet.shape[0] * 3 // 4), interpolation=cv2.INTER_AREA)
            ok, buf = cv2.imencode(".png", small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
            data = bytes(buf)
    p.write_bytes(data)
    return len(data)
