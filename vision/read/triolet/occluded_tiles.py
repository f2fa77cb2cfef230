"""Tiles something lies over that the grid lines do not show: a fingertip across a tile's face
whose square keeps its grid lines in view (``reader.hand_squares`` finds hands by the lines they
hide). Such a tile's numeral is partly hidden, and its reading, however sure the nets are, must be
flagged rather than reported as sure.

The cue: a blob unlike the tile faces (CIELAB ΔE above ``FACE_DIST`` from their median colour),
wider than any stroke of a numeral (it survives an opening by ``OPEN_PX``), that covers a share of
the tile's core and reaches out past the tile's edge (a finger comes from the hand; a bold
numeral, however thick, is surrounded by the face's margin).

A fingertip whose colour is near the faces' median (skin on an ivory tile, a dark sleeve under dim
light) escapes that cue; next to the squares a hand covers or lies beside, each tile's own face is
the reference instead (``fingertip_tiles``: ``exemplars.shown_share``).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import SIZE
from vision.read.triolet.blank_tiles import CORE_TRIM
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.exemplars import shown_share
from vision.read.triolet.geometry import PITCH

F32 = NDArray[np.float32]

#: A pixel unlike the tile faces: this far (ΔE) from their median colour.
FACE_DIST = 30.0
#: Side of the opening (px at ``PITCH`` 40) that removes numeral strokes and grid lines.
OPEN_PX = 7
#: The inner area of a square (trimmed off each edge, share of a side) a blob must reach out of
#: to count; its share is taken over the square's core (``blank_tiles.CORE_TRIM``).
INNER_TRIM = 0.075
#: A tile is occluded when blobs reaching past its inner area cover this share of its core.
OCCLUDED_SHARE = 0.15
#: A tile next to a hand's squares is under a fingertip when less than this share of its face
#: shows (``exemplars.shown_share``).
BESIDE_HAND_SHOWN = 0.85

U8 = NDArray[np.uint8]


def occluded_tiles(lab: F32, probs: F32, face: F32 | None) -> NDArray[np.bool_]:
    """Which of the 225 squares (row by row) read as tiles (``probs``: empty below 0.5) have a
    foreign blob across their face; ``lab``: the rectified board (``blank_tiles.board_lab``),
    ``face``: the tile faces' colour (``blank_tiles.face_colour``; ``None``: none is judged)."""
    n = probs.shape[0]
    out = np.zeros(n, bool)
    tiles = np.flatnonzero(probs[:, EMPTY] < 0.5)
    if face is None or not len(tiles):
        return out
    # lab − face per pixel (a 4×1 array is OpenCV's scalar; faster than numpy's broadcast over 3)
    diff = cv2.subtract(lab, np.array([*np.asarray(face, np.float32).tolist(), 0.0]).reshape(4, 1))
    dist2 = cv2.transform(cv2.multiply(diff, diff), np.ones((1, 3), np.float32))
    unlike = (dist2 > FACE_DIST * FACE_DIST).astype(np.uint8)
    blobs = cv2.morphologyEx(unlike, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (OPEN_PX, OPEN_PX)))
    count, label = cv2.connectedComponents(blobs, connectivity=4)
    if count < 2:
        return out
    a, b = round(CORE_TRIM * PITCH), round(INNER_TRIM * PITCH)
    inner = np.zeros((PITCH, PITCH), bool)
    inner[b:PITCH - b, b:PITCH - b] = True
    rows, cols = np.divmod(tiles, SIZE)
    squares = label.reshape(SIZE, PITCH, SIZE, PITCH).transpose(0, 2, 1, 3)[rows, cols]  # (tiles, PITCH, PITCH)
    # per tile and blob: does the blob reach past the inner area, and how many core pixels it covers
    keys = np.arange(len(tiles))[:, None, None] * count + squares
    reaching = np.zeros(len(tiles) * count, bool)
    reaching[keys[:, ~inner].ravel()] = True
    reaching[np.arange(len(tiles)) * count] = False  # label 0: no blob
    core = keys[:, a:PITCH - a, a:PITCH - a].reshape(len(tiles), -1)
    covered = np.bincount(core.ravel(), minlength=len(tiles) * count).reshape(len(tiles), count)
    share = (covered * reaching.reshape(len(tiles), count)).sum(axis=1) / core.shape[1]
    out[tiles] = share >= OCCLUDED_SHARE
    return out


def with_neighbours(squares: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The 225 flags (row by row) of ``squares`` and of their eight neighbours."""
    grid = np.asarray(squares, np.uint8).reshape(SIZE, SIZE)
    return np.asarray(cv2.dilate(grid, np.ones((3, 3), np.uint8)).reshape(-1) > 0)


def fingertip_tiles(rect: U8, probs: F32, hand: NDArray[np.bool_], skip: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Which of the 225 squares (row by row) read as tiles (``probs``: empty below 0.5), next to a
    square of ``hand`` (its eight neighbours) and not in ``skip``, show less than
    ``BESIDE_HAND_SHOWN`` of their face on the rectified board ``rect``: a patch unlike the tile's
    own face reaches in from beyond it."""
    out = np.zeros(probs.shape[0], bool)
    for i in np.flatnonzero((probs[:, EMPTY] < 0.5) & with_neighbours(hand) & ~np.asarray(skip, bool)):
        out[i] = shown_share(rect, int(i)) < BESIDE_HAND_SHOWN
    return out
