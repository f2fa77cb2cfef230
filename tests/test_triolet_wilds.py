"""Wild inference for the camera (T-P4, T-P6): which declared values keep every run legal."""

from __future__ import annotations

import pytest
from triolet_helpers import position

from engine.triolet import wild_candidates


def test_a_wild_completing_a_trio_has_one_value_T_P4() -> None:
    state = position({"G10": 7, "H10": 5})
    assert wild_candidates(state, [("I10", None, True)]) == [3]


def test_a_wild_in_a_pair_may_be_anything_up_to_15_minus_its_partner_T_P4() -> None:
    state = position({"H8": 11})
    assert wild_candidates(state, [("I8", None, True)]) == [0, 1, 2, 3, 4]


def test_crossing_runs_narrow_the_candidates_rulebook_wild_note() -> None:
    """Rulebook note: 'this wild has a face value of 3 (15 − (8 + 4) = 3)'; a pair crossing a pair bounds both."""
    assert wild_candidates(position({"G9": 8, "H9": 4}), [("I9", None, True)]) == [3]
    state = position({"J10": 14})
    assert wild_candidates(state, [("I9", 11, False), ("J9", None, True)]) == [0, 1]


def test_no_value_fits_gives_no_candidates() -> None:
    state = position({"G10": 7, "H10": 9})
    assert wild_candidates(state, [("I10", None, True)]) == []


def test_exactly_one_unknown_value_is_required() -> None:
    with pytest.raises(ValueError):
        wild_candidates(position({"H8": 1}), [("I8", 3, False)])
