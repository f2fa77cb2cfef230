"""Bad input to the command line gives exit 2 and one line on stderr (INTERFACES: never a
traceback, never a decoder's own complaint, never memory exhausted by a stray file), checked
before long work starts."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_helpers import TEST_SEEDS, frame, write_truth_profile

import engine.core.record as record_module
from companion_api.cli import main


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _one_error_line(capfd: pytest.CaptureFixture[str]) -> str:
    """The whole of what reached file descriptor 2 (C libraries included), which must be one line."""
    err = capfd.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "libpng" not in err
    return err


@pytest.fixture(scope="module")
def picture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pic") / "board.png"
    cv2.imwrite(str(path), frame(TEST_SEEDS[0], "easy").image)
    return path


def test_truncated_png_is_one_line_exit_2(tmp_path: Path, picture: Path, capfd: pytest.CaptureFixture[str]) -> None:
    half = tmp_path / "half.png"
    half.write_bytes(picture.read_bytes()[:5000])
    for game in ("triolet", "trigon", "triominos"):
        assert main(["read", "--game", game, str(half)]) == 2
        assert "cut short" in _one_error_line(capfd)


def _png_file(path: Path, side: int, data_bytes: int) -> Path:
    """A complete PNG file (signature, header, data, end) of ``side``×``side`` RGB pixels whose
    image data holds only ``data_bytes`` bytes."""
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
                     + _png_chunk(b"IDAT", zlib.compress(b"\0" * data_bytes)) + _png_chunk(b"IEND", b""))
    return path


@pytest.mark.parametrize(("side", "data_bytes"), [(100_000, 64), (64, 10)])
def test_png_too_large_or_short_of_data_is_one_line_exit_2(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                                           side: int, data_bytes: int) -> None:
    """A 100000×100000 header (OpenCV refuses it with an exception), and a 64×64 picture whose
    data is short (libpng complains on stderr): one line of ours either way."""
    bad = _png_file(tmp_path / "bad.png", side, data_bytes)
    assert main(["read", "--game", "triolet", str(bad)]) == 2
    assert "not a readable image" in _one_error_line(capfd)


def test_record_larger_than_any_game_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.jsonl"
    big.write_text('{"format": "table-companion/1", "game": "triolet", "players": ["A", "B"]}\n' + " " * 5000)
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", 4096)
    assert main(["check", str(big)]) == 2
    err = capsys.readouterr().err
    assert "larger than" in err and err.count("\n") == 1


@pytest.mark.parametrize(("meta", "named"), [('"ts": NaN', '"ts"'), ('"ts": Infinity', '"ts"'), ('"ts": -5', '"ts"'),
                                             ('"confidence": 7', '"confidence"')])
def test_event_metadata_must_be_finite_and_in_range(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    meta: str, named: str) -> None:
    rec = tmp_path / "r.jsonl"
    rec.write_text('{"format": "table-companion/1", "game": "triolet", "players": ["A", "B"]}\n'
                   '{"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 5}], ' + meta + "}\n")
    assert main(["check", str(rec)]) == 2
    err = capsys.readouterr().err
    assert named in err and "line 2" in err and err.count("\n") == 1
    ok = tmp_path / "ok.jsonl"
    ok.write_text(rec.read_text().replace(meta, '"ts": 2.5, "confidence": 0.9'))
    assert main(["check", str(ok)]) == 0


def test_replay_checks_its_options_and_outputs_before_the_video(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "missing_but_never_opened.mp4"
    cases = [(["--stable", "nan"], "--stable"), (["--stable", "-1"], "--stable"), (["--fps", "-5"], "--fps"),
             (["--fps", "inf"], "--fps"), (["--record", str(tmp_path / "no" / "x.jsonl")], "does not exist"),
             (["--record", str(tmp_path)], "is a folder")]
    for extra, named in cases:
        assert main(["replay", "--game", "triolet", "--players", "2", *extra, str(video)]) == 2
        captured = capsys.readouterr()
        assert named in captured.err and captured.err.count("\n") == 1 and captured.out == ""


def test_replay_refuses_a_single_picture(picture: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--game", "triolet", "--players", "2", str(picture)]) == 2
    assert "single picture" in capsys.readouterr().err


def test_debug_folder_that_is_a_file_is_exit_2(tmp_path: Path, picture: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("x")
    assert main(["read", "--game", "triolet", "--debug", str(not_a_folder), str(picture)]) == 2
    assert "expected a folder" in capsys.readouterr().err


def test_profile_of_another_camera_size_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fr = frame(TEST_SEEDS[0], "easy")
    image = tmp_path / "f.png"
    cv2.imwrite(str(image), fr.image)
    profile = write_truth_profile(fr, tmp_path / "p.json")
    data = json.loads(profile.read_text())
    data["image_size"] = [640, 480]  # the camera part (top level of a profile)
    profile.write_text(json.dumps(data))
    assert main(["read", "--game", "triolet", "--calibration", str(profile), str(image)]) == 2
    err = capsys.readouterr().err
    assert "640x480" in err and err.count("\n") == 1


def test_negative_seed_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["render", "--game", "triolet", "--out", str(tmp_path), "--seed", "-1", "--count", "1"])
    assert stop.value.code == 2
    assert "negative" in capsys.readouterr().err


def test_calibrate_board_locates_a_trigon_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """INTERFACES §4b: ``calibrate board`` locates the board itself, Trigon too: its 4 corners are
    the ends of the playing hexagon's top and bottom sides."""
    from lab.render.trigon import random_trigon_frame

    f = random_trigon_frame(1_000_001, "easy")
    image = tmp_path / "t.png"
    cv2.imwrite(str(image), f.image)
    out = tmp_path / "p.json"
    assert main(["calibrate", "board", "--game", "trigon", str(image), "--out", str(out)]) == 0
    got = np.array(json.loads(capsys.readouterr().out)["corners_px"])
    hexagon = np.array(f.labels["board"]["hexagon_px"], float)
    cell = float(np.linalg.norm(hexagon[1] - hexagon[0])) / 9
    # the same four points up to the order's start (the renderer and reader name the top edge alike)
    d = min(float(np.max(np.linalg.norm(got - np.roll(hexagon[[0, 1, 3, 4]], k, axis=0), axis=1))) for k in range(4))
    assert d < 0.5 * cell


