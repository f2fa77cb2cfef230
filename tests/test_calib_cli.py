"""``companion calibrate camera`` and ``companion calibrate board`` (INTERFACES §4b), in-process."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from calib_helpers import CAMERA, calibration_renders, triolet_photo

from calibration.profile import load_profile
from companion_api.cli import main


@pytest.fixture(scope="module")
def photo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 photos of the target, one grey picture and one file that is not an image."""
    folder = tmp_path_factory.mktemp("charuco")
    for i, r in enumerate(calibration_renders()[:12]):
        cv2.imwrite(str(folder / f"img_{i}.png"), r.image)
    cv2.imwrite(str(folder / "img_99.png"), np.full((720, 1280, 3), 120, np.uint8))
    (folder / "broken.jpg").write_bytes(b"not a jpeg")
    (folder / "notes.txt").write_text("ignored")
    return folder


def test_calib_cli_camera(photo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "profile.json"
    code = main(["calibrate", "camera", "--images", str(photo_dir), "--square-mm", "30", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    printed = json.loads(captured.out)
    assert printed["images_used"] == 12 and printed["image_size"] == [1280, 720]
    assert printed["rms_px"] < 0.5
    fx = printed["camera_matrix"][0][0]
    assert abs(fx / CAMERA.fx - 1) < 0.01
    assert {r["image"]: r["code"] for r in printed["rejected"]} == {"broken.jpg": "unreadable",
                                                                   "img_99.png": "too_few_corners"}
    assert len(printed["per_image"]) == 12
    assert "[14/14]" in captured.err  # progress on stderr
    stored = json.loads(out.read_text())
    assert stored["version"] == 1
    assert {k: stored[k] for k in printed} == printed


def test_calib_cli_camera_bad_input(photo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "p.json")
    assert main(["calibrate", "camera", "--images", str(tmp_path / "nope"), "--out", out]) == 2
    assert "no such folder" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["calibrate", "camera", "--images", str(empty), "--out", out]) == 2
    assert "no images" in capsys.readouterr().err
    few = tmp_path / "few"
    few.mkdir()
    for name in ("img_0.png", "img_1.png", "img_99.png"):
        (few / name).write_bytes((photo_dir / name).read_bytes())
    assert main(["calibrate", "camera", "--images", str(few), "--out", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("companion calibrate: ") and "only 2 of 3 images are usable" in err[-1]
    assert not Path(out).exists()
    assert main(["calibrate", "camera", "--images", str(few), "--square-mm", "-3", "--out", out]) == 2


def test_calib_cli_board_with_corners(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image, corners = triolet_photo()
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), image)
    out = tmp_path / "profile.json"
    text = ";".join(f"{x:g},{y:g}" for x, y in corners[[2, 0, 3, 1]])  # any order in
    code = main(["calibrate", "board", "--game", "triolet", str(path), "--out", str(out), "--corners", text])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    printed = json.loads(captured.out)
    assert printed["corners_px"] == [[round(x, 2), round(y, 2)] for x, y in corners]  # §3 order out
    assert set(printed["colours"]) == {"base", "double", "triple", "replay"}
    profile = load_profile(out)
    assert profile.board is not None and profile.camera is None and profile.board.game == "triolet"


def test_calib_cli_board_merges_into_camera_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "profile.json"
    k = CAMERA.camera_matrix().tolist()
    out.write_text(json.dumps({"version": 1, "camera_matrix": k, "dist_coeffs": [0, 0, 0, 0, 0],
                               "image_size": [1280, 720], "rms_px": 0.2, "images_used": 9}))
    image, corners = triolet_photo()
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), image)
    text = ";".join(f"{x:g},{y:g}" for x, y in corners)
    assert main(["calibrate", "board", "--game", "triolet", str(path), "--out", str(out), "--corners", text]) == 0
    capsys.readouterr()
    profile = load_profile(out)
    assert profile.camera is not None and profile.camera.images_used == 9
    assert profile.board is not None


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        ("1,2;3,4;5,6", "--corners: expected 4 points"),
        ("1,2;3,4;5,6;a,b", "--corners: point 4 'a,b' is not x,y"),
        ("1,2;3,4;5,6;7", "--corners: point 4 '7' is not x,y"),
        ("10,10;2000,10;500,500;10,500", "--corners: point 2 (2000,10) lies outside the 1280x720 image"),
        ("100,100;600,100;350,120;350,600", "--corners: the 4 corners do not form a convex quadrilateral"),
    ],
)
def test_calib_cli_board_bad_corners(tmp_path: Path, capsys: pytest.CaptureFixture[str], corners: str,
                                     message: str) -> None:
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), triolet_photo()[0])
    code = main(["calibrate", "board", "--game", "triolet", str(path), "--out", str(tmp_path / "p.json"),
                 "--corners", corners])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_calib_cli_board_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), triolet_photo()[0])
    out = str(tmp_path / "p.json")
    assert main(["calibrate", "board", "--game", "triolet", str(tmp_path / "nope.png"), "--out", out,
                 "--corners", "1,1;9,1;9,9;1,9"]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "junk.png").write_bytes(b"junk")
    assert main(["calibrate", "board", "--game", "triolet", str(tmp_path / "junk.png"), "--out", out]) == 2
    assert "not a readable image" in capsys.readouterr().err
    assert main(["calibrate", "board", "--game", "triominos", str(path), "--out", out]) == 2
    assert "has no board" in capsys.readouterr().err
    bad_profile = tmp_path / "bad.json"
    bad_profile.write_text('{"version": 7}')
    assert main(["calibrate", "board", "--game", "triolet", str(path), "--out", str(bad_profile),
                 "--corners", "100,100;600,100;600,600;100,600"]) == 2
    assert "version: 7 is not supported" in capsys.readouterr().err
    assert bad_profile.read_text() == '{"version": 7}'  # left untouched


def test_calib_cli_board_located_by_the_reader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --corners the board reader's ``vision.locate`` finds the corners."""
    image, corners = triolet_photo(noise=2.0)
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), image)
    out = tmp_path / "profile.json"
    code = main(["calibrate", "board", "--game", "triolet", str(path), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    got = np.asarray(json.loads(captured.out)["corners_px"])
    assert np.max(np.linalg.norm(got - corners, axis=1)) < 3.0
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 90, np.uint8))
    assert main(["calibrate", "board", "--game", "triolet", str(blank), "--out", str(out)]) == 3
    assert "--corners" in capsys.readouterr().err


def test_calib_cli_board_trigon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Trigon: the 4 corners are the ends of the hexagon's top and bottom sides (B-B1)."""
    from calib_helpers import photo_of, rotation_quad, trigon_board

    flat, board_corners = trigon_board(pieces={"green": ["r15", "q15", "s15", "r16", "q16"]})
    dst = rotation_quad((640.0, 360.0), (170.0, 295.0), -8.0, 0.9)
    path = tmp_path / "trigon.png"
    cv2.imwrite(str(path), photo_of(flat, board_corners, dst))
    out = tmp_path / "p.json"
    text = ";".join(f"{x:.1f},{y:.1f}" for x, y in dst)
    assert main(["calibrate", "board", "--game", "trigon", str(path), "--out", str(out), "--corners", text]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed["colours"]) == {"board", "green"}
    assert sorted(printed["colours"]["green"]["cells"]) == ["q15", "q16", "r15", "r16", "s15"]
    assert len(printed["edges"]) == 6
