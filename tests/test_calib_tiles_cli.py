"""``companion calibrate tiles`` (INTERFACES §4b): the profile's tiles section and the command around
any game's tile learner, in-process (each game's learner has its own tests)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.read as vr
from calibration.profile import (
    BoardReference,
    Profile,
    ProfileError,
    TileReference,
    load_profile,
    parse_profile,
    save_profile,
)
from companion_api.cli import main


class _MeanColourLearner:
    """Learns the picture's mean colour: enough to see what the command stores and prints."""

    def __init__(self, game: str) -> None:
        self.game = game

    def learn(self, image: vr.Image, calibration: Profile | None = None) -> TileReference:
        if float(image.std()) < 1.0:
            raise vr.TileLessonError("no tiles in the picture")
        mean = [round(float(v), 1) for v in image.reshape(-1, 3).mean(axis=0)]
        h, w = image.shape[:2]
        return TileReference(self.game, (w, h), summary={"values": 17, "typeface_match": 0.5},
                             learned={"mean_bgr": mean})


@pytest.fixture
def fake_learner(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vr, "_TILE_LEARNERS", {"triolet": _MeanColourLearner})


def _picture(path: Path, flat: bool = False) -> Path:
    rng = np.random.default_rng(3)
    img = np.full((60, 80, 3), 90, np.uint8) if flat else rng.integers(0, 255, (60, 80, 3), dtype=np.uint8)
    cv2.imwrite(str(path), img)
    return path


def test_calib_tiles_profile_round_trip(tmp_path: Path) -> None:
    tiles = TileReference("trio_domino", (912, 684), summary={"values": 6},
                          learned={"pip_colours": {"1": [250, 250, 250]}})
    board = BoardReference("triolet", ((0, 0), (10, 0), (10, 10), (0, 10)), (20, 20))
    path = tmp_path / "p.json"
    save_profile(path, Profile(board=board, tiles=tiles))
    back = load_profile(path)
    assert back.tiles == tiles and back.board is not None
    assert back.tiles_for("trio_domino") == tiles
    with pytest.raises(ProfileError, match="calibrated for trio_domino, not triominos"):
        back.tiles_for("triominos")
    assert Profile().tiles_for("triolet") is None


@pytest.mark.parametrize(("tiles", "message"), [
    ("x", "tiles: expected an object"),
    ({"game": "chess", "image_size": [1, 1]}, "tiles.game: expected one of"),
    ({"game": "triolet"}, "tiles.image_size: missing"),
    ({"game": "triolet", "image_size": [0, 5]}, "tiles.image_size: expected"),
    ({"game": "triolet", "image_size": [4, 5], "learned": []}, "tiles.learned: expected an object"),
])
def test_calib_tiles_profile_validation_names_the_field(tiles: object, message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        parse_profile({"version": 1, "tiles": tiles})


def test_calib_tiles_cli_stores_and_keeps_other_sections(
        fake_learner: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "profile.json"
    board = BoardReference("triolet", ((0, 0), (10, 0), (10, 10), (0, 10)), (20, 20))
    save_profile(out, Profile(board=board))
    code = main(["calibrate", "tiles", "--game", "triolet", str(_picture(tmp_path / "t.png")), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out) == {"values": 17, "typeface_match": 0.5}
    stored = load_profile(out)
    assert stored.board == board
    assert stored.tiles is not None and stored.tiles.image_size == (80, 60)
    assert len(stored.tiles.learned["mean_bgr"]) == 3


def test_calib_tiles_cli_errors(fake_learner: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "profile.json"
    code = main(["calibrate", "tiles", "--game", "triolet", str(_picture(tmp_path / "f.png", flat=True)),
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 3 and "no tiles in the picture" in err and "Traceback" not in err
    assert not out.exists()
    code = main(["calibrate", "tiles", "--game", "triominos", str(_picture(tmp_path / "t.png")), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "no tile calibration for 'triominos'" in err
    code = main(["calibrate", "tiles", "--game", "triolet", str(tmp_path / "missing.png"), "--out", str(out)])
    assert code == 2 and "missing.png" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{")
    code = main(["calibrate", "tiles", "--game", "triolet", str(_picture(tmp_path / "t.png")),
                 "--out", str(tmp_path / "bad.json")])
    assert code == 2 and "not JSON" in capsys.readouterr().err
