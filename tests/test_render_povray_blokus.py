"""Renderer B for the Blokus games: scenes come from legal engine positions, labels match the
picture POV-Ray draws, and the bench scores readings by cause."""

from __future__ import annotations

import math
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_api.cli import main
from lab.bench.read_blokus_games import cause_of, score_cells
from lab.render.povray.blokus import (
    BlokusPiece,
    blokus_cache_key,
    blokus_labels,
    blokus_scene_text,
    random_blokus_scene,
    render_blokus_scene,
)

needs_povray = pytest.mark.skipif(shutil.which("povray") is None,
                                  reason="POV-Ray is not installed (.ci/run installs it)")


@pytest.mark.parametrize("game", ["trigon", "blokus", "blokus_duo"])
def test_scenes_are_seeded_legal_positions_with_translucent_pieces(game: str) -> None:
    a, b = random_blokus_scene(3, game, (320, 240)), random_blokus_scene(3, game, (320, 240))
    assert a == b
    assert a != random_blokus_scene(4, game, (320, 240))
    cells = [c for p in a.pieces for c in p.cells]
    assert cells and len(cells) == len(set(cells))  # no two pieces on one cell
    text = blokus_scene_text(a)
    assert text.count("merge {") >= len(a.pieces) and "ior 1.49" in text and "srgbf" in text
    # every piece is off its cells by a little only
    assert all(math.hypot(*p.shift) < 0.2 * a.cell_mm and abs(p.turn_deg) < 6 for p in a.pieces)


def test_cups_stand_beyond_the_board_from_the_camera() -> None:
    for seed in range(12):
        sc = random_blokus_scene(seed, "blokus", (320, 240))
        cam = np.array(sc.camera.position[:2])
        for x, y, _r, _c in sc.cups:
            assert float(np.dot(cam, (x, y))) < 0


def test_square_truth_is_named_from_the_edge_nearest_the_top_of_the_picture() -> None:
    sc = random_blokus_scene(5, "blokus_duo", (320, 240))
    sc = replace(sc, pieces=(BlokusPiece("purple", ("a14",)),))  # the board frame's top-left square
    lab = blokus_labels(sc, 5)
    k = lab["board"]["view_rotation"]
    top_left, top_right, bottom_right, bottom_left = "a14", "n14", "n1", "a1"
    expected = [top_left, bottom_left, bottom_right, top_right][k]  # where a14 lands after k quarter turns
    assert lab["read"]["cells"] == [{"cell": expected, "colour": "purple"}]
    corners = np.array(lab["board"]["corners_px"])
    assert corners[:2, 1].mean() == min(corners[[i, (i + 1) % 4], 1].mean() for i in range(4))


def test_bench_scores_cells_by_cause() -> None:
    s = score_cells({"a1": "red", "b2": "blue"}, {"a1": "red", "c3": "green", "b2": "red"}, ["a1", "b2", "c3", "d4"])
    assert s["ok"] == 2 and s["n"] == 4
    assert sorted(cause_of(t, g) for _, t, g in s["wrong"]) == ["blue read red", "empty read green"]
    assert cause_of("yellow", None) == "yellow read empty"
    assert blokus_cache_key(1, "blokus", (8, 8), "fast") != blokus_cache_key(1, "blokus_duo", (8, 8), "fast")


def test_bench_rejects_a_bad_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "read", "--game", "blokus", "--renderer", "povray", "--size", "big"]) == 2
    assert "--size big" in capsys.readouterr().err


def _lab_at(image: np.ndarray, xy: np.ndarray) -> np.ndarray:
    x, y = (round(float(v)) for v in xy)
    patch = image[y - 1:y + 2, x - 1:x + 2].reshape(-1, 1, 3)
    return np.asarray(cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).reshape(-1, 3).mean(axis=0), np.float64)


@needs_povray
@pytest.mark.parametrize("game", ["trigon", "blokus"])
def test_a_small_render_shows_each_labelled_piece_cell(game: str) -> None:
    """Blue and yellow pieces: every labelled cell centre is coloured with its piece's hue in the
    picture, and empty cells are grey."""
    sc = random_blokus_scene(11, game, (480, 360))
    cells = ("r15", "r14", "q14") if game == "trigon" else ("j10", "k10", "k11")
    other = ("j12", "k12", "l12") if game == "trigon" else ("d4", "e4", "e5")
    sc = replace(sc, pieces=(BlokusPiece("blue", cells), BlokusPiece("yellow", other)), cups=(), spares=(),
                 filter=0.5, exposure=1.0, extras={**sc.extras, "noise": 1.0, "blur": 0.0, "jpeg": 95.0})
    fr = render_blokus_scene(sc, 11, quality="fast")
    seen = {c["cell"]: _lab_at(fr.image, np.array(c["center_px"])) for c in fr.labels["cells"]}
    for name in cells:
        assert seen[name][2] < 118, (name, seen[name])  # Lab b below neutral 128: blue
    for name in other:
        assert seen[name][2] > 150, (name, seen[name])  # yellow
    # an empty cell: the board's centre, far from both pieces
    centre = sc.camera.project(np.array([[0.0, 0.0, 0.0]]))[0]
    lab = _lab_at(fr.image, centre)
    assert abs(lab[1] - 128) < 12 and abs(lab[2] - 128) < 14


@needs_povray
def test_bench_reads_renderer_b_blokus_pictures_from_its_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    from lab.render.povray.blokus import povray_blokus_frame

    povray_blokus_frame(2, "blokus_duo", (320, 240), cache=tmp_path)
    cached = list(tmp_path.glob("blokus_duo_b_2_*.jpg"))
    assert len(cached) == 1
    cv2.imwrite(str(cached[0]), np.full((240, 320, 3), 128, np.uint8))  # the bench must read this one
    args = ["bench", "read", "--game", "blokus_duo", "--renderer", "povray", "--size", "320x240", "--frames", "1",
            "--seed", "2", "--cache", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "--game blokus_duo --renderer povray (320x240" in out and "boards by cause" in out
    row = next(line for line in out.splitlines() if line.startswith("povray"))
    assert row.split()[1:3] == ["1", "0.000"]  # one frame, read from the cache: a plain grey picture
    assert "not located" in out
