"""Whether a tile's marks in view tell its value (``lab.render.triolet_legibility``, the
label ``marks_confusable``): never confusable wholly in view, confusable when a hand leaves only
what another value shows too."""

from __future__ import annotations

import numpy as np
import pytest

from lab.render import random_frame
from lab.render.holdout import training_pool
from lab.render.styles import TYPEFACES
from lab.render.triolet_legibility import (
    INK_GRID,
    LEGIBLE_MIN_PX,
    confusable_values,
    face_marks,
    least_pair_difference,
    marks_difference,
)

#: The numeral scales the renderer draws (``triolet_random``: 0.48–0.64), sampled.
SCALES = (0.48, 0.485, 0.5, 0.52, 0.56, 0.6, 0.64)


def test_render_legibility_threshold_is_the_least_difference_wholly_in_view() -> None:
    least = {s: min(least_pair_difference(tf, s, outline)[0] for tf in TYPEFACES for outline in (False, True))
             for s in SCALES}
    assert min(least.values()) == LEGIBLE_MIN_PX  # so no tile wholly in view is ever confusable
    assert least[0.64] > LEGIBLE_MIN_PX  # larger numerals differ by more


def test_render_legibility_difference_counts_holes_and_turns() -> None:
    m = face_marks("ttf_dejavu_sans_bold", 0.56, False)
    everywhere = np.ones((INK_GRID, INK_GRID), bool)
    assert marks_difference(m[8], m[8], everywhere) == 0
    # a 6 and a 9 differ wholly in view (the count digits), and much more than the threshold
    assert marks_difference(m[6], m[9], everywhere) >= LEGIBLE_MIN_PX
    # with nothing in view no two values differ
    assert marks_difference(m[6], m[1], np.zeros_like(everywhere)) == 0


@pytest.mark.parametrize("typeface", ["geometric", "ttf_dejavu_sans_bold", "hershey_simplex"])
def test_render_legibility_a_13_showing_its_1_could_be_any_teen(typeface: str) -> None:
    left = np.zeros((INK_GRID, INK_GRID), bool)
    left[:, :INK_GRID // 2] = True  # the face's left half in view: the "1" of the upright 13
    got = confusable_values(13, typeface, 0.56, False, left)
    assert {10, 12, 14, 15} <= set(got)  # their "1" stands where the 13's does
    assert 3 not in got and 1 not in got  # a lone numeral stands in the middle
    assert confusable_values(13, typeface, 0.56, False, np.ones_like(left)) == []


def test_render_legibility_labels_only_partly_covered_tiles() -> None:
    seen_confusable = 0
    for seed in range(12_000_000, 12_000_012):
        fr = random_frame("triolet", seed, "normal", pool=training_pool(), size=(640, 360))
        for c in fr.labels["cells"]:
            assert isinstance(c["marks_confusable"], list)
            if c["visible"] == 1.0:
                assert c["marks_confusable"] == [] and c["marks_visible"] == 1.0
            own = "wild" if c["wild"] else str(c["value"])
            assert own not in c["marks_confusable"]
            seen_confusable += bool(c["marks_confusable"])
    assert seen_confusable > 0  # hands in these frames leave some tiles unreadable
