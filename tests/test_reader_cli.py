"""``companion read --game triolet``: JSON shape (INTERFACES §3), exit codes 2 and 3, --debug, --calibration."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_helpers import TEST_SEEDS, frame, square_pitch_px, write_truth_profile

from companion_api.cli import main


def test_reader_cli_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", "--game", "triolet", str(tmp_path / "nope.png")]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and err.count("\n") == 1


def test_reader_cli_unreadable_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"this is not a picture")
    assert main(["read", "--game", "triolet", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not a readable image" in err and "Traceback" not in err


def test_reader_cli_missing_weights_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.read.triolet.cnn as square_cnn

    img = tmp_path / "board.png"
    cv2.imwrite(str(img), frame(TEST_SEEDS[1]).image)
    monkeypatch.setattr(square_cnn, "SECOND_CNN_PATH", tmp_path / "gone.npz")
    assert main(["read", "--game", "triolet", str(img)]) == 2
    err = capsys.readouterr().err
    assert "gone.npz" in err and "Traceback" not in err and err.count("\n") == 1


def test_reader_cli_no_board_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 120, np.uint8))
    assert main(["read", "--game", "triolet", str(blank)]) == 3
    err = capsys.readouterr().err
    assert "no board" in err and err.count("\n") == 1


def test_reader_cli_reads_json_and_debug(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fr = frame(TEST_SEEDS[1])
    img = tmp_path / "board.png"
    cv2.imwrite(str(img), fr.image)
    dbg = tmp_path / "dbg"
    assert main(["read", "--game", "triolet", str(img), "--debug", str(dbg)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"game", "board", "cells"} and out["game"] == "triolet"
    assert set(out["board"]) == {"corners_px"} and len(out["board"]["corners_px"]) == 4
    for cell in out["cells"]:
        assert set(cell) == {"square", "value", "wild", "confidence"}
        assert (cell["value"] is None) == cell["wild"]
    truth = np.asarray(fr.labels["board"]["corners_px_view"])
    assert np.max(np.hypot(*(np.asarray(out["board"]["corners_px"]) - truth).T)) < 0.25 * square_pitch_px(fr)
    files = sorted(p.name for p in dbg.iterdir())
    assert "rectified.png" in files
    crops = [f for f in files if f != "rectified.png"]
    assert len(crops) == 225
    # file names carry the square and its reading: e.g. H8_11_0.98.png, A1_empty_0.99.png, C3_wild_0.90.png
    read = {c["square"]: ("wild" if c["wild"] else str(c["value"])) for c in out["cells"]}
    for name in crops:
        square, reading = name.split("_")[:2]
        assert reading == read.get(square, "empty")
    assert cv2.imread(str(dbg / "rectified.png")) is not None


def test_reader_cli_calibration_uses_stored_corners(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fr = frame(TEST_SEEDS[2])
    img = tmp_path / "board.png"
    cv2.imwrite(str(img), fr.image)
    profile = write_truth_profile(fr, tmp_path / "profile.json")
    assert main(["read", "--game", "triolet", str(img), "--calibration", str(profile)]) == 0
    out = json.loads(capsys.readouterr().out)
    truth = np.asarray(fr.labels["board"]["corners_px_view"])
    # the stored corners come back unchanged (no search)
    assert np.max(np.hypot(*(np.asarray(out["board"]["corners_px"]) - truth).T)) < 0.2
    # a blank picture with a calibration still reads (the board is assumed where it was)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 120, np.uint8))
    assert main(["read", "--game", "triolet", str(blank), "--calibration", str(profile)]) == 0
    capsys.readouterr()


def test_reader_cli_bad_calibration_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fr = frame(TEST_SEEDS[2])
    img = tmp_path / "board.png"
    cv2.imwrite(str(img), fr.image)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["read", "--game", "triolet", str(img), "--calibration", str(bad)]) == 2
    assert main(["read", "--game", "triolet", str(img), "--calibration", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 2
