"""The benchmark's scoring: a misread whose middle a hand covers is marked (``under_hand``); a
tile whose printed value a hand hides is not scored, but may not be guessed silently."""

from __future__ import annotations

from typing import Any

import numpy as np

from lab.evaluate.triolet import score_cells, score_frame
from vision.locate import BoardLocation, units_to_image
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.reader import CellReading, TrioletReading

CORNERS = np.array([[100.0, 100.0], [400.0, 100.0], [400.0, 400.0], [100.0, 400.0]])  # 20 px squares


def _labels(a1_marks: float = 1.0) -> dict[str, Any]:
    cells = [{"square": "A1", "value": 5, "wild": False}, {"square": "C1", "value": 7, "wild": False}]
    return {"board": {"corners_px_view": CORNERS.tolist()}, "read": {"cells": cells},
            "cells": [{"square_view": c["square"], "visible": 1.0,
                       "marks_visible": a1_marks if c["square"] == "A1" else 1.0} for c in cells]}


def _reading(a1: int, c1: int, a1_confidence: float = 0.9) -> TrioletReading:
    probs = np.zeros((15, 15, EMPTY + 1), np.float32)
    probs[..., EMPTY] = 1.0
    cells = tuple(CellReading(sq, v, False, a1_confidence if sq == "A1" else 0.9, (), 1.0)
                  for sq, v in (("A1", a1), ("C1", c1)))
    loc = BoardLocation(tuple(map(tuple, CORNERS)), units_to_image(CORNERS), 1.0, {})
    return TrioletReading(loc, cells, probs)


def test_reader_evaluate_misread_under_a_hand_is_marked() -> None:
    occ = np.zeros((500, 500), np.uint8)
    occ[100:120, 100:112] = 255  # over the middle of A1 (x 100–120, y 100–120)
    fs = score_frame(_reading(6, 7), _labels(), occ)
    assert not fs.perfect
    assert fs.under_hand == {"A1"}
    assert fs.cause == "misread under a hand" and fs.hand_over_board
    fs = score_frame(_reading(5, 8), _labels(), occ)  # C1 wrong, no hand there
    assert not fs.perfect
    assert fs.under_hand == set()
    assert fs.cause == "misread tile"
    fs = score_frame(_reading(5, 7), _labels(), occ)
    assert fs.perfect and not fs.under_hand and fs.cause is None
    assert not score_frame(_reading(5, 7), _labels(), np.zeros((500, 500), np.uint8)).hand_over_board
    assert score_frame(_reading(5, EMPTY), _labels()).cause == "tile read empty"
    assert score_frame(None, _labels()).cause == "not located"


def test_reader_evaluate_hidden_value_not_scored_but_not_guessed() -> None:
    """A1's numeral is 70 % under a hand (marks_visible 0.3): it leaves the accuracy. Read wrong
    at low confidence the board is still perfect (not strictly); read wrong at 0.9 it is a silent
    guess and spoils the board; read right it counts for nothing either way."""
    labels = _labels(a1_marks=0.3)
    flagged = score_frame(_reading(6, 7, a1_confidence=0.4), labels)
    assert flagged.squares == 224 and not flagged.errors and not flagged.guesses
    assert flagged.perfect and not flagged.perfect_strict and flagged.marks_hidden_errors == 1
    guessed = score_frame(_reading(6, 7, a1_confidence=0.9), labels)
    assert not guessed.perfect and guessed.guesses == [("A1", 5, 6, 0.9)]
    assert guessed.cause == "silent guess"
    right = score_frame(_reading(5, 7, a1_confidence=0.9), labels)
    assert right.perfect and right.perfect_strict and right.squares == 224
    seen = score_frame(_reading(6, 7, a1_confidence=0.4), _labels(a1_marks=0.8))  # numeral in view
    assert seen.squares == 225 and not seen.perfect and seen.errors == [("A1", 5, 6, 0.4)]


def test_reader_evaluate_misread_whose_marks_in_view_match_is_named_unreadable() -> None:
    """A1 (a 5) shows in view only what a 6 or a 3 would show there (``marks_confusable``): read 6
    it is still an error, but named unreadable; read 8 it is an error like any other."""
    labels = _labels(a1_marks=0.7)
    labels["cells"][0]["marks_confusable"] = ["6", "3"]
    fs = score_frame(_reading(6, 7, a1_confidence=0.4), labels)
    assert not fs.perfect and fs.errors == [("A1", 5, 6, 0.4)]
    assert fs.unreadable == {"A1"} and fs.spoilt_only_where_unreadable
    other = score_frame(_reading(8, 7, a1_confidence=0.4), labels)
    assert other.unreadable == set() and not other.spoilt_only_where_unreadable
    both = score_frame(_reading(6, 8, a1_confidence=0.4), labels)  # C1 misread too: not only A1
    assert both.unreadable == {"A1"} and not both.spoilt_only_where_unreadable
    assert not score_frame(_reading(5, 7), labels).spoilt_only_where_unreadable  # perfect


