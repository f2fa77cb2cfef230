"""Trio Domino: fields opened only after a hexagon (D-P3), two draws at most (D-P2), the end and
its scores (D-E1, D-E2), and the topsy-turvy variant (D-V1)."""

from __future__ import annotations

from typing import Any

import pytest
from tritiles_helpers import (
    HEX1,
    HEX3,
    drain_pile,
    header,
    kinds,
    lay,
    new_state,
    place,
    reveal_any,
    snapshot,
    unseen_tiles,
)

from engine.core import Draw, EventFormatError, IllegalEventError, Pass
from engine.trio_domino import TrioDominoState
from engine.tritiles import TileGameState, parse_tile_name, tile_sum


def codes(state: TileGameState, ev: object) -> list[str]:
    return [r.code for r in state.check(ev).reasons]  # type: ignore[arg-type]


def test_d_b2_deal() -> None:
    for players, hand in ((2, 10), (3, 8), (4, 8)):
        state = new_state("trio_domino", players)
        assert state.hands == [hand] * players and state.pile == 56 - hand * players
    with pytest.raises(EventFormatError, match="2-4 players"):
        new_state("trio_domino", 5)


def test_d_p3_a_new_field_opens_only_right_after_closing_a_hexagon() -> None:
    state = new_state("trio_domino")
    lay(state, HEX1[:-1])
    assert codes(state, place(state, (0, 0), (5, 5, 5), field=1)) == ["new_field_needs_hexagon"]
    v = state.apply(place(state, *HEX1[-1]))  # player 1 closes a hexagon
    assert v.player == 1 and kinds(v) == {"hexagon": 0}
    assert state.new_field_for == 1 and state.current == 0
    assert state.status_json()["new_field_for"] == 1
    before = snapshot(state)
    bad = {
        place(state, (0, 0), (5, 5, 5), field=1, player=0): "new_field_needs_hexagon",
        place(state, (2, -1), (5, 5, 5), field=0, player=1): "not_your_turn",
        place(state, (2, 0), (5, 5, 5), field=1, player=1): "not_at_origin",
        place(state, (0, 0), (5, 5, 5), field=2, player=1): "unknown_field",
    }
    for ev, code in bad.items():
        assert codes(state, ev) == [code]
        with pytest.raises(IllegalEventError):
            state.apply(ev)
    assert state.check(place(state, (2, -1), (5, 5, 5), field=0, player=1)).reasons[0].rule == "D-P3"
    assert snapshot(state) == before
    v = state.apply(place(state, (1, 0), (5, 5, 5), field=1, player=1))
    assert v.legal and len(state.tables) == 2 and state.current == 0 and state.new_field_for is None
    assert state.hands == [10 - 3, 10 - 4]
    # Play goes on with player 0, on either field.
    assert state.check(place(state, (0, 0), (5, 5, 4), field=1)).legal


def test_d_p3_the_chance_lapses_when_the_next_player_acts() -> None:
    state = new_state("trio_domino")
    lay(state, HEX1)
    state.apply(Draw(player=0, count=1))
    assert state.new_field_for is None
    assert codes(state, place(state, (0, 0), (5, 5, 5), field=1, player=1)) == ["not_your_turn"]


def test_d_p2_at_most_two_draws_without_penalty_then_pass() -> None:
    state = new_state("trio_domino")
    lay(state, HEX3[:1])
    assert codes(state, Pass(player=1)) == ["must_draw_first"]
    v = state.apply(Draw(player=1, count=1))
    assert v.legal and v.breakdown == ()
    assert codes(state, Pass(player=1)) == ["must_draw_first"]
    state.apply(Draw(player=1, count=1))
    assert codes(state, Draw(player=1, count=1)) == ["too_many_draws"]
    assert state.check(Draw(player=1, count=1)).reasons[0].rule == "D-P2"
    v = state.apply(Pass(player=1))
    assert v.breakdown == () and state.totals() == [0, 0] and state.hands == [9, 12]


def test_d_e2_every_player_passing_in_turn_with_the_pile_empty_blocks_the_round() -> None:
    """D-E2, "blocked as for Triominos" (INTERFACES §1): passes count only once the pile is empty."""
    state = new_state("trio_domino")
    lay(state, HEX3[:1])
    for p in (1, 0):
        state.apply(Draw(player=p, count=1))
        state.apply(Draw(player=p, count=1))
        state.apply(Pass(player=p))
    assert state.end_rule is None and state.pile > 0  # tiles remain: the next turn may draw again
    drain_pile(state)  # its last pass is already made with the pile empty
    assert state.pile == 0 and state.end_rule is None and state.passes == 1
    for _ in range(state.n - 2):
        state.apply(Pass(player=state.current))
    assert state.end_rule is None
    state.apply(Pass(player=state.current))
    assert state.end_rule == "D-E2"
    sums = []
    for seat in (0, 1):
        names = unseen_tiles(state)[: state.hands[seat]]
        sums.append(sum(tile_sum(parse_tile_name(t)) for t in names))
        v = reveal_any(state, seat, names)
        assert kinds(v) == {"remaining": sums[-1]}
    assert state.totals() == sums
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (sums.index(min(sums)),)


def out_by_player_0(**options: Any) -> TileGameState:
    state = new_state("trio_domino", **options)
    for k in range(10):
        state.apply(place(state, *HEX3[k]))
        if k < 9:
            for _ in range(2):
                state.apply(Draw(player=1, count=1))
            state.apply(Pass(player=1))
    return state


def test_d_e1_going_out_ends_at_once_and_the_others_count_their_tiles() -> None:
    state = out_by_player_0()
    assert state.end_rule == "D-E1" and state.hands[0] == 0
    assert codes(state, place(state, *HEX3[10], player=1)) == ["round_over"]
    names = unseen_tiles(state)[: state.hands[1]]
    reveal_any(state, 1, names)
    held = sum(tile_sum(parse_tile_name(t)) for t in names)
    assert state.totals() == [0, held]
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,) and state.summary_json()["lowest_wins"] is True


def test_d_v1_topsy_turvy_scores_laid_tiles_and_the_highest_wins() -> None:
    state = out_by_player_0(topsy_turvy=True)
    laid0 = sum(sum(v) for _, v in HEX3[:10])
    assert state.totals() == [laid0, 0]
    v = reveal_any(state, 1)
    assert v.breakdown == ()
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,)


def test_trio_domino_place_events_need_a_field_number() -> None:
    h = header("trio_domino")
    with pytest.raises(EventFormatError, match='"field"'):
        TrioDominoState.parse_event({"type": "place", "player": 0, "cell": [0, 0], "values": [1, 2, 3]}, h)
    ev = TrioDominoState.parse_event({"type": "place", "player": 0, "cell": [0, 0], "values": [1, 2, 3],
                                      "field": 0}, h)
    assert ev.to_json() == {"type": "place", "player": 0, "cell": [0, 0], "values": [1, 2, 3], "field": 0}


def test_d_p3_unknown_field_message_counts_the_fields() -> None:
    """A field number beyond the next new one names what exists, in words a player reads."""
    state = new_state("trio_domino")
    before_any = state.check(place(state, (0, 0), (5, 5, 5), field=3)).reasons
    assert [r.code for r in before_any] == ["unknown_field"]
    assert "no field yet" in before_any[0].message and "0--1" not in before_any[0].message
    lay(state, HEX1[:2])
    one = state.check(place(state, (0, 0), (5, 5, 5), field=2)).reasons
    assert [r.code for r in one] == ["unknown_field"] and "one field, number 0" in one[0].message
