"""Turn flow and the end of the game: replays (T-S7), opening round (T-P5), exchange and pass (T-E1),
rack sizes and the bag (T-B4, T-E2), endings (T-E3, T-E4) and reveals (T-E5)."""

from __future__ import annotations

import pytest
from triolet_helpers import header, position

from engine.core import (
    Exchange,
    Header,
    IllegalEventError,
    OptionsError,
    Pass,
    Reveal,
    Session,
    Turn,
)
from engine.triolet import TrioletState, place


def test_bag_starts_at_83_minus_3_minus_3_per_player_T_B4() -> None:
    for players, bag in ((2, 74), (3, 71), (4, 68)):
        state = TrioletState.new(header(players))
        assert state.bag == bag and state.racks == [3] * players
        assert state.tiles_accounted() == 83


def test_first_player_comes_from_the_header() -> None:
    assert TrioletState.new(header(3, first_player=2)).to_move() == Turn(player=2)


def test_header_is_validated() -> None:
    with pytest.raises(OptionsError):
        TrioletState.new(header(1))
    with pytest.raises(OptionsError):
        TrioletState.new(Header(game="triolet", players=("a", "b"), options={"bogus": 1}))


def test_placing_draws_back_to_three_and_passes_the_turn_T_E2() -> None:
    state = TrioletState.new(header(3))
    state.apply(place(0, ("H8", 11), ("I8", 3)))
    assert (state.bag, state.racks, state.to_move()) == (71 - 2, [3, 3, 3], Turn(player=1))
    assert state.status_json() == {"bag": 69, "rack_sizes": [3, 3, 3]}


def test_racks_shrink_once_the_bag_is_empty_T_E2() -> None:
    state = position({"H8": 3})
    state.bag = 1
    state.apply(place(0, ("H9", 1), ("I9", 2)))
    assert (state.bag, state.racks, state.end_rule) == (0, [2, 3], None)


def test_replay_square_gives_another_turn_and_replays_chain_T_S7() -> None:
    state = position({"A7": 5, "H2": 4, "N3": 1})
    state.apply(place(0, ("A8", 3)))
    assert state.to_move() == Turn(player=0, replay=True)
    state.apply(place(0, ("H1", 2)))  # a replay earned in a replay turn
    assert state.to_move() == Turn(player=0, replay=True)
    v = state.check(place(1, ("N2", 1)))
    assert v.reasons[0].rule == "T-S7" and v.reasons[0].code == "not_your_turn"
    state.apply(place(0, ("N2", 1)))
    assert state.to_move() == Turn(player=0, replay=True)
    state.apply(place(0, ("B8", 2)))
    assert state.to_move() == Turn(player=1, replay=False)
    assert state.scores == [8 + 6 + 2 + 5, 0]


def test_opening_round_includes_replay_turns_T_P5() -> None:
    """The 2×2 ban lasts for each player's first turn, with the replays it earns."""
    state = position({"A7": 2, "B7": 3}, opening=True)
    state.apply(place(0, ("A8", 4)))  # replay square
    assert state.to_move() == Turn(player=0, replay=True)
    assert state.check(place(0, ("B8", 1))).reasons[0].code == "filled_2x2_opening"
    state.apply(place(0, ("C7", 10)))
    assert state.opening  # B has not had a first turn yet
    state.apply(Exchange(player=1, count=2))
    assert not state.opening
    assert state.check(place(0, ("B8", 1))).legal


def test_pass_only_with_fewer_than_5_in_the_bag_T_E1() -> None:
    state = position({"H8": 3})
    v = state.check(Pass(player=0))
    assert [r.code for r in v.reasons] == ["pass_not_allowed"] and v.reasons[0].rule == "T-E1"
    state.bag = 4
    assert state.check(Pass(player=0)).legal


def test_exchange_only_with_5_or_more_in_the_bag_and_at_most_the_rack_T_E1() -> None:
    state = position({"H8": 3})
    assert state.check(Exchange(player=0, count=3)).legal
    assert state.check(Exchange(player=0, count=4)).reasons[0].code == "exchange_too_many"
    state.bag = 4
    assert state.check(Exchange(player=0, count=1)).reasons[0].code == "exchange_bag_low"
    state.bag = 5
    bag_before = state.bag
    state.apply(Exchange(player=0, count=2))
    assert (state.bag, state.racks, state.to_move()) == (bag_before, [3, 3], Turn(player=1))


