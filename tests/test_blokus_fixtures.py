"""The Blokus Classic and Duo engines against the independent engine's fixtures
(tests/fixtures/blokus, README there): every game replayed with its legal-move counts, passes,
end and scores; every probe's verdict and reply class; every perft count and depth-1 move list."""

from __future__ import annotations

from typing import Any

import pytest
from blokus_helpers import (
    games,
    header,
    move_string,
    perft_lines,
    place_json,
    placement_of,
    position_after,
    probes,
    reply_class,
)

from engine.blokus import VARIANTS, BlokusState
from engine.blokus.board import square_board
from engine.blokus.legality import judge_placement
from engine.core import Session
from engine.polyform import perft
from engine.polyform.notation import canonical_cells


def _game_id(g: dict[str, Any]) -> str:
    return f"{g['variant']}-{g['policy']}-{g['seed']}"


def test_fixture_inventory() -> None:
    """The files hold what their README says: 40 games, 2632 plies (378 passes), 2206 probes, 80 perft lines."""
    gs = games()
    assert len(gs) == 40
    assert sum(len(g["plies"]) for g in gs) == 2632
    assert sum(1 for g in gs for p in g["plies"] if p.get("pass")) == 378
    assert len(probes()) == 2206
    assert sum(1 for p in probes() if p["legal"]) == 792
    assert len(perft_lines()) == 80


@pytest.mark.parametrize("game", games(), ids=_game_id)
def test_game_replays_with_counts_end_and_scores(game: dict[str, Any]) -> None:
    """K-L1..K-L4, K-S1, K-S2: before every ply the colour's legal-move count matches, the engine names
    that colour to move, passes happen exactly when a colour is blocked, the game is over exactly after
    the last piece, and the final scores per colour and per player match."""
    variant = game["variant"]
    h = header(variant)
    session = Session(h)
    state = session.state
    assert isinstance(state, BlokusState) == (variant != "duo")
    plies = game["plies"]
    last_place = max(i for i, p in enumerate(plies) if "move" in p)
    n = VARIANTS[variant].colours
    for i, ply in enumerate(plies):
        assert i % n == ply["colour"] - 1
        colour = ply["colour"] - 1
        pos = session.state.pos  # type: ignore[attr-defined]
        assert pos.count_legal(colour) == ply["legal_count"], (i, ply)
        if "move" in ply:
            assert session.state.to_move().colour == VARIANTS[variant].colour_names[colour], f"ply {i}"
            entry = session.submit(session.state.parse_event(place_json(variant, ply["colour"], ply["move"]), h))
        else:
            assert not pos.has_legal(colour)
            entry = session.submit(session.state.parse_event(
                {"type": "pass", "colour": VARIANTS[variant].colour_names[colour]}, h))
        assert entry.verdict.legal, (i, entry.to_json())
        assert session.state.is_over() == (i >= last_place), f"ply {i}"
    assert all(p.get("pass") for p in plies[-n:]) and len(plies) - last_place - 1 == n
    summary = session.summary_json()
    assert summary["ended"] and summary["end_rule"] == "K-S2"
    assert summary["totals"] == game["final_score"]
    assert [s + 89 for s in summary["totals"]] == game["final_points"]
    if "final_player_score" in game:
        assert summary["player_totals"] == game["final_player_score"]


def test_games_cover_the_bonuses() -> None:
    """K-S1: the fixture games include colours with +15 and +20, and the engine scores them so."""
    bonuses = sorted(s for g in games() for s in g["final_score"] if s > 0)
    assert bonuses == [15, 20, 20, 20]


def _probe_positions() -> list[tuple[dict[str, Any], Any]]:
    """Each probe with the board it asks about; games' positions are extended move by move."""
    out = []
    last_key: tuple[str, ...] = ()
    last_pos = None
    last_moves: list[dict[str, Any]] = []
    for probe in probes():
        moves = probe["moves"]
        key = (probe["variant"],)
        if last_pos is not None and key == last_key and moves[: len(last_moves)] == last_moves:
            pos = last_pos.copy()
            for mv in moves[len(last_moves):]:
                pos.play(mv["colour"] - 1, placement_of(probe["variant"], mv["move"]))
        else:
            pos = position_after(probe["variant"], moves)
        out.append((probe, pos))
        last_key, last_pos, last_moves = key, pos, moves
    return out


def test_every_probe_verdict_and_reply() -> None:
    """K-L1..K-L3: all 2206 probes judged as the independent engine did, with the same reply class
    (invalid move / piece already played / illegal move)."""
    wrong = []
    kinds: set[str] = set()
    for probe, pos in _probe_positions():
        variant = VARIANTS[probe["variant"]]
        board = square_board(variant.side)
        names = canonical_cells(probe["move"].split(","))
        judged = judge_placement(pos, board, variant.colour_names, probe["colour"] - 1, names)
        got = reply_class([r.code for r in judged.reasons])
        if judged.legal != probe["legal"] or got != probe["engine_reply"]:
            wrong.append((probe["variant"], probe["seed"], probe["ply"], probe["move"], probe["engine_reply"], got))
        kinds.add(probe["kind"])
    assert not wrong, wrong[:5]
    assert len(kinds) == 11


@pytest.mark.parametrize("line", perft_lines(),
                         ids=lambda p: f"{p['variant']}-ply{p['ply']}-seed{p['seed']}-d{p['depth']}")
def test_perft(line: dict[str, Any]) -> None:
    """Perft counts (forced passes as plies) and every depth-1 move list match the independent engine."""
    pos = position_after(line["variant"], line["moves"])
    colour = line["to_move"] - 1
    assert perft(pos, colour, line["depth"]) == line["nodes"]
    if "legal_moves" in line:
        listed = sorted(move_string(line["variant"], m) for m in pos.legal_masks(colour))
        assert listed == sorted(line["legal_moves"])
