"""Render a Blokus Trigon table: grey hexagon of recessed triangles (B-B1), start points (B-B4),
translucent coloured pieces with glare; labels per covered cell (B-B2 names)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.camera import CameraSpec
from lab.render.difficulty import Difficulty, difficulty
from lab.render.frame import RenderedFrame, r2
from lab.render.hands import HandSpec
from lab.render.look import LookSpec
from lab.render.sampling import random_camera, random_clutter, random_hands, random_look, uni
from lab.render.stage import Stage, texture_to_world
from lab.render.styles import TABLE_SURFACES, TRIGON_COLOURS, StylePool, bgr
from lab.render.table import ClutterItem
from lab.render.triolet import sheen
from vision.read.trigon.board_geometry import (
    START_POINTS,
    Cell,
    board_cells,
    cell_centre_mm,
    cell_name,
    cell_vertices_mm,
    hexagon_corners_mm,
    parse_cell,
    rotation_map,
)

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]
COLOURS = ("blue", "yellow", "red", "green")

#: Board looks: (plate, cell, ring for the 3-player board) in RGB.
TRIGON_BOARDS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]] = {
    "silver": ((190, 192, 196), (165, 168, 173), (120, 122, 128)),
    "grey_dark": ((120, 122, 126), (100, 102, 107), (70, 72, 76)),
    "pearl": ((215, 215, 212), (195, 196, 194), (150, 150, 150)),
    "blue_grey": ((160, 170, 185), (140, 150, 165), (100, 108, 125)),
}


@dataclass(frozen=True)
class TrigonScene:
    """Pieces on a Trigon board. ``pieces``: (colour, cell names in the variant's board frame).
    ``variant``: ``trigon`` (side 9) or ``trigon_3`` (side-8 naming, outer ring marked off)."""

    pieces: tuple[tuple[str, tuple[str, ...]], ...] = ()
    variant: str = "trigon"
    board_style: str = "silver"
    cell_mm: float = 21.0
    rim_mm: float = 14.0
    board_thickness_mm: float = 8.0
    piece_opacity: float = 0.72
    shade: int = 0  # which shade of each colour
    table: str = "wood_light"
    table_seed: int = 0
    clutter: tuple[ClutterItem, ...] = ()
    hands: tuple[HandSpec, ...] = ()

    @property
    def side(self) -> int:
        return 8 if self.variant == "trigon_3" else 9

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["pieces"] = [{"colour": c, "cells": list(cells)} for c, cells in self.pieces]
        out["clutter"] = [c.to_json() for c in self.clutter]
        out["hands"] = [h.to_json() for h in self.hands]
        return out


def _to_phys(cell: Cell, side: int) -> Cell:
    """A cell of the variant's board as a cell of the physical side-9 board."""
    return (cell[0] + 2, cell[1] + 1) if side == 8 else cell


def board_texture(scene: TrigonScene, ppm: float) -> tuple[U8, U8, float]:
    """The empty board (BGR), its coverage mask, and its half-size in mm (texture spans ``[-half, half]``)."""
    a = scene.cell_mm
    plate, cellc, ring = TRIGON_BOARDS[scene.board_style]
    hexr = 9 * a + scene.rim_mm * 2 / math.sqrt(3)
    half = hexr + 2
    n = round(2 * half * ppm)
    img = np.zeros((n, n, 3), np.uint8)

    def px(p: F64) -> NDArray[np.int32]:
        return np.round((p + half) * ppm * 16).astype(np.int32)

    hexo = hexagon_corners_mm(9, a) * (hexr / (9 * a))
    cv2.fillPoly(img, [px(hexo)], bgr(plate), cv2.LINE_AA, 4)
    alpha = np.zeros((n, n), np.uint8)
    cv2.fillPoly(alpha, [px(hexo)], 255, cv2.LINE_AA, 4)
    inner = {_to_phys(c, 8) for c in board_cells(8)}
    gap = 0.09 * a
    for c in board_cells(9):
        v = cell_vertices_mm(c, 9, a)
        cen = v.mean(axis=0)
        vi = cen + (v - cen) * (1 - 2 * gap / a * math.sqrt(3))
        col = cellc if (scene.side == 9 or c in inner) else ring
        cv2.fillPoly(img, [px(vi)], bgr(col), cv2.LINE_AA, 4)
        # recess: darker upper edge(s), lighter lower edge
        dark = tuple(int(x * 0.78) for x in bgr(col))
        light = tuple(min(255, int(x * 1.12) + 8) for x in bgr(col))
        th = max(1, round(gap * ppm * 0.6))
        for i in range(3):
            p, q = vi[i], vi[(i + 1) % 3]
            mid_y = (p[1] + q[1]) / 2 - cen[1]
            cv2.line(img, tuple(px(p)), tuple(px(q)), dark if mid_y < 0 else light, th, cv2.LINE_AA, 4)
    for s in START_POINTS[9]:
        cen = cell_centre_mm(parse_cell(s, 9), 9, a)
        cv2.circle(img, tuple(px(cen)), round(a * 0.16 * ppm * 16), (60, 60, 60), max(1, round(0.05 * a * ppm)),
                   cv2.LINE_AA, 4)
        cv2.circle(img, tuple(px(cen)), round(a * 0.06 * ppm * 16), (70, 70, 70), -1, cv2.LINE_AA, 4)
    return img, alpha, half


def render_trigon(scene: TrigonScene, camera: CameraSpec, look: LookSpec, rng: np.random.Generator,
                  cache: dict[Any, Any] | None = None) -> RenderedFrame:
    """Draw ``scene`` seen by ``camera``; labels per covered cell (``cache`` as for Triolet)."""
    st = Stage(camera)
    key = (replace(scene, hands=()), camera, look)
    if cache is not None and key in cache:
        st.canvas = cache[key].copy()
    else:
        _draw_trigon(st, scene, look, rng)
        if cache is not None:
            cache.clear()
            cache[key] = st.canvas.copy()
    occ = st.hands(list(scene.hands), look)
    image, masks = st.finish(look, rng, {"occluders": occ})
    labels = trigon_labels(scene, camera, look, masks["occluders"])
    return RenderedFrame(image=image, labels=labels, masks=masks)


def _draw_trigon(st: Stage, scene: TrigonScene, look: LookSpec, rng: np.random.Generator) -> None:
    """Table, board and pieces (no hands) onto the stage canvas."""
    a = scene.cell_mm
    side = scene.side
    hexr = 9 * a + scene.rim_mm * 2 / math.sqrt(3)
    hexo = hexagon_corners_mm(9, a) * (hexr / (9 * a))
    st.background(look, rng)
    st.table(scene.table, scene.table_seed, scene.board_thickness_mm, look, list(scene.clutter), rng, hexr * 1.1)
    st.shadow_on_table(hexo, scene.board_thickness_mm + 1, scene.board_thickness_mm, look)
    plate = bgr(TRIGON_BOARDS[scene.board_style][0])
    st.prism_sides(hexo, scene.board_thickness_mm, 0.0, (0.7 * plate[0], 0.7 * plate[1], 0.7 * plate[2]), look)
    ppm = float(np.clip(round(st.image_ppm(hexo, 0.0) * 1.25 * 4) / 4, 1.0, 8.0))
    base, alpha, half = board_texture(scene, ppm)
    n = base.shape[0]
    ppm_t = n / (2 * half)
    img = base.astype(np.float32)

    def px(p: F64) -> NDArray[np.int32]:
        return np.asarray(np.round((p + half) * ppm_t * 16), np.int32)

    # pieces: shadow, translucent fill, edge highlight
    sd = look.shadow_offset_dir()
    shadow = np.zeros((n, n), np.uint8)
    for _colour, cells in scene.pieces:
        for name in cells:
            v = cell_vertices_mm(_to_phys(parse_cell(name, side), side), 9, a)
            cv2.fillPoly(shadow, [px(v + np.array([sd[0], sd[1]]) * 2.0)], 255, cv2.LINE_AA, 4)
    k = max(3, int(ppm_t * 2) | 1)
    img *= (1 - look.shadow_strength * 0.5 * cv2.GaussianBlur(shadow, (k, k), 0).astype(np.float32) / 255.0)[..., None]
    for colour, cells in scene.pieces:
        shades = TRIGON_COLOURS[colour]
        col = np.array(bgr(shades[scene.shade % len(shades)]), np.float32)
        mask = np.zeros((n, n), np.uint8)
        for name in cells:
            v = cell_vertices_mm(_to_phys(parse_cell(name, side), side), 9, a)
            cen = v.mean(axis=0)
            v = cen + (v - cen) * 1.02
            cv2.fillPoly(mask, [px(v)], 255, cv2.LINE_AA, 4)
        x, y, w, h = cv2.boundingRect(mask)
        if w == 0:
            continue
        m = mask[y:y + h, x:x + w].astype(np.float32) / 255.0
        roi = img[y:y + h, x:x + w]
        see = roi * (0.35 + 0.65 * col / 255.0)  # the board seen through coloured plastic
        op = scene.piece_opacity
        tint: NDArray[np.float32] = np.asarray(see * (1 - op) + col * op * 0.85 + see * 0.15 * op, np.float32)
        if rng.random() < 0.35 + 0.5 * look.glare_chance():  # glossy plastic catches the light
            tint = sheen(tint, rng, float(rng.uniform(0.2, 0.7)))
        roi[:] = roi * (1 - m[..., None]) + tint * m[..., None]
        edge = cv2.morphologyEx(mask[y:y + h, x:x + w], cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        e = edge.astype(np.float32)[..., None] / 255.0 * 0.5
        roi[:] = roi * (1 - e) + np.minimum(255, col * 0.55) * e
    st.warp(np.clip(img, 0, 255).astype(np.uint8), texture_to_world(ppm_t, -half, -half), 0.0, alpha)


def view_rotation(camera: CameraSpec, scene: TrigonScene) -> int:
    """Which hexagon edge (0 top, then clockwise) is nearest the top of the image."""
    corners = hexagon_corners_mm(scene.side, scene.cell_mm)
    mids = np.array([(corners[i] + corners[(i + 1) % 6]) / 2 for i in range(6)])
    return int(np.argmin(camera.project(mids)[:, 1]))


def trigon_labels(scene: TrigonScene, camera: CameraSpec, look: LookSpec, occ: U8) -> dict[str, Any]:
    """Exact truth for a rendered Trigon frame."""
    side, a = scene.side, scene.cell_mm
    k = view_rotation(camera, scene)
    rot = rotation_map(side, k)
    cells = []
    view = []
    from lab.render.triolet import _visible_fraction
    for pi, (colour, names) in enumerate(scene.pieces):
        for name in names:
            c = parse_cell(name, side)
            v = cell_vertices_mm(_to_phys(c, side), 9, a)
            pxs = camera.project(v)
            cen = camera.project(v.mean(axis=0)[None, :])[0]
            vname = cell_name(rot[c], side)
            cells.append({"cell": name, "colour": colour, "piece": pi, "cell_view": vname, "corners_px": r2(pxs),
                          "center_px": r2(cen), "visible": round(_visible_fraction(pxs, occ), 4)})
            if 0 <= cen[0] < camera.width and 0 <= cen[1] < camera.height:
                view.append({"cell": vname, "colour": colour})
    hexc = camera.project(hexagon_corners_mm(side, a))
    return {
        "game": "trigon",
        "variant": scene.variant,
        "image_size": [camera.width, camera.height],
        "board": {"hexagon_px": r2(hexc), "hexagon_corner_order": "clockwise from the top-left corner (board frame)",
                  "view_rotation": k, "cell_mm": a, "side": side,
                  "start_points": list(START_POINTS[side])},
        "cells": cells,
        "read": {"game": "trigon", "cells": view},
        "style": {"board_style": scene.board_style, "table": scene.table, "light": look.light},
        "camera": camera.to_json(),
        "look": look.to_json(),
        "scene": scene.to_json(),
    }


def hidden_view_cells(labels: dict[str, Any], occluders: U8) -> set[str]:
    """The board's cells (view names, as in ``labels["read"]``) whose centre a hand or an arm
    covers in the picture, or that lie outside it: what the picture does not show."""
    side = int(labels["board"]["side"])
    a = float(labels["board"]["cell_mm"])
    cam = CameraSpec.from_json(labels["camera"])
    rot = rotation_map(side, int(labels["board"]["view_rotation"]))
    cells = board_cells(side)
    centres = np.array([cell_vertices_mm(_to_phys(c, side), 9, a).mean(axis=0) for c in cells])
    px = np.round(cam.project(centres)).astype(int)
    h, w = occluders.shape[:2]
    out = set()
    for c, (x, y) in zip(cells, px, strict=True):
        if not (0 <= x < w and 0 <= y < h) or occluders[y, x] > 0:
            out.add(cell_name(rot[c], side))
    return out


def engine_pieces(game_seed: int, variant: str, n_events: int
                  ) -> tuple[list[tuple[str, tuple[str, ...]]], dict[str, Any]]:
    """Pieces after ``n_events`` events of a simulated legal game, and how to replay it."""
    from lab.sim.driver import play_game
    sim = play_game("trigon", game_seed, max_events=n_events, variant=variant)
    pieces = [(str(p["colour"]), tuple(p["cells"])) for s in sim.steps for p in s.placed]
    return pieces, {"source": "engine", "game": "trigon", "game_seed": game_seed, "variant": variant,
                    "events": len(sim.steps)}


def random_trigon_frame(seed: int, difficulty_name: str = "normal", pool: StylePool | None = None,
                        size: tuple[int, int] | None = None, **overrides: Any) -> RenderedFrame:
    """One random Trigon picture with labels, determined by ``seed``."""
    diff: Difficulty = difficulty(difficulty_name)
    pool = pool or StylePool()
    rng = np.random.default_rng(seed)
    variant = "trigon_3" if rng.random() < 0.25 else "trigon"
    side = 8 if variant == "trigon_3" else 9
    n_pieces = int(rng.integers(max(1, diff.tiles[0] // 2), diff.tiles[1] // 2 + 2))
    pieces, source = engine_pieces(int(rng.integers(1 << 31)), variant, n_pieces)
    scene = TrigonScene(pieces=tuple(pieces), variant=variant,
                        board_style=pool.pick(rng, TRIGON_BOARDS, pool.trigon_boards),
                        cell_mm=uni(rng, (19.0, 23.0)), rim_mm=uni(rng, (8.0, 22.0)),
                        board_thickness_mm=uni(rng, (5.0, 12.0)), piece_opacity=uni(rng, (0.55, 0.85)),
                        shade=int(rng.integers(3)), table=pool.pick(rng, TABLE_SURFACES, pool.tables),
                        table_seed=int(rng.integers(1 << 30)))
    hexr = 9 * scene.cell_mm + scene.rim_mm
    scene = replace(scene, clutter=tuple(random_clutter(rng, diff, hexr, 20.0, loose_tiles=False)))
    hexo = hexagon_corners_mm(9, scene.cell_mm)
    cam = random_camera(rng, diff, hexo, 2 * hexr * 0.95, size)
    look = random_look(rng, diff, pool)
    targets = [tuple(cell_centre_mm(_to_phys(parse_cell(c, side), side), 9, scene.cell_mm))
               for _, cs in pieces for c in cs]
    hands = random_hands(rng, diff, targets, hexr * 0.8, cam)
    scene = replace(scene, hands=tuple(hands), **overrides)
    frame = render_trigon(scene, cam, look, rng)
    frame.labels["seed"] = seed
    frame.labels["difficulty"] = diff.name
    frame.labels["position"] = source
    return frame
