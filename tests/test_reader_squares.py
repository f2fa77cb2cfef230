"""Reading chosen squares only (what a tracker re-reads): the same probabilities as a full read,
where no hand is (a tracker re-reads once the hands are gone; the full read doubts tiles where a
hand is, ``hand_doubt``)."""

from __future__ import annotations

import numpy as np
from reader_helpers import TEST_SEEDS, frame

from vision.locate import locate_board
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.reader import hand_squares, read_squares, read_triolet


def test_reader_squares_match_the_full_read_of_those_squares() -> None:
    fr = frame(TEST_SEEDS[0])
    loc = locate_board(fr.image)
    full = read_triolet(fr.image, location=loc).probs  # [row, col, class]
    occupied = [("ABCDEFGHIJKLMNO".index(c["square"][0]), int(c["square"][1:]) - 1) for c in fr.labels["read"]["cells"]]
    squares = [*occupied[:4], (0, 0), (14, 14), (7, 7)]
    part = read_squares(fr.image, loc, squares)
    assert part.shape == (len(squares), full.shape[2])
    covered, beside = hand_squares(fr.image, loc)
    assert covered[14, 14] or beside[14, 14]  # O15: a hand lies over it in this frame
    for k, (c, r) in enumerate(squares):
        if covered[r, c] or beside[r, c]:
            assert full[r, c, EMPTY] >= part[k, EMPTY] - 1e-6  # a tile doubted there, never made likelier
        else:
            assert np.allclose(part[k], full[r, c], atol=1e-5)
    assert read_squares(fr.image, loc, []).shape == (0, full.shape[2])
