"""``companion check`` / ``moves`` / ``bench engine`` for Triolet (INTERFACES §2, §2b; exit codes)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from triolet_helpers import ROOT, run_cli

from companion_api.cli import main
from lab.bench import engine_triolet

HEADER = {"format": "table-companion/1", "game": "triolet", "players": ["Ana", "Ben"], "options": {},
          "first_player": 0}
OPENING = '{"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 11}, {"square": "I8", "value": 3}]}'


def write(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join([json.dumps(HEADER), *lines]) + "\n", encoding="utf-8")
    return str(path)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[Any], str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, [json.loads(x) for x in out.splitlines() if x.strip()], err


BAD_LINES = [
    ('{"type": "place", "player": 1, "tiles": [', "line 3", "not valid JSON"),
    ('{"type": "place", "player": 1}', "line 3", 'missing field "tiles"'),
    ('{"type": "place", "player": 1, "tiles": [{"square": "Q4", "value": 3}]}', "line 3", 'unknown square "Q4"'),
    ('{"type": "place", "player": 1, "tiles": [{"square": "I7", "value": 16}]}', "line 3", "at most 15"),
    ('{"type": "place", "player": 1, "tiles": [{"square": "I7", "value": 1}, {"square": "I7", "value": 2}]}',
     "line 3", "I7 is named twice"),
]


@pytest.mark.parametrize(("line", "where", "problem"), BAD_LINES, ids=["json", "missing", "square", "value16",
                                                                       "twice"])
def test_bad_input_exits_2_with_one_line_naming_line_and_problem(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, where: str, problem: str) -> None:
    path = write(tmp_path, OPENING, line)
    code, out, err = cli(capsys, "check", path)
    assert code == 2 and out == []
    assert err.count("\n") == 1 and where in err and problem in err and "Traceback" not in err


def test_bad_input_in_a_real_process_prints_no_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, OPENING, BAD_LINES[3][0])
    proc = run_cli("check", path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("companion check: ") and proc.stderr.count("\n") == 1
    assert "line 3" in proc.stderr and "Traceback" not in proc.stderr


def test_rule_breaking_events_are_judged_not_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, OPENING,
                 '{"type": "place", "player": 1, "tiles": [{"square": "I7", "value": 13}]}',
                 '{"type": "place", "player": 0, "tiles": [{"square": "I7", "value": 2}]}',
                 '{"type": "pass", "player": 1}',
                 '{"type": "place", "player": 1, "tiles": [{"square": "I7", "value": 4, "wild": true}]}')
    code, out, _err = cli(capsys, "check", path)
    assert code == 0
    seq2, seq3, seq4, seq5, summary = out[1:]
    assert seq2["legal"] is False and seq2["reasons"][0]["code"] == "pair_over_15"
    assert seq2["reasons"][0]["message"] == "13 + 3 = 16: two tiles side by side may total at most 15"
    assert seq3["legal"] is False and seq3["reasons"][0]["code"] == "not_your_turn"
    assert seq4["legal"] is False and seq4["reasons"][0]["code"] == "pass_not_allowed"
    assert seq5["legal"] is True and seq5["score"] == 3 and seq5["totals"] == [25, 3]  # a wild scores 0
    assert summary["totals"] == [25, 3] and summary["ended"] is False


def test_a_whole_game_to_the_end_with_reveals(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/triolet_full_game.jsonl: a random 3-player game played out; it ends by T-E3 and the
    reveals credit the player who went out (ScoreItem.player)."""
    code, out, _ = cli(capsys, "check", str(ROOT / "examples" / "triolet_full_game.jsonl"))
    assert code == 0
    lines, summary = out[:-1], out[-1]
    assert all(x["legal"] for x in lines)
    reveals = [x for x in lines if x["type"] == "reveal"]
    assert len(reveals) == 3 and all(x["score"] == 0 for x in reveals)
    ender = next(x for x in reveals if not x["breakdown"])["player"]
    gained = sum(i["points"] for x in reveals for i in x["breakdown"])
    assert all(i["player"] == ender and i["rule"] == "T-E3" for x in reveals for i in x["breakdown"])
    assert summary["totals"][ender] == lines[-4]["totals"][ender] + gained
    assert summary["ended"] is True and summary["end_rule"] == "T-E3" and summary["reveals_pending"] == []
    assert summary["winner"] == [i for i, t in enumerate(summary["totals"]) if t == max(summary["totals"])]


def test_moves_lists_placements_for_a_rack_INTERFACES_2b(capsys: pytest.CaptureFixture[str]) -> None:
    opening = str(ROOT / "examples" / "triolet_opening.jsonl")
    code, out, _ = cli(capsys, "moves", opening, "--rack", "3,5,W")
    assert code == 0
    placements, last = out[:-1], out[-1]
    assert last == {"count": len(placements)} and len(placements) > 0
    assert all(p["type"] == "place" and p["player"] == 1 for p in placements)
    assert all(sum(1 for t in p["tiles"] if t.get("wild")) <= 1 for p in placements)
    code, out, _ = cli(capsys, "moves", opening, "--rack", "3,5,W", "--count")
    assert code == 0 and out == [last]


def test_moves_with_a_bad_rack_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    opening = str(ROOT / "examples" / "triolet_opening.jsonl")
    for rack in ("3,5,17", "1,2,3,4"):
        code, out, err = cli(capsys, "moves", opening, "--rack", rack)
        assert code == 2 and out == [] and err.count("\n") == 1 and "--rack" in err


def test_bench_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = engine_triolet.run(argparse.Namespace(game="triolet", games=2, seed=7))
    out = capsys.readouterr().out
    assert code == 0
    assert "events checked" in out and "placements generated" in out and "per wall second" in out
    assert "2 random games" in out
    rows = {line.split("  ")[0].strip(): line.split()[-5:] for line in out.splitlines()
            if line.startswith(("events checked", "placements generated"))}
    events = int(rows["events checked (Session: check + apply)"][0].replace(",", ""))
    assert f"{events} events" in out.splitlines()[0] and events > 0
    assert float(rows["placements generated (with scores)"][-1].replace(",", "")) > 0
