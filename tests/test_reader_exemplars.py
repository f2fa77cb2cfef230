"""A tile partly under a hand compared with the board's own tiles (``vision.read.triolet.exemplars``):
the value whose exemplars match what shows gains weight; nothing changes without exemplars for
every candidate, or when too little of the tile shows."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

import vision.read.triolet.reader as reader
from engine.triolet.board import INDEX, SIZE
from lab.evaluate.triolet import score_frame
from lab.render import random_frame
from vision.read.triolet import exemplars
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.exemplars import (
    MIN_SHOWN,
    exemplar_rows,
    match_scores,
    reweigh_by_exemplars,
    shown_mask,
)
from vision.read.triolet.geometry import MARGIN, PITCH

N = EMPTY + 1
BLACK = (25, 25, 25)
CREAM = (200, 235, 245)  # BGR
INK = (40, 30, 30)
SKIN = (95, 130, 190)
OFF = round(MARGIN * PITCH)


def _tile(rect: np.ndarray, square: str, digit: str, turn: int = 0) -> None:
    """A cream tile at ``square`` with ``digit`` on it, turned by ``turn`` quarter turns."""
    face = np.full((PITCH - 4, PITCH - 4, 3), CREAM, np.uint8)
    (w, h), _ = cv2.getTextSize(digit, cv2.FONT_HERSHEY_SIMPLEX, 0.8, 2)
    cv2.putText(face, digit, ((PITCH - 4 - w) // 2, (PITCH - 4 + h) // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.8, INK, 2,
                cv2.LINE_AA)
    r, c = divmod(INDEX[square], SIZE)
    y, x = OFF + r * PITCH, OFF + c * PITCH
    rect[y + 2:y + PITCH - 2, x + 2:x + PITCH - 2] = np.rot90(face, turn)


def _cover(rect: np.ndarray, square: str, share: float) -> None:
    """A hand over the bottom ``share`` of ``square`` and a bit beyond."""
    r, c = divmod(INDEX[square], SIZE)
    y0 = OFF + r * PITCH + round((1 - share) * PITCH)
    rect[y0:OFF + (r + 1) * PITCH + 10, OFF + c * PITCH - 10:OFF + (c + 1) * PITCH + 10] = SKIN


def _board() -> tuple[np.ndarray, np.ndarray]:
    """Sure 5s, 6s and 7s around a 6 whose lower part a hand covers (read 5 rather than 6)."""
    rect = np.full((round((SIZE + 2 * MARGIN) * PITCH),) * 2 + (3,), BLACK, np.uint8)
    probs = np.zeros((SIZE * SIZE, N), np.float32)
    probs[:, EMPTY] = 1.0
    for sq, d, turn in (("D4", "5", 0), ("E4", "5", 1), ("D6", "6", 2), ("E6", "6", 0), ("F8", "7", 3)):
        _tile(rect, sq, d, turn)
        probs[INDEX[sq]] = 0.0
        probs[INDEX[sq], int(d)] = 1.0
    _tile(rect, "H8", "6")
    _cover(rect, "H8", 0.4)
    probs[INDEX["H8"]] = 0.0
    probs[INDEX["H8"], [5, 6, EMPTY]] = 0.5, 0.4, 0.1
    return rect, probs


def _part(rect: np.ndarray, square: str) -> np.ndarray:
    r, c = divmod(INDEX[square], SIZE)
    return rect[OFF + r * PITCH + exemplars.TRIM:OFF + (r + 1) * PITCH - exemplars.TRIM,
                OFF + c * PITCH + exemplars.TRIM:OFF + (c + 1) * PITCH - exemplars.TRIM]


def test_the_shown_mask_keeps_the_ink_and_drops_the_hand() -> None:
    rect, _ = _board()
    part = _part(rect, "H8")
    mask = shown_mask(part)
    hand = np.all(part == SKIN, axis=-1)
    near_hand = cv2.dilate(hand.astype(np.uint8), np.ones((2 * exemplars.GROW + 1,) * 2, np.uint8)) > 0
    ink = np.all(np.abs(part.astype(int) - INK) < 30, axis=-1) & ~near_hand
    assert hand.any() and ink.sum() > 20
    assert mask[hand].mean() == 0.0  # every hand pixel is left out ...
    assert mask[ink].mean() == 1.0  # ... and the numeral's strokes clear of its shaded edge are kept
    assert shown_mask(_part(rect, "D4")).mean() > 0.95  # a tile in full view shows


def test_a_bold_numeral_is_ink_not_a_hand() -> None:
    """A patch of ink wider than ``STROKE_PX`` (a bold numeral under blur) clear of the part's
    border is kept; the same patch reaching the border is a hand."""
    side = exemplars.PITCH - 2 * exemplars.TRIM
    part = np.full((side, side, 3), CREAM, np.uint8)
    blob = exemplars.STROKE_PX + 3
    a = (side - blob) // 2
    part[a:a + blob, a:a + blob] = INK
    assert shown_mask(part).mean() == 1.0
    part[a:a + blob, :a + blob] = SKIN
    mask = shown_mask(part)
    assert mask[a + 2:a + blob - 2, 2:a + blob - 2].max() == 0 and mask[:a - exemplars.GROW].min() == 1


def test_exemplars_are_sure_tiles_in_view() -> None:
    _, probs = _board()
    unseen = np.zeros(SIZE * SIZE, bool)
    assert exemplar_rows(probs, unseen) == {5: [INDEX["D4"], INDEX["E4"]], 6: [INDEX["D6"], INDEX["E6"]],
                                            7: [INDEX["F8"]]}
    unseen[INDEX["F8"]] = True
    assert 7 not in exemplar_rows(probs, unseen)


def test_a_covered_six_matches_the_sixes_turned_as_they_lie() -> None:
    rect, probs = _board()
    scores = match_scores(rect, INDEX["H8"], exemplar_rows(probs, np.zeros(SIZE * SIZE, bool)), [5, 6])
    assert scores is not None and scores[6] > scores[5] + 0.05
    before = probs.copy()
    changed = reweigh_by_exemplars(rect, probs, np.array([INDEX["H8"]]), np.zeros(SIZE * SIZE, bool))
    assert changed == [INDEX["H8"]]
    assert probs[INDEX["H8"], 6] > probs[INDEX["H8"], 5]
    assert np.isclose(probs[INDEX["H8"]].sum(), 1.0) and probs[INDEX["H8"], EMPTY] == before[INDEX["H8"], EMPTY]
    untouched = np.ones(SIZE * SIZE, bool)
    untouched[INDEX["H8"]] = False
    assert np.array_equal(probs[untouched], before[untouched])


def test_no_change_without_an_exemplar_for_every_candidate_or_with_too_little_in_view() -> None:
    rect, probs = _board()
    probs[INDEX["H8"], [5, 6, 8]] = 0.45, 0.35, 0.1  # no 8 on the board
    before = probs.copy()
    assert reweigh_by_exemplars(rect, probs, np.array([INDEX["H8"]]), np.zeros(SIZE * SIZE, bool)) == []
    assert np.array_equal(probs, before)
    rect, probs = _board()
    _cover(rect, "H8", 1.0 - MIN_SHOWN / 2)
    assert match_scores(rect, INDEX["H8"], exemplar_rows(probs, np.zeros(SIZE * SIZE, bool)), [5, 6]) is None


@pytest.mark.slow
def test_a_five_under_a_finger_read_right_by_the_boards_fives() -> None:
    """Normal frame 27,000,265 (a dev frame): a finger over G14's 5 leaves its top in
    view; the nets alone read 6 at 0.65, the board's own 5s and 6s settle it."""
    from lab.bench.read import row_style

    diff, pool = row_style("normal")
    fr = random_frame("triolet", 27_000_265, diff, pool=pool, size=(1280, 720))
    occ = fr.masks.get("occluders")
    got = {}
    for on in (False, True):
        options = replace(reader.ReaderOptions(), exemplars=on)
        fs = score_frame(reader.read_triolet(fr.image, options=options), fr.labels, occ)
        got[on] = [(sq, t, g) for sq, t, g, _ in fs.errors]
    assert got[False] == [("G14", 5, 6)]
    assert got[True] == []


