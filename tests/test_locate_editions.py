"""The board locator on board editions unlike the project renderer's: special squares marked by a
thin coloured frame only (no fill, no label), and faint light lines on a dark board in dim light.

The pictures are drawn here (a flat board warped into a 1280×720 picture with noise), so the
tests check the design (a square's band as well as its centre; contrast-normalised cell maps
when the plain ones give no lattice), not one rendered picture."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.locate import (
    KINDS,
    BoardNotLocatedError,
    cell_colours,
    cell_looks,
    cell_maps,
    lattice_fits,
    locate_board,
    premium_pattern_scores,
)

PITCH = 48


def _flat_board(base: tuple[int, int, int], line: tuple[int, int, int], border: tuple[int, int, int],
                marks: list[tuple[int, int, int]], style: str) -> NDArray[np.uint8]:
    """A board's playing area and a one-square border, ``PITCH`` px a square (BGR): special squares
    of each kind in ``marks`` colours drawn as a ``ring`` (a frame 12 % of the square wide inside
    its lines) or a ``fill``."""
    n = 17 * PITCH
    img = np.zeros((n, n, 3), np.uint8)
    img[:] = border
    img[PITCH:16 * PITCH, PITCH:16 * PITCH] = base
    for kind, colour in zip(KINDS, marks, strict=True):
        for r, c in zip(*np.nonzero(kind), strict=True):
            y0, x0 = (r + 1) * PITCH, (c + 1) * PITCH
            cv2.rectangle(img, (x0, y0), (x0 + PITCH - 1, y0 + PITCH - 1), colour, -1)
            if style == "ring":
                w = round(0.12 * PITCH)
                img[y0 + w:y0 + PITCH - w, x0 + w:x0 + PITCH - w] = base
    for k in range(16):
        p = (k + 1) * PITCH
        cv2.line(img, (PITCH, p), (16 * PITCH, p), line, 2)
        cv2.line(img, (p, PITCH), (p, 16 * PITCH), line, 2)
    return img


def _picture(board: NDArray[np.uint8], table: tuple[int, int, int], corners: list[tuple[float, float]],
             gain: float = 1.0, seed: int = 0) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """``board`` warped so that its playing area's corners (A1, O1, O15, A15) land on ``corners``
    in a 1280×720 picture of a ``table``, light scaled by ``gain``, with sensor noise; and the
    playing area's true corners."""
    src = np.array([[PITCH, PITCH], [16 * PITCH, PITCH], [16 * PITCH, 16 * PITCH], [PITCH, 16 * PITCH]], np.float32)
    m = cv2.getPerspectiveTransform(src, np.array(corners, np.float32))
    out = np.zeros((720, 1280, 3), np.uint8)
    out[:] = table
    cv2.warpPerspective(board, m, (1280, 720), out, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    rng = np.random.default_rng(seed)
    noisy = out.astype(np.float32) * gain + rng.normal(0.0, 1.5, out.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8), np.asarray(corners, np.float64)


def _corner_error(image: NDArray[np.uint8], truth: NDArray[np.float64]) -> float:
    loc = locate_board(image, "triolet")
    found = np.asarray(loc.corners_px, np.float64)
    return float(min(np.hypot(*(np.roll(found, k, axis=0) - truth).T).max() for k in range(4)))


PASTEL = dict(base=(225, 237, 247), line=(173, 184, 204), border=(115, 89, 140),
              marks=[(242, 217, 178), (166, 178, 250), (178, 230, 191)], style="ring")
CORNERS = [(420.0, 130.0), (930.0, 170.0), (880.0, 640.0), (360.0, 600.0)]


def test_ring_marked_special_squares_stand_out_in_the_squares_bands() -> None:
    """Special squares marked by a thin frame only: their centres look like plain squares, so the
    centre colours show no pattern; the bands inside the lines (``cell_looks``) do, at the right
    window only."""
    board = _flat_board(**PASTEL)  # type: ignore[arg-type]
    rect = cv2.resize(board, (17 * 16, 17 * 16), interpolation=cv2.INTER_AREA)
    centres = premium_pattern_scores(cell_colours(rect, 16))
    looks = premium_pattern_scores(cell_looks(rect, 16))
    assert looks.shape == (3, 3)
    assert float(centres[1, 1]) < 0.1
    assert float(looks[1, 1]) > 0.4
    assert int(np.argmax(looks)) == 4  # the window one square in (the border around it)
    assert float(np.sort(looks.ravel())[-2]) < 0.5 * float(looks[1, 1])


def test_pastel_board_with_framed_special_squares_is_located() -> None:
    image, truth = _picture(_flat_board(**PASTEL), (40, 70, 120), CORNERS)  # type: ignore[arg-type]
    assert _corner_error(image, truth) < 0.25 * 34


def test_faint_light_lines_on_a_dark_board_in_dim_light_are_located() -> None:
    """Grey lines a few levels above a near-black board, the picture dim: the plain cell maps find
    no lattice; the contrast-normalised ones do, and the board is located."""
    board = _flat_board(base=(50, 45, 40), line=(80, 80, 80), border=(36, 34, 32),
                        marks=[(190, 115, 50), (60, 50, 190), (110, 150, 50)], style="fill")
    image, truth = _picture(board, (30, 55, 30), CORNERS, gain=0.55, seed=1)
    small = cv2.resize(image, (640, 360), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    assert lattice_fits(small, cell_maps(grey)) == []
    assert lattice_fits(small, cell_maps(grey, normalised=True))
    assert _corner_error(image, truth) < 0.25 * 34


def test_a_plain_table_is_still_no_board() -> None:
    """Contrast normalisation must not make a board out of a table's noise."""
    rng = np.random.default_rng(3)
    table = np.clip(rng.normal(60, 6, (720, 1280, 3)), 0, 255).astype(np.uint8)
    with pytest.raises(BoardNotLocatedError):
        locate_board(cv2.GaussianBlur(table, (5, 5), 0), "triolet")
