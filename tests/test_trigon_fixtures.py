"""The trigon engine against Pentobi's reference data (tests/fixtures/trigon, README there).

Every game's legal-move count before each ply, game-over detection, final scores; every probe's
verdict and reason class; every perft depth-1 count and move list; perft depth 2.
"""

from __future__ import annotations

from typing import Any

import pytest
from trigon_helpers import (
    game_events,
    games,
    header,
    perft_lines,
    place,
    probes,
    reply_class,
    state_after,
)

from engine.core import Session
from engine.trigon import TrigonPlace, TrigonState
from engine.trigon.perft import perft


def _game_id(g: dict[str, Any]) -> str:
    return f"{g['variant']}-{g['policy']}-{g['seed']}"


def test_fixture_inventory() -> None:
    """The files hold what their README says: 40 games, 2974 plies (347 passes), 2191 probes, 90 perft lines."""
    gs = games()
    assert len(gs) == 40
    assert sum(len(g["plies"]) for g in gs) == 2974
    assert sum(1 for g in gs for p in g["plies"] if p.get("pass")) == 347
    assert len(probes()) == 2191
    assert len(perft_lines()) == 90


@pytest.mark.parametrize("game", games(), ids=_game_id)
def test_game_legal_counts_and_end(game: dict[str, Any]) -> None:
    """B-L1..B-L4, B-S2: before every ply the colour's legal-move count matches; passes happen exactly
    when a colour is blocked; the game is over exactly when the final round of passes starts."""
    state = TrigonState.new(header(game["variant"]))
    plies = game["plies"]
    last_place = max(i for i, p in enumerate(plies) if "move" in p)
    for i, ply in enumerate(plies):
        colour = ply["colour"] - 1
        assert state.pos.count_legal(colour) == ply["legal_count"], (i, ply)
        assert len(state.pos.legal_masks(colour)) == ply["legal_count"], (i, ply)
        if "move" in ply:
            assert state.mover() == colour, f"ply {i}: engine says {state.to_move()}"
            state.apply(place(game["variant"], ply["colour"], ply["move"]))
        else:
            assert not state.can_move(colour)
        assert state.is_over() == (i >= last_place), f"ply {i}"
    n = state.colours
    assert all(p.get("pass") for p in plies[-n:]) and len(plies) - last_place - 1 == n


@pytest.mark.parametrize("game", games(), ids=_game_id)
def test_game_final_scores(game: dict[str, Any]) -> None:
    """B-S1: totals (official scores per colour), points and player scores as Pentobi counts them."""
    session = Session(header(game["variant"]))
    for event in game_events(game):
        entry = session.submit(event)
        assert entry.verdict.legal, entry.to_json()
    summary = session.summary_json()
    assert summary["ended"] and summary["end_rule"] == "B-S2"
    assert summary["totals"] == game["final_score"]
    assert [s + 110 for s in summary["totals"]] == game["final_points"]
    if "final_player_score" in game:
        assert summary["player_totals"] == game["final_player_score"]
        best = max(game["final_player_score"])
        assert summary["winner"] == [i for i, s in enumerate(game["final_player_score"]) if s == best]
    else:
        best = max(game["final_score"])
        assert summary["winner"] == [i for i, s in enumerate(game["final_score"]) if s == best]


@pytest.mark.parametrize("variant", ["trigon", "trigon_2", "trigon_3"])
def test_games_without_explicit_passes(variant: str) -> None:
    """B-L4: leaving passes out of a record gives the same game: blocked colours are skipped."""
    for game in (g for g in games() if g["variant"] == variant):
        session = Session(header(variant))
        for event in game_events(game, passes=False):
            assert session.submit(event).verdict.legal
        assert session.summary_json()["totals"] == game["final_score"]
        assert session.state.is_over()


def test_probes() -> None:
    """B-L1..B-L3: every probe's verdict, and the reason class (invalid / used / illegal) of Pentobi's reply."""
    cache: dict[tuple[Any, ...], TrigonState] = {}
    mismatches = []
    for p in probes():
        key = (p["variant"], tuple((m["colour"], m["move"]) for m in p["moves"]))
        state = cache.get(key)
        if state is None:
            state = cache[key] = state_after(p["variant"], p["moves"])
        assert state.mover() == p["colour"] - 1, "the probe's colour is the one to move"
        verdict = state.check(place(p["variant"], p["colour"], p["move"]))
        codes = {r.code for r in verdict.reasons}
        if verdict.legal != p["legal"] or reply_class(codes) != p["engine_reply"]:
            mismatches.append((p["seed"], p["ply"], p["move"], p["engine_reply"], sorted(codes)))
    assert mismatches == []


