"""Tiles whose marks the picture lost: a tile face washed out by glare shows no numeral, and the
square classifiers, which read marks, call it empty. Its body is still there: a patch the colour
of the board's tile faces on a board whose empty squares look nothing like it (cream on a black
or green board). Such a square is reported as a tile of unknown value (low confidence, any value
T-B3 allows, so the run rules may still settle it), never as a sure empty square.

Works on the rectified board and the class probabilities of its 225 squares (row by row).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import SIZE
from vision.read.triolet.classifier import EMPTY, WILD, tile_set_shares
from vision.read.triolet.geometry import MARGIN, PITCH

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

#: Share of a square's side trimmed off each edge for its core (the tile face, no grid lines).
CORE_TRIM = 0.2
#: Reference tile faces: squares read as a tile this surely (empty below, top class above).
FACE_MAX_EMPTY = 0.02
FACE_MIN_TOP = 0.9
#: Reference empty squares: read empty at least this surely.
EMPTY_MIN = 0.999
#: Fewest reference faces and empty squares for the test to run.
MIN_FACES = 3
MIN_EMPTIES = 20
#: A square read empty is a blank tile when its core is at least ``BLANK_MIN_EMPTY_DIST`` (CIELAB
#: ΔE) from all but ``NEAREST_SKIPPED`` of the sure empty squares, that many times farther from
#: them than from the tile faces (``BLANK_DIST_RATIO``), and flat (mean channel deviation at most
#: ``BLANK_MAX_STD``: no marks, no hand, no clutter).
BLANK_MIN_EMPTY_DIST = 40.0
BLANK_DIST_RATIO = 2.2
#: ... or at least ``CLEAR_MIN_EMPTY_DIST`` from them and ``CLEAR_DIST_RATIO`` times nearer the
#: faces: a white face on a black board under glare, which brightens the empty squares around it.
CLEAR_MIN_EMPTY_DIST = 25.0
CLEAR_DIST_RATIO = 8.0
BLANK_MAX_STD = 4.0
NEAREST_SKIPPED = 2
#: Probability of "empty" left to a blank tile (the rest spread over the values as T-B3 counts
#: them): below ``consistency.EMPTY_OPTION_ABOVE``, so that a run re-read for T-P4 gives the tile
#: a value rather than taking it away (no one value is as likely as a sizeable "empty").
BLANK_P_EMPTY = 0.02
#: Weight of a blank square's own reading among the tile classes in its probabilities (the rest:
#: the tile set's shares).
READING_WEIGHT = 0.5


def _lab_scale() -> F32:
    """``cv2.LUT`` table from OpenCV's 8-bit CIELAB to L 0–100 and a, b centred on 0."""
    v = np.arange(256, dtype=np.float32)
    return np.stack([v * np.float32(100.0 / 255.0), v - np.float32(128.0), v - np.float32(128.0)], axis=-1)[None]


_LAB_SCALE = _lab_scale()


def to_lab(bgr: U8) -> F32:
    """A BGR picture in CIELAB: L 0–100, a and b centred on 0."""
    return np.asarray(cv2.LUT(cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB), _LAB_SCALE), np.float32)


def board_lab(rect: U8) -> F32:
    """The playing area of the rectified board (its margin cut off: square ``(c, r)`` at
    ``[c·PITCH, (c+1)·PITCH)``) in CIELAB (``to_lab``)."""
    o = round(MARGIN * PITCH)
    return to_lab(np.ascontiguousarray(rect[o:o + SIZE * PITCH, o:o + SIZE * PITCH]))


def square_cores(lab: F32) -> F32:
    """The cores (the middle, ``CORE_TRIM`` off each edge) of the 225 squares of ``board_lab``,
    row by row: (225, pixels, 3) CIELAB."""
    a = round(CORE_TRIM * PITCH)
    grid = lab.reshape(SIZE, PITCH, SIZE, PITCH, 3)
    return grid[:, a:PITCH - a, :, a:PITCH - a].transpose(0, 2, 1, 3, 4).reshape(SIZE * SIZE, -1, 3)


