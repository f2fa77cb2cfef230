"""``companion calibrate tiles --game triolet``: the 17 tiles found and put in reading order (on a
board and on the table), the profile's tiles section stored and read back, wrong counts refused
with one line (exit 3), and ``companion read`` with a tiles-only profile using the exemplars."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from reader_helpers import TEST_SEEDS, frame

from calibration.profile import Profile, TileReference, load_profile, save_profile
from companion_api.cli import main
from lab.render import random_frame
from lab.render.frame import RenderedFrame
from lab.render.triolet import TilePlacement
from lab.render.triolet_board import rotate_square, square_name
from vision.read import TileLessonError, tile_learner_for
from vision.read.triolet import edition as ed
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.cnn import load_cnn
from vision.read.triolet.reader import turns_averaged
from vision.read.triolet.tile_lesson import find_tiles, reading_order

ROWS = (6, 6, 5)


@lru_cache(maxsize=2)
def board_lesson(seed: int = 900_021, skip: tuple[int, ...] = ()) -> RenderedFrame:
    """The project renderer's board with 0–15 and a wild in rows of ``ROWS``, in reading order as
    the camera sees them (tiles ``skip`` left out)."""
    from lab.render.holdout import training_pool

    probe = random_frame("triolet", seed, "easy", pool=training_pool(), size=(1280, 720),
                         tiles=(TilePlacement("H8", 1),))
    k = int(probe.labels["board"]["view_rotation"])
    to_board = {rotate_square(c, r, k): (c, r) for c in range(15) for r in range(15)}
    tiles, i = [], 0
    for j, n in enumerate(ROWS):
        for m in range(n):
            c, r = to_board[(4 + m, 5 + 2 * j)]
            if i not in skip:
                tiles.append(TilePlacement(square_name(c, r), i if i < 16 else 0, wild=i == 16, rotation=k))
            i += 1
    return random_frame("triolet", seed, "easy", pool=training_pool(), size=(1280, 720), tiles=tuple(tiles))


@lru_cache(maxsize=1)
def lesson() -> TileReference:
    """What the learner takes from ``board_lesson()``."""
    return tile_learner_for("triolet").learn(board_lesson().image)


def table_lesson(count: int = 17, tilt_deg: float = 8.0, seed: int = 5) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """A drawn picture of ``count`` light tiles with dark numerals in rows on a textured dark table,
    the rows tilted by ``tilt_deg``; and the tiles' centres in the order laid."""
    rng = np.random.default_rng(seed)
    img = np.asarray(cv2.GaussianBlur(np.clip(rng.normal(70, 6, (720, 1280, 3)), 0, 255).astype(np.uint8),
                                      (0, 0), 1.2), np.uint8)
    side, gap = 60, 40
    a = np.radians(tilt_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    centres: list[tuple[float, float]] = []
    labels = [*(str(v) for v in range(16)), "*"]
    i = 0
    for j, n in enumerate(ROWS):
        for m in range(n):
            if i >= count:
                break
            local = np.array([(m - 2.5) * (side + gap), (j - 1) * (side + gap)])
            cx, cy = rot @ local + np.array([640.0, 360.0])
            box = cv2.boxPoints(((cx, cy), (side, side), tilt_deg + float(rng.uniform(-3, 3))))
            cv2.fillConvexPoly(img, box.astype(np.int32), (200, 225, 235))
            text = labels[i]
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 1.1, 3)
            cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), cv2.FONT_HERSHEY_DUPLEX, 1.1, (30, 30, 30), 3)
            centres.append((float(cx), float(cy)))
            i += 1
    return img, centres


def test_tile_lesson_reading_order_follows_tilted_rows() -> None:
    rng = np.random.default_rng(1)
    a = np.radians(-14.0)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pts = np.array([rot @ np.array([m * 70.0, j * 90.0]) + rng.normal(0, 3, 2)
                    for j, n in enumerate((4, 5, 4, 4)) for m in range(n)])
    shuffled = rng.permutation(len(pts))
    order = reading_order(pts[shuffled], 50.0)
    assert [int(shuffled[k]) for k in order] == list(range(17))


def test_tile_lesson_on_the_table_finds_17_in_order() -> None:
    img, centres = table_lesson()
    found = find_tiles(img)
    assert found.laid == "table" and len(found.crops) == 17
    assert np.max(np.hypot(*(found.places - np.array(centres)).T)) < 6.0
    assert found.crops.shape[1:] == (56, 56, 3)


def test_tile_lesson_on_a_board_learns_and_round_trips(tmp_path: Path) -> None:
    ref = lesson()
    s = ref.summary
    assert s["values"] == 17 and s["laid"] == "board"
    # the project's own face: the uncalibrated reader knows it, so the order must be right
    assert s["typeface_match"] >= 0.9 and s["learnt_match"] == 1.0
    colours = ref.learned["colours"]
    assert colours["tile"]["lab"][0] > colours["ink"]["lab"][0] + 20  # a light tile, dark ink
    path = tmp_path / "p.json"
    save_profile(path, Profile().with_tiles(ref))
    assert path.stat().st_size < 80_000
    back = load_profile(path).tiles_for("triolet")
    assert back is not None
    loaded = ed.from_reference(back)
    assert loaded.weights.shape == (128, 18) and loaded.net == ed.net_digest()
    crops = find_tiles(board_lesson().image).crops
    assert np.array_equal(loaded.reading(crops).argmax(axis=1), np.arange(17))