def test_everyone_passing_in_succession_ends_the_game_T_E4() -> None:
    state = position({"H8": 3}, players=3)
    state.bag = 3
    state.scores = [20, 30, 10]
    state.apply(Pass(player=0))
    state.apply(Pass(player=1))
    assert state.outcome() is None
    state.apply(place(2, ("H9", 2)))  # a placement breaks the succession
    state.apply(Pass(player=0))
    state.apply(Pass(player=1))
    assert state.outcome() is None
    state.apply(Pass(player=2))
    out = state.outcome()
    assert out is not None and out.end_rule == "T-E4"
    assert state.to_move() == Turn(player=None)
    assert state.check(place(1, ("H10", 0))).reasons[0].code == "game_over"
    v = state.check(Reveal(player=1, values=(9, 4, 0)))
    assert v.legal and v.score == -13
    assert [i.to_json() for i in v.breakdown] == [
        {"kind": "remaining", "cells": [], "points": -13, "rule": "T-E4",
         "detail": "B's rack: 9 + 4 + 0 = 13, subtracted"}]
    state.apply(Reveal(player=1, values=(9, 4, 0)))
    assert state.totals() == [20, 30 - 13, 10 + 5]
    assert state.reveals_pending() == [0, 2]


def test_emptying_the_rack_with_an_empty_bag_ends_at_once_T_E3() -> None:
    state = position({"A7": 5})
    state.bag = 0
    state.racks = [1, 3]
    state.apply(place(0, ("A8", 3)))  # a replay square: the game still ends at once
    out = state.outcome()
    assert out is not None and out.end_rule == "T-E3" and state.ender == 0
    assert state.to_move() == Turn(player=None)
    assert state.reveals_pending() == [1]  # A's rack is empty: nothing to reveal
    v = state.check(Reveal(player=1, values=(5, 7, 0)))
    assert v.legal and v.score == 0  # the revealing player loses nothing ...
    assert v.points_by_player(2) == [12, 0]  # ... the player who went out gains it
    item = v.breakdown[0].to_json()
    assert item == {"kind": "remaining", "cells": [], "points": 12, "rule": "T-E3", "player": 0,
                    "detail": "B's rack: 5 + 7 + 0 = 12, added to A"}
    state.apply(Reveal(player=1, values=(5, 7, 0)))
    assert state.totals() == [8 + 12, 0] and state.reveals_pending() == []
    assert state.check(Reveal(player=0, values=(1,))).reasons[0].code == "reveal_too_many"
    assert state.check(Reveal(player=0, values=())).legal
    assert state.check(Reveal(player=1, values=(1,))).reasons[0].code == "already_revealed"


def test_reveal_rules_T_E5_T_P7() -> None:
    state = position({"H8": 15, "I8": 0})
    assert state.check(Reveal(player=0, values=(1,))).reasons[0].code == "reveal_before_end"
    state.bag = 0
    state.racks = [1, 3]
    state.apply(place(0, ("J8", 0)))
    v = state.check(Reveal(player=1, values=(15,)))
    assert v.reasons[0].rule == "T-P7" and v.reasons[0].code == "reveal_count_exceeded"


def test_winner_is_every_seat_with_the_top_total() -> None:
    state = position({"H8": 3})
    state.bag = 0
    state.racks = [1, 1]
    state.scores = [10, 13]
    state.apply(place(0, ("H9", 0)))  # 3 + 0 = 3 → 13
    out = state.outcome()
    assert out is not None and out.winners == (0, 1)


def test_illegal_event_changes_nothing() -> None:
    state = position({"H8": 9})
    before = state.snapshot()
    for bad in (place(0, ("I8", 7)), place(1, ("I8", 1)), Pass(player=0), Reveal(player=0, values=(1,))):
        with pytest.raises(IllegalEventError):
            state.apply(bad)
        assert state.snapshot() == before


def test_session_check_lines_and_summary_INTERFACES_2() -> None:
    session = Session(header())
    first = session.submit(place(0, ("H8", 11), ("I8", 3))).to_json()
    assert first["next"] == {"player": 1, "replay": False} and first["bag"] == 72
    bad = session.submit(place(1, ("I7", 13))).to_json()
    assert bad == {"seq": 2, "type": "place", "legal": False, "player": 1, "score": 0,
                   "reasons": [{"rule": "T-P4", "code": "pair_over_15", "cells": ["I7", "I8"],
                                "message": "13 + 3 = 16: two tiles side by side may total at most 15"}]}
    assert session.state.to_move() == Turn(player=1)
    summary = session.summary_json()
    assert summary["ended"] is False and summary["totals"] == [25, 0]


def test_a_correction_rebuilds_the_position_I_1() -> None:
    """A misread value is fixed by a ``correct`` event; the totals follow (INTERFACES §1)."""
    from engine.core import Correct

    session = Session(header())
    session.submit(place(0, ("H8", 11), ("I8", 3)))
    session.submit(place(1, ("I9", 8)))  # misread: it was a 6
    assert session.state.totals() == [25, 11]
    entry = session.submit(Correct(player=None, seq=2, event=place(1, ("I9", 6))))
    assert entry.verdict.legal and session.state.totals() == [25, 9]
    assert session.state.to_move() == Turn(player=0)
