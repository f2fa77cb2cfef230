"""Triangle tiles of any size and edition: the finder's pyramid finds small and large tiles, pips
are counted per corner whatever their colour, ``calibrate tiles`` teaches a pip edition through
the CLI and ``read`` uses it (INTERFACES §3, §4b)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.render.triangles import random_loose_frame, random_triangles_frame
from vision.read.tritiles.finder import find_tiles_net
from vision.read.tritiles.pips import looks_like_pips, pip_scores, tile_blobs
from vision.read.tritiles.values import clockwise

ROOT = Path(__file__).resolve().parents[1]
#: a wooden coloured-pip edition on a printed oilcloth, loose tiles (the renderer's seed)
SEED = 4242


def _centres(labels: dict[str, object]) -> np.ndarray:
    tiles = labels["tiles"]
    assert isinstance(tiles, list)
    return np.array([np.mean([c["px"] for c in t["corners"]], axis=0) for t in tiles])


def _side(labels: dict[str, object]) -> float:
    tiles = labels["tiles"]
    assert isinstance(tiles, list)
    return float(np.median([np.linalg.norm(np.subtract(t["corners"][0]["px"], t["corners"][1]["px"]))
                            for t in tiles]))


@pytest.fixture(scope="module")
def wooden() -> tuple[np.ndarray, dict[str, object]]:
    f = random_loose_frame("trio_domino", SEED, "easy", face="walnut_colour_pips", table="paper_plain",
                           size=(960, 540))
    return f.image, f.labels


@pytest.fixture(scope="module")
def field() -> tuple[np.ndarray, dict[str, object]]:
    f = random_triangles_frame("triominos", 4011, "easy", size=(640, 480))
    return f.image, f.labels


def _check_found(image: np.ndarray, labels: dict[str, object], target_side: float) -> None:
    scale = target_side / _side(labels)
    resized = cv2.resize(image, None, fx=scale, fy=scale,
                         interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    truth = _centres(labels) * scale
    found = find_tiles_net(np.asarray(resized, np.uint8))
    got = np.array([t[0].mean(axis=0) for t in found]).reshape(-1, 2)
    near = [bool(len(got)) and float(np.linalg.norm(got - c, axis=1).min()) < 0.35 * target_side for c in truth]
    assert all(near), f"{sum(near)} of {len(truth)} tiles found at side {target_side}"
    assert len(found) == len(truth), f"{len(found) - len(truth)} tiles invented at side {target_side}"


@pytest.mark.parametrize("target_side", [35.0, 200.0])
def test_finder_finds_a_field_at_very_different_sizes(field: tuple[np.ndarray, dict[str, object]],
                                                      target_side: float) -> None:
    _check_found(*field, target_side)


def test_finder_finds_large_loose_wooden_tiles(wooden: tuple[np.ndarray, dict[str, object]]) -> None:
    _check_found(*wooden, 160.0)


def _drawn_tile(counts: tuple[int, int, int], colours: dict[int, tuple[int, int, int]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """A wooden tile (side 150 px, turned 20°) with ``counts`` pips at its corners (clockwise), each
    count in its own colour, on light paper; the picture and the tile's clockwise corners."""
    img = np.full((260, 260, 3), (200, 210, 225), np.uint8)
    cen = np.array([130.0, 135.0])
    r = 150 / math.sqrt(3)
    ang = [math.radians(-90 + 20 + 120 * k) for k in range(3)]
    corners = np.array([cen + r * np.array([math.cos(a), math.sin(a)]) for a in ang])
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), (40, 75, 120), cv2.LINE_AA)
    rng = np.random.default_rng(0)
    for k, n in enumerate(counts):
        toward = cen + (corners[k] - cen) * 0.5
        perp = np.array([-(corners[k] - cen)[1], (corners[k] - cen)[0]]) / r
        along = (corners[k] - cen) / r
        spots = [(-1, 0), (1, 0), (0, 1), (-1, 1), (1, 1)][:n]
        for a, b in spots:
            p = toward + perp * a * 15 - along * b * 14 + rng.normal(0, 0.5, 2)
            cv2.circle(img, (round(p[0]), round(p[1])), 5, colours[n], -1, cv2.LINE_AA)
    return img, clockwise(corners)


