"""Renderer B's tile editions and calibration pictures (``companion calibrate tiles``, INTERFACES §4b).

A tile *edition* is what a real box of Triolet tiles fixes: the typeface, the tile and ink
colours, printed or engraved numerals, the 6/9 bar, the tiles' size, thickness and numeral size.
``held_out_editions()`` gives one edition per held-out typeface (each with another tile set), and
for each: ``calibration_scene`` — the 17 tiles (0–15 and a wild) laid in rows in value order,
upright and in reading order as the camera sees them, on the board or on the bare table — and
``edition_board_scene`` — a random game position drawn in that edition (board edition, camera,
light and table as ``random_scene`` draws them for the seed).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from lab.render.frame import RenderedFrame
from lab.render.povray.faces import Face, faces
from lab.render.povray.render import RENDERER_VERSION, random_pov_camera, random_scene, render_scene, through_cache
from lab.render.povray.scene import TILE_BODIES, PovScene, PovTile, TileSet
from lab.render.triolet import view_rotation
from lab.render.triolet_board import rotate_square, square_name

#: Row lengths a calibration layout is drawn from (17 tiles: any rows).
LAYOUTS: tuple[tuple[int, ...], ...] = ((6, 6, 5), (9, 8), (5, 6, 6), (4, 5, 4, 4))


@dataclass(frozen=True)
class TileEdition:
    """One box of tiles: its typeface, colours, marking and proportions."""

    face: Face
    tile_set: TileSet
    tile_ratio: float
    tile_height_mm: float
    numeral_height: float


def held_out_editions() -> list[TileEdition]:
    """One edition per held-out typeface (``faces("held-out")``), the i-th with the i-th tile set of
    ``scene.TILE_BODIES`` (every tile colour once over six faces); marking, 6/9 bar, gloss and
    proportions drawn from a fixed seed."""
    out = []
    for i, face in enumerate(faces("held-out")):
        rng = np.random.default_rng([i, 0xED17])
        body, ink = TILE_BODIES[i % len(TILE_BODIES)]
        ts = TileSet(body, ink, "engraved" if rng.random() < 0.35 else "printed", bool(rng.random() < 0.5),
                     float(rng.uniform(0, 1)), float(rng.uniform(0.04, 0.12)))
        out.append(TileEdition(face, ts, float(rng.uniform(0.84, 0.94)), float(rng.uniform(3.0, 6.5)),
                               float(rng.uniform(0.36, 0.5))))
    return out


def with_edition(sc: PovScene, ed: TileEdition) -> PovScene:
    """``sc`` with its tiles drawn in edition ``ed``."""
    return replace(sc, face=ed.face, tile_set=ed.tile_set, tile_ratio=ed.tile_ratio,
                   tile_height_mm=ed.tile_height_mm, numeral_height=ed.numeral_height)


def edition_board_scene(seed: int, ed: TileEdition, size: tuple[int, int] = (1280, 720)) -> PovScene:
    """The held-out random table of ``seed`` (``random_scene``) with its tiles in edition ``ed``."""
    return with_edition(random_scene(seed, "held-out", size), ed)


def _view_to_board(k: int) -> dict[tuple[int, int], tuple[int, int]]:
    """View square (as the camera sees the board, A1 at its top-left) → board square."""
    return {rotate_square(c, r, k): (c, r) for c in range(15) for r in range(15)}


def calibration_scene(seed: int, ed: TileEdition, on_board: bool, size: tuple[int, int] = (1280, 720)
                      ) -> tuple[PovScene, list[int | None]]:
    """The 17 tiles of ``ed`` (0–15, then the wild) in rows (``LAYOUTS``; on the table, those of at
    most 8 a row), upright and in reading order as the camera sees them, on the board (``on_board``:
    on its squares, a free square between rows) or on the bare table (a gap of a tile between
    tiles); the camera faces the rows, within ±12° of square. Returns the scene and the values in
    reading order (``None``: the wild)."""
    base = with_edition(random_scene(seed, "held-out", size), ed)
    rng = np.random.default_rng([seed, 0xCA1B])
    layouts = [r for r in LAYOUTS if on_board or 2 * max(r) - 1 <= 15]  # on the table: a gap between tiles
    rows = layouts[int(rng.integers(len(layouts)))]
    yaw = 90.0 * int(rng.integers(4)) + float(rng.uniform(-12, 12))
    s = base.square_mm
    step = 1 if on_board else 2
    span_c = (max(rows) - 1) * step
    span_r = (len(rows) - 1) * 2
    if on_board:
        half = base.outer_half()
        scene_half = half
        corners = np.array([[-half, -half, 0.0], [half, -half, 0.0], [half, half, 0.0], [-half, half, 0.0]])
    else:
        scene_half = 0.5 * (span_c + 3) * s
        corners = np.array([[x, y, 0.0] for x in (-scene_half, scene_half) for y in (-scene_half, scene_half)])
    cam = random_pov_camera(rng, scene_half, corners, size, yaw=yaw)
    h15 = 7.5 * s
    k = view_rotation(cam.project(np.array([[-h15, -h15, 0.0], [h15, -h15, 0.0], [h15, h15, 0.0], [-h15, h15, 0.0]])))
    to_board = _view_to_board(k)
    values: list[int | None] = [*range(16), None]
    tiles = []
    i = 0
    r0 = 7 - span_r // 2
    for j, n in enumerate(rows):
        c0 = 7 - span_c // 2
        for m in range(n):
            c, r = to_board[(c0 + m * step, r0 + 2 * j)]
            v = values[i]
            tiles.append(PovTile(square_name(c, r), 0 if v is None else v, v is None, k,
                                 float(rng.uniform(-4, 4)),
                                 (float(rng.uniform(-0.04, 0.04)), float(rng.uniform(-0.04, 0.04)))))
            i += 1
    sc = replace(base, tiles=tuple(tiles), camera=cam, board=on_board,
                 board_thickness_mm=base.board_thickness_mm if on_board else 0.0)
    return sc, values


def scene_stem(prefix: str, seed: int, sc: PovScene) -> str:
    """A cache file stem for ``sc``: a digest of its POV-Ray text (its lines sorted: the board's
    premium squares come from sets, whose order changes between runs) and post-processing."""
    from lab.render.povray.scene import scene_text

    pov = "\n".join(sorted(scene_text(sc).splitlines()))
    text = json.dumps({"v": RENDERER_VERSION, "pov": pov, "extras": sc.extras, "exp": sc.exposure,
                       "seed": seed, "size": [sc.camera.width, sc.camera.height]}, sort_keys=True)
    return f"{prefix}_{seed}_{hashlib.sha1(text.encode()).hexdigest()[:12]}"


def cached_render(sc: PovScene, seed: int, prefix: str, cache: str | Path | None) -> RenderedFrame:
    """``render_scene(sc, seed)``, kept in ``cache`` (a folder) under ``scene_stem``."""
    stem = scene_stem(prefix, seed, sc)
    return through_cache(cache, stem, lambda: render_scene(sc, seed))


def calibration_frame(seed: int, ed: TileEdition, on_board: bool, size: tuple[int, int] = (1280, 720),
                      cache: str | Path | None = None) -> RenderedFrame:
    """A calibration picture of ``ed`` (``calibration_scene``), labelled; ``labels["calibration"]``
    holds the values in reading order and where the tiles lie."""
    sc, values = calibration_scene(seed, ed, on_board, size)
    frame = cached_render(sc, seed, "triolet_b_calib", cache)
    frame.labels["calibration"] = {"values": values, "on_board": on_board}
    return frame


def edition_frame(seed: int, ed: TileEdition, size: tuple[int, int] = (1280, 720),
                  cache: str | Path | None = None) -> RenderedFrame:
    """The held-out table of ``seed`` drawn in edition ``ed`` (``edition_board_scene``), labelled."""
    return cached_render(edition_board_scene(seed, ed, size), seed, "triolet_b_ed", cache)