def test_the_stacked_correlation_equals_opencvs_masked_one() -> None:
    """``_best_masked_ncc`` over windows stacked one above the other gives, for the best window,
    what ``cv2.TM_CCOEFF_NORMED`` with the mask gives window by window."""
    rng = np.random.default_rng(5)
    side = exemplars.PITCH - 2 * exemplars.TRIM
    wins = [rng.random((side + 10, side + 10)).astype(np.float32) for _ in range(3)]
    ink = rng.random((side, side)).astype(np.float32)
    wins[1][3:3 + side, 6:6 + side] = 0.8 * ink + 0.1  # one window holds the template, dimmer
    mask = (rng.random((side, side)) > 0.3).astype(np.uint8)
    m = mask.astype(np.float32)
    n = float(m.sum())
    t = (ink - float((ink * m).sum()) / n) * m
    stack = np.ascontiguousarray(np.concatenate(wins, axis=0))
    got = exemplars._best_masked_ncc((stack, stack * stack, side + 10), t, float(np.sqrt((t * t).sum())), m, n)
    want = max(float(cv2.matchTemplate(w, ink, cv2.TM_CCOEFF_NORMED, mask=mask).max()) for w in wins)
    assert got == pytest.approx(want, abs=1e-3) and got == pytest.approx(1.0, abs=1e-3)
