"""Blokus Classic and Duo rules one by one (RULES.md K-*): pieces and placements, reasons with their
rule ids, turn order and passes, the shared green of classic_3, scoring and its bonuses."""

from __future__ import annotations

from typing import Any

import pytest
from blokus_helpers import games, header

from engine.blokus import VARIANTS, BlokusDuoState, BlokusState
from engine.blokus.board import square_board
from engine.blokus.pieces import all_pieces, placement_table
from engine.core import Header, OptionsError, Session, get_game
from engine.core.events import Event

#: README of the fixtures, section 4: placements of each piece on the empty 20 × 20 and 14 × 14 boards.
PLACEMENTS = {
    "I5": (640, 280), "L5": (2584, 1144), "Y": (2584, 1144), "N": (2584, 1144), "V5": (1296, 576),
    "U": (1368, 624), "T5": (1296, 576), "Z5": (1296, 576), "W": (1296, 576), "P": (2736, 1248),
    "F": (2592, 1152), "X": (324, 144), "I4": (680, 308), "L4": (2736, 1248), "T4": (1368, 624),
    "Z4": (1368, 624), "O": (361, 169), "I3": (720, 336), "V3": (1444, 676), "2": (760, 364), "1": (400, 196),
}


def _place(state: Any, colour: str, cells: str, player: int | None = None) -> Event:
    obj: dict[str, Any] = {"type": "place", "colour": colour, "cells": cells}
    if player is not None:
        obj["player"] = player
    ev: Event = state.parse_event(obj, state.header)
    return ev


def test_pieces_and_placements_on_both_boards() -> None:
    """K-B3: 21 pieces, 89 squares, 91 fixed orientations; every piece fits as often as the reference says."""
    pieces = all_pieces()
    assert len(pieces) == 21 and sum(p.size for p in pieces) == 89
    assert sum(len(p.orientations) for p in pieces) == 91
    by_size = {n: sum(len(p.orientations) for p in pieces if p.size == n) for n in range(1, 6)}
    assert by_size == {1: 1, 2: 2, 3: 6, 4: 19, 5: 63}  # fixed polyominoes of each size
    for k, side in enumerate((20, 14)):
        counts = placement_table(side).count_by_piece()
        assert {p.label: counts[p.index] for p in pieces} == {lab: v[k] for lab, v in PLACEMENTS.items()}
    assert len(placement_table(20)) == 30433 and len(placement_table(14)) == 13729


def test_board_names_and_neighbours() -> None:
    """K-B1, K-B2: a1 bottom left, a20 top left; 4 edge and up to 4 corner neighbours."""
    b = square_board(20)
    assert b.names[0] == "a1" and b.names[19] == "t1" and b.names[399] == "t20" and b.index_of_name["a20"] == 380
    e10 = b.index_of_name["e10"]
    assert set(b.names_of(b.edge_masks[e10])) == {"d10", "f10", "e9", "e11"}
    assert set(b.names_of(b.corner_masks[e10])) == {"d9", "f9", "d11", "f11"}
    assert set(b.names_of(b.corner_masks[b.index_of_name["a1"]])) == {"b2"}


def test_games_are_registered_with_their_variants() -> None:
    """K-V1: blokus defaults by player count; blokus_duo is for two; other counts are refused."""
    assert get_game("blokus") is BlokusState and get_game("blokus_duo") is BlokusDuoState
    for players, variant in ((4, "classic"), (2, "classic_2"), (3, "classic_3")):
        state = BlokusState.new(Header(game="blokus", players=tuple("ABCD"[:players]), options={}))
        assert state.variant.id == variant
    assert BlokusDuoState.new(Header(game="blokus_duo", players=("A", "B"), options={})).variant.id == "duo"
    with pytest.raises(OptionsError, match="K-V1"):
        BlokusState.new(Header(game="blokus", players=("A", "B", "C", "D"), options={"variant": "classic_2"}))
    with pytest.raises(OptionsError, match="duo"):
        BlokusState.new(Header(game="blokus", players=("A", "B"), options={"variant": "duo"}))
    with pytest.raises(OptionsError, match="unknown"):
        BlokusState.new(Header(game="blokus", players=("A", "B"), options={"symmetric_start": True}))


