"""Random but plausible Triolet frames: a legal position, styles, camera, light (by seed)."""

from __future__ import annotations

from typing import Any

import numpy as np

from lab.render.difficulty import Difficulty, difficulty
from lab.render.frame import RenderedFrame
from lab.render.sampling import random_camera, random_clutter, random_hands, random_look, uni
from lab.render.styles import BOARD_SCHEMES, TABLE_SURFACES, TILE_FINISHES, TYPEFACES, StylePool
from lab.render.triolet import TilePlacement, TrioletScene, playing_corners_mm, render_triolet, square_centre_mm
from lab.render.triolet_board import board_outer_mm


def position_tiles(rng: np.random.Generator, n: int) -> tuple[list[tuple[str, int, bool]], dict[str, Any]]:
    """A legal position of about ``n`` tiles and where it came from: a simulated engine game,
    replayable from the returned ``play_game`` arguments."""
    from lab.sim.triolet_game import engine_position
    return engine_position(int(rng.integers(1 << 31)), n)


def _occupied(squares: set[str], c: int, r: int) -> bool:
    return 0 <= c < 15 and 0 <= r < 15 and f"{'ABCDEFGHIJKLMNO'[c]}{r + 1}" in squares


def random_triolet_scene(rng: np.random.Generator, diff: Difficulty, pool: StylePool,
                         tiles: list[tuple[str, int, bool]] | None = None) -> TrioletScene:
    """Styles, tile jitter, clutter (no hands: they need the camera)."""
    if tiles is None:
        tiles, _ = position_tiles(rng, int(rng.integers(diff.tiles[0], diff.tiles[1] + 1)))
    placed = []
    occupied = {sq for sq, _, _ in tiles}
    for sq, value, wild in tiles:
        turned = int(rng.integers(1, 4)) if rng.random() < diff.turned_prob else 0
        # keep neighbours from overlapping: shrink the offset toward an occupied neighbour
        col, row = "ABCDEFGHIJKLMNO".index(sq[0]), int(sq[1:]) - 1
        ox, oy = uni(rng, (-diff.offset, diff.offset)), uni(rng, (-diff.offset, diff.offset))
        if (ox > 0 and _occupied(occupied, col + 1, row)) or (ox < 0 and _occupied(occupied, col - 1, row)):
            ox *= 0.35
        if (oy > 0 and _occupied(occupied, col, row + 1)) or (oy < 0 and _occupied(occupied, col, row - 1)):
            oy *= 0.35
        placed.append(TilePlacement(sq, value, wild, turned, uni(rng, (-diff.askew_deg, diff.askew_deg)), (ox, oy)))
    scheme = pool.pick(rng, BOARD_SCHEMES, pool.boards)
    square_mm = uni(rng, (20.0, 27.0))
    return TrioletScene(
        tiles=tuple(placed), board_scheme=scheme, square_mm=square_mm, tile_ratio=uni(rng, (0.84, 0.94)),
        tile_height_mm=uni(rng, (2.5, 6.0)), board_thickness_mm=uni(rng, (1.5, 5.0)),
        typeface=pool.pick(rng, TYPEFACES, pool.typefaces), tile_finish=pool.pick(rng, TILE_FINISHES, pool.tiles),
        numeral_scale=uni(rng, (0.48, 0.64)), star_outline=bool(rng.random() < 0.3),
        table=pool.pick(rng, TABLE_SURFACES, pool.tables), table_seed=int(rng.integers(1 << 30)),
        clutter=tuple(random_clutter(rng, diff, board_outer_mm(scheme, square_mm) / 2, square_mm * 0.9)),
    )


def random_triolet_frame(seed: int, difficulty_name: str = "normal", pool: StylePool | None = None,
                         size: tuple[int, int] | None = None, **overrides: Any) -> RenderedFrame:
    """One random Triolet picture with labels, fully determined by ``seed``.

    ``overrides`` replace fields of the sampled ``TrioletScene`` (e.g. ``tiles=...``, ``hands=()``).
    """
    diff = difficulty(difficulty_name)
    pool = pool or StylePool()
    rng = np.random.default_rng(seed)
    tiles, source = position_tiles(rng, int(rng.integers(diff.tiles[0], diff.tiles[1] + 1)))
    scene = random_triolet_scene(rng, diff, pool, tiles)
    outer = board_outer_mm(scene.board_scheme, scene.square_mm)
    cam = random_camera(rng, diff, playing_corners_mm(scene), outer, size)
    look = random_look(rng, diff, pool)
    targets = [square_centre_mm(scene, t.square) for t in scene.tiles]
    hands = random_hands(rng, diff, targets, outer / 2, cam)
    scene = _replace(scene, hands=tuple(hands), **overrides)
    frame = render_triolet(scene, cam, look, rng)
    frame.labels["seed"] = seed
    frame.labels["difficulty"] = diff.name
    frame.labels["position"] = source
    return frame


def _replace(scene: TrioletScene, **kw: Any) -> TrioletScene:
    from dataclasses import replace
    return replace(scene, **kw)
