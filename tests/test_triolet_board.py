"""The board (T-B1, T-B2) and the tile set (T-B3, T-B4)."""

from __future__ import annotations

from engine.core import get_game
from engine.triolet import TrioletState
from engine.triolet.board import (
    CENTRE,
    DOUBLE_SQUARES,
    FACTOR,
    NAMES,
    REPLAY_SQUARES,
    SIZE,
    TRIPLE_SQUARES,
    kind_of,
    parse_square,
    square_name,
)
from engine.triolet.tiles import TOTAL_TILES, VALUE_COUNTS, full_set, initial_bag, point_value


def test_squares_are_named_column_letter_then_row_T_B1() -> None:
    assert NAMES[0] == "A1" and NAMES[14] == "O1" and NAMES[-1] == "O15"
    assert square_name(CENTRE) == "H8"
    assert parse_square("H8") == CENTRE == 7 * SIZE + 7
    assert parse_square("o15") == 224
    for bad in ("P1", "A0", "A16", "", "H", "8H"):
        assert parse_square(bad) is None


def test_special_squares_T_B2() -> None:
    assert len(DOUBLE_SQUARES) == 9 and len(TRIPLE_SQUARES) == 8 and len(REPLAY_SQUARES) == 8
    assert kind_of(CENTRE) == "double" and FACTOR[CENTRE] == 2
    assert {NAMES[s] for s in TRIPLE_SQUARES} == {"E2", "K2", "E14", "K14", "B5", "N5", "B11", "N11"}
    assert kind_of(parse_square("A8") or 0) == "replay" and kind_of(parse_square("A1") or 0) is None


def test_special_layout_is_symmetric_under_all_8_symmetries_T_B2() -> None:
    def transforms(r: int, c: int) -> list[tuple[int, int]]:
        m = SIZE - 1
        return [(r, c), (c, r), (m - r, c), (r, m - c), (m - r, m - c), (c, m - r), (m - c, r), (m - c, m - r)]

    for group in (DOUBLE_SQUARES, TRIPLE_SQUARES, REPLAY_SQUARES):
        for s in group:
            for r, c in transforms(*divmod(s, SIZE)):
                assert r * SIZE + c in group


def test_one_placement_covers_at_most_one_special_square_T_B2() -> None:
    """Two special squares in a row or column are at least 3 apart, more than a placement spans."""
    special = sorted(DOUBLE_SQUARES | TRIPLE_SQUARES | REPLAY_SQUARES)
    for a in special:
        for b in special:
            ra, ca = divmod(a, SIZE)
            rb, cb = divmod(b, SIZE)
            if a < b and (ra == rb or ca == cb):
                assert abs(ra - rb) + abs(ca - cb) >= 3, (NAMES[a], NAMES[b])


def test_tile_set_T_B3_and_bag_T_B4() -> None:
    assert sum(VALUE_COUNTS) == 81 and TOTAL_TILES == 83 and len(full_set()) == 83
    assert VALUE_COUNTS[6] == 6 and VALUE_COUNTS[9] == 4  # the count printed tells a 6 from a 9
    assert [initial_bag(n) for n in (2, 3, 4)] == [74, 71, 68]
    assert point_value(7, wild=True) == 0 and point_value(7, wild=False) == 7


def test_registered_as_triolet() -> None:
    assert get_game("triolet") is TrioletState
