"""``read_trigon``: one picture of a Trigon board → covered triangles by colour (INTERFACES §3)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import BoardNotLocatedError
from vision.read.trigon.calib import redistort_points, undistort_image
from vision.read.trigon.colours import classify_cells
from vision.read.trigon.geometry import board_cells, cell_name, cell_table
from vision.read.trigon.locate import locate_trigon
from vision.read.trigon.reading import TrigonCell, TrigonReading
from vision.read.trigon.sanity import sanity_penalties

SIDE_OF_VARIANT = {"trigon": 9, "trigon_2": 9, "teams": 9, "solo": 9, "trigon_3": 8}


def read_trigon(image: NDArray[np.uint8], calibration: dict[str, Any] | None = None, variant: str = "trigon",
                debug_dir: str | Path | None = None) -> TrigonReading:
    """Read the board in ``image`` (BGR). ``variant`` picks the board (``trigon_3``: side 8, B-B1).
    ``debug_dir``: write the rectified, white-balanced board and every triangle's verdict there.
    Raises ``BoardNotLocatedError`` when no board is found, ``ValueError`` for an unknown variant."""
    if variant not in SIDE_OF_VARIANT:
        raise ValueError(f"unknown Trigon variant {variant!r}; choose {', '.join(SIDE_OF_VARIANT)}")
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("expected a BGR colour picture (H×W×3)")
    side = SIDE_OF_VARIANT[variant]
    t0 = time.perf_counter()
    img = undistort_image(image, calibration)
    board = locate_trigon(img)
    t1 = time.perf_counter()
    verdicts, view = classify_cells(img, board.homography, board.plate_radius)
    t2 = time.perf_counter()
    cells9 = cell_table(9)[0]
    index9 = {c: i for i, c in enumerate(cells9)}
    colours: list[str | None] = []
    confs: list[float] = []
    for c in board_cells(side):
        phys = (c[0] + 2, c[1] + 1) if side == 8 else c
        v = verdicts[index9[phys]]
        colours.append(v.colour)
        confs.append(v.confidence)
    penalties = sanity_penalties(colours, side)
    out = []
    for i, c in enumerate(board_cells(side)):
        colour = colours[i]
        if colour is None:
            continue
        out.append(TrigonCell(cell_name(c, side), colour, confs[i] * penalties.get(i, 1.0)))
    if debug_dir is not None:
        d = Path(debug_dir)
        d.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(d / "trigon_board.png"), view)
        rows = [{"cell": cell_name(c, 9), "colour": v.colour, "confidence": v.confidence,
                 "chroma": round(v.chroma, 1), "hue": round(v.hue, 1)} for c, v in zip(cells9, verdicts, strict=True)]
        (d / "trigon_cells.json").write_text(json.dumps({"side9_frame": rows}, indent=1) + "\n", encoding="utf-8")
    corners = redistort_points(board.corners_px(side), calibration)
    conf = float(np.clip(board.score / 2.5, 0.0, 1.0))
    return TrigonReading(variant=variant, corners_px=tuple((float(x), float(y)) for x, y in corners),
                         cells=tuple(out), confidence=conf,
                         timings_ms={"locate": (t1 - t0) * 1e3, "colours": (t2 - t1) * 1e3,
                                     "total": (time.perf_counter() - t0) * 1e3})


__all__ = ["BoardNotLocatedError", "read_trigon"]
