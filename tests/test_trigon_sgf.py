"""Blokus SGF reading and writing (INTERFACES §1), and the CLI on trigon records:
``companion check`` (.jsonl and .blksgf), ``companion export --format blksgf``, ``companion moves``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trigon_helpers import game_events, games, header

from companion_api.cli import main
from engine.core import Header, RecordError, Session, dump_record
from engine.trigon import TrigonPlace
from engine.trigon.sgf import dumps, loads

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _one_game_per_variant() -> list[dict[str, object]]:
    seen: dict[object, dict[str, object]] = {}
    for g in games():
        seen.setdefault(g["variant"], g)
    return list(seen.values())


@pytest.mark.parametrize("game", _one_game_per_variant(), ids=lambda g: str(g["variant"]))
def test_round_trip(game: dict[str, object]) -> None:
    """A record written as Blokus SGF reads back as the same game (passes are implicit in SGF)."""
    h = header(str(game["variant"]))
    events = game_events(game)
    text = dumps(h, events)
    record = loads(text)
    placed = [e for e in events if isinstance(e, TrigonPlace)]
    assert record.events == placed
    assert record.header.options["variant"] == game["variant"]
    assert record.lines[0].line == 2  # the first move's node is on line 2
    session = Session(record.header)
    for ev in record.events:
        assert session.submit(ev).verdict.legal
    assert session.summary_json()["totals"] == game["final_score"]
    assert dumps(record.header, record.events) == text


def test_pentobi_names_and_defaults() -> None:
    """GM names of Pentobi map to variants; a file without TCOPTIONS means Pentobi's rules (no B-L6)."""
    text = dumps(header("trigon_2"), [])
    assert text.startswith("(;GM[Blokus Trigon Two-Player]") and "PB[P0]PW[P1]" in text
    assert "TCOPTIONS" not in text  # symmetric_start off = Pentobi's rules
    for variant, name in [("trigon", "Blokus Trigon"), ("trigon_3", "Blokus Trigon Three-Player")]:
        assert dumps(header(variant), []).startswith(f"(;GM[{name}]")
    default_two = Header(game="trigon", players=("A", "B"), options={"variant": "trigon_2"})
    text = dumps(default_two, [])
    assert '"symmetric_start": true' in text
    assert loads(text).header.options["symmetric_start"] is True


def test_reads_pentobi_style_text() -> None:
    """Whitespace, any cell order, upper case, comments with escapes, side variations ignored."""
    text = """(;FF[4]CA[UTF-8]AP[Pentobi:27.1]GM[Blokus Trigon Two-Player]
PB[Ana]PW[Ben \\] B.]DT[2025-01-01]
;1[R15,q15] C[first \\] move]
;2[j12,i12]
(;3[r4,s4];4[aa12,z12])
(;3[j7])
)"""
    record = loads(text, "game.blksgf")
    assert record.header.players == ("Ana", "Ben ] B.")
    assert record.header.options == {"variant": "trigon_2", "alternate_contact": False, "symmetric_start": False}
    assert [(e.colour, ",".join(e.cells)) for e in record.events] == [  # type: ignore[attr-defined]
        ("blue", "q15,r15"), ("yellow", "i12,j12"), ("red", "r4,s4"), ("green", "z12,aa12")]
    assert [line.line for line in record.lines] == [3, 4, 5, 5]


def test_teams_and_options_travel_in_tcoptions() -> None:
    h = Header(game="trigon", players=("A", "B", "C", "D"), options={"variant": "teams", "alternate_contact": True})
    text = dumps(h, [])
    assert "GM[Blokus Trigon]" in text and "P4[D]" in text
    back = loads(text).header
    assert back.options["variant"] == "teams" and back.options["alternate_contact"] is True


@pytest.mark.parametrize(("text", "line", "needle"), [
    ("(;GM[Blokus]FF[4];1[a1])", 1, "not a Blokus Trigon game"),
    ("(;GM[Blokus Trigon]\n;AB[r15])", 2, "setup"),
    ("(;GM[Blokus Trigon]\n;1[r15]\n;B[r4])", 3, "not B"),
    ("(;GM[Blokus Trigon Three-Player]\n;4[r15])", 2, "colours 1–3"),
    ("(;GM[Blokus Trigon]\n;1[r15,]\n)", 2, "list of triangles"),
    ("(;GM[Blokus Trigon]\n\n;1[r15", 3, "not closed"),
    ("GM[Blokus Trigon]", 1, "expected '('"),
])
def test_bad_sgf_names_the_line(text: str, line: int, needle: str) -> None:
    with pytest.raises(RecordError) as info:
        loads(text, "x.blksgf")
    assert info.value.problems[0].line == line
    assert needle in str(info.value)


