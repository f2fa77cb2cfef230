"""Tile values read from rendered frames: occupancy, values, wilds, turned tiles, 6 vs 9 (T-B3)."""

from __future__ import annotations

import pytest
from reader_helpers import TEST_SEEDS, as_jsonable, frame, six_nine_frame, truth_cells

from vision.read.triolet import read_triolet


def test_reader_values_six_and_nine_in_every_turn_t_b3() -> None:
    """6 and 9 turned 0/90/180/270°, askew and off-centre, a wild and two-digit values."""
    fr = six_nine_frame()
    reading = read_triolet(fr.image)
    got = {c.square: (c.value, c.wild) for c in reading.cells}
    truth = truth_cells(fr)
    assert got == truth
    for c in reading.cells:
        assert c.candidates[0].value == c.value or c.rules  # top candidate is the reading
        assert 0.0 <= c.confidence <= 1.0


@pytest.mark.parametrize("seed", TEST_SEEDS)
def test_reader_values_random_frames(seed: int) -> None:
    """Occupancy and values on random normal frames.

    The bound is what the committed model achieves today (see docs/READER.md: the 99.9 % target
    is not met yet): at most 3 wrong squares of 225 and 85 % of the visible tiles right."""
    fr = frame(seed)
    reading = read_triolet(fr.image)
    got = {c.square: (c.value, c.wild) for c in reading.cells}
    truth = truth_cells(fr)
    visible = {c["square_view"] for c in fr.labels["cells"] if c["visible"] >= 0.5}
    wrong = {s for s in set(got) | set(truth) if got.get(s) != truth.get(s) and (s in visible or s not in truth)}
    assert len(wrong) <= 3, (wrong, fr.labels["style"])
    tiles_right = sum(1 for s in truth if s in visible and got.get(s) == truth[s])
    assert tiles_right >= 0.85 * sum(1 for s in truth if s in visible)


def test_reader_values_json_shape_and_timings() -> None:
    fr = frame(TEST_SEEDS[0])
    reading = read_triolet(fr.image)
    js = as_jsonable(reading.to_json())
    assert js["game"] == "triolet" and len(js["board"]["corners_px"]) == 4
    assert all(set(c) == {"square", "value", "wild", "confidence"} for c in js["cells"])
    for stage in ("locate", "rectify", "features", "classify", "consistency", "total"):
        assert reading.timings_ms[stage] >= 0.0
    assert len(reading.squares) == 225
    for sq in reading.squares:
        assert abs(sum(c.prob for c in sq.candidates) - 1.0) < 0.35  # top-4 hold most of the mass
