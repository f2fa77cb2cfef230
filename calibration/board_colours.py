"""Colour references and border profiles sampled from a picture of the board, given its corners.

- ``triolet``: the base colour and the special squares of RULES T-B2 (double, triple, replay;
  the centre ``H8`` with its compass rose is left out), from the middle half of every square.
- ``trigon``: the board grey, and each piece colour (blue, yellow, red, green) covering at
  least 3 cells of the picture.

Every reference keeps the raw-image pixels it was sampled at, so ``calibration.fit`` can probe
the same spots cheaply later.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from .board_geometry import (
    PointsLike,
    apply_homography,
    board_homography,
    order_corners,
    outline_units,
    trigon_cells,
    triolet_squares,
)
from .profile import BoardReference, ColourReference
from .undistort import Undistorter

FloatArray = NDArray[np.float64]

#: RULES T-B2 (the centre H8 is a double square too, but its compass rose is not a colour sample).
TRIOLET_SPECIALS: dict[str, tuple[str, ...]] = {
    "double": ("D8", "L8", "H4", "H12", "E5", "K5", "E11", "K11"),
    "triple": ("E2", "K2", "E14", "K14", "B5", "N5", "B11", "N11"),
    "replay": ("A8", "O8", "H1", "H15", "B2", "N2", "B14", "N14"),
}
TRIOLET_CENTRE = "H8"
#: Lab hue angles (degrees) of the Trigon piece colours, for sorting coloured cells.
TRIGON_HUES = {"red": 35.0, "yellow": 95.0, "green": 145.0, "blue": 290.0}
MIN_PIECE_CELLS = 3


def units_to_raw(game: str, corners: PointsLike, units: FloatArray, undistorter: Undistorter | None,
                 image_size: tuple[int, int]) -> FloatArray:
    """Raw-image pixels of board-unit points (shape (..., 2)); ``corners`` are raw-image pixels."""
    if undistorter is None:
        return apply_homography(board_homography(game, corners), units)
    flat_corners = undistorter.undistort_points(corners, image_size)
    ideal = apply_homography(board_homography(game, flat_corners), units.reshape(-1, 2))
    return undistorter.distort_points(ideal, image_size).reshape(units.shape)


def sample_bgr(image: NDArray[Any], points: FloatArray) -> FloatArray:
    """Bilinear BGR samples of ``image`` at raw pixels ``points`` (shape (n, 2)) → (n, 3) floats."""
    img = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    pts = np.asarray(points, dtype=np.float32).reshape(-1, 1, 2)
    out = cv2.remap(img[:, :, :3], pts[..., 0], pts[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.float64).reshape(-1, 3)


def bgr_to_lab(bgr: FloatArray) -> FloatArray:
    """CIE L*a*b* (L 0–100) of 0–255 BGR colours, shape (n, 3)."""
    arr = (np.asarray(bgr, dtype=np.float32).reshape(-1, 1, 3) / 255.0).astype(np.float32)
    return np.asarray(cv2.cvtColor(arr, cv2.COLOR_BGR2Lab), dtype=np.float64).reshape(-1, 3)


def delta_e(lab1: FloatArray, lab2: FloatArray | Sequence[float]) -> FloatArray:
    """CIE76 colour difference."""
    return np.asarray(np.linalg.norm(np.asarray(lab1, dtype=np.float64) - np.asarray(lab2, dtype=np.float64),
                                     axis=-1), dtype=np.float64)


def _patch_offsets(game: str) -> FloatArray:
    if game == "triolet":  # middle half of a square
        g = np.linspace(-0.25, 0.25, 5)
        return np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    ring = [(0.15 * math.cos(t), 0.15 * math.sin(t)) for t in np.linspace(0, 2 * math.pi, 6, endpoint=False)]
    return np.array([(0.0, 0.0), *ring])  # well inside a triangle (inradius 0.29)


def cell_colours(game: str, image: NDArray[Any], corners: PointsLike, undistorter: Undistorter | None = None
                 ) -> tuple[list[str], FloatArray, FloatArray]:
    """Per square/cell: names, raw-pixel centres (n, 2) and median BGR colour (n, 3)."""
    if game == "triolet":
        named = triolet_squares()
    elif game == "trigon":
        named = [(name, centre) for name, centre, _up in trigon_cells()]
    else:
        raise ValueError(f"{game} has no board (its tiles lie on the bare table)")
    names = [n for n, _c in named]
    centres = np.array([c for _n, c in named], dtype=np.float64)
    offsets = _patch_offsets(game)
    pts = centres[:, None, :] + offsets[None, :, :]
    size = (int(image.shape[1]), int(image.shape[0]))
    raw = units_to_raw(game, corners, pts, undistorter, size)
    raw_centres = units_to_raw(game, corners, centres, undistorter, size)
    bgr = sample_bgr(image, raw.reshape(-1, 2)).reshape(len(names), len(offsets), 3)
    return names, raw_centres, np.median(bgr, axis=1)


def _reference(labs: FloatArray, bgrs: FloatArray, points: FloatArray, cells: Sequence[str]) -> ColourReference:
    lab = np.median(labs, axis=0)
    bgr = np.median(bgrs, axis=0)
    spread = float(np.median(delta_e(labs, lab))) if len(labs) else 0.0
    return ColourReference(
        lab=(float(lab[0]), float(lab[1]), float(lab[2])),
        rgb=(round(float(bgr[2])), round(float(bgr[1])), round(float(bgr[0]))),
        spread=spread,
        points_px=tuple((float(x), float(y)) for x, y in points),
        cells=tuple(cells),
    )


def sample_board_colours(game: str, image: NDArray[Any], corners: PointsLike,
                         undistorter: Undistorter | None = None) -> BoardReference:
    """The board reference of ``image``: corners (§3 order), colour references and border profiles."""
    quad = order_corners(corners)
    names, centres, bgr = cell_colours(game, image, quad, undistorter)
    labs = bgr_to_lab(bgr)
    index = {n: i for i, n in enumerate(names)}
    colours: dict[str, ColourReference] = {}
    if game == "triolet":
        special = {TRIOLET_CENTRE} | {n for group in TRIOLET_SPECIALS.values() for n in group}
        base = [i for i, n in enumerate(names) if n not in special]
        colours["base"] = _reference(labs[base], bgr[base], centres[base], [names[i] for i in base])
        for kind, squares in TRIOLET_SPECIALS.items():
            idx = [index[n] for n in squares]
            colours[kind] = _reference(labs[idx], bgr[idx], centres[idx], squares)
    else:
        chroma = np.hypot(labs[:, 1], labs[:, 2])
        greyish = np.nonzero(chroma < 12.0)[0]
        grey_idx = greyish if len(greyish) >= 10 else np.arange(len(names))
        grey = _reference(labs[grey_idx], bgr[grey_idx], centres[grey_idx], [names[i] for i in grey_idx])
        colours["board"] = grey
        grey_chroma = float(np.hypot(grey.lab[1], grey.lab[2]))
        coloured = (chroma > max(20.0, grey_chroma + 15.0)) & (delta_e(labs, grey.lab) > 20.0)
        hue = np.degrees(np.arctan2(labs[:, 2], labs[:, 1])) % 360.0
        nominal = np.array(list(TRIGON_HUES.values()))
        gap = np.abs(hue[:, None] - nominal[None, :])
        gap = np.minimum(gap, 360.0 - gap)
        nearest = np.argmin(gap, axis=1)
        for k, colour in enumerate(TRIGON_HUES):
            members = np.nonzero(coloured & (nearest == k) & (gap[:, k] < 45.0))[0]
            if len(members) >= MIN_PIECE_CELLS:
                colours[colour] = _reference(labs[members], bgr[members], centres[members],
                                             [names[i] for i in members])
    size = (int(image.shape[1]), int(image.shape[0]))
    edges = edge_profiles(game, image, quad, undistorter)
    return BoardReference(game=game, corners_px=(quad[0], quad[1], quad[2], quad[3]), image_size=size,
                          colours=colours, edges=tuple(tuple(float(v) for v in side) for side in edges))


EDGE_OFFSETS = np.linspace(-0.3, 0.3, 13)
EDGE_STATIONS = np.linspace(0.1, 0.9, 17)


def edge_profiles(game: str, image: NDArray[Any], corners: PointsLike,
                  undistorter: Undistorter | None = None) -> FloatArray:
    """Grey level across each side of the board outline: (sides, offsets), median along the side.

    Offsets run from 0.3 board units inside the outline to 0.3 outside.
    """
    outline = outline_units(game)
    sides = len(outline)
    pts = np.zeros((sides, len(EDGE_STATIONS), len(EDGE_OFFSETS), 2))
    centre = outline.mean(axis=0)
    for s in range(sides):
        a, b = outline[s], outline[(s + 1) % sides]
        along = b - a
        normal = np.array([along[1], -along[0]]) / np.linalg.norm(along)
        if np.dot(normal, (a + b) / 2 - centre) < 0:
            normal = -normal  # outward
        base = a[None, :] + EDGE_STATIONS[:, None] * along[None, :]
        pts[s] = base[:, None, :] + EDGE_OFFSETS[None, :, None] * normal[None, None, :]
    size = (int(image.shape[1]), int(image.shape[0]))
    raw = units_to_raw(game, corners, pts, undistorter, size)
    bgr = sample_bgr(image, raw.reshape(-1, 2)).reshape(sides, len(EDGE_STATIONS), len(EDGE_OFFSETS), 3)
    grey = bgr @ np.array([0.114, 0.587, 0.299])
    return np.asarray(np.median(grey, axis=1), dtype=np.float64)


def colour_warnings(board: BoardReference) -> list[str]:
    """Hints that the corners are wrong or the picture is poor (special squares not standing out)."""
    out = []
    if board.game == "triolet" and "base" in board.colours:
        base = board.colours["base"].lab
        for kind in TRIOLET_SPECIALS:
            ref = board.colours.get(kind)
            if ref is not None and float(delta_e(np.asarray(ref.lab), base)) < 8.0:
                out.append(f"{kind} squares look like the base colour (ΔE < 8): are the corners right?")
    if board.game == "trigon" and "board" in board.colours:
        lab = board.colours["board"].lab
        if math.hypot(lab[1], lab[2]) > 15.0:
            out.append("the board does not look grey: are the corners right?")
    return out
