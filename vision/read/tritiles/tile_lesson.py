"""``calibrate tiles`` for Triominos and Trio Domino: one picture of any of the edition's tiles, face
up, teaches the reader that edition (INTERFACES §4b).

The tiles are found as the reader finds them; from them the lesson keeps

- the edition: pips (most marks are round blobs, ``pips.looks_like_pips``) or numerals;
- the face colour (median Lab of the tiles' inner parts) and the tiles' side in the picture;
- on pip tiles, the colour of the pips of each count (median Lab of the pips of the corners
  showing that many) and whether colour follows count (each count's pips of one colour, the
  colours of different counts apart): then the reader lets each pip's colour vote for its count.

The reader (``reader.read_triangles`` with the profile) reads the edition as taught instead of
guessing it, and uses the colours.
"""

from __future__ import annotations

import itertools
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import Profile, TileReference
from vision.read import TileLessonError
from vision.read.trigon.calib import undistort_image
from vision.read.tritiles.finder import mean_side
from vision.read.tritiles.pips import Blob, _inner, canonical, looks_like_pips, tile_blobs
from vision.read.tritiles.reader import _finder_net, locate_tiles
from vision.read.tritiles.values import clockwise

U8 = NDArray[np.uint8]
#: colour follows count when at least this share of the pips lie nearest their own count's colour
AGREE = 0.5
#: colours of two counts differ when their medians lie at least this far apart (Lab)
APART = 12.0
#: fewest tiles a lesson needs
MIN_TILES = 2


def pip_colours(blobs: list[list[Blob]]) -> tuple[dict[int, list[float]], bool]:
    """Per pip count 1–5 seen, the median Lab of those pips (a miscounted corner moves a median
    little); and whether colour follows count (the counts' colours lie apart and most pips are
    nearest their own count's)."""
    by_count: dict[int, list[tuple[float, float, float]]] = {}
    for bs in blobs:
        for k in range(3):
            mine = [b for b in bs if b.corner == k]
            if 1 <= len(mine) <= 5:
                by_count.setdefault(len(mine), []).extend(b.lab for b in mine)
    colours = {n: [round(float(v), 1) for v in np.median(np.array(labs), axis=0)]
               for n, labs in sorted(by_count.items())}
    if len(colours) < 2:
        return colours, False
    counts = sorted(colours)
    centres = np.array([colours[n] for n in counts])
    agree = [counts[int(np.argmin(np.linalg.norm(centres - np.array(lab), axis=1)))] == n
             for n, labs in by_count.items() for lab in labs]
    apart = all(float(np.linalg.norm(np.subtract(colours[a], colours[b]))) >= APART
                for a, b in itertools.combinations(colours, 2))
    return colours, apart and float(np.mean(agree)) >= AGREE


class TriangleTileLearner:
    """Learns a Triominos or Trio Domino edition from one picture of some of its tiles, face up."""

    def __init__(self, game: str) -> None:
        self.game = game

    def learn(self, image: U8, calibration: Profile | None = None) -> TileReference:
        """What ``image`` teaches the reader; ``TileLessonError`` when it shows too few tiles."""
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise TileLessonError("expected a colour picture")
        prof = calibration.to_json() if calibration is not None else None
        img = undistort_image(image, prof)
        found = locate_tiles(img, _finder_net())
        if len(found) < MIN_TILES:
            raise TileLessonError(f"{len(found)} tiles seen; lay at least {MIN_TILES} tiles face up in view")
        cws = [clockwise(ft.corners) for ft in found]
        blobs = [tile_blobs(img, cw) for cw in cws]
        inner = _inner()
        faces = np.concatenate([cv2.cvtColor(canonical(img, cw), cv2.COLOR_BGR2LAB)[inner] for cw in cws])
        face = [round(float(v), 1) for v in np.median(faces.astype(np.float64), axis=0)]
        pips = looks_like_pips(blobs)
        learned: dict[str, Any] = {"edition": "pips" if pips else "numbers", "face_lab": face,
                                   "tile_side_px": round(float(np.median([mean_side(c) for c in cws])), 1)}
        summary: dict[str, Any] = {"tiles": len(found), "edition": learned["edition"]}
        if pips:
            colours, follows = pip_colours(blobs)
            learned["pip_colours"] = {str(n): c for n, c in colours.items()}
            learned["colour_follows_count"] = follows
            summary["pip_colours"] = len(colours)
            summary["colour_follows_count"] = follows
        h, w = image.shape[:2]
        return TileReference(self.game, (w, h), summary=summary, learned=learned)
