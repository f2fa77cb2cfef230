"""The CLI on Blokus Classic and Duo records: ``companion check`` (.jsonl and .blksgf),
``companion moves`` against the independent engine's move lists, ``companion export --format blksgf``
(Pentobi's Blokus SGF), bad input, and ``companion bench engine``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from blokus_helpers import games, header, perft_lines

from companion_api.cli import main
from engine.blksgf import loads
from engine.blokus import VARIANTS
from engine.core import Header

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _record(path: Path, h: Header, moves: list[dict[str, Any]]) -> Path:
    """A .jsonl record placing ``moves`` (fixture ``{"colour", "move"}``) in order; passes left to the engine."""
    names = VARIANTS[h.options["variant"]].colour_names
    lines = [h.to_json()] + [{"type": "place", "colour": names[m["colour"] - 1], "cells": m["move"]} for m in moves]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_examples_check(capsys: pytest.CaptureFixture[str]) -> None:
    """The classic example ends (K-S2) with blue's +20; the Duo one shows illegal attempts with rule ids."""
    assert main(["check", str(EXAMPLES / "blokus_4p.jsonl")]) == 0
    lines = _lines(capsys.readouterr().out)
    assert all(line["legal"] for line in lines[:-1])
    assert lines[-1]["ended"] and lines[-1]["end_rule"] == "K-S2" and lines[-1]["totals"] == [20, -12, -16, -14]
    assert lines[-1]["winner"] == [0]
    assert main(["check", str(EXAMPLES / "blokus_duo.jsonl")]) == 0
    lines = _lines(capsys.readouterr().out)
    codes = {(r["rule"], r["code"]) for line in lines[:-1] for r in line.get("reasons", [])}
    assert codes == {("K-L3", "own_edge"), ("K-L4", "not_your_turn"), ("K-L4", "pass_with_legal_move")}
    assert lines[-1]["ended"] and lines[-1]["totals"] == [-20, -30]


def _richest_depth1(variant: str) -> dict[str, Any]:
    return max((p for p in perft_lines() if p["variant"] == variant and p["depth"] == 1 and p["moves"]),
               key=lambda p: p["nodes"])


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_moves_lists_what_the_reference_lists(variant: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """INTERFACES §2b: ``companion moves`` prints every legal placement of the colour to move, as place events."""
    line = _richest_depth1(variant)
    rec = _record(tmp_path / "game.jsonl", header(variant), line["moves"])
    assert main(["moves", str(rec)]) == 0
    out = _lines(capsys.readouterr().out)
    colour = VARIANTS[variant].colour_names[line["to_move"] - 1]
    assert out[-1] == {"count": line["nodes"]}
    assert all(ev["type"] == "place" and ev["colour"] == colour for ev in out[:-1])
    assert [ev["cells"] for ev in out[:-1]] == sorted(line["legal_moves"], key=_canonical_key)
    assert main(["moves", str(rec), "--count"]) == 0
    assert _lines(capsys.readouterr().out) == [{"count": line["nodes"]}]


def _canonical_key(move: str) -> list[tuple[int, int]]:
    return [(int(n[1:]), ord(n[0])) for n in move.split(",")]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_export_blksgf_and_check_it(variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A whole game exported as Blokus SGF (Pentobi's GM name, B/W moves for Duo, 1–4 otherwise) checks
    to the same final scores, and reads back as the same record."""
    game = next(g for g in games() if g["variant"] == variant)
    moves = [p for p in game["plies"] if "move" in p]
    rec = _record(tmp_path / "game.jsonl", header(variant), moves)
    out = tmp_path / "game.blksgf"
    assert main(["export", str(rec), "--format", "blksgf", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    v = VARIANTS[variant]
    assert text.startswith(f"(;GM[{v.sgf_name}]")
    if variant == "duo":
        assert ";B[" in text and ";W[" in text and ";1[" not in text and "PB[P0]PW[P1]" in text
    else:
        assert ";B[" not in text and ";4[" in text
    assert text.count(";") == len(moves) + 1
    record = loads(text)
    assert record.header.game == v.game and record.header.options == {"variant": variant}
    assert main(["check", str(out)]) == 0
    summary = _lines(capsys.readouterr().out)[-1]
    assert summary["ended"] and summary["totals"] == game["final_score"]


@pytest.mark.parametrize(("text", "needle"), [
    ("(;GM[Blokus Duo]\n;1[e10])", "B[…], W[…]"),
    ("(;GM[Blokus]\n;B[a20])", "1[…]"),
    ("(;GM[Blokus Two-Player]\n;1[a20,b0])", "square name"),
    ("(;GM[Blokus]\n;AB[a20])", "setup"),
    ("(;GM[Blokus Five-Player];1[a20])", "not a Blokus game"),
])
def test_bad_blksgf_is_one_line_exit_2(text: str, needle: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.blksgf"
    bad.write_text(text, encoding="utf-8")
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err, err


@pytest.mark.parametrize(("line", "needle"), [
    ({"type": "place", "colour": "purple", "cells": "e10"}, "blue, yellow, red, green"),
    ({"type": "place", "colour": "blue", "cells": "a20,,b20"}, "list of squares"),
    ({"type": "place", "colour": "blue"}, "cells"),
    ({"type": "exchange", "player": 0, "count": 1}, "place, pass"),
])
def test_bad_record_lines_are_one_line_exit_2(line: dict[str, Any], needle: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "bad.jsonl"
    rec.write_text(json.dumps(header("classic").to_json()) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    assert main(["check", str(rec)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err, err


def test_bench_engine_blokus_duo(capsys: pytest.CaptureFixture[str]) -> None:
    """``companion bench engine --game blokus_duo`` prints its tables, every perft count checked."""
    assert main(["bench", "engine", "--game", "blokus_duo", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "perft depth 2" in out and "duo, empty board" in out and "171,396" in out
