"""The CLI on Triominos / Trio Domino records: ``companion check`` on the examples, ``companion
moves --hand``, bad input (exit 2, one line on stderr), and ``companion bench engine``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tritiles_helpers import HEX3

from companion_api.cli import main
from engine.core import dump_record
from engine.tritiles.random_game import random_round

ROOT = Path(__file__).resolve().parents[1]
#: The example records are seeded random rounds: (game, players, seed).
EXAMPLES = {"triominos_game.jsonl": ("triominos", 3, 5), "trio_domino_game.jsonl": ("trio_domino", 3, 3)}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_are_seeded_random_rounds_that_check_clean(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "examples" / name
    game, players, seed = EXAMPLES[name]
    rnd = random_round(game, players, seed)
    assert path.read_text(encoding="utf-8") == dump_record(rnd.header, rnd.events)
    code, lines, err = run(capsys, "check", str(path))
    assert code == 0 and err == ""
    checked = [json.loads(x) for x in lines]
    assert len(checked) == len(rnd.events) + 1
    assert all(c["legal"] for c in checked[:-1])
    summary = checked[-1]
    assert summary["summary"] is True and summary["ended"] is True and summary["reveals_pending"] == []
    assert summary["end_rule"] in ("M-E1", "M-E2", "D-E1", "D-E2")
    last = checked[-2]
    assert summary["totals"] == last["totals"] and "pile" in last and "hand_sizes" in last


def write(tmp_path: Path, game: str, *events: dict[str, object], options: dict[str, object] | None = None,
          players: int = 2) -> str:
    head = {"format": "table-companion/1", "game": game, "players": [f"P{i}" for i in range(players)],
            "options": options or {}, "first_player": 0}
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in (head, *events)) + "\n", encoding="utf-8")
    return str(path)


def test_check_reports_illegal_events_with_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = write(tmp_path, "triominos",
                {"type": "place", "player": 0, "cell": [0, 0], "values": [0, 1, 2]},
                {"type": "place", "player": 0, "cell": [1, 0], "values": [1, 0, 1]},
                {"type": "place", "player": 1, "cell": [1, 0], "values": [3, 4, 5]},
                {"type": "draw", "player": 1, "count": 1})
    code, lines, _ = run(capsys, "check", rec)
    out = [json.loads(x) for x in lines]
    assert code == 0
    assert out[1]["legal"] is False and out[1]["reasons"][0]["code"] == "not_your_turn"
    assert [r["code"] for r in out[2]["reasons"]] == ["corner_mismatch", "corner_mismatch"]
    assert out[2]["reasons"][0]["cells"][0] == [1, 0]
    assert out[3]["legal"] is True and out[3]["score"] == -5
    assert out[3]["pile"] == 37 and out[3]["hand_sizes"] == [8, 10]


BAD_EVENTS = [
    ("triominos", {"type": "place", "player": 0, "cell": [0, 0], "values": [0, 1, 7]}, "at most 5"),
    ("triominos", {"type": "place", "player": 0, "cell": [0, 0], "values": [0, 1]}, "at least 3"),
    ("triominos", {"type": "place", "player": 0, "cell": [0], "values": [0, 1, 2]}, "cell"),
    ("triominos", {"type": "place", "player": 5, "cell": [0, 0], "values": [0, 1, 2]}, "player"),
    ("triominos", {"type": "reveal", "player": 0, "tiles": ["0-1-9"]}, "not a tile"),
    ("triominos", {"type": "exchange", "player": 0, "count": 1}, "unknown event type"),
    ("trio_domino", {"type": "place", "player": 0, "cell": [0, 0], "values": [0, 1, 2]}, '"field"'),
]


@pytest.mark.parametrize(("game", "event", "fragment"), BAD_EVENTS)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str,
                                         event: dict[str, object], fragment: str) -> None:
    code, lines, err = run(capsys, "check", write(tmp_path, game, event))
    assert code == 2 and lines == []
    assert err.count("\n") == 1 and "line 2" in err and fragment in err


@pytest.mark.parametrize(("game", "options", "players", "fragment"), [
    ("triominos", {"edition": "deluxe"}, 2, "edition"),
    ("triominos", {"target": 0}, 2, "target"),
    ("triominos", {"colour": 1}, 2, "unknown option"),
    ("trio_domino", {"topsy_turvy": "yes"}, 2, "topsy_turvy"),
    ("trio_domino", {}, 5, "2-4 players"),
])
def test_bad_headers_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str,
                            options: dict[str, object], players: int, fragment: str) -> None:
    code, _, err = run(capsys, "check", write(tmp_path, game, options=options, players=players))
    assert code == 2 and err.count("\n") == 1 and fragment in err and "line 1" in err


def test_moves_lists_legal_placements_for_a_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = write(tmp_path, "trio_domino", {"type": "place", "player": 0, "cell": [0, 0], "values": [0, 1, 2],
                                          "field": 0})
    code, lines, _ = run(capsys, "moves", rec, "--hand", "0-0-1,0-2-2,1-1-2,3-4-5")
    assert code == 0
    moves = [json.loads(x) for x in lines]
    assert moves[-1] == {"count": len(moves) - 1}
    # The opening 0-1-2 shows 0 (top), 1 (bottom-right), 2 (bottom-left). 0-0-1 fits the side 0|1 on
    # [1, 0]; 0-2-2 the side 2|0 on [-1, 0]; 1-1-2 the side 2|1 on [0, 1]; 3-4-5 fits nowhere.
    assert sorted((m["cell"][0], m["cell"][1], tuple(m["values"])) for m in moves[:-1]) == \
        [(-1, 0, (2, 2, 0)), (0, 1, (1, 2, 1)), (1, 0, (1, 0, 0))]
    assert all(m["type"] == "place" and m["player"] == 1 and m["field"] == 0 for m in moves[:-1])
    code, lines, _ = run(capsys, "moves", rec, "--hand", "0-0-1", "--count")
    assert code == 0 and lines == ['{"count": 1}']


@pytest.mark.parametrize(("hand", "fragment"), [
    ("0-1-2,3-3-3", "already on the table"), ("0-0-1,1-0-0", "named twice"), ("0-0-9", "not a tile"),
    (None, "--hand"),
])
def test_moves_bad_hand_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], hand: str | None,
                                fragment: str) -> None:
    rec = write(tmp_path, "triominos", {"type": "place", "player": 0, "cell": [0, 0], "values": [0, 1, 2]})
    argv = ["moves", rec] + ([] if hand is None else ["--hand", hand])
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and fragment in err


def test_bad_input_from_a_real_process_is_one_line_without_traceback(tmp_path: Path) -> None:
    rec = write(tmp_path, "triominos", {"type": "place", "player": 0, "cell": [0, 0], "values": [0, 1, 6]})
    proc = subprocess.run([sys.executable, "-c", "from companion_api.cli import main; raise SystemExit(main())",
                           "check", rec], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("game", ["triominos", "trio_domino"])
def test_bench_engine_prints_a_table(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "bench", "engine", "--game", game, "--games", "2", "--seed", "3")
    assert code == 0 and lines[0].startswith(f"engine {game}")
    assert "placements/s" in lines[1] and lines[-1].startswith("all")
    assert run(capsys, "bench", "engine", "--game", game, "--games", "0")[0] == 2


def test_hand_built_example_scores_three_hexagons(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/triominos_three_hexagons.jsonl is the HEX3 position: its last tile scores 5 + 70 (M-S1)."""
    path = ROOT / "examples" / "triominos_three_hexagons.jsonl"
    events = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert [(tuple(e["cell"]), tuple(e["values"])) for e in events] == HEX3
    code, lines, _ = run(capsys, "check", str(path))
    last = json.loads(lines[-2])
    assert code == 0 and last["score"] == 75
    assert [(b["kind"], b["points"]) for b in last["breakdown"]] == [("tile", 5), ("hexagon", 70)]
