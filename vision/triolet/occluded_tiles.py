"""Tiles something lies over that the grid lines do not show: a fingertip across a tile's face
whose square keeps its grid lines in view (``reader.hand_squares`` finds hands by the lines they
hide). Such a tile's numeral is partly hidden, and its reading, however sure the nets are, must be
flagged rather than reported as sure.

The cue: a blob unlike the tile faces (CIELAB ΔE above ``FACE_DIST`` from their median colour),
wider than any stroke of a numeral (it survives an opening by ``OPEN_PX``), that covers a share of
the tile's core and reaches out past the tile's edge (a finger comes from the hand; a bold
numeral, however thick, is surrounded by the face's margin).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import SIZE

from .blank_tiles import CORE_TRIM, MIN_FACES, square_cores, sure_faces
from .classifier import EMPTY
from .geometry import MARGIN, PITCH

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

#: A pixel unlike the tile faces: this far (ΔE) from their median colour.
FACE_DIST = 30.0
#: Side of the opening (px at ``PITCH`` 40) that removes numeral strokes and grid lines.
OPEN_PX = 7
#: The inner area of a square (trimmed off each edge, share of a side) a blob must reach out of
#: to count; its share is taken over the square's core (``blank_tiles.CORE_TRIM``).
INNER_TRIM = 0.075
#: A tile is occluded when blobs reaching past its inner area cover this share of its core.
OCCLUDED_SHARE = 0.15


def occluded_tiles(rect: U8, probs: F32) -> NDArray[np.bool_]:
    """Which of the 225 squares (row by row) read as tiles (``probs``: empty below 0.5) have a
    foreign blob across their face."""
    n = probs.shape[0]
    out = np.zeros(n, bool)
    faces = sure_faces(probs)
    tiles = np.flatnonzero(probs[:, EMPTY] < 0.5)
    if faces.sum() < MIN_FACES or not len(tiles):
        return out
    colour, _ = square_cores(rect)
    face = np.median(colour[faces], axis=0)
    lab = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
    unlike = (np.linalg.norm(lab - face, axis=2) > FACE_DIST).astype(np.uint8)
    blobs = cv2.morphologyEx(unlike, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (OPEN_PX, OPEN_PX)))
    _, label = cv2.connectedComponents(blobs, connectivity=4)
    o = round(MARGIN * PITCH)
    grid = label[o:o + SIZE * PITCH, o:o + SIZE * PITCH].reshape(SIZE, PITCH, SIZE, PITCH)
    a, b = round(CORE_TRIM * PITCH), round(INNER_TRIM * PITCH)
    inner = np.zeros((PITCH, PITCH), bool)
    inner[b:PITCH - b, b:PITCH - b] = True
    for i in tiles:
        r, c = divmod(int(i), SIZE)
        square = grid[r, :, c, :]
        reaching = np.setdiff1d(np.unique(square[~inner]), [0])
        core = square[a:PITCH - a, a:PITCH - a]
        out[i] = len(reaching) > 0 and float(np.isin(core, reaching).mean()) >= OCCLUDED_SHARE
    return out