def test_more_tile_shapes_than_a_set_holds_is_no_table_exit_3(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """M-B1 / D-B1: a set holds 56 tiles, so a picture of random noise in which the finder sees 92
    tile-like shapes shows no table of tiles (it had been read as 93 tiles of confidence ≤ 0.6)."""
    noise = tmp_path / "noise.png"
    cv2.imwrite(str(noise), np.random.default_rng(0).integers(0, 256, (720, 1280, 3), dtype=np.uint8))
    for game in ("triominos", "trio_domino"):
        assert main(["read", "--game", game, str(noise)]) == 3
        err = capsys.readouterr().err
        assert "more than the 56 tiles of a set" in err and err.count("\n") == 1


def test_messages_stay_on_one_printable_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty path is named as such (it had been taken for the current folder); control characters
    read from a file (a NUL, a line break inside a name) are escaped, never written raw."""
    assert main(["check", ""]) == 2
    assert "no file named" in capsys.readouterr().err
    odd = tmp_path / "odd\nname\x01.jsonl"
    assert main(["check", str(odd)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x01" not in err and "odd\\nname\\x01" in err


@pytest.mark.parametrize("game", ["triolet", "trigon"])
def test_profile_larger_than_any_profile_is_refused_unread(tmp_path: Path, picture: Path, game: str,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A profile is read only up to ``MAX_PROFILE_BYTES`` (as records are: /dev/full had exhausted memory)."""
    import calibration.profile as profile_module

    big = tmp_path / "big.json"
    big.write_text('{"version": 1}' + " " * 5000)
    monkeypatch.setattr(profile_module, "MAX_PROFILE_BYTES", 4096)
    assert main(["read", "--game", game, "--calibration", str(big), str(picture)]) == 2
    err = capsys.readouterr().err
    assert "larger than" in err and err.count("\n") == 1


@pytest.mark.parametrize(("argv", "choices"), [
    ([], ["check", "read", "replay", "serve", "bench"]),
    (["bench"], ["engine", "read", "replay", "serve", "render"]),
    (["calibrate"], ["board-image", "camera", "board"]),
])
def test_missing_command_is_one_line_exit_2(argv: list[str], choices: list[str],
                                            capfd: pytest.CaptureFixture[str]) -> None:
    """A command (a benchmark, what to calibrate) left out is bad usage: exit 2 and one line on
    stderr naming the choices; the help goes to stdout for a person at the terminal."""
    assert main(argv) == 2
    out, err = capfd.readouterr()
    assert len(err.strip().splitlines()) == 1, err
    assert "is required" in err and all(c in err for c in choices)
    assert "usage:" in out
