"""What every renderer returns: the picture, its exact labels, and pixel masks."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray


@dataclass
class RenderedFrame:
    """``image``: BGR uint8 (H×W×3). ``labels``: JSON-ready truth (see docs/RENDERER.md).
    ``masks``: uint8 H×W masks by name (``occluders``: 255 where a hand/arm covers the scene)."""

    image: NDArray[np.uint8]
    labels: dict[str, Any]
    masks: dict[str, NDArray[np.uint8]] = field(default_factory=dict)

    def save(self, folder: str | Path, stem: str, jpeg_quality: int | None = None) -> Path:
        """Write ``stem.png`` (or ``.jpg``), ``stem.json`` and ``stem.<mask>.png``; return the image path."""
        d = Path(folder)
        d.mkdir(parents=True, exist_ok=True)
        if jpeg_quality is None:
            img_path = d / f"{stem}.png"
            cv2.imwrite(str(img_path), self.image)
        else:
            img_path = d / f"{stem}.jpg"
            cv2.imwrite(str(img_path), self.image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        (d / f"{stem}.json").write_text(json.dumps(self.labels, ensure_ascii=False) + "\n", encoding="utf-8")
        for name, m in self.masks.items():
            cv2.imwrite(str(d / f"{stem}.{name}.png"), m)
        return img_path


def r2(a: Any, nd: int = 3) -> Any:
    """Round numbers in nested lists/arrays for compact JSON."""
    arr = np.asarray(a, dtype=np.float64)
    return np.round(arr, nd).tolist()