#: For these probe kinds the construction fixes which rule breaks; other rules may break too.
KIND_CODE = {"legal": None, "not_piece": "not_a_piece", "off_board": "off_board", "used_piece": "piece_used",
             "own_edge": "own_edge", "overlap": "occupied", "no_start": "no_start_point",
             "no_corner": "no_corner_contact"}


def test_probe_reason_codes_match_their_kind() -> None:
    """Each reason names the rule its construction breaks (B-L1 off board / not a piece / used /
    occupied, B-L2 no start, B-L3 own edge / no corner)."""
    cache: dict[tuple[Any, ...], TrigonState] = {}
    for p in probes():
        if p["kind"] not in KIND_CODE:
            continue
        key = (p["variant"], tuple((m["colour"], m["move"]) for m in p["moves"]))
        state = cache.get(key) or cache.setdefault(key, state_after(p["variant"], p["moves"]))
        verdict = state.check(place(p["variant"], p["colour"], p["move"]))
        want = KIND_CODE[p["kind"]]
        if want is None:
            assert verdict.legal
        else:
            assert want in {r.code for r in verdict.reasons}, (p, verdict.reasons)


def _perft_state(line: dict[str, Any]) -> TrigonState:
    state = state_after(line["variant"], line["moves"])
    assert state.mover() == line["to_move"] - 1
    return state


@pytest.mark.parametrize("line", [p for p in perft_lines() if p["depth"] == 1],
                         ids=lambda p: f"{p['variant']}-{p['seed']}-{p['ply']}")
def test_perft_depth_1(line: dict[str, Any]) -> None:
    """The full list of legal moves at each perft position equals Pentobi's, as canonical strings (B-B6)."""
    state = _perft_state(line)
    listed = [",".join(ev.cells) for ev in state.legal_placements()]  # type: ignore[attr-defined]
    assert len(listed) == len(set(listed)) == line["nodes"]
    assert sorted(listed) == sorted(line["legal_moves"])
    assert perft(state.pos, line["to_move"] - 1, 1) == line["nodes"]


DEPTH_2 = [p for p in perft_lines() if p["depth"] == 2]
#: The default run checks the first depth-2 position of each variant; the rest are marked slow.
QUICK = {id(next(p for p in DEPTH_2 if p["variant"] == v)) for v in ("trigon", "trigon_2", "trigon_3")}


@pytest.mark.parametrize("line", [p for p in DEPTH_2 if id(p) in QUICK],
                         ids=lambda p: f"{p['variant']}-{p['seed']}-{p['ply']}")
def test_perft_depth_2_subset(line: dict[str, Any]) -> None:
    """Perft 2 (every reply of the next colour after every move) at one position per variant."""
    state = _perft_state(line)
    assert perft(state.pos, line["to_move"] - 1, 2) == line["nodes"]


@pytest.mark.slow
def test_perft_depth_2_all() -> None:
    """Perft 2 at all 45 positions (about 25 million nodes; 10–25 s on a 2-core shared VM)."""
    wrong = []
    for line in DEPTH_2:
        state = _perft_state(line)
        got = perft(state.pos, line["to_move"] - 1, 2)
        if got != line["nodes"]:
            wrong.append((line["variant"], line["seed"], line["ply"], got, line["nodes"]))
    assert wrong == []


@pytest.mark.parametrize("variant", ["trigon", "trigon_3"])
def test_empty_board_perft_1(variant: str) -> None:
    """README §3/§6.3: 2478 first moves on either board, 413 over each starting point."""
    state = TrigonState.new(header(variant))
    assert perft(state.pos, 0, 1) == 2478
    moves = [ev.cells for ev in state.legal_placements() if isinstance(ev, TrigonPlace)]
    board = state.pos.table.board
    for start in board.starts:
        assert sum(1 for cells in moves if board.names[start] in cells) == 413


def test_empty_board_perft_2() -> None:
    """README §6.3: perft(2) = 5117070 from the empty side-9 board (a second colour cannot share a start)."""
    state = TrigonState.new(header("trigon"))
    assert perft(state.pos, 0, 2) == 5117070