def sure_faces(probs: F32) -> NDArray[np.bool_]:
    """The squares read as a tile surely enough to show what the tile faces look like."""
    return np.asarray((probs[:, EMPTY] < FACE_MAX_EMPTY) & (probs.max(axis=1) > FACE_MIN_TOP), bool)


def face_colour(cores: F32, probs: F32, hidden: NDArray[np.bool_]) -> F32 | None:
    """The tile faces' colour: the median over the surely read tiles in view of their cores'
    median colours (the numeral's ink is a minority of a core); ``None`` with fewer than
    ``MIN_FACES`` such tiles."""
    faces = sure_faces(probs) & ~np.asarray(hidden, bool).reshape(-1)
    if faces.sum() < MIN_FACES:
        return None
    # every third pixel of each core: the same median, a third of the sorting
    return np.asarray(np.median(np.median(cores[faces][:, ::3], axis=1), axis=0), np.float32)


def blank_tiles(cores: F32, probs: F32, hidden: NDArray[np.bool_], face: F32 | None) -> NDArray[np.bool_]:
    """Which of the 225 squares read empty (``probs``, row by row; ``cores`` from
    ``square_cores``) show a blank face of the colour ``face``; ``hidden`` squares (under or beside
    a hand, outside the picture) are never chosen."""
    n = probs.shape[0]
    out = np.zeros(n, bool)
    hid = np.asarray(hidden, bool).reshape(n)
    empties = (probs[:, EMPTY] >= EMPTY_MIN) & ~hid
    if face is None or empties.sum() < MIN_EMPTIES:
        return out
    maybe = np.flatnonzero((probs[:, EMPTY] >= 0.5) & ~hid)
    if not len(maybe):
        return out
    # each core's mean colour (OpenCV's per-channel row mean: numpy's over a 3-wide last axis is 4x slower)
    colour = np.asarray(cv2.reduce(np.ascontiguousarray(cores), 1, cv2.REDUCE_AVG, dtype=cv2.CV_64F),
                        np.float32).reshape(len(cores), 3)
    ref = np.flatnonzero(empties)
    d = np.linalg.norm(colour[maybe][:, None, :] - colour[ref][None, :, :], axis=2)
    d[maybe[:, None] == ref[None, :]] = np.inf  # a square is not its own neighbour
    nearest = np.partition(d, NEAREST_SKIPPED, axis=1)[:, NEAREST_SKIPPED]
    d_face = np.linalg.norm(colour[maybe] - face, axis=1)
    far = (nearest >= BLANK_MIN_EMPTY_DIST) & (nearest >= BLANK_DIST_RATIO * d_face)
    clear = (nearest >= CLEAR_MIN_EMPTY_DIST) & (nearest >= CLEAR_DIST_RATIO * d_face)
    like_face = maybe[far | clear]
    # flat squares only: their mean colour is their colour (no ink, no hand, no clutter)
    out[like_face] = cores[like_face].std(axis=1).mean(axis=1) <= BLANK_MAX_STD
    return out


def as_unknown_tiles(probs: F32, blank: NDArray[np.bool_]) -> None:
    """Give the ``blank`` squares (in place) the probabilities of a tile of unknown value:
    ``BLANK_P_EMPTY`` empty, the rest shared by the values and the wild as the tile set holds them,
    mixed (``READING_WEIGHT``) with the square's own reading among the tile classes (faint marks
    the nets still saw)."""
    if not blank.any():
        return
    shares = tile_set_shares()
    tiles = probs[blank, :WILD + 1].astype(np.float64)
    total = tiles.sum(axis=1, keepdims=True)
    own = np.where(total > 0, tiles / np.maximum(total, 1e-12), shares)
    rows = np.zeros((int(blank.sum()), probs.shape[1]), np.float32)
    rows[:, :WILD + 1] = (1.0 - BLANK_P_EMPTY) * ((1.0 - READING_WEIGHT) * shares + READING_WEIGHT * own)
    rows[:, EMPTY] = BLANK_P_EMPTY
    probs[blank] = rows
