"""Boards, names and neighbours (B-B1..B-B4), checked against the formulas of the fixture README
written out independently here."""

from __future__ import annotations

import pytest

from engine.core.errors import EventFormatError
from engine.trigon.board import board_of_side
from engine.trigon.notation import canonical_cells, cell_name, column_index, column_letters, parse_cell_name


@pytest.mark.parametrize(("side", "cells", "width", "height"), [(9, 486, 35, 18), (8, 384, 31, 16)])
def test_board_shape_b_b1(side: int, cells: int, width: int, height: int) -> None:
    """B-B1: 486 triangles on 35 × 18 (side 9), 384 on 31 × 16 (side 8); rows symmetric runs."""
    b = board_of_side(side)
    assert (b.size, b.width, b.height) == (cells, width, height)
    for row in range(1, height + 1):
        first = side - 1 - min(row - 1, 2 * side - row)
        xs = sorted(x for x, r in b.colrow if r == row)
        assert xs == list(range(first, width - first)), row
        y = height - row  # B-B1 in top-down rows: first column 8 − min(y, 17 − y) on side 9
        assert first == side - 1 - min(y, 2 * side - 1 - y)


def test_row_extents_from_readme_table() -> None:
    """The README's table: row 18 i..aa, row 10 a..ai, row 1 i..aa (side 9); row 16 h..x, row 9 a..ae (side 8)."""
    b9, b8 = board_of_side(9), board_of_side(8)
    for b, row, lo, hi in [(b9, 18, "i", "aa"), (b9, 10, "a", "ai"), (b9, 9, "a", "ai"), (b9, 1, "i", "aa"),
                           (b9, 14, "e", "ae"), (b8, 16, "h", "x"), (b8, 9, "a", "ae"), (b8, 1, "h", "x")]:
        names = [n for n, (x, r) in zip(b.names, b.colrow, strict=True) if r == row]
        assert (names[0], names[-1]) == (f"{lo}{row}", f"{hi}{row}")


def test_cell_numbers_follow_b_b6_order() -> None:
    """Cells are numbered by row from the bottom, then column: sorting numbers sorts a move (B-B6)."""
    b = board_of_side(9)
    assert list(b.colrow) == sorted(b.colrow, key=lambda c: (c[1], c[0]))
    assert b.names[0] == "i1" and b.names[-1] == "aa18"


def test_columns_are_bijective_base_26_b_b2() -> None:
    """B-B2: a…z, aa…ai for x = 0…34; names round-trip."""
    assert [column_letters(x) for x in (0, 25, 26, 27, 34, 51, 52)] == ["a", "z", "aa", "ab", "ai", "az", "ba"]
    for x in range(0, 800):
        assert column_index(column_letters(x)) == x
    assert parse_cell_name("AI10") == (34, 10)
    assert cell_name(17, 15) == "r15"
    for bad in ("15r", "r0", "r", "r-1", "", "r1 5"):
        with pytest.raises(EventFormatError):
            parse_cell_name(bad)


def test_up_and_down_b_b2() -> None:
    """B-B2: up iff x + row even (side 9), odd (side 8); README examples i18, a10 up, a9, i1 down."""
    b9, b8 = board_of_side(9), board_of_side(8)
    for i, (x, row) in enumerate(b9.colrow):
        assert b9.is_up(i) == ((x + row) % 2 == 0)
    for i, (x, row) in enumerate(b8.colrow):
        assert b8.is_up(i) == ((x + row) % 2 == 1)
    up = {n: b9.is_up(b9.index_of_name[n]) for n in ("i18", "a10", "a9", "i1")}
    assert up == {"i18": True, "a10": True, "a9": False, "i1": False}
    assert b8.is_up(b8.index_of_name["h16"]) and not b8.is_up(b8.index_of_name["h1"])
    assert b9.lattice.up_parity == 0 and b8.lattice.up_parity == 1


def _readme_edges(x: int, r: int, up: bool) -> set[tuple[int, int]]:
    return {(x - 1, r), (x + 1, r), (x, r - 1) if up else (x, r + 1)}


def _readme_corners(x: int, r: int, up: bool) -> set[tuple[int, int]]:
    a, b = (r + 1, r - 1) if up else (r - 1, r + 1)
    return {(x - 2, r), (x + 2, r), (x - 1, a), (x, a), (x + 1, a), (x - 2, b), (x - 1, b), (x + 1, b), (x + 2, b)}


@pytest.mark.parametrize("side", [9, 8])
def test_neighbours_b_b3(side: int) -> None:
    """B-B3: 3 edge neighbours and 9 corner neighbours, as the README's formulas, off-board dropped."""
    b = board_of_side(side)
    on = set(b.colrow)
    for i, (x, r) in enumerate(b.colrow):
        up = b.is_up(i)
        edges = {b.colrow[j] for j in b.edge_neighbours[i]}
        corners = {b.colrow[j] for j in b.corner_neighbours[i]}
        assert edges == _readme_edges(x, r, up) & on
        assert corners == _readme_corners(x, r, up) & on
        assert b.edge_masks[i] == b.mask_of(b.edge_neighbours[i])


@pytest.mark.parametrize(("side", "starts"), [(9, "r15 r4 j12 j7 z12 z7"), (8, "p14 p3 h11 h6 x11 x6")])
def test_starting_points_b_b4(side: int, starts: str) -> None:
    """B-B4: six starting points; opposite pairs point-reflect through the centre (B-L6)."""
    b = board_of_side(side)
    names = starts.split()
    assert [b.names[i] for i in b.starts] == names
    assert [b.is_up(i) for i in b.starts] == [True, False, False, True, False, True]
    opposite = {b.names[i]: b.names[b.opposite(i)] for i in b.starts}
    assert opposite == {names[0]: names[1], names[1]: names[0], names[2]: names[5], names[5]: names[2],
                        names[3]: names[4], names[4]: names[3]}


def test_canonical_order_b_b6() -> None:
    """B-B6: cells sorted by row, then column; any order in; duplicates rejected."""
    assert canonical_cells(["p17", "o17", "q16", "p16", "r15", "q15"]) == ("q15", "r15", "p16", "q16", "o17", "p17")
    assert canonical_cells(["aa7", "x8", "b7", "A7"]) == ("a7", "b7", "aa7", "x8")
    with pytest.raises(EventFormatError, match="twice"):
        canonical_cells(["r15", "R15"])
