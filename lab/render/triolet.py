"""Render a Triolet table: the board (T-B1, T-B2), raised tiles (T-B3), table, hands; exact labels."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.camera import CameraSpec
from lab.render.fonts import resolved_typeface
from lab.render.frame import RenderedFrame, r2
from lab.render.hands import HandSpec
from lab.render.look import LookSpec
from lab.render.stage import Stage, texture_to_world
from lab.render.styles import BOARD_SCHEMES, TILE_FINISHES, bgr
from lab.render.table import ClutterItem
from lab.render.triolet_board import board_outer_mm, board_texture, parse_square, rotate_square, square_name
from lab.render.triolet_legibility import confusable_values, face_marks, face_seen
from lab.render.triolet_tiles import tile_face

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: Board corners in labels, in this order: the outer corners of squares A1, O1, O15, A15.
BOARD_CORNER_NAMES = ("A1", "O1", "O15", "A15")


@dataclass(frozen=True)
class TilePlacement:
    """A tile on a square. ``rotation``: quarter turns clockwise (seen from above, board frame);
    ``askew_deg``: extra rotation; ``offset``: shift from the square centre in square pitches
    (board frame: +x toward column O, +y toward row 15). A wild's ``value`` is its declared value."""

    square: str
    value: int
    wild: bool = False
    rotation: int = 0
    askew_deg: float = 0.0
    offset: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class TrioletScene:
    """What lies on the table and how it is made (styles by name, see ``styles.py``)."""

    tiles: tuple[TilePlacement, ...] = ()
    board_scheme: str = "classic_green"
    square_mm: float = 24.0
    tile_ratio: float = 0.9  # tile side / square pitch
    tile_height_mm: float = 4.0
    board_thickness_mm: float = 3.0
    typeface: str = "geometric"
    tile_finish: str = "ivory"
    numeral_scale: float = 0.56
    star_outline: bool = False
    table: str = "wood_light"
    table_seed: int = 0
    clutter: tuple[ClutterItem, ...] = ()
    hands: tuple[HandSpec, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["tiles"] = [asdict(t) for t in self.tiles]
        out["clutter"] = [c.to_json() for c in self.clutter]
        out["hands"] = [h.to_json() for h in self.hands]
        return out


def square_centre_mm(scene: TrioletScene, square: str) -> tuple[float, float]:
    """World centre of a square (board centre = origin)."""
    c, r = parse_square(square)
    s = scene.square_mm
    return (c - 7) * s, (r - 7) * s


def tile_corners_mm(scene: TrioletScene, t: TilePlacement) -> F64:
    """Tile outline (4×2 mm) in the tile's own order: printed TL, TR, BR, BL."""
    cx, cy = square_centre_mm(scene, t.square)
    s = scene.square_mm
    cx += t.offset[0] * s
    cy += t.offset[1] * s
    a = math.radians(t.rotation * 90 + t.askew_deg)
    half = scene.tile_ratio * s / 2
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.asarray(local @ rot.T + np.array([cx, cy]))


def playing_corners_mm(scene: TrioletScene) -> F64:
    """Outer corners of A1, O1, O15, A15 (the playing area), world mm."""
    h = 7.5 * scene.square_mm
    return np.array([[-h, -h], [h, -h], [h, h], [-h, h]])


def view_rotation(corners_px: F64) -> int:
    """Index of the board corner (A1, O1, O15, A15) nearest the image's top-left (INTERFACES §3)."""
    return int(np.argmin(np.hypot(corners_px[:, 0], corners_px[:, 1])))


def render_triolet(scene: TrioletScene, camera: CameraSpec, look: LookSpec, rng: np.random.Generator,
                   cache: dict[Any, Any] | None = None) -> RenderedFrame:
    """Draw ``scene`` seen by ``camera`` under ``look``; labels are exact (see docs/RENDERER.md).

    ``cache`` (any dict kept between calls) reuses the hand-free picture when only hands move.
    """
    st = Stage(camera)
    key = (replace(scene, hands=()), camera, look)
    if cache is not None and key in cache:
        st.canvas = cache[key].copy()
    else:
        _draw_triolet(st, scene, camera, look, rng)
        if cache is not None:
            cache.clear()
            cache[key] = st.canvas.copy()
    occ = st.hands(list(scene.hands), look)
    image, masks = st.finish(look, rng, {"occluders": occ})
    labels = triolet_labels(scene, camera, look, masks["occluders"], resolved_typeface(scene.typeface))
    return RenderedFrame(image=image, labels=labels, masks=masks)


def _draw_triolet(st: Stage, scene: TrioletScene, camera: CameraSpec, look: LookSpec, rng: np.random.Generator
                  ) -> None:
    """Table, board and tiles (no hands) onto the stage canvas."""
    sc = BOARD_SCHEMES[scene.board_scheme]
    fin = TILE_FINISHES[scene.tile_finish]
    typeface = resolved_typeface(scene.typeface)
    s = scene.square_mm
    outer = board_outer_mm(scene.board_scheme, s)
    half = outer / 2
    outer_mm = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    z_table = scene.board_thickness_mm
    z_top = -scene.tile_height_mm

    # table, board shadow and sides
    tile_px_cache: dict[tuple[int | None, int], U8] = {}

    def loose_face(value: int | None, size: int) -> U8:
        key = (value, size)
        if key not in tile_px_cache:
            if value is None or value < 0:  # face-down tile: plain back
                f = tile_face(0, typeface, scene.tile_finish, size).copy()
                f[..., :3] = bgr(fin.side)
                tile_px_cache[key] = f
            else:
                tile_px_cache[key] = tile_face(value, typeface, scene.tile_finish, size)
        return tile_px_cache[key]

    st.background(look, rng)
    st.table(scene.table, scene.table_seed, z_table, look, list(scene.clutter), rng, half * 1.5, loose_face)
    st.shadow_on_table(outer_mm, scene.board_thickness_mm + 1.0, z_table, look)
    bb = bgr(sc.border)
    border_side = (0.75 * bb[0], 0.75 * bb[1], 0.75 * bb[2])
    st.prism_sides(outer_mm, z_table, 0.0, border_side, look)

    # board texture with tile shadows
    img_ppm = st.image_ppm(outer_mm, 0.0)
    ppm = float(np.clip(round(img_ppm * 1.25 * 4) / 4, 1.0, 8.0))
    base = board_texture(scene.board_scheme, s, ppm)
    n = base.shape[0]
    to_world = texture_to_world(n / outer, -half, -half)
    ppm_t = n / outer

    def mm_to_tex(p: F64) -> F64:
        return np.asarray((np.asarray(p) + half) * ppm_t, np.float64)

    board = base.astype(np.float32)
    if scene.tiles and look.shadow_strength > 0:
        sd = look.shadow_offset_dir()
        off = np.array([sd[0], sd[1]]) * scene.tile_height_mm
        sh = np.zeros((n, n), np.uint8)
        for t in scene.tiles:
            poly = mm_to_tex(tile_corners_mm(scene, t) + off)
            cv2.fillConvexPoly(sh, np.round(poly * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        k = max(3, int(ppm_t * scene.tile_height_mm * 0.9) | 1)
        shf = cv2.GaussianBlur(sh, (k, k), 0).astype(np.float32) / 255.0
        board *= (1 - look.shadow_strength * 0.75 * shf)[..., None]
    st.warp(np.clip(board, 0, 255).astype(np.uint8), to_world, 0.0)

    # tiles: sides then tops (one layer at the tiles' top height)
    tile_size = max(8, round(scene.tile_ratio * s * ppm_t))
    layer = np.zeros((n, n, 4), np.uint8)
    cam_xy = camera.position_mm()[:2]
    order = sorted(scene.tiles,
                   key=lambda t: -float(np.linalg.norm(np.array(square_centre_mm(scene, t.square)) - cam_xy)))
    for t in order:
        corners = tile_corners_mm(scene, t)
        st.prism_sides(corners, 0.0, z_top, bgr(fin.side), look)
        face = tile_face(None if t.wild else t.value, typeface, scene.tile_finish, tile_size, scene.numeral_scale,
                         scene.star_outline)
        dst = mm_to_tex(corners)
        src = np.array([[-0.5, -0.5], [tile_size - 0.5, -0.5], [tile_size - 0.5, tile_size - 0.5]], np.float32)
        m = cv2.getAffineTransform(src, dst[:3].astype(np.float32))
        x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(n, x1), min(n, y1)
        if x1 <= x0 or y1 <= y0:
            continue
        m[:, 2] -= (x0, y0)
        w = cv2.warpAffine(face, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        roi = layer[y0:y1, x0:x1]
        a = w[..., 3:4].astype(np.float32) / 255.0
        top = w[..., :3].astype(np.float32) * float(rng.uniform(0.95, 1.04))  # moulding / wear
        if rng.random() < fin.gloss * (0.3 + look.glare_chance()):
            top = sheen(top, rng, float(rng.uniform(0.15, 0.6)))
        roi[..., :3] = np.clip(roi[..., :3] * (1 - a) + top * a, 0, 255).astype(np.uint8)
        roi[..., 3] = np.maximum(roi[..., 3], w[..., 3])
    if scene.tiles:
        st.warp(layer[..., :3], to_world, z_top, layer[..., 3])


def sheen(img: NDArray[np.float32], rng: np.random.Generator, strength: float) -> NDArray[np.float32]:
    """A soft specular streak across a glossy surface patch (float BGR, any size)."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    d = (xx - cx) * np.cos(ang) + (yy - cy) * np.sin(ang)
    width = max(1.0, rng.uniform(0.08, 0.3) * max(w, h))
    spot = np.exp(-(d / width) ** 2).astype(np.float32) * strength
    return np.asarray(img + (255.0 - img) * spot[..., None], np.float32)


def _visible_fraction(poly_px: F64, occ: U8) -> float:
    h, w = occ.shape
    x0, y0 = np.floor(poly_px.min(axis=0)).astype(int)
    x1, y1 = np.ceil(poly_px.max(axis=0)).astype(int) + 1
    if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, np.round((poly_px - (x0, y0)) * 16).astype(np.int32), 255, cv2.LINE_8, 4)
    area = float((m > 0).sum())
    if area == 0:
        return 0.0
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    inside = m[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0] > 0
    vis = inside & (occ[cy0:cy1, cx0:cx1] == 0)
    return float(vis.sum()) / area


def triolet_labels(scene: TrioletScene, camera: CameraSpec, look: LookSpec, occ: U8, typeface: str
                   ) -> dict[str, Any]:
    """Exact truth for a rendered Triolet frame (format in docs/RENDERER.md)."""
    s = scene.square_mm
    corners = camera.project(playing_corners_mm(scene))
    outer = board_outer_mm(scene.board_scheme, s) / 2
    outer_px = camera.project(np.array([[-outer, -outer], [outer, -outer], [outer, outer], [-outer, outer]]))
    k = view_rotation(corners)
    view_corners = np.roll(corners, -k, axis=0)
    squares_to_world = np.array([[s, 0.0, -7.5 * s], [0.0, s, -7.5 * s], [0.0, 0.0, 1.0]])
    h0 = camera.plane_homography(0.0) @ squares_to_world
    ht = camera.plane_homography(-scene.tile_height_mm) @ squares_to_world
    cells = []
    view_cells = []
    w, h = camera.width, camera.height
    for t in scene.tiles:
        c, r = parse_square(t.square)
        cv, rv = rotate_square(c, r, k)
        tc = tile_corners_mm(scene, t)
        top = np.concatenate([tc, np.full((4, 1), -scene.tile_height_mm)], axis=1)
        px = camera.project(top)
        centre = camera.project(np.array([[*tc.mean(axis=0), -scene.tile_height_mm]]))[0]
        vis = _visible_fraction(px, occ)
        marks, confusable = 1.0, []
        if vis < 1.0:  # what of its marks is in view, and which other values those marks could be
            face = None if t.wild else t.value
            seen = face_seen(tc, -scene.tile_height_mm, camera, occ)
            ink = face_marks(typeface, scene.numeral_scale, scene.star_outline)[face].ink
            marks = float(seen[ink].mean()) if ink.any() else 1.0
            confusable = ["wild" if v is None else str(v) for v in
                          confusable_values(face, typeface, scene.numeral_scale, scene.star_outline, seen)]
        in_image = bool(0 <= centre[0] < w and 0 <= centre[1] < h)
        cells.append({
            "square": t.square, "value": t.value, "wild": t.wild, "square_view": square_name(cv, rv),
            "rotation": (t.rotation % 4) * 90, "rotation_view": ((t.rotation - k) % 4) * 90,
            "askew_deg": round(t.askew_deg, 3), "offset": [round(t.offset[0], 4), round(t.offset[1], 4)],
            "corners_px": r2(px), "center_px": r2(centre), "visible": round(vis, 4),
            "marks_visible": round(marks, 4), "marks_confusable": confusable, "in_image": in_image,
        })
        if in_image:  # what a reader can be asked for: tiles whose centre is in the picture
            view_cells.append({"square": square_name(cv, rv), "value": None if t.wild else t.value,
                               "wild": t.wild})
    view_cells.sort(key=lambda d: (int(str(d["square"])[1:]), str(d["square"])[0]))
    return {
        "game": "triolet",
        "image_size": [w, h],
        "board": {
            "corners_px": r2(corners),
            "corner_names": list(BOARD_CORNER_NAMES),
            "corners_px_view": r2(view_corners),
            "view_rotation": k,
            "outer_corners_px": r2(outer_px),
            "homography_squares_to_px": r2(h0 / h0[2, 2], 9),
            "homography_tile_tops_to_px": r2(ht / ht[2, 2], 9),
            "square_mm": s,
            "tile_height_mm": scene.tile_height_mm,
        },
        "cells": cells,
        "read": {"game": "triolet", "board": {"corners_px": r2(view_corners)}, "cells": view_cells},
        "style": {"board_scheme": scene.board_scheme, "typeface": scene.typeface, "typeface_drawn": typeface,
                  "tile_finish": scene.tile_finish, "table": scene.table, "light": look.light},
        "camera": camera.to_json(),
        "look": look.to_json(),
        "scene": scene.to_json(),
    }
