"""M-B1 tiles and their rotations; M-B2/M-B3 lattice orientation and notation; parsing hands."""

from __future__ import annotations

import pytest

from engine.core.errors import EventFormatError
from engine.tritiles import ALL_TILES, LATTICE, parse_hand, parse_tile_name, rotations, tile_of
from engine.tritiles.geometry import corner_names


def test_m_b1_the_set_holds_56_distinct_ascending_triples() -> None:
    assert len(ALL_TILES) == 56 == len(set(ALL_TILES))
    assert all(0 <= a <= b <= c <= 5 for a, b, c in ALL_TILES)


def test_m_b1_only_the_three_rotations_of_the_clockwise_order_are_a_tile() -> None:
    assert rotations((0, 1, 2)) == ((0, 1, 2), (1, 2, 0), (2, 0, 1))
    for values in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        assert tile_of(values) == (0, 1, 2)
    for turned_over in ((0, 2, 1), (2, 1, 0), (1, 0, 2)):
        assert tile_of(turned_over) is None
    assert rotations((3, 3, 3)) == ((3, 3, 3),)
    assert tile_of((5, 2, 2)) == (2, 2, 5)


def test_m_b1_every_tile_in_every_rotation_maps_back_to_itself() -> None:
    laid = [(tile_of(r), t) for t in ALL_TILES for r in rotations(t)]
    assert all(a == b for a, b in laid)
    # 20 tiles of three different numbers x 3 + 30 with a pair x 3 + 6 triples x 1 = 156 ways to lie
    assert sum(len(rotations(t)) for t in ALL_TILES) == 20 * 3 + 30 * 3 + 6


def test_m_b2_orientation_and_m_b3_corner_order() -> None:
    assert LATTICE.is_up((0, 0)) and not LATTICE.is_up((1, 0)) and LATTICE.is_up((1, 1))
    assert corner_names((0, 0)) == ("top", "bottom-right", "bottom-left")
    assert corner_names((1, 0)) == ("bottom", "top-left", "top-right")
    assert LATTICE.edge_neighbours((0, 0)) == ((-1, 0), (1, 0), (0, 1))
    assert LATTICE.edge_neighbours((1, 0)) == ((0, 0), (2, 0), (1, -1))


def test_tile_names_parse_in_any_order_and_bad_names_are_format_errors() -> None:
    assert parse_tile_name("2-0-1") == (0, 1, 2)
    for bad in ("0-1", "0-1-6", "a-b-c", "0-1-2-3", ""):
        with pytest.raises(EventFormatError):
            parse_tile_name(bad)


def test_hand_parsing_rejects_a_tile_named_twice() -> None:
    assert parse_hand("0-1-2, 3-3-5") == [(0, 1, 2), (3, 3, 5)]
    with pytest.raises(EventFormatError, match="named twice"):
        parse_hand("0-1-2,2-1-0")
    with pytest.raises(EventFormatError, match="empty"):
        parse_hand(" , ")
