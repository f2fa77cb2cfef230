"""Render Triominos / Trio Domino tables: triangular tiles (numerals or pips) in lattice fields.

Field ``f`` has its own lattice (M-B2, D-B1) placed on the table at ``origin_mm`` and turned by
``angle_deg``; tiles sit in cells with small gaps and misalignments; labels give every tile's
centre and corners (with values) in pixels, its lattice cell and field.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.lattice import TriLattice
from lab.render.camera import CameraSpec
from lab.render.difficulty import Difficulty, difficulty
from lab.render.fonts import glyph_mask, resolved_typeface
from lab.render.frame import RenderedFrame, r2
from lab.render.hands import HandSpec
from lab.render.look import LookSpec
from lab.render.sampling import random_camera, random_clutter, random_hands, random_look, uni
from lab.render.stage import Stage, texture_to_world
from lab.render.styles import TABLE_SURFACES, StylePool, bgr, tile_game_typeface
from lab.render.table import ClutterItem

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]
LATTICE = TriLattice(up_parity=0)
SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class TriangleFace:
    """How tiles look: ``edition`` numbers|pips; colours RGB; ``value_colours`` one ink per value 0–5."""

    name: str
    face: tuple[int, int, int]
    ink: tuple[int, int, int]
    side: tuple[int, int, int]
    edition: str = "numbers"
    value_colours: tuple[tuple[int, int, int], ...] | None = None
    metal_dot: bool = False
    rim: bool = False
    grain: bool = False


_RAINBOW = ((0, 0, 0), (200, 40, 40), (40, 140, 60), (40, 80, 190), (230, 130, 20), (130, 50, 150))
TRIANGLE_FACES: dict[str, TriangleFace] = {f.name: f for f in [
    TriangleFace("ivory_numbers", (238, 232, 212), (25, 25, 25), (205, 196, 170)),
    TriangleFace("white_numbers_dot", (246, 246, 243), (20, 20, 30), (210, 210, 206), metal_dot=True),
    TriangleFace("cream_colour_numbers", (242, 228, 195), (0, 0, 0), (210, 190, 150), value_colours=_RAINBOW),
    TriangleFace("black_colour_numbers", (30, 30, 32), (0, 0, 0), (20, 20, 22),
                 value_colours=((240, 240, 240), (250, 80, 80), (90, 220, 110), (100, 160, 255), (255, 190, 40),
                                (220, 120, 255))),
    TriangleFace("ivory_rim_numbers", (236, 228, 205), (40, 30, 20), (200, 188, 160), rim=True, metal_dot=True),
    TriangleFace("white_pips", (245, 245, 240), (20, 20, 20), (210, 210, 205), edition="pips"),
    TriangleFace("ivory_colour_pips", (236, 230, 210), (0, 0, 0), (200, 192, 170), edition="pips",
                 value_colours=_RAINBOW),
    TriangleFace("black_white_pips", (28, 28, 30), (240, 240, 240), (18, 18, 20), edition="pips"),
]}

_WOOD_PIPS = ((0, 0, 0), (236, 232, 220), (30, 30, 34), (225, 165, 35), (55, 90, 175), (175, 35, 45))
#: Wooden editions (grained faces, pips whose colour follows the count), asked for by name only:
#: random frames draw from ``TRIANGLE_FACES``, so adding one here changes no benchmark picture.
WOODEN_FACES: dict[str, TriangleFace] = {f.name: f for f in [
    TriangleFace("walnut_colour_pips", (105, 62, 38), (0, 0, 0), (80, 45, 28), edition="pips",
                 value_colours=_WOOD_PIPS, grain=True),
    TriangleFace("oak_colour_pips", (170, 120, 70), (0, 0, 0), (130, 90, 50), edition="pips",
                 value_colours=_WOOD_PIPS, grain=True),
    TriangleFace("walnut_black_pips", (120, 75, 45), (20, 18, 16), (90, 55, 32), edition="pips", grain=True),
    TriangleFace("walnut_numbers", (110, 68, 40), (235, 225, 200), (85, 50, 30), grain=True),
]}


def face_style(name: str) -> TriangleFace:
    """The tile face called ``name`` (``TRIANGLE_FACES`` or ``WOODEN_FACES``)."""
    return TRIANGLE_FACES[name] if name in TRIANGLE_FACES else WOODEN_FACES[name]

#: Pip positions (unit offsets around a corner's pip centre) for 1–5 pips.
_PIPS = {0: [], 1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)]}


@lru_cache(maxsize=512)
def triangle_face(values: tuple[int, int, int], face_name: str, typeface: str, size: int) -> U8:
    """An upright tile top (apex up), BGRA ``size``×``size``; corner i (top, bottom-right,
    bottom-left) shows ``values[i]`` with its foot toward the centre."""
    f = face_style(face_name)
    m = size * 0.04
    h = (size - 2 * m) * SQRT3 / 2
    top = np.array([size / 2, (size - h) / 2])
    verts = np.array([top, top + np.array([(size - 2 * m) / 2, h]), top + np.array([-(size - 2 * m) / 2, h])])
    cen = verts.mean(axis=0)
    img = np.zeros((size, size, 3), np.float32)
    img[:] = bgr(f.face)
    if f.grain:  # wood grain: wavy light and dark streaks along one direction
        grng = np.random.default_rng(sum(values) * 7 + size)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
        ang = grng.uniform(0, math.pi)
        across = xx * math.cos(ang) + yy * math.sin(ang)
        wave = np.sin(across * grng.uniform(20, 45) + np.sin(yy * 6 + xx * 3) * grng.uniform(0.5, 2.0))
        img *= (1.0 + 0.12 * wave + 0.05 * grng.standard_normal((size, size)).astype(np.float32))[..., None]
    alpha = np.zeros((size, size), np.uint8)
    cv2.fillPoly(alpha, [np.round(verts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    # soften corners
    if size > 40:
        alpha = np.asarray(cv2.erode(alpha, np.ones((3, 3), np.uint8)), np.uint8)
    if f.rim:
        inner = cen + (verts - cen) * 0.9
        cv2.polylines(img, [np.round(inner * 16).astype(np.int32)], True, tuple(0.8 * v for v in bgr(f.face)),
                      max(1, round(size * 0.015)), cv2.LINE_AA, 4)
    for i, v in enumerate(values):
        corner = verts[i]
        d = cen - corner
        dist = float(np.linalg.norm(d))
        pos = corner + d / dist * dist * 0.42
        ink = np.array(bgr(f.value_colours[v] if f.value_colours else f.ink), np.float32)
        if f.edition == "pips":
            r = size * 0.037
            step = size * 0.068
            ang = math.atan2(d[1], d[0]) + math.pi / 2
            ca, sa = math.cos(ang), math.sin(ang)
            for px, py in _PIPS[v]:
                q = pos + np.array([ca * px * step - sa * py * step, sa * px * step + ca * py * step]) * 0.75
                cv2.circle(img, (round(q[0] * 16), round(q[1] * 16)), max(1, round(r * 16)),
                           tuple(float(c) for c in ink),
                           -1, cv2.LINE_AA, 4)
            continue
        g = glyph_mask(str(v), typeface, max(4, round(size * 0.23)))
        gh, gw = g.shape
        pad = max(gh, gw)
        patch = np.zeros((2 * pad, 2 * pad), np.uint8)
        patch[pad - gh // 2:pad - gh // 2 + gh, pad - gw // 2:pad - gw // 2 + gw] = g
        # the numeral's top points at its corner: rotate so "up" = direction centre → corner
        up = -d / dist
        angle = math.degrees(math.atan2(up[0], -up[1]))
        rot = cv2.getRotationMatrix2D((pad, pad), -angle, 1.0)
        rot[:, 2] += pos - pad
        a = cv2.warpAffine(patch, rot, (size, size)).astype(np.float32)[..., None] / 255.0
        img = img * (1 - a) + ink * a
    if f.metal_dot:
        cv2.circle(img, (round(cen[0] * 16), round(cen[1] * 16)), round(size * 0.045 * 16), (190, 190, 195), -1,
                   cv2.LINE_AA, 4)
        cv2.circle(img, (round((cen[0] - size * 0.012) * 16), round((cen[1] - size * 0.012) * 16)),
                   round(size * 0.015 * 16), (250, 250, 250), -1, cv2.LINE_AA, 4)
    return np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha])


def _patch_vertices(size: int) -> F64:
    m = size * 0.04
    h = (size - 2 * m) * SQRT3 / 2
    top = np.array([size / 2, (size - h) / 2])
    return np.array([top, top + np.array([(size - 2 * m) / 2, h]), top + np.array([-(size - 2 * m) / 2, h])])


@dataclass(frozen=True)
class TriangleTile:
    """A tile in ``field`` at lattice ``cell`` showing ``values`` (M-B3 order); jitter in mm/degrees."""

    field: int
    cell: tuple[int, int]
    values: tuple[int, int, int]
    shift_mm: tuple[float, float] = (0.0, 0.0)
    turn_deg: float = 0.0


@dataclass(frozen=True)
class FieldPose:
    """Where field ``f``'s lattice lies on the table: origin of cell (0, 0)'s apex, rotation."""

    origin_mm: tuple[float, float]
    angle_deg: float


@dataclass(frozen=True)
class TrianglesScene:
    """Tiles of Triominos / Trio Domino on a table."""

    game: str = "triominos"
    tiles: tuple[TriangleTile, ...] = ()
    fields: tuple[FieldPose, ...] = (FieldPose((0.0, 0.0), 0.0),)
    face: str = "ivory_numbers"
    typeface: str = "hershey_simplex"
    tile_mm: float = 25.0
    gap_mm: float = 0.8
    thickness_mm: float = 6.0
    table: str = "wood_light"
    table_seed: int = 0
    clutter: tuple[ClutterItem, ...] = ()
    hands: tuple[HandSpec, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["tiles"] = [asdict(t) for t in self.tiles]
        out["fields"] = [asdict(f) for f in self.fields]
        out["clutter"] = [c.to_json() for c in self.clutter]
        out["hands"] = [h.to_json() for h in self.hands]
        return out


def tile_vertices_mm(scene: TrianglesScene, t: TriangleTile) -> F64:
    """The tile's top corners (3×2 mm) in M-B3 order (apex first, clockwise)."""
    pitch = scene.tile_mm + scene.gap_mm * 2 / SQRT3
    pose = scene.fields[t.field]
    lat = np.array([LATTICE.vertex_xy(v, pitch) for v in LATTICE.vertices(t.cell)])
    cen = lat.mean(axis=0)
    verts = cen + (lat - cen) * (scene.tile_mm / pitch)
    a = math.radians(t.turn_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    verts = (verts - cen) @ rot.T + cen + np.array(t.shift_mm)
    b = math.radians(pose.angle_deg)
    rb = np.array([[math.cos(b), -math.sin(b)], [math.sin(b), math.cos(b)]])
    return np.asarray(verts @ rb.T + np.array(pose.origin_mm))


def render_triangles(scene: TrianglesScene, camera: CameraSpec, look: LookSpec, rng: np.random.Generator,
                     cache: dict[Any, Any] | None = None) -> RenderedFrame:
    """Draw ``scene`` seen by ``camera``; labels per tile (``cache`` as for Triolet)."""
    st = Stage(camera)
    verts = [tile_vertices_mm(scene, t) for t in scene.tiles]
    key = (replace(scene, hands=()), camera, look)
    if cache is not None and key in cache:
        st.canvas = cache[key].copy()
    else:
        _draw_triangles(st, scene, camera, look, rng, verts)
        if cache is not None:
            cache.clear()
            cache[key] = st.canvas.copy()
    occ = st.hands(list(scene.hands), look)
    image, masks = st.finish(look, rng, {"occluders": occ})
    labels = triangles_labels(scene, camera, look, masks["occluders"], verts)
    return RenderedFrame(image=image, labels=labels, masks=masks)


def _draw_triangles(st: Stage, scene: TrianglesScene, camera: CameraSpec, look: LookSpec, rng: np.random.Generator,
                    verts: list[F64]) -> None:
    """Table and tiles (no hands) onto the stage canvas."""
    typeface = resolved_typeface(scene.typeface)
    allv = np.concatenate(verts) if verts else np.zeros((1, 2))
    lo, hi = allv.min(axis=0) - 30, allv.max(axis=0) + 30
    st.background(look, rng)
    keep = float(np.abs(np.concatenate([lo, hi])).max())
    st.table(scene.table, scene.table_seed, 0.0, look, list(scene.clutter), rng, keep)
    z = -scene.thickness_mm
    if scene.tiles:
        box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        ppm = float(np.clip(round(st.image_ppm(box, z) * 1.25 * 4) / 4, 1.0, 8.0))
        w, h = math.ceil((hi[0] - lo[0]) * ppm), math.ceil((hi[1] - lo[1]) * ppm)
        ppm = min(ppm, 3000 / max(w, h) * ppm) if max(w, h) > 3000 else ppm
        w, h = math.ceil((hi[0] - lo[0]) * ppm), math.ceil((hi[1] - lo[1]) * ppm)
        # shadows on the table (drawn in the canvas via a table-level texture)
        sd = look.shadow_offset_dir()
        shadow = np.zeros((h, w), np.uint8)
        for v in verts:
            p = (v + np.array([sd[0], sd[1]]) * scene.thickness_mm - lo) * ppm
            cv2.fillConvexPoly(shadow, np.round(p * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
        k = max(3, int(ppm * scene.thickness_mm * 0.8) | 1)
        shadow = cv2.GaussianBlur(shadow, (k, k), 0)
        dark = np.zeros((h, w, 3), np.uint8)
        a_sh = (shadow.astype(np.float32) * look.shadow_strength * 0.8).astype(np.uint8)
        st.warp(dark, texture_to_world(ppm, lo[0], lo[1]), 0.0, a_sh)
        layer = np.zeros((h, w, 4), np.uint8)
        size = max(16, round(scene.tile_mm * ppm))
        pv = _patch_vertices(size)
        side_col = bgr(face_style(scene.face).side)
        cam_xy = camera.position_mm()[:2]
        order = sorted(range(len(scene.tiles)), key=lambda i: -float(np.linalg.norm(verts[i].mean(axis=0) - cam_xy)))
        for i in order:
            t, v = scene.tiles[i], verts[i]
            st.prism_sides(v, 0.0, z, side_col, look)
            face = triangle_face(t.values, scene.face, typeface, size)
            dst = (v - lo) * ppm
            m = cv2.getAffineTransform(pv.astype(np.float32), dst.astype(np.float32))
            x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
            x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 3
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            m[:, 2] -= (x0, y0)
            wp = cv2.warpAffine(face, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
            roi = layer[y0:y1, x0:x1]
            a = wp[..., 3:4].astype(np.float32) / 255.0
            roi[..., :3] = (roi[..., :3] * (1 - a) + wp[..., :3] * a).astype(np.uint8)
            roi[..., 3] = np.maximum(roi[..., 3], wp[..., 3])
        st.warp(layer[..., :3], texture_to_world(ppm, lo[0], lo[1]), z, layer[..., 3])


def triangles_labels(scene: TrianglesScene, camera: CameraSpec, look: LookSpec, occ: U8, verts: list[F64]
                     ) -> dict[str, Any]:
    """Exact truth for a rendered Triominos / Trio Domino frame."""
    from lab.render.triolet import _visible_fraction
    tiles = []
    read = []
    z = -scene.thickness_mm
    for t, v in zip(scene.tiles, verts, strict=True):
        p3 = np.concatenate([v, np.full((3, 1), z)], axis=1)
        px = camera.project(p3)
        cen = camera.project(np.array([[*v.mean(axis=0), z]]))[0]
        corners = [{"px": r2(px[i]), "value": int(t.values[i])} for i in range(3)]
        tiles.append({"field": t.field, "cell": list(t.cell), "values": list(t.values), "center_px": r2(cen),
                      "corners": corners, "visible": round(_visible_fraction(px, occ), 4),
                      "up": LATTICE.is_up(t.cell)})
        if 0 <= cen[0] < camera.width and 0 <= cen[1] < camera.height:
            read.append({"center_px": r2(cen), "corners": corners, "cell": list(t.cell), "field": t.field})
    # direction of each field's lattice "up" in the image (degrees, 0 = image up, clockwise)
    ups = []
    for f in scene.fields:
        o = np.array(f.origin_mm)
        b = math.radians(f.angle_deg)
        up = np.array([math.sin(b), -math.cos(b)]) * 30
        p = camera.project(np.array([o, o + up]))
        d = p[1] - p[0]
        ups.append(round(math.degrees(math.atan2(d[0], -d[1])), 2))
    return {
        "game": scene.game,
        "image_size": [camera.width, camera.height],
        "tiles": tiles,
        "fields": [{"origin_mm": list(f.origin_mm), "angle_deg": f.angle_deg, "up_in_image_deg": u}
                   for f, u in zip(scene.fields, ups, strict=True)],
        "read": {"game": scene.game, "tiles": read},
        "style": {"face": scene.face, "edition": face_style(scene.face).edition, "typeface": scene.typeface,
                  "table": scene.table, "light": look.light},
        "camera": camera.to_json(),
        "look": look.to_json(),
        "scene": scene.to_json(),
    }


Group = list[tuple[tuple[int, int], tuple[int, int, int]]]


def engine_fields(game: str, game_seed: int, n_tiles: int) -> tuple[list[Group], dict[str, Any] | None]:
    """Fields of a simulated legal game once about ``n_tiles`` tiles are down (``None`` source
    without the engine)."""
    try:
        from engine.core.registry import get_game
        get_game(game)
    except Exception:  # the engine may be missing
        return [], None
    from lab.sim.driver import play_game
    sim = play_game(game, game_seed, max_events=None)
    # cut the game where about n_tiles tiles lie on the table
    count, cut = 0, len(sim.steps)
    for i, st in enumerate(sim.steps):
        count += len(st.placed)
        if count >= n_tiles:
            cut = i + 1
            break
    board = sim.steps[cut - 1].board if cut else {"fields": []}
    groups: list[Group] = [[((int(t["cell"][0]), int(t["cell"][1])),
                             (int(t["values"][0]), int(t["values"][1]), int(t["values"][2]))) for t in f["tiles"]]
                           for f in board.get("fields", [])]
    return [g for g in groups if g], {"source": "engine", "game": game, "game_seed": game_seed, "events": cut}


def layout_fields(rng: np.random.Generator, groups: list[Group], pitch: float, tile_mm: float) -> list[FieldPose]:
    """Place each field on the table, turned at random, clear of the others."""
    poses: list[FieldPose] = []
    placed: list[tuple[float, float, float]] = []
    for group in groups:
        pts = np.array([LATTICE.centroid_xy(c, pitch) for c, _ in group])
        centre = pts.mean(axis=0)
        radius = float(np.linalg.norm(pts - centre, axis=1).max()) + tile_mm
        ang = uni(rng, (0, 360))
        origin = (0.0, 0.0)
        if placed:
            best_gap = -1e9
            for _ in range(40):
                phi = uni(rng, (0, 2 * math.pi))
                r = placed[0][2] + radius + uni(rng, (30, 120))
                cand = (r * math.cos(phi), r * math.sin(phi))
                g = min(math.hypot(cand[0] - x, cand[1] - y) - rr - radius for x, y, rr in placed)
                if g > best_gap:
                    origin, best_gap = cand, g
        b = math.radians(ang)
        rc = np.array([[math.cos(b), -math.sin(b)], [math.sin(b), math.cos(b)]]) @ centre
        poses.append(FieldPose((origin[0] - float(rc[0]), origin[1] - float(rc[1])), ang))
        placed.append((origin[0], origin[1], radius))
    return poses


def pick_face(rng: np.random.Generator, game: str, pool: StylePool) -> str:
    """A tile face: Trio Domino mostly pips, Triominos mostly numerals (D-B2, M-B1); held-out
    faces are never used (if a whole edition is held out, the other one is drawn)."""
    pips = rng.random() < (0.6 if game == "trio_domino" else 0.15)
    allowed = [f for f in (pool.faces if pool.faces is not None else TRIANGLE_FACES) if f not in pool.exclude]
    faces = [f for f in allowed if (TRIANGLE_FACES[f].edition == "pips") == pips] or allowed
    if not faces:
        raise ValueError("the style pool excludes every triangle face")
    return faces[int(rng.integers(len(faces)))]


def _shoot(rng: np.random.Generator, diff: Difficulty, pool: StylePool, scene: TrianglesScene, verts: F64,
           size: tuple[int, int] | None) -> tuple[CameraSpec, LookSpec, list[HandSpec]]:
    """A camera over the tiles (``verts``: every tile's corners, mm), the light and sensor look, and
    the hands reaching for the tiles, drawn from ``rng`` for ``diff``."""
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    ctr = (lo + hi) / 2
    foot = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    extent = float(max(hi - lo)) + 40
    cam = random_camera(rng, diff, foot, max(extent, 130.0), size)
    cam = replace(cam, target_mm=(cam.target_mm[0] + float(ctr[0]), cam.target_mm[1] + float(ctr[1])))
    look = random_look(rng, diff, pool)
    targets = [tuple(float(x) for x in v.mean(axis=0)) for v in (tile_vertices_mm(scene, t) for t in scene.tiles)]
    hands = random_hands(rng, diff, targets, extent / 2, cam)  # type: ignore[arg-type]
    return cam, look, list(hands)


def random_triangles_frame(game: str, seed: int, difficulty_name: str = "normal", pool: StylePool | None = None,
                           size: tuple[int, int] | None = None, **overrides: Any) -> RenderedFrame:
    """One random Triominos / Trio Domino picture with labels, determined by ``seed``."""
    from lab.sim.triangle_position import all_tiles, grow_field
    diff = difficulty(difficulty_name)
    pool = pool or StylePool()
    rng = np.random.default_rng(seed)
    total = int(rng.integers(max(4, diff.tiles[0]), min(45, diff.tiles[1] // 2) + 6))
    tile_mm = uni(rng, (23.0, 27.0))
    gap = uni(rng, (0.2, 1.8))
    jit = {"easy": (0.3, 1.0), "normal": (0.8, 2.5), "hard": (1.5, 4.0)}[diff.name]
    game_seed = int(rng.integers(1 << 31))
    groups, source = engine_fields(game, game_seed, total) if rng.random() < 0.6 else ([], None)
    if source is None:
        tiles_left = all_tiles()
        n_fields = 1 if game == "triominos" else int(rng.integers(1, 4))
        groups = [g for g in (grow_field(rng, max(3, total // n_fields), tiles_left) for _ in range(n_fields)) if g]
        source = {"source": "builtin"}
    fields = layout_fields(rng, groups, tile_mm + gap, tile_mm)
    tiles = [TriangleTile(f, cell, vals, (uni(rng, (-jit[0], jit[0])), uni(rng, (-jit[0], jit[0]))),
                          uni(rng, (-jit[1], jit[1])))
             for f, group in enumerate(groups) for cell, vals in group]
    scene = TrianglesScene(game=game, tiles=tuple(tiles), fields=tuple(fields), face=pick_face(rng, game, pool),
                           typeface=tile_game_typeface(rng, pool), tile_mm=tile_mm, gap_mm=gap,
                           thickness_mm=uni(rng, (5.0, 7.0)), table=pool.pick(rng, TABLE_SURFACES, pool.tables),
                           table_seed=int(rng.integers(1 << 30)))
    verts = np.concatenate([tile_vertices_mm(scene, t) for t in scene.tiles])
    half = float(np.abs(verts).max()) + 20
    scene = replace(scene, clutter=tuple(random_clutter(rng, diff, half, tile_mm, loose_tiles=False)))
    cam, look, hands = _shoot(rng, diff, pool, scene, verts, size)
    scene = replace(scene, hands=tuple(hands), **overrides)
    frame = render_triangles(scene, cam, look, rng)
    frame.labels["seed"] = seed
    frame.labels["difficulty"] = diff.name
    frame.labels["position"] = source
    return frame


def random_loose_frame(game: str, seed: int, difficulty_name: str = "normal", face: str | None = None,
                       table: str | None = None, size: tuple[int, int] | None = None) -> RenderedFrame:
    """A table of loose tiles (each its own field, D-B1: a player's next tile, the pile), sometimes
    beside one small field, determined by ``seed``; ``face`` / ``table`` by name (any of
    ``TRIANGLE_FACES``/``WOODEN_FACES``, ``TABLE_SURFACES``/``PRINTED_CLOTHS``) or drawn at random."""
    from lab.render.styles import PRINTED_CLOTHS
    from lab.sim.triangle_position import all_tiles, grow_field
    diff = difficulty(difficulty_name)
    pool = StylePool()
    rng = np.random.default_rng(seed)
    tiles_left = all_tiles()
    groups: list[Group] = []
    if rng.random() < 0.4:
        groups.append(grow_field(rng, int(rng.integers(3, 9)), tiles_left))
    for _ in range(int(rng.integers(3, 13))):
        if not tiles_left:
            break
        kind = tiles_left.pop(int(rng.integers(len(tiles_left))))
        turn = int(rng.integers(3))
        vals = (kind[turn % 3], kind[(turn + 1) % 3], kind[(turn + 2) % 3])
        groups.append([((0, 0) if rng.random() < 0.5 else (1, 0), vals)])
    groups = [g for g in groups if g]
    tile_mm = uni(rng, (23.0, 45.0))
    gap = uni(rng, (0.2, 1.5))
    fields = layout_fields(rng, groups, tile_mm + gap, tile_mm)
    fields = [replace(f, origin_mm=(f.origin_mm[0] * 0.5, f.origin_mm[1] * 0.5)) if len(g) == 1 else f
              for f, g in zip(fields, groups, strict=True)]
    tiles = [TriangleTile(f, cell, vals, (0.0, 0.0), uni(rng, (-2.0, 2.0)))
             for f, group in enumerate(groups) for cell, vals in group]
    faces = list(TRIANGLE_FACES) + list(WOODEN_FACES) * 2
    tables = list(TABLE_SURFACES) + list(PRINTED_CLOTHS) * 3
    scene = TrianglesScene(game=game, tiles=tuple(tiles), fields=tuple(fields),
                           face=face or faces[int(rng.integers(len(faces)))],
                           typeface=tile_game_typeface(rng, pool), tile_mm=tile_mm, gap_mm=gap,
                           thickness_mm=uni(rng, (4.0, 10.0)), table=table or tables[int(rng.integers(len(tables)))],
                           table_seed=int(rng.integers(1 << 30)))
    verts = np.concatenate([tile_vertices_mm(scene, t) for t in scene.tiles])
    cam, look, hands = _shoot(rng, diff, pool, scene, verts, size)
    frame = render_triangles(replace(scene, hands=tuple(hands)), cam, look, rng)
    frame.labels["seed"] = seed
    frame.labels["difficulty"] = diff.name
    frame.labels["position"] = {"source": "loose"}
    return frame
