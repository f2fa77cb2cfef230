"""Triominos turn flow: draws and penalties (M-S2), going out and the last round (M-E1), a blocked
round (M-E2), reveals, the round's winner and the target score (M-E3)."""

from __future__ import annotations

from typing import Any

import pytest
from tritiles_helpers import HEX3, kinds, lay, new_state, place, reveal_any, snapshot, unseen_tiles

from engine.core import Draw, IllegalEventError, Pass, Reveal
from engine.triominos.scoring import blocked_items
from engine.tritiles import TileGameState, parse_tile_name, tile_sum


def opened(players: int = 2, **options: Any) -> TileGameState:
    state = new_state("triominos", players, **options)
    lay(state, HEX3[:1])
    return state


def test_m_b4_deal_and_pile_sizes() -> None:
    for players, hand in ((2, 9), (3, 7), (4, 7), (5, 6), (6, 6)):
        state = new_state("triominos", players)
        assert state.hands == [hand] * players and state.pile == 56 - hand * players
        assert state.status_json()["pile"] == 56 - hand * players


def test_m_s2_each_draw_costs_5_and_a_pass_after_three_draws_10_more() -> None:
    state = opened()
    scores = []
    for _ in range(3):
        v = state.apply(Draw(player=1, count=1))
        scores.append(v.score)
        assert kinds(v) == {"draw_penalty": -5}
    v = state.apply(Pass(player=1))
    assert kinds(v) == {"pass_penalty": -10}
    assert scores == [-5, -5, -5] and state.totals()[1] == -25
    assert state.hands == [8, 12] and state.pile == 38 - 3
    assert state.current == 0 and state.draws == 0


def test_m_s2_a_fourth_draw_and_an_early_pass_are_illegal() -> None:
    state = opened()
    assert [r.code for r in state.check(Pass(player=1)).reasons] == ["must_draw_first"]
    for _ in range(2):
        state.apply(Draw(player=1, count=1))
    assert [r.code for r in state.check(Pass(player=1)).reasons] == ["must_draw_first"]
    state.apply(Draw(player=1, count=1))
    before = snapshot(state)
    for ev, code in ((Draw(player=1, count=1), "too_many_draws"), (Draw(player=0, count=1), "not_your_turn")):
        verdict = state.check(ev)
        assert [r.code for r in verdict.reasons] == [code] and verdict.reasons[0].rule == "M-S2"
        with pytest.raises(IllegalEventError):
            state.apply(ev)
    assert snapshot(state) == before
    assert [r.code for r in state.check(Draw(player=1, count=2)).reasons] == ["draw_one_at_a_time"]


def test_m_s2_draw_then_place_keeps_the_penalty_and_scores_the_tile() -> None:
    state = opened()
    state.apply(Draw(player=1, count=1))
    state.apply(Draw(player=1, count=1))
    v = state.apply(place(state, *HEX3[1]))
    assert v.score == sum(HEX3[1][1])
    assert state.totals()[1] == sum(HEX3[1][1]) - 10
    assert state.hands[1] == 9 + 2 - 1


def test_m_s2_nothing_before_the_opening_tile() -> None:
    state = new_state("triominos")
    for ev in (Draw(player=0, count=1), Pass(player=0)):
        assert [r.code for r in state.check(ev).reasons] == ["opening_first"]


def drain(state: TileGameState) -> None:
    while state.pile > 0:
        p = state.current
        while state.pile > 0 and state.draws < 3:
            state.apply(Draw(player=p, count=1))
        state.apply(Pass(player=p))


def test_m_s2_with_the_pile_empty_a_pass_costs_10_and_m_e2_ends_a_blocked_round() -> None:
    state = opened()
    drain(state)
    assert state.pile == 0 and state.end_rule is None
    assert state.tile_count() == 56
    p = state.current
    before = state.totals()[p]
    v = state.apply(Pass(player=p))
    assert kinds(v) == {"pass_penalty": -10} and state.totals()[p] == before - 10
    # Every player in turn has now passed with the pile empty: the round is blocked (M-E2).
    assert state.end_rule == "M-E2" and state.outcome() is not None
    assert [r.code for r in state.check(Draw(player=state.current, count=1)).reasons] == ["round_over"]
    totals = state.totals()
    hands = {}
    for seat in (0, 1):
        names = unseen_tiles(state)[: state.hands[seat]]
        hands[seat] = sum(tile_sum(parse_tile_name(t)) for t in names)
        v = reveal_any(state, seat, names)
    low = min(hands, key=lambda s: hands[s])
    high = 1 - low
    assert hands[low] < hands[high]
    assert kinds(v) == ({"remaining": hands[high] - hands[low]} if v.player == low else {})
    expected = list(totals)
    expected[low] += hands[high] - hands[low]
    assert state.totals() == expected
    assert state.reveals_pending() == []


