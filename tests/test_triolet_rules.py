"""Placement legality, T-P1–T-P7: each broken rule gives its rule id, stable code, cells and a sentence."""

from __future__ import annotations

from typing import Any

from triolet_helpers import header, position

from engine.core import Pass, Verdict
from engine.triolet import TrioletState, place


def reasons(verdict: Verdict) -> list[tuple[str, str, list[str]]]:
    assert not verdict.legal
    return [(r.rule, r.code, [str(c) for c in r.cells]) for r in verdict.reasons]


def check(board: dict[str, Any], *tiles: tuple[Any, ...], player: int = 0, opening: bool = False) -> Verdict:
    return position(board, opening=opening, player=player).check(place(player, *tiles))


def test_pair_over_15_message_as_in_interfaces_T_P4() -> None:
    v = check({"I8": 12}, ("I7", 4))
    assert [r.to_json() for r in v.reasons] == [
        {"rule": "T-P4", "code": "pair_over_15", "cells": ["I7", "I8"],
         "message": "4 + 12 = 16: two tiles side by side may total at most 15"}]


def test_pair_over_15_with_the_brief_example_T_P4() -> None:
    v = check({"H8": 7}, ("I8", 9))
    assert v.reasons[0].message == "7 + 9 = 16: two tiles side by side may total at most 15"


def test_pair_of_exactly_15_is_legal_T_P4() -> None:
    assert check({"H8": 7}, ("I8", 8)).legal


def test_trio_must_total_15_T_P4() -> None:
    v = check({"G8": 7, "H8": 5}, ("I8", 4))
    assert reasons(v) == [("T-P4", "trio_not_15", ["G8", "H8", "I8"])]
    assert v.reasons[0].message == "7 + 5 + 4 = 16: three tiles side by side must total exactly 15"


def test_four_in_a_row_is_illegal_T_P4() -> None:
    v = check({"G8": 0, "H8": 5, "I8": 10}, ("J8", 0))
    assert reasons(v) == [("T-P4", "run_too_long", ["G8", "H8", "I8", "J8"])]


def test_wild_counts_as_its_declared_value_T_P4() -> None:
    v = check({"H8": 9}, ("I8", 7, True))
    assert reasons(v) == [("T-P4", "pair_over_15", ["H8", "I8"])]
    assert v.reasons[0].message.startswith("9 + wild 7 = 16")
    assert check({"H8": 9}, ("I8", 6, True)).legal


def test_crossing_runs_are_checked_too_T_P4() -> None:
    v = check({"H8": 9, "J9": 10}, ("H9", 2), ("I9", 6))
    assert reasons(v) == [("T-P4", "trio_not_15", ["H9", "I9", "J9"])]


def test_square_taken_T_P1() -> None:
    assert reasons(check({"H8": 3}, ("H8", 4))) == [("T-P1", "square_taken", ["H8"])]


def test_not_in_one_line_T_P1() -> None:
    assert reasons(check({"H8": 3}, ("H9", 1), ("I10", 1))) == [("T-P1", "not_in_line", ["H9", "I10"])]


def test_more_than_three_tiles_T_P1() -> None:
    v = check({"H8": 3}, ("H9", 1), ("I9", 1), ("J9", 1), ("K9", 1))
    assert reasons(v)[0][:2] == ("T-P1", "too_many_tiles")


def test_more_tiles_than_the_rack_holds_T_P1_T_E2() -> None:
    state = position({"H8": 3})
    state.racks[0] = 1  # the bag ran dry: this rack holds one tile (T-E2)
    v = state.check(place(0, ("H9", 1), ("I9", 1)))
    assert reasons(v) == [("T-P1", "more_than_rack", ["H9", "I9"])]
    assert v.reasons[0].message == "A holds 1 tile: a placement of 2 is impossible"


def test_gap_between_placed_tiles_T_P2() -> None:
    v = check({"H8": 3}, ("H9", 1), ("J9", 1))
    assert reasons(v) == [("T-P2", "gap_in_line", ["I9"])]