def test_pips_of_any_colour_are_counted_per_corner() -> None:
    colours = {1: (235, 235, 235), 2: (30, 30, 30), 3: (40, 170, 230), 4: (170, 90, 50), 5: (50, 40, 180)}
    for counts in [(1, 4, 5), (0, 2, 3), (5, 5, 0)]:
        img, cw = _drawn_tile(counts, colours)
        # the clockwise corners as ``clockwise`` gives them: find which drawn corner each one is
        scores = pip_scores(img, [cw])[0]
        assert [int(np.argmax(s)) for s in scores] == list(_counts_at(cw, img, counts)), counts
    img, cw = _drawn_tile((2, 3, 4), colours)
    assert looks_like_pips([tile_blobs(img, cw)])


def _counts_at(cw: np.ndarray, img: np.ndarray, counts: tuple[int, int, int]) -> tuple[int, ...]:
    """``counts`` (drawn at corners −70°, 50°, 170° about the centre) in the order of ``cw``."""
    cen = cw.mean(axis=0)
    drawn = [math.radians(-70 + 120 * k) for k in range(3)]
    out = []
    for p in cw:
        a = math.atan2(p[1] - cen[1], p[0] - cen[0])
        k = int(np.argmin([abs(math.remainder(a - d, 2 * math.pi)) for d in drawn]))
        out.append(counts[k])
    return tuple(out)


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from companion_api.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.slow
def test_calibrate_tiles_teaches_a_pip_edition_that_read_uses(
        wooden: tuple[np.ndarray, dict[str, object]], tmp_path: Path) -> None:
    image, _labels = wooden
    pic = tmp_path / "tiles.png"
    cv2.imwrite(str(pic), image)
    prof = tmp_path / "profile.json"
    done = _cli("calibrate", "tiles", "--game", "trio_domino", str(pic), "--out", str(prof))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["edition"] == "pips" and summary["tiles"] >= 2
    stored = json.loads(prof.read_text())["tiles"]
    assert stored["game"] == "trio_domino" and stored["learned"]["edition"] == "pips"
    assert all(len(v) == 3 for v in stored["learned"]["pip_colours"].values())
    read = _cli("read", "--game", "trio_domino", str(pic), "--calibration", str(prof))
    assert read.returncode == 0, read.stderr
    out = json.loads(read.stdout)
    assert set(out) == {"game", "tiles"} and out["game"] == "trio_domino" and out["tiles"]
    for t in out["tiles"]:
        assert set(t) == {"center_px", "corners", "cell", "field", "confidence"}
        assert len(t["corners"]) == 3 and all(set(c) == {"px", "value"} and 0 <= c["value"] <= 5
                                              for c in t["corners"])
        assert len(t["cell"]) == 2 and isinstance(t["field"], int)
    # loose tiles: each its own field (D-B1)
    assert len({t["field"] for t in out["tiles"]}) >= 2
    other = _cli("read", "--game", "triominos", str(pic), "--calibration", str(prof))
    assert other.returncode == 2 and "calibrated for trio_domino" in other.stderr
    assert len(other.stderr.strip().splitlines()) == 1


def test_calibrate_tiles_without_tiles_exits_3(tmp_path: Path) -> None:
    pic = tmp_path / "blank.png"
    cv2.imwrite(str(pic), np.full((240, 320, 3), 200, np.uint8))
    done = _cli("calibrate", "tiles", "--game", "triominos", str(pic), "--out", str(tmp_path / "p.json"))
    assert done.returncode == 3 and "tiles seen" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "p.json").exists()
