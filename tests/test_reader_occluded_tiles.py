"""Tiles a fingertip lies across though the grid lines stay in view
(``vision.read.triolet.occluded_tiles``): flagged, never reported as sure; a numeral's strokes, however
bold, are not a finger; next to a hand's squares, a fingertip near the faces' colour is found on
the tile's own face (``fingertip_tiles``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import vision.read.triolet.reader as reader
from engine.triolet.board import INDEX, SIZE
from lab.evaluate.triolet import score_frame
from lab.render import random_frame
from lab.render.holdout import training_pool
from vision.read.triolet.blank_tiles import board_lab, face_colour, square_cores
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.geometry import MARGIN, PITCH
from vision.read.triolet.occluded_tiles import fingertip_tiles, occluded_tiles

N = EMPTY + 1
CREAM = (200, 235, 245)  # BGR
INK = (30, 30, 30)
GREEN = (60, 120, 40)
SKIN = (110, 150, 205)

FACES = [INDEX[s] for s in ("G7", "H7", "I7", "H8", "H9", "G9")]
THIN, BOLD, FINGER = INDEX["G7"], INDEX["H7"], INDEX["I7"]


def _origin(i: int) -> tuple[int, int]:
    r, c = divmod(i, SIZE)
    o = round(MARGIN * PITCH)
    return o + r * PITCH, o + c * PITCH


def _board() -> np.ndarray:
    side = round((SIZE + 2 * MARGIN) * PITCH)
    rect = np.full((side, side, 3), GREEN, np.uint8)
    for i in FACES:
        y, x = _origin(i)
        rect[y + 3:y + PITCH - 3, x + 3:x + PITCH - 3] = CREAM
    y, x = _origin(THIN)
    rect[y + 10:y + 30, x + 18:x + 21] = INK  # a 1: one thin stroke
    y, x = _origin(BOLD)
    rect[y + 9:y + 31, x + 12:x + 28] = INK  # a very bold numeral: 16 px wide, inside the face
    y, x = _origin(FINGER)
    rect[y + 8:y + 24, x + 14:x + PITCH + 10] = SKIN  # a fingertip from the right, over the face
    return rect


def _probs() -> np.ndarray:
    p = np.zeros((SIZE * SIZE, N), np.float32)
    p[:, EMPTY] = 1.0
    for i in FACES:
        p[i] = 0.0
        p[i, 4] = 1.0
    return p


def _occluded(rect: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """``occluded_tiles`` as the reader calls it."""
    lab = board_lab(rect)
    return occluded_tiles(lab, probs, face_colour(square_cores(lab), probs, np.zeros(SIZE * SIZE, bool)))


def test_a_fingertip_across_a_face_is_found_and_strokes_are_not() -> None:
    got = _occluded(_board(), _probs())
    assert list(np.flatnonzero(got)) == [FINGER]


def test_only_squares_read_as_tiles_are_judged() -> None:
    p = _probs()
    p[FINGER] = 0.0
    p[FINGER, EMPTY] = 1.0
    assert not _occluded(_board(), p).any()


def test_too_few_sure_tiles_to_know_their_face() -> None:
    p = _probs()
    for i in FACES[2:]:
        p[i] = 0.0
        p[i, 4] = 0.6
        p[i, EMPTY] = 0.4
    assert not _occluded(_board(), p).any()


@pytest.mark.slow
def test_a_fingertip_the_lines_miss_flags_the_tile() -> None:
    """Benchmark frame 7,600,164 (normal row of seed 7500000): a fingertip over K6's numeral, its
    square's lines in view; the nets read 11 at 0.76 (the tile is a 13): a silent guess until the
    blob was looked for."""
    fr = random_frame("triolet", 7_600_164, "normal", pool=training_pool(), size=(1280, 720))
    cells = {c.square: c for c in reader.read_triolet(fr.image).cells}
    assert "K6" in cells and cells["K6"].obscured and cells["K6"].confidence < reader.LOW_CONFIDENCE
    sure = [c for c in cells.values() if not c.obscured]
    assert len(sure) >= 0.8 * len(cells)  # a flag is the exception


PALE_SKIN = (150, 185, 225)  # BGR: about 20 ΔE from CREAM, under occluded_tiles.FACE_DIST


def _beside_hand() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The test board with a pale fingertip over H9's lower third, reaching in from H10 (a square
    a hand covers), and the hand's squares."""
    rect = _board()
    y, x = _origin(INDEX["H9"])
    rect[y + 26:y + PITCH + 12, x + 6:x + 34] = PALE_SKIN
    hand = np.zeros(SIZE * SIZE, bool)
    hand[INDEX["H10"]] = True
    return rect, _probs(), hand


def test_a_pale_fingertip_beside_a_hand_is_found_on_the_tiles_own_face() -> None:
    rect, probs, hand = _beside_hand()
    none = np.zeros(SIZE * SIZE, bool)
    assert not _occluded(rect, probs)[INDEX["H9"]]  # too near the faces' colour for the first cue
    got = fingertip_tiles(rect, probs, hand, none)
    assert np.flatnonzero(got).tolist() == [INDEX["H9"]]  # the bold numeral at H7 is no finger
    far = np.zeros(SIZE * SIZE, bool)
    far[INDEX["A1"]] = True
    assert not fingertip_tiles(rect, probs, far, none).any()  # only next to a hand's squares
    skip = none.copy()
    skip[INDEX["H9"]] = True
    assert not fingertip_tiles(rect, probs, hand, skip).any()
    probs[INDEX["H9"]] = 0.0
    probs[INDEX["H9"], EMPTY] = 1.0
    assert not fingertip_tiles(rect, probs, hand, none).any()  # squares read empty are not judged


def test_a_finger_on_a_tile_beside_the_hand_is_no_silent_guess() -> None:
    """Benchmark frame 41,100,501 (normal row of seed 41,000,000): a finger over G4's left half,
    beside F4 that the hand covers; the 3's marks are less than half in view and the nets read a
    5 at 0.72: a silent guess until the tile's own face was looked at. Only the flag changes."""
    from lab.bench.read import row_style

    diff, pool = row_style("normal")
    fr = random_frame("triolet", 41_100_501, diff, pool=pool, size=(1280, 720))
    got = {}
    for on in (False, True):
        reading = reader.read_triolet(fr.image, options=replace(reader.ReaderOptions(), fingertips=on))
        fs = score_frame(reading, fr.labels, fr.masks.get("occluders"))
        got[on] = (fs.guesses, {c.square: c.value for c in reading.cells})
    assert [g[:3] for g in got[False][0]] == [("G4", 3, 5)]
    assert got[True][0] == []
    assert got[True][1] == got[False][1]
