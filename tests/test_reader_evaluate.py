"""The benchmark's scoring: a misread whose middle a hand covers is told apart ("hands aside"),
without changing what counts as perfect."""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.locate import BoardLocation, units_to_image
from vision.triolet.classifier import EMPTY
from vision.triolet.evaluate import score_frame
from vision.triolet.reader import CellReading, TrioletReading

CORNERS = np.array([[100.0, 100.0], [400.0, 100.0], [400.0, 400.0], [100.0, 400.0]])  # 20 px squares


def _labels() -> dict[str, Any]:
    cells = [{"square": "A1", "value": 5, "wild": False}, {"square": "C1", "value": 7, "wild": False}]
    return {"board": {"corners_px_view": CORNERS.tolist()}, "read": {"cells": cells},
            "cells": [{"square_view": c["square"], "visible": 1.0} for c in cells]}


def _reading(a1: int, c1: int) -> TrioletReading:
    probs = np.zeros((15, 15, EMPTY + 1), np.float32)
    probs[..., EMPTY] = 1.0
    cells = tuple(CellReading(sq, v, False, 0.9, (), 1.0) for sq, v in (("A1", a1), ("C1", c1)))
    loc = BoardLocation(tuple(map(tuple, CORNERS)), units_to_image(CORNERS), 1.0, {})
    return TrioletReading(loc, cells, probs)


def test_reader_evaluate_misread_under_a_hand_is_marked() -> None:
    occ = np.zeros((500, 500), np.uint8)
    occ[100:120, 100:112] = 255  # over the middle of A1 (x 100–120, y 100–120)
    fs = score_frame(_reading(6, 7), _labels(), occ)
    assert not fs.perfect and fs.perfect_hands_aside
    assert fs.under_hand == {"A1"}
    fs = score_frame(_reading(5, 8), _labels(), occ)  # C1 wrong, no hand there
    assert not fs.perfect and not fs.perfect_hands_aside
    assert fs.under_hand == set()
    fs = score_frame(_reading(5, 7), _labels(), occ)
    assert fs.perfect and fs.perfect_hands_aside