def test_two_tiles_may_flank_an_existing_tile_T_P2() -> None:
    v = check({"H8": 3}, ("G8", 2), ("I8", 10))
    assert v.legal and v.score == 30


def test_first_placement_covers_centre_T_P3() -> None:
    state = TrioletState.new(header())
    assert reasons(state.check(place(0, ("G8", 3), ("F8", 2)))) == [("T-P3", "first_not_on_centre", ["F8", "G8"])]


def test_later_placement_must_touch_T_P3() -> None:
    v = check({"H8": 3}, ("J10", 2))
    assert reasons(v) == [("T-P3", "not_touching", ["J10"])]
    assert check({"H8": 3}, ("I9", 2)).reasons[0].code == "not_touching"  # diagonals do not count


MAGIC = {"F6": 0, "G6": 7, "H6": 8, "F7": 7, "G7": 8, "H7": 0, "F8": 8, "G8": 0}  # H8 = 7 completes it


def test_no_filled_3x3_block_T_P5() -> None:
    v = check(MAGIC, ("H8", 7))
    assert reasons(v) == [("T-P5", "filled_3x3", ["F6", "G6", "H6", "F7", "G7", "H7", "F8", "G8", "H8"])]
    assert "F6–H8" in v.reasons[0].message


def test_no_filled_2x2_block_in_the_opening_round_only_T_P5() -> None:
    board = {"H8": 3, "I8": 4, "H9": 2}
    v = check(board, ("I9", 1), opening=True)
    assert reasons(v) == [("T-P5", "filled_2x2_opening", ["H8", "I8", "H9", "I9"])]
    assert check(board, ("I9", 1), opening=False).legal


def test_both_wilds_in_one_placement_T_P6() -> None:
    v = check({"H8": 3}, ("H9", 1, True), ("I9", 2, True))
    assert reasons(v) == [("T-P6", "two_wilds", ["H9", "I9"])]


def test_value_seen_more_often_than_the_set_holds_is_a_misread_T_P7() -> None:
    v = check({"H8": 15, "K8": 0}, ("J8", 15))
    assert reasons(v) == [("T-P7", "too_many_of_value", ["J8"])]
    assert "only 1 tile showing 15" in v.reasons[0].message


def test_third_wild_is_a_misread_T_P7() -> None:
    v = check({"H8": (3, True), "J8": (0, True), "K10": 0}, ("K9", 2, True))
    assert reasons(v) == [("T-P7", "too_many_wilds", ["K9"])]


def test_several_broken_rules_are_all_reported() -> None:
    v = check({"H8": 9, "K8": 15}, ("H9", 7, True), ("I9", 1, True))
    assert {r.code for r in v.reasons} == {"pair_over_15", "two_wilds"}


def test_wrong_player_is_not_your_turn() -> None:
    state = position({"H8": 3}, player=1)
    v = state.check(place(0, ("H9", 1)))
    assert reasons(v) == [("T-E1", "not_your_turn", [])]
    assert v.reasons[0].message == "it is B's turn, not A's"
    assert state.check(Pass(player=0)).reasons[0].code == "not_your_turn"


def test_events_built_in_code_are_judged_not_crashed_T_B1_T_B3() -> None:
    """``check`` never raises on a malformed ``Place`` made in code (records refuse these at parse time)."""
    from engine.triolet import Place, PlacedTile

    state = position({"H8": 3})
    cases = {
        (): "no_tiles",
        (PlacedTile("Z9", 1),): "unknown_square",
        (PlacedTile("H9", 16),): "bad_value",
        (PlacedTile("H9", 1), PlacedTile("H9", 2)): "square_twice",
    }
    before = state.snapshot()
    for tiles, code in cases.items():
        v = state.check(Place(player=0, tiles=tiles))
        assert [r.code for r in v.reasons] == [code]
    assert state.snapshot() == before
