"""The default ChArUco target (INTERFACES §4b): 7 × 5 squares, DICT_5X5_100, markers 0.7 × square."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.target import DEFAULT_TARGET, target_image
from calibration.views import detect_charuco
from companion_api.cli import main


def test_calib_target_layout() -> None:
    board = DEFAULT_TARGET.board(30.0)
    assert tuple(board.getChessboardSize()) == (7, 5)
    assert board.getSquareLength() == pytest.approx(30.0)
    assert board.getMarkerLength() == pytest.approx(21.0)
    assert DEFAULT_TARGET.corner_count == 24


def test_calib_board_image_cli_writes_detectable_target(tmp_path: Path) -> None:
    out = tmp_path / "charuco.png"
    assert main(["calibrate", "board-image", "--out", str(out), "--px-per-square", "80"]) == 0
    image = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert image is not None
    assert image.shape == (5 * 80 + 80, 7 * 80 + 80)  # half a square of white margin each side
    view = detect_charuco(image)
    assert view.count == 24
    # Corner id 0 is one square in from the board's top-left (margin 40 px).
    assert np.allclose(view.corners[0], (40 + 80 - 0.5, 40 + 80 - 0.5), atol=0.5)
    # The markers are 5×5-bit markers of DICT_5X5_100.
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_100))
    _corners, ids, _rej = detector.detectMarkers(image)
    assert ids is not None and len(np.asarray(ids).reshape(-1)) == 17
    side = np.linalg.norm(np.asarray(_corners[0]).reshape(4, 2)[0] - np.asarray(_corners[0]).reshape(4, 2)[1])
    assert side == pytest.approx(0.7 * 80, abs=2)


def test_calib_board_image_cli_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "board-image", "--out", str(tmp_path / "x.png"), "--px-per-square", "3"]) == 2
    assert "--px-per-square" in capsys.readouterr().err
    assert main(["calibrate", "board-image", "--out", str(tmp_path / "missing" / "x.png")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_calib_target_image_default_margin() -> None:
    img = target_image(50)
    assert img.shape == (300, 400) and img.dtype == np.uint8
    assert img[0, 0] == 255 and img[25 + 1, 25 + 1] == 0  # margin white, first square black