def test_reader_evaluate_tied_first_corner_either_way() -> None:
    """A board turned 45°: two corners are as near the image's top-left, so either may come first
    (INTERFACES §3). A reader that began at the other one is located, and its squares are compared
    under its own naming (the truth's A1 is its A15); away from a tie the order must match."""
    diamond = np.array([[100.0, 300.0], [300.0, 100.0], [500.0, 300.0], [300.0, 500.0]])
    labels = {"board": {"corners_px_view": diamond.tolist()}, "cells": [],
              "read": {"cells": [{"square": "A1", "value": 5, "wild": False}]}}
    started_next = np.roll(diamond, -1, axis=0)

    def reading(corners: np.ndarray, square: str) -> TrioletReading:
        probs = np.zeros((15, 15, EMPTY + 1), np.float32)
        probs[..., EMPTY] = 1.0
        loc = BoardLocation(tuple(map(tuple, corners)), units_to_image(corners), 1.0, {})
        return TrioletReading(loc, (CellReading(square, 5, False, 0.9, (), 1.0),), probs)

    fs = score_frame(reading(started_next, "A15"), labels)
    assert fs.located and fs.corner_err_px < 1e-6 and fs.perfect
    assert not score_frame(reading(started_next, "A1"), labels).perfect
    assert score_frame(reading(diamond, "A1"), labels).perfect
    untied = diamond + np.array([[0.0, 0.0], [60.0, 0.0], [60.0, 0.0], [0.0, 0.0]])  # O1 corner farther
    labels["board"]["corners_px_view"] = untied.tolist()
    assert not score_frame(reading(np.roll(untied, -1, axis=0), "A15"), labels).located


def _as_data(reading: TrioletReading | None) -> tuple[list[list[float]] | None, list[dict[str, Any]]]:
    """A reading as another process passes it on: corners and INTERFACES §3 cells."""
    if reading is None:
        return None, []
    cells = [{"square": c.square, "value": c.value, "wild": c.wild, "confidence": c.confidence} for c in reading.cells]
    return [list(map(float, p)) for p in reading.board.corners_px], cells


def test_reader_evaluate_reading_given_as_data_scores_the_same() -> None:
    """``score_cells`` (another checkout's reading, in ``bench read --against``) scores exactly as
    ``score_frame``: misread, under a hand, hidden and guessed, not located, a phantom tile."""
    occ = np.zeros((500, 500), np.uint8)
    occ[100:120, 100:112] = 255
    cases = [(_reading(6, 7), _labels(), occ), (_reading(5, 8), _labels(), None),
             (_reading(6, 7, a1_confidence=0.9), _labels(a1_marks=0.3), None),
             (_reading(6, 7, a1_confidence=0.4), _labels(a1_marks=0.3), None), (_reading(5, 7), _labels(), None),
             (None, _labels(), occ)]
    phantom = _reading(5, 7)
    phantom.cells = (*phantom.cells, CellReading("H8", None, True, 0.7, (), 1.0))
    cases.append((phantom, _labels(), None))
    for reading, labels, o in cases:
        want = score_frame(reading, labels, o)
        corners, cells = _as_data(reading)
        got = score_cells(corners, cells, labels, o)
        assert (got.perfect, got.cause, got.errors, got.guesses, got.squares, got.correct, got.under_hand) == \
            (want.perfect, want.cause, want.errors, want.guesses, want.squares, want.correct, want.under_hand)
    assert score_cells(*_as_data(phantom), _labels()).errors == [("H8", EMPTY, 16, 0.7)]


def test_reader_evaluate_square_size_in_the_picture_and_its_band() -> None:
    """The benchmark's board-size table: the true playing area's mean side / 15 (CORNERS: 300 px
    sides, 20 px squares), found or not, and the band it falls in (edges belong to the band above)."""
    from lab.evaluate.triolet import SQUARE_PX_BANDS, square_px_band, square_px_band_names

    assert score_frame(_reading(5, 7), _labels()).square_px == 20.0
    assert score_frame(None, _labels()).square_px == 20.0
    names = square_px_band_names((25.0, 30.0, 35.0))
    assert names == ["< 25", "25–30", "30–35", "≥ 35"]
    assert [square_px_band(v, (25.0, 30.0, 35.0)) for v in (20.0, 25.0, 29.9, 30.0, 34.9, 35.0, 80.0)] == [
        "< 25", "25–30", "25–30", "30–35", "30–35", "≥ 35", "≥ 35"]
    assert square_px_band(20.0) == square_px_band_names()[0] and len(square_px_band_names()) == len(SQUARE_PX_BANDS) + 1