def test_reasons_name_their_rules() -> None:
    """K-L1..K-L4: each kind of illegal placement is refused with its rule id and code."""
    s = Session(header("classic"))
    st = s.state

    def reasons(colour: str, cells: str, player: int | None = None) -> set[tuple[str, str]]:
        v = s.submit(_place(s.state, colour, cells, player)).verdict
        assert not v.legal
        return {(r.rule, r.code) for r in v.reasons}

    assert reasons("blue", "b20,c20") == {("K-L2", "no_start_point")}
    assert reasons("blue", "t20") == {("K-L2", "no_start_point")}  # another colour's start does not count
    assert reasons("blue", "a20,c20") == {("K-L1", "not_a_piece")}
    assert reasons("blue", "a20,u20") == {("K-L1", "off_board")}
    assert reasons("yellow", "t20") == {("K-L4", "not_your_turn")}
    assert reasons("blue", "a20", player=1) == {("K-V1", "not_your_turn")}
    assert s.submit(_place(st, "blue", "a20,b20")).verdict.legal
    assert s.submit(_place(st, "yellow", "t20")).verdict.legal
    assert s.submit(_place(st, "red", "t1")).verdict.legal
    assert s.submit(_place(st, "green", "a1")).verdict.legal
    assert reasons("blue", "c19,d19") == {("K-L1", "piece_used")}  # the 2 is used
    assert reasons("blue", "b19,c19,d19") == {("K-L3", "own_edge")}
    assert reasons("blue", "c18,d18,e18") == {("K-L3", "no_corner_contact")}
    assert reasons("blue", "b20,c19,c20") >= {("K-L1", "occupied")}
    assert s.submit(_place(st, "blue", "c19,c18,c17")).verdict.legal


def test_pass_only_when_blocked() -> None:
    """K-L4: a colour with a legal move may not pass; the engine says who is skipped."""
    s = Session(header("duo"))
    entry = s.submit(s.state.parse_event({"type": "pass", "colour": "purple"}, s.header))
    assert not entry.verdict.legal and entry.verdict.reasons[0].code == "pass_with_legal_move"
    assert entry.verdict.reasons[0].rule == "K-L4"


def test_classic_3_green_goes_round_the_players() -> None:
    """K-V1: in classic_3 green's 1st, 4th… piece is placed by player 0, its 2nd by player 1, its 3rd by
    player 2; a green piece named for the wrong player is refused; green counts for nobody."""
    game = next(g for g in games() if g["variant"] == "classic_3")
    s = Session(header("classic_3"))
    green_seats = []
    for ply in game["plies"]:
        if "move" not in ply:
            continue
        colour = VARIANTS["classic_3"].colour_names[ply["colour"] - 1]
        if colour == "green":
            expected = s.state.to_move().player
            assert expected is not None
            wrong = (expected + 1) % 3
            bad = s.submit(_place(s.state, colour, ply["move"], player=wrong))
            assert not bad.verdict.legal and bad.verdict.reasons[0].code == "not_your_turn"
            green_seats.append(expected)
        entry = s.submit(_place(s.state, colour, ply["move"]))
        assert entry.verdict.legal
        if colour == "green":
            assert entry.verdict.player == green_seats[-1] and entry.verdict.score == 0
    assert green_seats == [i % 3 for i in range(len(green_seats))] and len(green_seats) >= 4
    summary = s.summary_json()
    assert summary["player_totals"] == game["final_player_score"]
    assert summary["totals"][3] == game["final_score"][3]


def _finish_with(last_label: str) -> int:
    """Blue's score after placing all 21 pieces (a position built piece by piece), the last one ``last_label``."""
    state = BlokusState.new(header("classic"))
    pos = state.pos
    table = pos.table
    order = [p.index for p in all_pieces() if p.label != last_label] + [
        next(p.index for p in all_pieces() if p.label == last_label)]
    for piece in order:
        legal = [i for i in pos.legal_ids(0) if table.pieces[i] == piece]
        assert legal, f"no room for piece {piece}"
        pos.play(0, legal[0])
    return state.totals()[0]


def test_scoring_bonuses() -> None:
    """K-S1: all 21 pieces placed is +15, +20 if the last was the 1; otherwise minus the squares left."""
    assert _finish_with("1") == 20
    assert _finish_with("X") == 15
    state = BlokusState.new(header("classic"))
    assert state.totals() == [-89] * 4
    entry = Session(header("classic")).submit(_place(state, "blue", "a20,b20,c20,d20,e20"))
    assert entry.totals == [-84, -89, -89, -89] and entry.verdict.score == 5
