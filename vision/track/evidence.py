"""Evidence crops: the area of a move, rectified from the full-resolution frame, before and after."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.track.layout import GridLayout
from vision.track.observer import BoardFix

Image = NDArray[Any]


def crop_cells(image: Image, fix: BoardFix, layout: GridLayout, cells: Sequence[str], pitch: int = 48,
               pad: float = 1.5) -> Image:
    """The board around ``cells`` (``pad`` squares more on each side) at ``pitch`` px per square."""
    if cells:
        pos = np.array([layout.position(c) for c in cells], np.float64)
        x0, y0 = pos.min(axis=0) - pad
        x1, y1 = pos.max(axis=0) + 1 + pad
    else:
        x0 = y0 = -pad
        x1 = y1 = layout.size + pad
    x0, y0 = max(x0, -pad), max(y0, -pad)
    x1, y1 = min(x1, layout.size + pad), min(y1, layout.size + pad)
    w, h = max(1, round((x1 - x0) * pitch)), max(1, round((y1 - y0) * pitch))
    to_units = np.array([[1 / pitch, 0, x0], [0, 1 / pitch, y0], [0, 0, 1]], np.float64)
    m = fix.homography @ to_units
    return np.asarray(cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_CONSTANT))


def png_bytes(image: Image | None) -> bytes | None:
    """PNG encoding of an image (``None`` stays ``None``)."""
    if image is None:
        return None
    ok, buf = cv2.imencode(".png", image)
    return bytes(buf) if ok else None
