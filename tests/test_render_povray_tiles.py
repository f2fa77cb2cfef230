"""Renderer B for triangle tiles: its labels lie on the tiles it draws, in the project's truth format."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.render.povray.tiles import (
    EDITIONS,
    GAMES,
    cached_frames,
    random_tiles_scene,
    render_tiles_scene,
    tiles_cache_key,
    tiles_frame,
)
from lab.sim.triangle_position import rotations

needs_povray = pytest.mark.skipif(shutil.which("povray") is None,
                                  reason="POV-Ray is not installed (.ci/run installs it)")


@pytest.mark.parametrize("game", GAMES)
def test_scenes_hold_legal_tiles_and_loose_ones_are_fields_of_their_own(game: str) -> None:
    seen_loose = seen_field = 0
    editions = set()
    for seed in range(12):
        sc = random_tiles_scene(game, seed, size=(640, 480))
        editions.add(sc.look.edition)
        kinds = [tuple(sorted(t.values)) for t in sc.scene.tiles]
        assert len(kinds) == len(set(kinds)), "a set holds each tile once (M-B1)"
        for t in sc.scene.tiles:
            a, b, c = sorted(t.values)
            assert tuple(t.values) in rotations((a, b, c)), "values clockwise as printed"
        per_field: dict[int, int] = {}
        for t in sc.scene.tiles:
            per_field[t.field] = per_field.get(t.field, 0) + 1
        for f, n in per_field.items():
            if sc.loose[f]:
                assert n == 1
                seen_loose += 1
            else:
                seen_field += 1
    assert seen_loose and seen_field
    assert len(editions) >= 2 and editions <= {e.name for e in EDITIONS}


@needs_povray
def test_a_tiny_render_puts_every_labelled_corner_on_its_tile() -> None:
    """White tiles (marks in a pale ink, so that only the outline counts) on a dark green cloth: each
    labelled tile's centre and the points just inside its corners are tile-coloured; corners run
    clockwise in the picture; values are the tile's."""
    sc = random_tiles_scene("trio_domino", 3, size=(480, 360))
    look = replace(sc.look, colour=(0.95, 0.95, 0.92), body="plastic", inks=((0.85, 0.85, 0.85),) * 6, gloss=0.2)
    sc = replace(sc, look=look, cloth="plain", cloth_colours=((0.08, 0.3, 0.1),), light="soft")
    fr = render_tiles_scene(sc, 3, quality="fast")
    img = cv2.cvtColor(fr.image, cv2.COLOR_BGR2GRAY).astype(np.float64)
    assert img.shape == (360, 480)
    cloth = float(np.median(img))  # most of the picture is cloth
    assert len(fr.labels["tiles"]) == len(sc.scene.tiles)
    for lab, t in zip(fr.labels["tiles"], sc.scene.tiles, strict=True):
        pts = np.array([c["px"] for c in lab["corners"]])
        assert [c["value"] for c in lab["corners"]] == list(t.values)
        (ax, ay), (bx, by) = pts[1] - pts[0], pts[2] - pts[0]
        assert ax * by - ay * bx > 0, "clockwise with y down"
        centre = np.array(lab["center_px"])
        for q in [centre, *(centre + 0.8 * (pts - centre))]:
            x, y = (int(v) for v in np.round(q))
            if 2 <= x < 478 and 2 <= y < 358:
                assert float(np.median(img[y - 1:y + 2, x - 1:x + 2])) > cloth + 50, (lab["field"], q)
        # a point a side away beyond a corner of a loose tile is cloth
        if lab["loose"]:
            out = pts[0] + 0.9 * (pts[0] - centre)
            x, y = (int(v) for v in np.round(out))
            if 2 <= x < 478 and 2 <= y < 358:
                assert abs(float(np.median(img[y - 1:y + 2, x - 1:x + 2])) - cloth) < 40
    assert {"edition", "cloth", "tile_px", "megapixels"} <= set(fr.labels["style"])
    assert fr.labels["read"]["tiles"] and all(len(t["corners"]) == 3 for t in fr.labels["read"]["tiles"])


@needs_povray
def test_tile_renders_are_cached_by_game_seed_and_settings(tmp_path: Path) -> None:
    a = tiles_frame(4, "triominos", "held-out", (200, 150), cache=tmp_path, quality="fast")
    style = a.labels["style"]
    assert style["typeface_group"] in ("held-out", "-")
    stem = tiles_cache_key("triominos", 4, "held-out", (200, 150), "fast")
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{stem}.jpg", f"{stem}.json"]
    assert cached_frames(tmp_path) == [(tmp_path / f"{stem}.jpg", tmp_path / f"{stem}.json")]
    b = tiles_frame(4, "triominos", "held-out", (200, 150), cache=tmp_path, quality="fast")
    assert b.labels == a.labels and np.abs(b.image.astype(int) - a.image.astype(int)).mean() < 3
    assert stem != tiles_cache_key("trio_domino", 4, "held-out", (200, 150), "fast")
