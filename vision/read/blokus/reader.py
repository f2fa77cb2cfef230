"""``read_blokus``: one picture of a square Blokus board → covered squares by colour (INTERFACES §3)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import BoardNotLocatedError
from vision.read.blokus.colours import board_view, square_verdicts
from vision.read.blokus.geometry import GAME_COLOURS, board_size, square_name
from vision.read.blokus.grid import GridFit, Pyramid, first_fit, fit_grid
from vision.read.blokus.locate import candidate_quads, working_copy
from vision.read.blokus.reading import BlokusReading, BlokusSquare
from vision.read.trigon.calib import redistort_points, undistort_image

F64 = NDArray[np.float64]
#: outlines whose first lattice fit is strongest get the full fit
FULL_FITS = 6
#: lattice strength (share of edge energy at the square pitch) a board's view reaches
MIN_LATTICE = 0.2


def locate_grid(image: NDArray[np.uint8], n: int) -> GridFit:
    """The ``n``×``n`` grid's homography (units → picture), in the outline's own frame; raises
    ``BoardNotLocatedError`` when no outline shows a square lattice."""
    small, scale = working_copy(image)
    quads = [q / scale for q in candidate_quads(small)]
    if not quads:
        raise BoardNotLocatedError(f"no {n}×{n} square Blokus board found in the picture (no light plate outline)")
    pyr = Pyramid(image)
    firsts = []
    for q in quads:
        f = first_fit(pyr, q, n)
        if f is not None:
            firsts.append((f[1], q))
    firsts.sort(key=lambda t: -t[0])
    best: GridFit | None = None
    for _, q in firsts[:FULL_FITS]:
        g = fit_grid(pyr, q, n)
        if g is not None and (best is None or g.score > best.score):
            best = g
    if best is None or best.score < MIN_LATTICE:
        raise BoardNotLocatedError(f"no {n}×{n} square Blokus board found in the picture (no grid of squares)")
    return best


def upright(h: F64, n: int) -> F64:
    """The grid homography turned by quarter turns so its top edge is the board edge nearest the
    top of the picture (RULES K-B1 names follow that frame)."""
    unit_sq = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    pts = np.c_[unit_sq, np.ones(4)] @ h.T
    corners = pts[:, :2] / pts[:, 2:3]
    mids = [(corners[i] + corners[(i + 1) % 4]) / 2 for i in range(4)]
    top = int(np.argmin([m[1] for m in mids]))
    turned = np.roll(corners, -top, axis=0)
    return np.asarray(cv2.getPerspectiveTransform(unit_sq.astype(np.float32), turned.astype(np.float32)), np.float64)


def read_blokus(image: NDArray[np.uint8], calibration: dict[str, Any] | None = None, game: str = "blokus",
                debug_dir: str | Path | None = None) -> BlokusReading:
    """Read the board in ``image`` (BGR). ``game``: ``blokus`` (20×20) or ``blokus_duo`` (14×14).
    ``debug_dir``: write the rectified board and every square's verdict there. Raises
    ``BoardNotLocatedError`` when no board is found, ``ValueError`` for an unknown game or a
    picture that is not a colour image."""
    n = board_size(game)
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("expected a BGR colour picture (H×W×3)")
    t0 = time.perf_counter()
    img = undistort_image(image, calibration)
    fit = locate_grid(img, n)
    h = upright(fit.homography, n)
    t1 = time.perf_counter()
    verdicts = square_verdicts(img, h, n, GAME_COLOURS[game])
    t2 = time.perf_counter()
    out = [BlokusSquare(square_name(c, r, n), v.colour, v.confidence)
           for r, row in enumerate(verdicts) for c, v in enumerate(row) if v.colour is not None]
    out.sort(key=lambda s: (s.cell[0], int(s.cell[1:])))
    if debug_dir is not None:
        d = Path(debug_dir)
        d.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(d / "blokus_board.png"), board_view(img, h, n))
        rows = [{"cell": square_name(c, r, n), "colour": v.colour, "confidence": round(v.confidence, 3),
                 "chroma": round(v.chroma, 1)} for r, row in enumerate(verdicts) for c, v in enumerate(row)]
        (d / "blokus_squares.json").write_text(json.dumps({"squares": rows}, indent=1) + "\n", encoding="utf-8")
    unit_sq = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64)
    pts = np.c_[unit_sq, np.ones(4)] @ h.T
    corners = redistort_points(pts[:, :2] / pts[:, 2:3], calibration)
    conf = float(np.clip(fit.score / 0.4, 0.0, 1.0))
    return BlokusReading(game=game, corners_px=tuple((float(x), float(y)) for x, y in corners),
                         cells=tuple(out), confidence=conf,
                         timings_ms={"locate": (t1 - t0) * 1e3, "colours": (t2 - t1) * 1e3,
                                     "total": (time.perf_counter() - t0) * 1e3})


__all__ = ["BoardNotLocatedError", "read_blokus"]
