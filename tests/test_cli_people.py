"""``--format table`` of check, replay and moves (names, totals, winner by name; JSON lines stay the
default), and ``replay --first-player`` counting seats from 0 like every record."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from companion_api.cli import main
from companion_api.cli.common import CliError
from companion_api.cli.people import footer
from companion_api.cli.replay import _header
from engine.core import Header

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _write(tmp_path: Path, lines: list[dict[str, object]]) -> str:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return str(path)


def test_check_table_names_players_and_the_winner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = {"format": "table-companion/1", "game": "triolet", "players": ["Ana", "Ben"], "options": {},
            "first_player": 0}
    rec = _write(tmp_path, [head, {"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 11},
                                                                          {"square": "I8", "value": 3}]},
                            {"type": "place", "player": 1, "tiles": [{"square": "H9", "value": 7}]}])
    assert main(["check", "--format", "table", rec]) == 0
    out = capsys.readouterr().out
    rows = out.splitlines()
    assert rows[0] == "triolet: Ana, Ben"
    first = next(r for r in rows if r.lstrip().startswith("1 "))
    assert "Ana" in first and "H8=11 I8=3" in first and "ok (T-S2)" in first and "25 – 0" in first
    second = next(r for r in rows if r.lstrip().startswith("2 "))
    assert "Ben" in second and "illegal: 11 + 7 = 18" in second and "T-P4" in second
    assert "Totals: Ana 25 · Ben 0" in out and "Game not over." in out
    assert main(["check", rec]) == 0  # JSON lines stay the default
    assert all(json.loads(x) for x in capsys.readouterr().out.splitlines())


def test_check_table_of_a_finished_game_names_the_winner(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "table", str(EXAMPLES / "triolet_full_game.jsonl")]) == 0
    out = capsys.readouterr().out
    assert main(["check", str(EXAMPLES / "triolet_full_game.jsonl")]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    players = json.loads((EXAMPLES / "triolet_full_game.jsonl").read_text().splitlines()[0])["players"]
    winner = players[summary["winner"][0]]
    assert out.rstrip().endswith(f"Winner: {winner} ({summary['end_rule']}).")


def test_the_winner_waits_for_the_reveals() -> None:
    header = Header(game="triolet", players=("Ana", "Ben"))
    pending = footer(header, {"totals": [30, 20], "ended": True, "end_rule": "T-E3", "winner": [0],
                              "reveals_pending": [1]})
    assert pending[1] == "Game over (T-E3): waiting for reveals from Ben." and "Winner" not in " ".join(pending)
    done = footer(header, {"totals": [30, 30], "ended": True, "end_rule": "T-E3", "winner": [0, 1]})
    assert done == ["Totals: Ana 30 · Ben 30", "Winners: Ana & Ben (T-E3)."]


def test_moves_table_lists_the_placements_for_the_player_to_move(capsys: pytest.CaptureFixture[str]) -> None:
    rec = str(EXAMPLES / "triolet_opening.jsonl")
    assert main(["moves", rec, "--rack", "3,5"]) == 0
    count = json.loads(capsys.readouterr().out.splitlines()[-1])["count"]
    assert main(["moves", "--format", "table", rec, "--rack", "3,5"]) == 0
    rows = capsys.readouterr().out.splitlines()
    header = json.loads(Path(rec).read_text().splitlines()[0])
    title = rows[0]
    assert title.startswith("triolet: ") and title.endswith(" to move")
    who = title[len("triolet: "):-len(" to move")]
    assert who in header["players"]
    assert rows[-1] == f"{count} legal placements for {who}."
    assert sum(1 for r in rows if r.strip()[:1].isdigit() and "=" in r) == count


def _args(players: int, first: int) -> argparse.Namespace:
    return argparse.Namespace(game="triominos", players=players, variant=None, first_player=first)


def test_replay_first_player_counts_seats_from_0() -> None:
    assert _header(_args(3, 0)).first_player == 0
    assert _header(_args(3, 2)).first_player == 2
    with pytest.raises(CliError, match="numbered 0 to 2"):
        _header(_args(3, 3))