def test_m_e2_tied_lowest_hands_each_score() -> None:
    items = blocked_items({0: 10, 1: 10, 2: 25})
    assert [(i.player, i.points) for i in items] == [(0, 35 - 10), (1, 35 - 10)]
    assert [(i.player, i.points) for i in blocked_items({0: 7, 1: 3})] == [(1, 4)]


def out_by_player_0(edition: str) -> TileGameState:
    """Player 0 lays 9 tiles while player 1 draws three and passes every turn."""
    state = new_state("triominos", edition=edition)
    for k in range(9):
        v = state.apply(place(state, *HEX3[k]))
        if k < 8:
            assert state.current == 1
            for _ in range(3):
                state.apply(Draw(player=1, count=1))
            state.apply(Pass(player=1))
    assert state.hands[0] == 0
    state.last_verdict = v  # type: ignore[attr-defined]
    return state


def test_m_e1_going_out_starts_the_last_round_then_25_plus_the_others_tiles() -> None:
    state = out_by_player_0("rulebook")
    assert state.end_rule is None and state.out_player == 0 and state.current == 1
    assert state.status_json()["last_round"] == {"out": 0, "turns_left": 1}
    before = state.totals()
    v = state.apply(place(state, *HEX3[9]))  # player 1's last turn
    assert state.end_rule == "M-E1"
    bonus = [i for i in v.breakdown if i.kind == "end_bonus"]
    assert [(i.player, i.points) for i in bonus] == [(0, 25)]
    assert v.score == sum(HEX3[9][1])  # the bonus is credited to player 0, not to the placer
    assert state.totals() == [before[0] + 25, before[1] + sum(HEX3[9][1])]
    # Player 1 reveals; the tiles' sum goes to player 0.
    assert [r.code for r in state.check(Reveal(player=1, tiles=("5-5-5",))).reasons] == ["reveal_count"]
    names = unseen_tiles(state)[: state.hands[1]]
    v = reveal_any(state, 1, names)
    held = sum(tile_sum(parse_tile_name(t)) for t in names)
    assert [(i.kind, i.player, i.points) for i in v.breakdown] == [("remaining", 0, held)]
    assert state.totals()[0] == before[0] + 25 + held
    outcome = state.outcome()
    assert outcome is not None and outcome.end_rule == "M-E1" and outcome.winners == (0,)


def test_m_e1_pressman_ends_the_round_at_once() -> None:
    state = out_by_player_0("pressman")
    v = state.last_verdict  # type: ignore[attr-defined]
    assert state.end_rule == "M-E1"
    assert kinds(v)["end_bonus"] == 25
    assert [r.code for r in state.check(place(state, *HEX3[9])).reasons] == ["round_over"]


def test_reveals_only_after_the_end_once_and_with_unseen_tiles() -> None:
    state = opened()
    assert [r.code for r in state.check(Reveal(player=0, tiles=("5-5-5",))).reasons] == ["reveal_before_end"]
    state = out_by_player_0("pressman")
    on_table = "0-1-4"  # HEX3's first tile
    names = unseen_tiles(state)[: state.hands[1] - 1]
    assert [r.code for r in state.check(Reveal(player=1, tiles=(*names, on_table))).reasons] == \
        ["tile_already_seen"]
    assert [r.code for r in state.check(Reveal(player=1, tiles=(*names, names[0]))).reasons] == \
        ["tile_already_seen"]
    reveal_any(state, 1)
    assert [r.code for r in state.check(Reveal(player=1, tiles=tuple(names))).reasons] == ["already_revealed"]


def test_m_e3_ties_go_to_the_highest_tile_held_and_the_target_is_reported() -> None:
    state = out_by_player_0("pressman")
    reveal_any(state, 1, unseen_tiles(state)[-state.hands[1]:])  # player 1 holds 5-5-5
    state.scores = [100, 100]  # a tie, set by hand: player 0 holds nothing
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (1,)
    s = new_state("triominos", target=30)
    lay(s, HEX3[:1])
    assert s.summary_json()["target"] == 30 and s.summary_json()["target_reached"] == []
