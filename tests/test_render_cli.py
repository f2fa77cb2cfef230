"""``companion render`` and ``companion bench render``: files, contact sheet, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion_api.cli import main


def test_render_cli_stills_and_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["render", "--game", "triolet", "--out", str(tmp_path), "--count", "2", "--seed", "5",
                 "--difficulty", "easy", "--size", "320x180", "--sheet"])
    assert code == 0
    index = [json.loads(x) for x in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert [i["seed"] for i in index] == [5, 6]
    img = cv2.imread(str(tmp_path / "triolet_000005.png"))
    assert img.shape == (180, 320, 3)
    labels = json.loads((tmp_path / "triolet_000005.json").read_text())
    assert labels["game"] == "triolet" and labels["seed"] == 5 and len(labels["board"]["corners_px"]) == 4
    assert cv2.imread(str(tmp_path / "triolet_000005.occluders.png"), cv2.IMREAD_GRAYSCALE).shape == (180, 320)
    sheet = tmp_path / "render_triolet.png"
    assert sheet.exists() and sheet.stat().st_size < 1_000_000


def test_render_cli_video(tmp_path: Path) -> None:
    code = main(["render", "--game", "trio_domino", "--out", str(tmp_path), "--count", "1", "--video",
                 "--size", "320x180", "--fps", "5", "--max-events", "2", "--seed", "3"])
    assert code == 0
    assert (tmp_path / "trio_domino_seed3.mp4").stat().st_size > 0
    rec = (tmp_path / "trio_domino_seed3.jsonl").read_text().splitlines()
    assert json.loads(rec[0])["game"] == "trio_domino" and len(rec) == 3


@pytest.mark.parametrize("argv, message", [
    (["render", "--game", "triolet", "--out", "X", "--count", "0"], "--count must be at least 1"),
    (["render", "--game", "triolet"], "--out DIR is required"),
    (["render", "--game", "triolet", "--out", "X", "--exclude-style", "nope"], "unknown style name"),
    (["render", "--game", "triolet", "--out", "X", "--size", "12x9"], "outside 64..4096"),
    (["render", "--game", "chess", "--out", "X"], "invalid choice"),
    (["render", "--game", "triolet", "--out", "X", "--video", "--fps", "0"], "--fps must be between"),
])
def test_render_cli_bad_input_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    argv = [str(tmp_path / "out") if a == "X" else a for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = int(exc.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_render_cli_out_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["render", "--game", "trigon", "--out", str(f)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_render_bench_prints_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "render", "--game", "triominos", "--count", "1", "--size", "320x180"]) == 0
    out = capsys.readouterr().out
    assert "frames/s" in out and "triominos" in out and "320x180" in out


def test_render_cli_offers_every_difficulty_preset() -> None:
    from lab.cli import render
    from lab.render.difficulty import DIFFICULTIES

    assert set(render.DIFFICULTIES) == set(DIFFICULTIES)