def test_tile_lesson_wrong_count_exits_3_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img, _ = table_lesson(count=15)
    path = tmp_path / "fifteen.png"
    cv2.imwrite(str(path), img)
    out = tmp_path / "p.json"
    assert main(["calibrate", "tiles", "--game", "triolet", str(path), "--out", str(out)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith("found 15 tiles, expected 17 (one of each value 0–15 and a wild, in value order, "
                            "row by row)")
    assert not any("Traceback" in line for line in err) and not out.exists()
    with pytest.raises(TileLessonError, match="found 15 tiles"):
        find_tiles(img)


def test_tile_lesson_learns_a_face_the_net_misreads() -> None:
    """Tiles drawn in a face the net was not trained on (OpenCV's Hershey): the fitted layer reads
    more of them right than the net, its "empty" output stays the net's, and a reading combined
    with it reads more right, its "empty" probability kept."""
    img, _ = table_lesson(seed=8)
    crops = find_tiles(img).crops
    net_top = np.asarray(turns_averaged(load_cnn().proba, crops))[:, :17].argmax(axis=1)
    head = ed.learn_head(crops)
    learnt_top = head.reading(crops).argmax(axis=1)
    truth = np.arange(17)
    assert (learnt_top == truth).sum() > (net_top == truth).sum()
    assert np.array_equal(head.weights[:, EMPTY], np.asarray(load_cnn().out[0][:, EMPTY], np.float64))
    # the reader's own reading of the 17, combined with the edition's layer: more of them right
    probs = np.asarray(turns_averaged(load_cnn().proba, crops), np.float32)
    probs[:, EMPTY] = 0.01
    probs /= probs.sum(axis=1, keepdims=True)
    before = probs.copy()
    assert list(ed.apply_edition(probs, crops, head)) == list(range(17))
    assert (probs[:, :17].argmax(axis=1) == truth).sum() > (before[:, :17].argmax(axis=1) == truth).sum()
    assert np.allclose(probs[:, EMPTY], before[:, EMPTY]) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    empty = np.zeros_like(before[:1])
    empty[0, EMPTY] = 1.0
    assert len(ed.apply_edition(empty, crops[:1], head)) == 0


def test_tile_lesson_read_accepts_a_tiles_only_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lesson = tmp_path / "lesson.png"
    cv2.imwrite(str(lesson), board_lesson().image)
    profile = tmp_path / "tiles.json"
    assert main(["calibrate", "tiles", "--game", "triolet", str(lesson), "--out", str(profile)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["values"] == 17
    assert load_profile(profile).board is None
    fr = frame(TEST_SEEDS[1])
    img = tmp_path / "board.png"
    cv2.imwrite(str(img), fr.image)
    assert main(["read", "--game", "triolet", str(img)]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["read", "--game", "triolet", str(img), "--calibration", str(profile)]) == 0
    calibrated = json.loads(capsys.readouterr().out)
    truth = {c["square"]: (c["value"], c["wild"]) for c in fr.labels["read"]["cells"]}
    read = {c["square"]: (c["value"], c["wild"]) for c in calibrated["cells"]}
    # the reader's own face stays right with the exemplars (tiles under a hand stay unread)
    assert read == {c["square"]: (c["value"], c["wild"]) for c in plain["cells"]}
    assert len(read) >= 15 and all(truth[k] == v for k, v in read.items())
    assert calibrated["board"] == plain["board"]
    # exemplars learnt with another net are refused with one line
    data = json.loads(profile.read_text(encoding="utf-8"))
    data["tiles"]["learned"]["net"] = "0" * 12
    profile.write_text(json.dumps(data), encoding="utf-8")
    assert main(["read", "--game", "triolet", str(img), "--calibration", str(profile)]) == 2
    err = capsys.readouterr().err
    assert "another version of the reader's net" in err and "Traceback" not in err


def test_tile_lesson_replay_and_serve_put_the_profile_to_use(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from companion_api.cli.replay import _calibration
    from vision.read import use_profile_tiles

    profile = tmp_path / "tiles.json"
    save_profile(profile, Profile().with_tiles(lesson()))
    try:
        assert _calibration(str(profile), "triolet") == (None, None)  # no camera, no board: tiles only
        active = ed.active_edition()
        assert active is not None and active.weights.shape == (128, 18)
        use_profile_tiles(None, "triolet")
        assert ed.active_edition() is None
    finally:
        ed.use_edition(None)
    bad = tmp_path / "bad.json"
    data = json.loads(profile.read_text(encoding="utf-8"))
    data["tiles"]["learned"]["delta_weights"] = "not base64!"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert main(["serve", "--calibration", str(bad), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "tiles.learned.delta_weights" in err and "Traceback" not in err
    assert ed.active_edition() is None


@pytest.mark.parametrize("on_board", [False, True])
def test_tile_lesson_renderer_b_lays_the_tiles_in_reading_order(on_board: bool) -> None:
    from lab.render.povray.calibration import calibration_scene, held_out_editions

    eds = held_out_editions()
    assert len({e.face.name for e in eds}) == len(eds) == 6
    for seed in range(7000, 7006):
        sc, values = calibration_scene(seed, eds[seed % 6], on_board)
        assert values == [*range(16), None] and sc.board == on_board
        assert [t.value if not t.wild else None for t in sc.tiles] == values
        centres = np.array([sc.camera.project(sc.tile_corners(t).mean(axis=0, keepdims=True))[0] for t in sc.tiles])
        side = float(np.median([np.ptp(sc.camera.project(sc.tile_corners(t))[:, 0]) for t in sc.tiles]))
        assert reading_order(centres, side) == list(range(17))


def test_tile_lesson_bench_flag_needs_renderer_b(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "read", "--game", "triolet", "--calibrate-tiles", "--frames", "1"]) == 2
    assert "--renderer povray" in capsys.readouterr().err