# -- CLI ---------------------------------------------------------------------------------------------
def _lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_companion_check_blksgf_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``companion check`` reads .blksgf; ``companion export --format blksgf`` writes what it reads back."""
    game = games()[0]
    rec = tmp_path / "game.jsonl"
    rec.write_text(dump_record(header(game["variant"]), game_events(game)), encoding="utf-8")
    assert main(["check", str(rec)]) == 0
    jsonl_summary = _lines(capsys.readouterr().out)[-1]
    assert jsonl_summary["totals"] == game["final_score"] and jsonl_summary["ended"] is True

    assert main(["export", str(rec), "--format", "blksgf"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("(;GM[Blokus Trigon]")
    out = tmp_path / "game.blksgf"
    assert main(["export", str(rec), "--format", "blksgf", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == text
    capsys.readouterr()
    assert main(["check", str(out)]) == 0
    lines = _lines(capsys.readouterr().out)
    assert all(line["legal"] for line in lines[:-1])
    assert lines[-1]["totals"] == game["final_score"] and lines[-1]["end_rule"] == "B-S2"
    assert lines[0]["colour"] == "blue" and lines[0]["next"]["colour"] == "yellow"  # type: ignore[index]

    back = tmp_path / "back.jsonl"
    assert main(["export", str(out), "--format", "jsonl", "--out", str(back)]) == 0
    assert main(["check", str(back)]) == 0
    assert _lines(capsys.readouterr().out)[-1]["totals"] == game["final_score"]


def test_export_leaves_out_illegal_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(EXAMPLES / "trigon_illegal.jsonl"), "--format", "blksgf"]) == 0
    captured = capsys.readouterr()
    assert "left out illegal event(s)" in captured.err
    record = loads(captured.out)
    session = Session(record.header)
    assert all(session.submit(ev).verdict.legal for ev in record.events)


def test_companion_moves_trigon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """INTERFACES §2b: the legal placements of the colour to move, no hand needed."""
    rec = tmp_path / "open.jsonl"
    events = [{"type": "place", "colour": "blue", "cells": "q15,r15"}]
    rec.write_text(json.dumps(header("trigon").to_json()) + "\n" + "\n".join(map(json.dumps, events)) + "\n",
                   encoding="utf-8")
    assert main(["moves", str(rec)]) == 0
    lines = _lines(capsys.readouterr().out)
    assert lines[-1] == {"count": 2065} and len(lines) == 2066
    assert all(line["colour"] == "yellow" and line["type"] == "place" and line["player"] == 1
               for line in lines[:-1])
    assert main(["moves", str(rec), "--count"]) == 0
    assert _lines(capsys.readouterr().out) == [{"count": 2065}]
    assert main(["moves", str(rec), "--hand", "0-1-2"]) == 2
    assert "takes no" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["trigon_4p.jsonl", "trigon_2p.blksgf", "trigon_illegal.jsonl"])
def test_examples_check(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The examples check cleanly: full games end (B-S2); the illegal one shows reasons with rule ids."""
    assert main(["check", str(EXAMPLES / name)]) == 0
    lines = _lines(capsys.readouterr().out)
    summary = lines[-1]
    if name == "trigon_illegal.jsonl":
        codes = {r["code"] for line in lines[:-1] for r in line.get("reasons", [])}  # type: ignore[attr-defined]
        assert {"not_your_turn", "pass_with_legal_move", "no_start_point", "piece_used", "own_edge",
                "off_board", "not_a_piece"} <= codes
    else:
        assert all(line["legal"] for line in lines[:-1]) and summary["ended"] is True
        if name.endswith(".blksgf"):
            assert len(summary["player_totals"]) == 2  # type: ignore[arg-type]


def test_bad_blksgf_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.blksgf"
    bad.write_text("(;GM[Nexos];1[a1])", encoding="utf-8")
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Blokus game" in err
