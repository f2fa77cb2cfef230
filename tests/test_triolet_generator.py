"""The placement generator on hand-made positions: the same set as ``check`` accepts (T-P1–T-P7)."""

from __future__ import annotations

import pytest
from triolet_helpers import brute_force_placements, header, position, tile_set

from engine.core import EventFormatError
from engine.triolet import TrioletState, generate, parse_rack
from engine.triolet.state import TrioletState as State


def keys(state: State, rack: tuple[int | str, ...]) -> set[frozenset[tuple[str, int, bool]]]:
    return {tile_set(ev) for ev, _items in generate(state, rack)}


def test_empty_board_every_placement_covers_H8_T_P3() -> None:
    state = TrioletState.new(header())
    got = keys(state, (5, 10, 0))
    assert got == brute_force_placements(state, (5, 10, 0))
    assert all(any(sq == "H8" for sq, _v, _w in k) for k in got)
    assert frozenset({("H8", 5, False), ("I8", 10, False), ("J8", 0, False)}) in got


def test_opening_round_2x2_is_never_generated_T_P5() -> None:
    state = position({"H8": 3, "I8": 4, "H9": 2}, opening=True)
    got = keys(state, (1, 2))
    assert got == brute_force_placements(state, (1, 2))
    assert frozenset({("I9", 1, False)}) not in got
    later = position({"H8": 3, "I8": 4, "H9": 2}, opening=False)
    assert frozenset({("I9", 1, False)}) in keys(later, (1, 2))


def test_filled_3x3_is_never_generated_T_P5() -> None:
    board = {"F6": 0, "G6": 7, "H6": 8, "F7": 7, "G7": 8, "H7": 0, "F8": 8, "G8": 0}
    state = position(board)
    got = keys(state, (7, 2))
    assert got == brute_force_placements(state, (7, 2))
    assert frozenset({("H8", 7, False)}) not in got


def test_value_counts_limit_the_rack_T_P7() -> None:
    state = position({"H8": 15, "K8": 0})
    got = keys(state, (15, "W"))
    assert got == brute_force_placements(state, (15, "W"))
    assert not any(v == 15 and not w for k in got for _sq, v, w in k)
    assert frozenset({("J8", 15, True)}) in got  # a wild may be declared 15


def test_wild_in_a_trio_takes_the_one_value_that_fits_T_P4_T_P6() -> None:
    state = position({"G10": 7, "H10": 5})
    got = keys(state, ("W",))
    trio = [k for k in got if any(sq == "I10" for sq, _v, _w in k)]
    assert trio == [frozenset({("I10", 3, True)})]


def test_equal_rack_tiles_give_each_placement_once() -> None:
    state = position({"H8": 3})
    events = [ev for ev, _i in generate(state, (2, 2, 2))]
    assert len(events) == len({tile_set(e) for e in events})
    assert keys(state, (2, 2, 2)) == brute_force_placements(state, (2, 2, 2))


def test_scores_come_with_the_placements() -> None:
    state = position({"L7": 10})
    scored = {tile_set(ev): sum(i.points for i in items) for ev, items in generate(state, (4, 9, 2))}
    assert scored[frozenset({("L8", 4, False), ("M8", 9, False), ("N8", 2, False)})] == 124


def test_rack_larger_than_the_tracked_rack_is_refused_T_E2() -> None:
    state = position({"H8": 3})
    state.racks[0] = 2
    with pytest.raises(ValueError, match="holds 2 tiles"):
        list(generate(state, (1, 2, 3)))


def test_parse_rack() -> None:
    assert parse_rack("3, 5,w") == (3, 5, "W")
    assert TrioletState.parse_hand("15") == (15,)
    for bad in ("", "3,,5", "16", "1,2,3,4", "x"):
        with pytest.raises(EventFormatError):
            parse_rack(bad)
    # T-B3: the set holds 2 wilds and one 15; full-width digits are not values; a Triominos hand is named
    for bad, says in (("W,W,W", "only 2 wilds"), ("15,15", "only 1 tile of value 15"), ("３,5", "not a tile"),
                      ("0-1-2", "--hand is for Triominos")):
        with pytest.raises(EventFormatError, match=says):
            parse_rack(bad)
    assert parse_rack("W,W,14") == ("W", "W", 14)
    for bad in ("+-3", "-+3", "--3"):  # signs int() refuses are named, never a bare ValueError
        with pytest.raises(EventFormatError, match="not a tile"):
            parse_rack(bad)
    with pytest.raises(EventFormatError, match="outside 0 to 15"):
        parse_rack("-1")


def test_no_placements_once_the_game_is_over() -> None:
    state = position({"H8": 3})
    state.bag = 0
    state.racks = [1, 3]
    state.apply(next(iter(state.legal_placements((0,)))))
    assert state.outcome() is not None
    assert list(generate(state, (1,))) == []
