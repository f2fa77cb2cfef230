"""Renderer B (POV-Ray): its labels match the picture it draws, and the bench reads its pictures."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion_api.cli import main
from lab.render.povray.faces import FACES, faces
from lab.render.povray.render import cache_key, povray_frame, random_scene, render_scene
from lab.render.povray.scene import PovTile, TileSet
from lab.render.triolet_board import parse_square, rotate_square, square_name

needs_povray = pytest.mark.skipif(shutil.which("povray") is None,
                                  reason="POV-Ray is not installed (.ci/run installs it)")


def test_face_groups_are_disjoint_families_and_six_are_held_out() -> None:
    held = [f for f in FACES if f.group == "held-out"]
    assert len(held) == 6
    families = [{f.name.split()[0] for f in FACES if f.group == g} for g in ("held-out", "train")]
    assert not families[0] & families[1]
    assert {f.style for f in held} >= {"sans", "serif", "condensed", "rounded", "slab"}
    assert len({f.file for f in FACES}) == len(FACES)


@needs_povray
def test_a_small_render_shows_each_labelled_tile_at_its_square(tmp_path: Path) -> None:
    """Blue tiles on a cream board: every labelled tile top is blue in the picture, an empty square is
    not, and the label names each tile's square as seen from the camera (view rotation)."""
    sc = random_scene(7, "train", (320, 240))
    tiles = (PovTile("H8", 12, False, 1, 3.0, (0.0, 0.0)), PovTile("C3", 5, False, 0, -4.0, (0.02, 0.0)),
             PovTile("M12", 0, True, 2, 0.0, (0.0, 0.0)))
    sc = replace(sc, tiles=tiles, tile_set=TileSet((0.1, 0.2, 0.9), (0.05, 0.05, 0.05), "printed", False, 0.3, 0.06),
                 edition=replace(sc.edition, base=(0.92, 0.89, 0.78), premium="fill", wood=False), table="laminate")
    fr = render_scene(sc, 7, quality="fast")
    img = fr.image.astype(np.float64)
    assert img.shape == (240, 320, 3)

    def blueness(poly: np.ndarray) -> float:
        import cv2
        mask = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, poly.round().astype(np.int32), 1)
        px = img[mask > 0]
        return float((px[:, 0] - px[:, 2]).mean())  # BGR: blue minus red

    k = fr.labels["board"]["view_rotation"]
    for cell, t in zip(fr.labels["cells"], tiles, strict=True):
        corners = np.array(cell["corners_px"])
        centre = corners.mean(axis=0)
        inner = centre + 0.6 * (corners - centre)  # inside the tile's top, off its rounded edge
        assert blueness(inner) > 40, cell["square"]
        assert cell["square_view"] == square_name(*rotate_square(*parse_square(t.square), k))
    # an empty square far from every tile, on the board's cream
    s = sc.square_mm
    c, r = parse_square("H3")
    empty = sc.camera.project(np.array([[(c - 7 + dx) * s, (r - 7 + dy) * s, -0.1]
                                        for dx, dy in ((-0.3, -0.3), (0.3, -0.3), (0.3, 0.3), (-0.3, 0.3))]))
    assert blueness(empty) < 10
    read = {c["square"]: (c["value"], c["wild"]) for c in fr.labels["read"]["cells"]}
    assert len(read) == 3 and (None, True) in read.values() and (12, False) in read.values()


@needs_povray
def test_renders_are_cached_by_seed_and_settings(tmp_path: Path) -> None:
    a = povray_frame(3, "held-out", (160, 120), cache=tmp_path, quality="fast")
    assert a.labels["style"]["typeface_group"] == "held-out"
    assert a.labels["style"]["typeface_file"] in {f.file for f in faces("held-out")}
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [f"{cache_key(3, 'held-out', (160, 120), 'fast')}.{ext}" for ext in ("jpg", "json")]
    b = povray_frame(3, "held-out", (160, 120), cache=tmp_path, quality="fast")
    assert b.labels == a.labels and np.abs(b.image.astype(int) - a.image.astype(int)).mean() < 3
    assert cache_key(3, "train", (160, 120), "fast") != cache_key(3, "held-out", (160, 120), "fast")


@needs_povray
@pytest.mark.slow
def test_bench_prints_the_povray_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "read", "--game", "triolet", "--renderer", "povray", "--faces", "held-out",
                 "--frames", "2", "--size", "320x240", "--cache", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    rows = [line.split() for line in out.splitlines() if line.startswith("povray held-out")]
    main_row, _causes, *rel = rows
    assert main_row[2] == "2" and 0.0 <= float(main_row[3]) <= 100.0
    assert [r[2] for r in rel] == ["≥0.9", "0.6–0.9", "<0.6"]
    faces_rows = [line.split() for line in out.splitlines() if line.startswith("held-out ")]
    assert sum(int(r[-4]) for r in faces_rows) == 2  # frames
    editions = out.split("by board edition and tile set")[1].split("\n\n")[0].splitlines()[3:]
    assert sum(int(line.split()[-3]) for line in editions) == 2
    assert "s/frame" in out


def test_bench_names_an_unknown_face_group(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "read", "--game", "triolet", "--renderer", "povray", "--faces", "cursive", "--frames", "1"])
    assert code == 2
    assert "unknown typeface group 'cursive'" in capsys.readouterr().err
