"""Calibration profiles: versioned JSON, validated on load with errors naming the field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from calibration.camera import CameraCalibration, Rejection, ViewResult
from calibration.profile import (
    BoardReference,
    ColourReference,
    Profile,
    ProfileError,
    load_profile,
    parse_profile,
    save_profile,
    update_profile,
)

CAMERA = CameraCalibration(
    camera_matrix=((1000.0, 0.0, 640.0), (0.0, 1001.0, 360.0), (0.0, 0.0, 1.0)),
    dist_coeffs=(-0.2, 0.05, 0.001, -0.001, 0.0),
    image_size=(1280, 720),
    rms_px=0.31,
    images_used=14,
    per_image=(ViewResult("a.png", 24, 0.3, 0.8),),
    rejected=(Rejection("b.png", "blurred", "edges blurred by ~3.0 px"),),
    square_mm=30.0,
)
BOARD = BoardReference(
    game="triolet",
    corners_px=((10.0, 20.0), (500.0, 22.0), (505.0, 480.0), (8.0, 470.0)),
    image_size=(1280, 720),
    colours={"base": ColourReference((88.0, -1.0, 14.0), (232, 222, 196), 1.5, ((20.0, 30.0),), ("A1",))},
    edges=((1.0, 2.0, 3.0),),
)


def good() -> dict[str, Any]:
    return Profile(camera=CAMERA, board=BOARD).to_json()


def test_calib_profile_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    save_profile(path, Profile(camera=CAMERA, board=BOARD))
    obj = json.loads(path.read_text())
    assert obj["version"] == 1
    # The camera section is the §4b object at the top level.
    for name in ("camera_matrix", "dist_coeffs", "image_size", "rms_px", "images_used"):
        assert name in obj
    loaded = load_profile(path)
    assert loaded.camera is not None and loaded.board is not None
    assert loaded.camera.camera_matrix == CAMERA.camera_matrix
    assert loaded.camera.dist_coeffs == CAMERA.dist_coeffs
    assert loaded.camera.rejected == CAMERA.rejected
    assert loaded.board.corners_px == BOARD.corners_px
    assert loaded.board.colours["base"].lab == (88.0, -1.0, 14.0)
    assert loaded.to_json() == obj


def test_calib_profile_sections_merge(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    update_profile(path, camera=CAMERA)
    update_profile(path, board=BOARD)
    both = load_profile(path)
    assert both.camera is not None and both.board is not None
    update_profile(path, board=BoardReference("trigon", BOARD.corners_px, (1280, 720)))
    again = load_profile(path)
    assert again.camera == both.camera and again.board is not None and again.board.game == "trigon"


def _broken(path: str, value: Any) -> dict[str, Any]:
    obj = copy.deepcopy(good())
    keys = path.split(".")
    target = obj
    for k in keys[:-1]:
        target = target[k]
    if value is KeyError:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return obj


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("version", KeyError, r"version: missing"),
        ("version", 2, r"version: 2 is not supported"),
        ("version", "1", r"version: expected an integer"),
        ("camera_matrix", [[1, 0, 0], [0, 1, 0]], r"camera_matrix: expected a 3×3 list"),
        ("camera_matrix", [[0, 0, 640], [0, 1000, 360], [0, 0, 1]], r"camera_matrix: focal lengths"),
        ("camera_matrix", [[1000, 0, 640], [0, 1000, "x"], [0, 0, 1]], r"camera_matrix\[1\]\[2\]: expected a number"),
        ("dist_coeffs", "none", r"dist_coeffs: expected a list of numbers"),
        ("dist_coeffs", [0.1, 0.2], r"dist_coeffs: expected 4, 5, 8, 12 or 14 numbers, got 2"),
        ("dist_coeffs", KeyError, r"dist_coeffs: missing"),
        ("image_size", [1280], r"image_size: expected \[width, height\]"),
        ("rms_px", "low", r"rms_px: expected a number"),
        ("board.game", "chess", r"board.game: expected one of"),
        ("board.corners_px", [[1, 2], [3, 4], [5, 6]], r"board.corners_px: expected a 4×2 list"),
        ("board.corners_px", [[1, 2], [3, 4], [5, 6], [7]], r"board.corners_px\[3\]: expected 2 numbers"),
        ("board.image_size", KeyError, r"board.image_size: missing"),
        ("board.colours.base.lab", [1, 2], r"board.colours.base.lab: expected 3 numbers"),
        ("board", [], r"board: expected an object"),
        ("per_image", [{"image": "a.png", "corners": "many"}], r"per_image\[0\].corners: expected a non-negative"),
        ("warnings", "none", r"warnings: expected a list of strings"),
    ],
)
def test_calib_profile_validation_names_the_field(field: str, value: Any, message: str) -> None:
    with pytest.raises(ProfileError, match=r"^p\.json: " + message):
        parse_profile(_broken(field, value), "p.json")


def test_calib_profile_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no such file"):
        load_profile(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ProfileError, match=r"bad\.json: not JSON \(line 1"):
        load_profile(bad)
    arr = tmp_path / "arr.json"
    arr.write_text("[]")
    with pytest.raises(ProfileError, match="expected a JSON object"):
        load_profile(arr)


def test_calib_profile_board_only_and_camera_only() -> None:
    board_only = parse_profile({"version": 1, "board": BOARD.to_json()})
    assert board_only.camera is None and board_only.board is not None
    cam_only = parse_profile({"version": 1, **CAMERA.to_json()})
    assert cam_only.board is None and cam_only.camera is not None
    minimal = parse_profile({"version": 1, "camera_matrix": [[900, 0, 320], [0, 900, 240], [0, 0, 1]],
                             "dist_coeffs": [0, 0, 0, 0], "image_size": [640, 480]})
    assert minimal.camera is not None and minimal.camera.dist_coeffs == (0.0, 0.0, 0.0, 0.0, 0.0)
