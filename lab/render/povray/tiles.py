"""Renderer B for triangle tiles: Triominos and Trio Domino tables ray-traced by POV-Ray
(``docs/RENDERER_B.md``, section "Triangle tiles").

A picture holds tiles as 3D triangular prisms (3–8 mm thick, rounded edges, sides and real
shadows), in lattice fields taken from a simulated legal game (``lab.render.triangles``: the same
fields, layout and truth format as the project's renderer) and lying loose (a player's next tile,
a small pile) at any rotation, in one of several **editions** (``EDITIONS``): plastic with printed
numerals (``faces.py`` typefaces; the held-out group only when asked for), wood with engraved
numerals, black pips, coloured pips on wood whose colour follows the count, white on dark. The
table is a cloth (``CLOTHS``: plain, light paper, wood, a busy printed oilcloth, checks); light is
a soft key light, sometimes a flash beside the lens, sometimes a low lamp that lights the table
unevenly; then sensor noise and JPEG. Tiles are 40–200 px a side in pictures of 0.8–12 MP.

``tiles_frame(seed, game, group, cache=DIR)`` → ``RenderedFrame``: ``image`` (BGR) and ``labels``
in the project renderer's format (``lab/render/triangles.py``), so ``lab.bench.read_others.compare_tiles``
scores a reading unchanged. ``labels["tiles"]``: per tile ``corners`` (3 × ``{"px": [x, y], "value": v}``,
the top face's corners clockwise in the picture from the lattice apex, M-B3), ``values``, ``center_px``,
``field`` (a number per lattice field; every loose tile is a field of its own), ``cell`` (M-B2; a
loose tile is cell ``[0, 0]`` of its own field), ``loose`` (true/false), ``visible`` (the share of
the top face inside the picture), ``up``. ``labels["style"]``: ``edition``, ``marking`` (``numerals``
or ``pips``), ``typeface`` (name, file, group; ``-`` for pips), ``cloth``, ``light``, ``tile_px``
(median top-face side in pixels), ``megapixels``.

Cache layout (``cache=DIR``, e.g. ``/work/cache/i54ren/``): a frame is ``DIR/tiles_b_<game>_<seed>_<digest>.jpg``
(the picture, JPEG quality 100 over the already JPEG-degraded image) and ``….json`` (its labels);
the digest covers game, seed, typeface group, size, quality and ``TILES_VERSION``. A picture is
fully determined by its game, seed and typeface group. ``cached_frames(DIR)`` lists what a folder
holds.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.frame import RenderedFrame, r2
from lab.render.povray.faces import Face, face_path, faces
from lab.render.povray.render import camera_looking_at, postprocess, run_povray, through_cache
from lab.render.povray.scene import _PRELUDE, _PRISM_UP, RGB, PovCamera, _esc, _m, _rgb, lights_text
from lab.render.triangles import (
    LATTICE,
    FieldPose,
    TrianglesScene,
    TriangleTile,
    engine_fields,
    layout_fields,
    tile_vertices_mm,
)

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]
#: A light: position (world mm), colour, area-light side (0: a point), fade distance (0: none).
Light = tuple[tuple[float, float, float], RGB, float, float]
#: Bumped when a change alters the pictures: part of the cache key.
TILES_VERSION = 1
GAMES = ("triominos", "trio_domino")


@dataclass(frozen=True)
class TileEdition:
    """How a set of tiles is made: ``body`` (``plastic`` or ``wood``) and colour(s), how marks are
    put on (``numerals`` or ``pips``; ``printed`` proud ink or ``engraved``/drilled and inked), ink
    colour(s) (one, or one per value 0–5: ``value_inks``), and which game it mostly serves."""

    name: str
    body: str
    colours: tuple[RGB, ...]
    marks: str
    cut: str
    inks: tuple[RGB, ...]
    value_inks: tuple[tuple[RGB, ...], ...] = ()
    games: tuple[str, ...] = GAMES


_WOODS: tuple[RGB, ...] = ((0.42, 0.26, 0.15), (0.55, 0.36, 0.2), (0.72, 0.55, 0.36), (0.32, 0.2, 0.12))
#: Pip colours by count 1–5 (index 0 unused: no pips), the way wooden tri-domino sets colour them.
PIP_PALETTES: tuple[tuple[RGB, ...], ...] = (
    ((0, 0, 0), (0.95, 0.93, 0.88), (0.1, 0.35, 0.2), (0.95, 0.72, 0.1), (0.15, 0.3, 0.75), (0.8, 0.12, 0.1)),
    ((0, 0, 0), (0.8, 0.1, 0.1), (0.1, 0.45, 0.15), (0.1, 0.25, 0.7), (0.95, 0.8, 0.1), (0.1, 0.1, 0.1)),
    ((0, 0, 0), (0.1, 0.1, 0.1), (0.85, 0.2, 0.15), (0.2, 0.5, 0.85), (0.2, 0.6, 0.25), (0.9, 0.55, 0.1)),
)
_NUMERAL_RAINBOW: tuple[RGB, ...] = ((0.1, 0.1, 0.1), (0.75, 0.12, 0.1), (0.1, 0.45, 0.2), (0.12, 0.25, 0.65),
                                     (0.85, 0.45, 0.05), (0.45, 0.15, 0.55))
EDITIONS: tuple[TileEdition, ...] = (
    TileEdition("plastic printed", "plastic", ((0.95, 0.92, 0.82), (0.97, 0.97, 0.96), (0.93, 0.88, 0.72)),
                "numerals", "printed", ((0.08, 0.08, 0.08), (0.1, 0.12, 0.3), (0.45, 0.08, 0.08)),
                (_NUMERAL_RAINBOW,), ("triominos",)),
    TileEdition("wood engraved", "wood", _WOODS, "numerals", "engraved",
                ((0.08, 0.05, 0.03), (0.9, 0.85, 0.7), (0.05, 0.05, 0.05)), (), ("triominos", "trio_domino")),
    TileEdition("black pips", "plastic", ((0.96, 0.96, 0.94), (0.94, 0.91, 0.82), (0.9, 0.86, 0.7)), "pips",
                "engraved", ((0.05, 0.05, 0.05),), (), ("trio_domino", "triominos")),
    TileEdition("coloured pips on wood", "wood", _WOODS, "pips", "engraved", (), PIP_PALETTES, ("trio_domino",)),
    TileEdition("white on dark", "plastic", ((0.13, 0.13, 0.15), (0.1, 0.14, 0.3), (0.3, 0.08, 0.08)),
                "numerals", "printed", ((0.95, 0.95, 0.9),), (), ("triominos", "trio_domino")),
    TileEdition("white pips on dark", "plastic", ((0.13, 0.13, 0.15), (0.08, 0.2, 0.12)), "pips", "engraved",
                ((0.95, 0.95, 0.9),), (), ("trio_domino",)),
)
#: Tablecloths: plain cloth, light paper, wood, a busy printed oilcloth, checks.
CLOTHS = ("plain", "paper", "wood", "oilcloth", "checks")
#: Picture sizes (a phone's 1–12 MP, 4:3, and 16:9 video) and how often each is drawn.
SIZES: tuple[tuple[int, int], ...] = ((1024, 768), (1280, 960), (1600, 1200), (1920, 1080), (2048, 1536),
                                      (4000, 3000))
SIZE_WEIGHTS = (0.3, 0.3, 0.17, 0.15, 0.06, 0.02)
#: Pip layouts: offsets in units of the pip pitch, ``u`` toward the corner, ``r`` across.
PIP_LAYOUTS: dict[str, dict[int, list[tuple[float, float]]]] = {
    "triangle": {0: [], 1: [(0, 0)], 2: [(0, -0.5), (0, 0.5)], 3: [(0.5, 0), (-0.5, -0.55), (-0.5, 0.55)],
                 4: [(1, 0), (0, -0.55), (0, 0.55), (-1, 0)],
                 5: [(1, 0), (0, -0.55), (0, 0.55), (-1, -1.1), (-1, 1.1)]},
    "dice": {0: [], 1: [(0, 0)], 2: [(-0.7, -0.7), (0.7, 0.7)], 3: [(-0.7, -0.7), (0, 0), (0.7, 0.7)],
             4: [(-0.7, -0.7), (0.7, -0.7), (-0.7, 0.7), (0.7, 0.7)],
             5: [(-0.7, -0.7), (0.7, -0.7), (0, 0), (-0.7, 0.7), (0.7, 0.7)]},
    "line": {0: [], 1: [(0, 0)], 2: [(0.5, 0), (-0.5, 0)], 3: [(1, 0), (0, 0), (-1, 0)],
             4: [(0.5, -0.5), (0.5, 0.5), (-0.5, -0.5), (-0.5, 0.5)],
             5: [(1, 0), (0, -0.55), (0, 0.55), (-1, -0.55), (-1, 0.55)]},
}


@dataclass(frozen=True)
class TileLook:
    """One picture's tile set, drawn from its edition: colours, typeface, mark sizes, geometry."""

    edition: str
    body: str
    colour: RGB
    marks: str
    cut: str
    inks: tuple[RGB, ...]  # per value 0–5
    face: Face | None
    pip_layout: str
    mark_size: float  # numeral cap height or pip pitch, / tile side
    mark_pos: float  # the mark's centre, along corner → centre (share of that distance)
    thickness_mm: float
    radius_mm: float
    gloss: float


@dataclass(frozen=True)
class TilesPovScene:
    """Everything renderer B draws for one tile picture: the tiles (``scene``: fields, loose tiles
    as one-tile fields), which fields are loose, the look, the cloth, camera and lights."""

    scene: TrianglesScene
    loose: tuple[bool, ...]  # per field
    look: TileLook
    cloth: str
    cloth_colours: tuple[RGB, ...]
    cloth_seed: int
    camera: PovCamera
    light: str  # soft | flash | lamp
    lights: tuple[Light, ...]
    ambient: float
    exposure: float
    extras: dict[str, float]


def _scaled(c: RGB, k: float) -> RGB:
    return (c[0] * k, c[1] * k, c[2] * k)


def _pick(rng: np.random.Generator, seq: Any) -> Any:
    return seq[int(rng.integers(len(seq)))]


def random_look(rng: np.random.Generator, game: str, group: str) -> TileLook:
    """A tile set for ``game``: an edition (numerals mostly for Triominos, pips mostly for Trio
    Domino), its colours, a typeface of ``group`` for numerals, sizes and geometry."""
    eds = [e for e in EDITIONS if game in e.games]
    weights = np.array([2.0 if e.games[0] == game else 1.0 for e in eds])
    ed = eds[int(rng.choice(len(eds), p=weights / weights.sum()))]
    colour = _pick(rng, ed.colours)
    if ed.value_inks and (not ed.inks or rng.random() < 0.4):
        inks = tuple(_pick(rng, ed.value_inks))
    else:
        ink = _pick(rng, ed.inks)
        inks = (ink,) * 6
    face = _pick(rng, faces(group)) if ed.marks == "numerals" else None
    wood = ed.body == "wood"
    return TileLook(
        edition=ed.name, body=ed.body, colour=colour, marks=ed.marks, cut=ed.cut, inks=inks, face=face,
        pip_layout=_pick(rng, tuple(PIP_LAYOUTS)),
        mark_size=float(rng.uniform(0.17, 0.24) if ed.marks == "numerals" else rng.uniform(0.065, 0.09)),
        mark_pos=float(rng.uniform(0.36, 0.46) if ed.marks == "numerals" else rng.uniform(0.42, 0.5)),
        thickness_mm=float(rng.uniform(3.0, 8.0)), radius_mm=float(rng.uniform(0.4, 1.6)),
        gloss=float(rng.uniform(0, 0.3) if wood else rng.uniform(0.2, 1.0)))


def _overlaps(poly: F64, others: list[F64], margin: float) -> bool:
    """Whether triangle ``poly`` (mm) comes within about ``margin`` of any of ``others``."""
    c = poly.mean(axis=0)
    grown = (c + (poly - c) * (1 + margin / max(1e-6, float(np.linalg.norm(poly[0] - c))))).astype(np.float32)
    for o in others:
        if float(np.linalg.norm(o.mean(axis=0) - c)) > 3 * float(np.linalg.norm(poly[0] - c)) + margin:
            continue
        area, _ = cv2.intersectConvexConvex(grown, o.astype(np.float32))
        if area > 0:
            return True
    return False


def _loose_poses(rng: np.random.Generator, n: int, placed: list[F64], tile_mm: float, spread: float,
                 pile: bool) -> list[FieldPose]:
    """Poses for ``n`` one-tile fields at any rotation, clear of ``placed`` (mm triangles, extended):
    scattered over about ``spread`` mm, or gathered in a small pile."""
    poses: list[FieldPose] = []
    centre = np.array(rng.uniform(-spread, spread, 2)) if pile else np.zeros(2)
    for _ in range(n):
        for _try in range(60):
            if pile:
                xy = centre + rng.normal(0, tile_mm * 0.9, 2)
            elif placed:
                base = placed[int(rng.integers(len(placed)))].mean(axis=0)
                ang = rng.uniform(0, 2 * math.pi)
                xy = base + rng.uniform(1.2, 4.0) * tile_mm * np.array([math.cos(ang), math.sin(ang)])
            else:
                xy = np.array(rng.uniform(-spread, spread, 2))
            pose = FieldPose((float(xy[0]), float(xy[1])), float(rng.uniform(0, 360)))
            tri = _one_tile_vertices(pose, tile_mm)
            if not _overlaps(tri, placed, rng.uniform(1.0, 6.0)):
                placed.append(tri)
                poses.append(pose)
                break
    return poses


def _one_tile_vertices(pose: FieldPose, tile_mm: float) -> F64:
    sc = TrianglesScene(tiles=(TriangleTile(0, (0, 0), (0, 0, 0)),), fields=(pose,), tile_mm=tile_mm, gap_mm=0.0)
    return tile_vertices_mm(sc, sc.tiles[0])


def random_tiles_scene(game: str, seed: int, group: str = "train", size: tuple[int, int] | None = None
                       ) -> TilesPovScene:
    """A random table of ``game`` tiles, fully determined by ``game``, ``seed`` and ``group``."""
    from lab.sim.triangle_position import all_tiles, grow_field, rotations

    if game not in GAMES:
        raise ValueError(f"unknown tile game {game!r}; choose {', '.join(GAMES)}")
    rng = np.random.default_rng([seed, GAMES.index(game), 0x7E1E])
    if size is None:
        size = SIZES[int(rng.choice(len(SIZES), p=np.array(SIZE_WEIGHTS)))]
    w, h = size
    tile_px = float(math.exp(rng.uniform(math.log(40), math.log(200))))
    look = random_look(rng, game, group)
    tile_mm = float(rng.uniform(22.0, 30.0))
    gap = float(rng.uniform(0.2, 1.8))
    # how many tiles fit: about a quarter of the picture covered by tile tops
    fit = int(np.clip(0.22 * w * h / (0.433 * tile_px ** 2), 3, 40))
    only_loose = rng.random() < 0.3
    groups: list[list[tuple[tuple[int, int], tuple[int, int, int]]]] = []
    if not only_loose:
        total = int(rng.integers(3, max(4, fit) + 1))
        if rng.random() < 0.6:
            groups, _ = engine_fields(game, int(rng.integers(1 << 31)), total)
        if not groups:
            pool = all_tiles()
            n_fields = 1 if game == "triominos" else int(rng.integers(1, 3))
            groups = [g for g in (grow_field(rng, max(2, total // n_fields), pool) for _ in range(n_fields)) if g]
    used = {tuple(sorted(v)) for g in groups for _, v in g}
    left = [t for t in all_tiles() if t not in used]
    n_loose = int(rng.integers(3, max(4, min(fit, 14)) + 1)) if only_loose else int(rng.integers(0, min(6, fit) + 1))
    n_loose = min(n_loose, len(left))
    poses = layout_fields(rng, groups, tile_mm + gap, tile_mm)
    tiles = [TriangleTile(f, cell, vals, tuple(rng.uniform(-0.6, 0.6, 2)), float(rng.uniform(-1.5, 1.5)))
             for f, g in enumerate(groups) for cell, vals in g]
    base = TrianglesScene(game=game, tiles=tuple(tiles), fields=tuple(poses), tile_mm=tile_mm, gap_mm=gap,
                          thickness_mm=look.thickness_mm)
    placed = [tile_vertices_mm(base, t) for t in tiles]
    pile = bool(rng.random() < 0.4)
    spread = float(tile_mm * (1.5 + math.sqrt(n_loose) * 1.5))
    loose_poses = _loose_poses(rng, n_loose, placed, tile_mm, spread, pile and not only_loose)
    pick = rng.permutation(len(left))[:len(loose_poses)]
    for k, pose in enumerate(loose_poses):
        vals = rotations(left[int(pick[k])])[int(rng.integers(3))]
        tiles.append(TriangleTile(len(poses), (0, 0), vals))
        poses.append(pose)
    scene = TrianglesScene(game=game, tiles=tuple(tiles), fields=tuple(poses), tile_mm=tile_mm, gap_mm=gap,
                           thickness_mm=look.thickness_mm, table="-", table_seed=0)
    loose = tuple([False] * len(groups) + [True] * len(loose_poses))
    verts = np.concatenate([tile_vertices_mm(scene, t) for t in scene.tiles])
    cam = _random_camera(rng, verts, tile_mm, tile_px, look.thickness_mm, size)
    cloth = _pick(rng, CLOTHS)
    cloth_colours = _cloth_colours(rng, cloth)
    light, lights = _random_lights(rng, cam, verts)
    return TilesPovScene(
        scene=scene, loose=loose, look=look, cloth=cloth, cloth_colours=cloth_colours,
        cloth_seed=int(rng.integers(1 << 30)), camera=cam, light=light, lights=lights,
        ambient=float(rng.uniform(0.05, 0.15)), exposure=float(rng.uniform(0.8, 1.15)),
        extras={"noise": float(rng.uniform(1.5, 7)), "jpeg": float(rng.uniform(65, 95)),
                "blur": float(rng.uniform(0, 1.0)), "vignette": float(rng.uniform(0, 0.35))})


def _random_camera(rng: np.random.Generator, verts: F64, tile_mm: float, tile_px: float, thickness: float,
                   size: tuple[int, int]) -> PovCamera:
    """A phone 0–50° from straight above at the height that makes tiles about ``tile_px`` a side,
    every tile in the picture (farther when they would not fit)."""
    w, h = size
    hfov = float(rng.uniform(50, 72))
    f = 0.5 * w / math.tan(math.radians(hfov) / 2)
    tilt, yaw, roll = float(rng.uniform(0, 50)), float(rng.uniform(-180, 180)), float(rng.uniform(-5, 5))
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    target = np.array([*((lo + hi) / 2 + rng.uniform(-0.1, 0.1, 2) * (hi - lo)), 0.0])
    top = np.concatenate([verts, np.full((len(verts), 1), -thickness)], axis=1)
    dist = f * tile_mm / tile_px
    cam = camera_looking_at(target, tilt, yaw, roll, dist, f, size)
    for _ in range(3):  # the tiles' median side in the picture → tile_px
        px = cam.project(top).reshape(-1, 3, 2)
        side = float(np.median(np.linalg.norm(px - np.roll(px, 1, axis=1), axis=2)))
        dist *= side / tile_px
        cam = camera_looking_at(target, tilt, yaw, roll, dist, f, size)
    m = 0.03 * min(w, h)
    for _ in range(60):
        px = cam.project(top)
        if px[:, 0].min() > m and px[:, 1].min() > m and px[:, 0].max() < w - m and px[:, 1].max() < h - m:
            break
        dist *= 1.06
        target[:2] = target[:2] * 0.9 + 0.1 * (lo + hi) / 2
        cam = camera_looking_at(target, tilt, yaw, roll, dist, f, size)
    return cam


def _cloth_colours(rng: np.random.Generator, cloth: str) -> tuple[RGB, ...]:
    def c(lo: float, hi: float) -> RGB:
        return (float(rng.uniform(lo, hi)), float(rng.uniform(lo, hi)), float(rng.uniform(lo, hi)))
    if cloth == "paper":
        v = float(rng.uniform(0.8, 0.95))
        return ((v, v * float(rng.uniform(0.93, 1.0)), v * float(rng.uniform(0.88, 1.0))),)
    if cloth == "oilcloth":
        return (c(0.75, 0.95), c(0.5, 0.85), c(0.2, 0.7), c(0.1, 0.5), c(0.3, 0.9))
    if cloth == "checks":
        return (c(0.75, 0.95), c(0.1, 0.7))
    if cloth == "wood":
        return (_pick(rng, ((0.55, 0.36, 0.2), (0.7, 0.55, 0.38), (0.35, 0.22, 0.12), (0.8, 0.7, 0.55))),)
    return (c(0.15, 0.85),)


def cloth_texture(sc: TilesPovScene, px: int = 512) -> U8:
    """The printed cloth as a seamless BGR picture: oilcloth (dots, blobs and flowers on a light
    ground) or checks (gingham); plain cloths get their colour with a little weave."""
    rng = np.random.default_rng(sc.cloth_seed)
    col = [tuple(int(255 * v) for v in c[::-1]) for c in sc.cloth_colours]
    img = np.zeros((px, px, 3), np.uint8)
    img[:] = col[0]
    if sc.cloth == "checks":
        n = int(rng.integers(4, 10))
        band = px // (2 * n)
        a = np.zeros((px, px), np.float32)
        idx = (np.arange(px) // band) % 2 == 0
        a[idx, :] += 0.5
        a[:, idx] += 0.5
        c1 = np.array(col[1], np.float32)
        img = (img.astype(np.float32) * (1 - a[..., None]) + c1 * a[..., None]).astype(np.uint8)
    elif sc.cloth == "oilcloth":
        big = np.zeros((3 * px, 3 * px, 3), np.uint8)
        big[:] = col[0]
        step = int(rng.integers(24, 48))  # dots on a grid
        for y in range(0, 3 * px, step):
            for x in range(0, 3 * px, step):
                off = step // 2 if (y // step) % 2 else 0
                cv2.circle(big, (x + off, y), max(2, step // 9), col[1], -1, cv2.LINE_AA)
        for _ in range(int(rng.integers(6, 16))):  # flowers and blobs, drawn in all nine copies
            cx, cy = (int(v) for v in rng.integers(0, px, 2))
            kind = int(rng.integers(3))
            r = int(rng.integers(px // 20, px // 7))
            colour = col[int(rng.integers(2, 5))]
            leaf = col[int(rng.integers(2, 5))]
            petals = int(rng.integers(5, 8))
            for dx in (0, px, 2 * px):
                for dy in (0, px, 2 * px):
                    x0, y0 = cx + dx, cy + dy
                    if kind == 0:  # a flower: petals round a heart
                        for k in range(petals):
                            t = 2 * math.pi * k / petals
                            cv2.ellipse(big, (int(x0 + r * 0.6 * math.cos(t)), int(y0 + r * 0.6 * math.sin(t))),
                                        (r // 2, r // 4), math.degrees(t), 0, 360, colour, -1, cv2.LINE_AA)
                        cv2.circle(big, (x0, y0), r // 4, leaf, -1, cv2.LINE_AA)
                    elif kind == 1:  # a fruit-like blob with leaves
                        cv2.ellipse(big, (x0, y0), (r, int(r * 0.8)), 20, 0, 360, colour, -1, cv2.LINE_AA)
                        cv2.ellipse(big, (x0 + r, y0 - r // 2), (r // 2, r // 5), -30, 0, 360, leaf, -1, cv2.LINE_AA)
                        cv2.ellipse(big, (x0 - r // 2, y0 - r), (r // 2, r // 5), 60, 0, 360, leaf, -1, cv2.LINE_AA)
                    else:  # a spray of small dots
                        for _k in range(12):
                            q = (x0 + int((k0 := (_k * 37) % 23 - 11) * r / 11), y0 + int(((_k * 53) % 19 - 9) * r / 9))
                            cv2.circle(big, q, max(2, r // 8), colour if k0 % 2 else leaf, -1, cv2.LINE_AA)
        img = big[px:2 * px, px:2 * px].copy()
    return img


def _random_lights(rng: np.random.Generator, cam: PovCamera, verts: F64) -> tuple[str, tuple[Light, ...]]:
    """A soft key light always; a flash beside the lens, or a low lamp off to one side (light
    that fades across the table), or neither."""
    warm = float(rng.uniform(0, 1))
    col = (1.0, 0.96 - 0.08 * warm, 0.92 - 0.18 * warm)
    az = float(rng.uniform(0, 2 * math.pi))
    elev = math.radians(float(rng.uniform(35, 80)))
    d = float(rng.uniform(900, 1600))
    k = float(rng.uniform(0.55, 0.9))
    key = (d * math.cos(elev) * math.cos(az), d * math.cos(elev) * math.sin(az), -d * math.sin(elev))
    area = float(rng.uniform(80, 400))
    kind = str(_pick(rng, ("soft", "flash", "lamp")))
    if kind == "flash":
        k *= 0.5
    lights: list[Light] = [(key, (col[0] * k, col[1] * k, col[2] * k), area, 0.0)]
    if kind == "flash":
        p = np.array(cam.position) + np.array(cam.right) * float(rng.uniform(-15, 15)) \
            + np.array(cam.down) * float(rng.uniform(-15, 15))
        s = float(rng.uniform(0.5, 0.9))
        lights.append(((float(p[0]), float(p[1]), float(p[2])), (s, s, s * 0.97), 0.0, 0.0))
    elif kind == "lamp":
        c = verts.mean(axis=0)
        span = float(np.ptp(verts, axis=0).max()) + 100
        a = rng.uniform(0, 2 * math.pi)
        pos = (float(c[0] + span * math.cos(a)), float(c[1] + span * math.sin(a)), -float(rng.uniform(150, 400)))
        s = float(rng.uniform(1.2, 2.0))
        lights.append((pos, (s, s * 0.9, s * 0.75), float(rng.uniform(20, 60)), float(span * 0.7)))
    lights.append(((0.0, 0.0, -2500.0), (0.12, 0.12, 0.12), 0.0, 0.0))
    return kind, tuple(lights)


def _rounded_outline(tri: F64, r: float, steps: int = 5) -> list[tuple[float, float]]:
    """The outline of triangle ``tri`` (the inner one) grown by ``r`` with round corners."""
    out: list[tuple[float, float]] = []
    n = len(tri)
    e1, e2 = tri[1] - tri[0], tri[2] - tri[0]
    area = 0.5 * float(e1[0] * e2[1] - e1[1] * e2[0])
    sgn = 1.0 if area > 0 else -1.0
    for i in range(n):
        p, a, b = tri[i], tri[i - 1], tri[(i + 1) % n]
        e_in, e_out = p - a, b - p
        n_in = sgn * np.array([e_in[1], -e_in[0]]) / np.linalg.norm(e_in)
        n_out = sgn * np.array([e_out[1], -e_out[0]]) / np.linalg.norm(e_out)
        t0, t1 = math.atan2(n_in[1], n_in[0]), math.atan2(n_out[1], n_out[0])
        dt = (t1 - t0 + math.pi) % (2 * math.pi) - math.pi
        for k in range(steps + 1):
            t = t0 + dt * k / steps
            out.append((float(p[0] + r * math.cos(t)), float(p[1] + r * math.sin(t))))
    return out


def _prism(outline: list[tuple[float, float]], z0: float, z1: float) -> str:
    """A vertical prism over ``outline`` (world X, Y) from height ``z0`` to ``z1`` mm above the table."""
    pts = [*outline, outline[0]]
    return (f"prism {{ linear_sweep linear_spline {z0:.4f}, {z1:.4f}, {len(pts)}, "
            + ", ".join(f"<{x:.4f}, {y:.4f}>" for x, y in pts) + f" {_m(_PRISM_UP, np.zeros(3))} }}")


def _mark_frame(corner: F64, centre: F64, pos: float) -> tuple[F64, F64, F64]:
    """Where a corner's mark sits (X, Y), its up (toward the corner) and its right, world units."""
    d = corner - centre
    up = d / np.linalg.norm(d)
    right = np.array([-up[1], up[0]])
    return corner - d * pos, up, right


def _tile_marks(sc: TilesPovScene, verts: F64, values: tuple[int, int, int], z_face: float, depth: float) -> list[str]:
    """The marks of one tile (POV objects with their ink), for each corner its numeral or pips."""
    lk = sc.look
    side = float(np.mean(np.linalg.norm(verts - np.roll(verts, 1, axis=0), axis=1)))
    centre = verts.mean(axis=0)
    out = []
    for corner, v in zip(verts, values, strict=True):
        ink = f"texture {{ pigment {{ {_rgb(lk.inks[v])} }} finish {{ diffuse 0.7 specular 0.15 }} }}"
        at, up, right = _mark_frame(corner, centre, lk.mark_pos)
        if lk.marks == "numerals":
            assert lk.face is not None
            font = _esc(face_path(lk.face) or Path("cyrvetic.ttf"))
            a = np.array([[right[0], up[0], 0.0], [right[1], up[1], 0.0], [0.0, 0.0, 1.0]])
            hgt = lk.mark_size * side
            out.append(f'object {{ Label("{font}", "{v}", {depth:.3f}, {hgt:.3f}, {0.8 * hgt:.3f}) '
                       f"{_m(a, np.array([at[0], at[1], z_face]))} {ink} }}")
        else:
            pitch = lk.mark_size * side * 1.6
            rad = lk.mark_size * side * 0.5
            for du, dr in PIP_LAYOUTS[lk.pip_layout][v]:
                q = at + up * du * pitch + right * dr * pitch
                out.append(f"cylinder {{ <{q[0]:.3f}, {q[1]:.3f}, {z_face:.3f}>, "
                           f"<{q[0]:.3f}, {q[1]:.3f}, {z_face + depth:.3f}>, {rad:.3f} {ink} }}")
    return out


def _tile_text(sc: TilesPovScene, t: TriangleTile, k: int) -> str:
    """One tile: a triangular prism with rounded edges, its marks printed on or cut in."""
    lk = sc.look
    verts = tile_vertices_mm(sc.scene, t)
    th, r = lk.thickness_mm, lk.radius_mm
    c = verts.mean(axis=0)
    inr = float(np.linalg.norm(verts[0] - c)) / 2  # an equilateral triangle's inradius
    inner = c + (verts - c) * max(0.5, (inr - r) / inr)
    body_parts = [_prism(_rounded_outline(inner, r), 0.0, th - r), _prism([tuple(p) for p in inner], th - r, th)]
    for i in range(3):
        a, b = inner[i], inner[(i + 1) % 3]
        body_parts.append(f"cylinder {{ <{a[0]:.4f}, {a[1]:.4f}, {-(th - r):.4f}>, "
                          f"<{b[0]:.4f}, {b[1]:.4f}, {-(th - r):.4f}>, {r:.4f} }}")
        body_parts.append(f"sphere {{ <{a[0]:.4f}, {a[1]:.4f}, {-(th - r):.4f}>, {r:.4f} }}")
    if lk.body == "wood":
        rng = np.random.default_rng([sc.cloth_seed, k])
        c2 = _scaled(lk.colour, 0.7)
        pig = (f"pigment {{ wood turbulence {rng.uniform(0.03, 0.12):.3f} colour_map {{ [0 {_rgb(lk.colour)}] "
               f"[0.7 {_rgb(c2)}] [1 {_rgb(lk.colour)}] }} scale {rng.uniform(1.5, 4):.2f} "
               f"rotate <{rng.uniform(80, 100):.1f}, 0, {rng.uniform(0, 360):.1f}> "
               f"translate <{rng.uniform(0, 100):.1f}, {rng.uniform(0, 100):.1f}, 0> }}")
    else:
        pig = f"pigment {{ {_rgb(lk.colour)} }}"
    g = lk.gloss
    fin = (f"finish {{ diffuse 0.75 specular {0.1 + 0.7 * g:.3f} roughness {0.05 - 0.045 * g:.4f} "
           f"reflection {{ {0.01 + 0.05 * g:.3f} }} }}")
    body = "union { " + "\n  ".join(body_parts) + f" {pig} {fin} }}"
    if lk.cut == "engraved":
        # engraved numerals are cut 0.6 mm deep; drilled pips are filled with paint nearly flush
        marks = _tile_marks(sc, verts, t.values, -th - 0.05, 0.6 if lk.marks == "numerals" else 0.3)
        return f"difference {{ {body}\n  " + "\n  ".join(marks) + " }"
    marks = _tile_marks(sc, verts, t.values, -th - 0.025, 0.03)
    return f"union {{ {body}\n  " + "\n  ".join(marks) + " }"


def _cloth_text(sc: TilesPovScene) -> str:
    fin = "finish { diffuse 0.8 specular 0.05 roughness 0.05 }"
    kind = sc.cloth
    if kind == "wood":
        c = sc.cloth_colours[0]
        pig = (f"pigment {{ wood turbulence 0.1 colour_map {{ [0 {_rgb(c)}] [0.6 {_rgb(_scaled(c, 0.8))}] "
               f"[1 {_rgb(_scaled(c, 0.65))}] }} scale 14 rotate <0, 90, {sc.cloth_seed % 180}> }}")
        return f"plane {{ z, 0 {pig} finish {{ diffuse 0.8 specular 0.15 roughness 0.03 }} }}"
    if kind in ("oilcloth", "checks"):
        scale = 160 + sc.cloth_seed % 160 if kind == "oilcloth" else 60 + sc.cloth_seed % 120
        pig = (f'pigment {{ image_map {{ png "cloth.png" interpolate 2 }} scale <{scale}, {scale}, 1> '
               f"rotate <0, 0, {sc.cloth_seed % 90}> }}")
        nor = "normal { wrinkles 0.25 scale 60 }" if kind == "oilcloth" else "normal { bumps 0.1 scale 0.6 }"
        spec = "finish { diffuse 0.8 specular 0.3 roughness 0.02 }" if kind == "oilcloth" else fin
        return f"plane {{ z, 0 {pig} {nor} {spec} }}"
    nor = "normal { granite 0.04 scale 3 }" if kind == "paper" else "normal { bumps 0.15 scale 0.5 }"
    return f"plane {{ z, 0 pigment {{ {_rgb(sc.cloth_colours[0])} }} {nor} {fin} }}"


def tiles_scene_text(sc: TilesPovScene) -> str:
    """The whole ``.pov`` file for ``sc`` (it reads ``cloth.png`` for printed cloths)."""
    parts = [_PRELUDE, f"#default {{ finish {{ ambient {sc.ambient:.3f} diffuse 0.8 }} }}", sc.camera.pov(),
             lights_text(sc.lights, samples=3), _cloth_text(sc)]
    parts += [_tile_text(sc, t, k) for k, t in enumerate(sc.scene.tiles)]
    return "\n".join(parts) + "\n"


def _in_picture(px: F64, w: int, h: int) -> float:
    """The share of triangle ``px``'s area inside the picture."""
    tri = px.astype(np.float32)
    full = abs(float(cv2.contourArea(tri)))
    if full <= 0:
        return 0.0
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inter, _ = cv2.intersectConvexConvex(tri, frame)
    return float(np.clip(inter / full, 0.0, 1.0))


def tiles_labels(sc: TilesPovScene, seed: int) -> dict[str, Any]:
    """Exact truth in the project renderer's tile format (``lab.render.triangles.triangles_labels``),
    with ``loose`` per tile and the look in ``style``."""
    cam = sc.camera
    w, h = cam.width, cam.height
    z = -sc.look.thickness_mm
    tiles, read, sides = [], [], []
    for t in sc.scene.tiles:
        v = tile_vertices_mm(sc.scene, t)
        px = cam.project(np.concatenate([v, np.full((3, 1), z)], axis=1))
        cen = cam.project(np.array([[*v.mean(axis=0), z]]))[0]
        sides += [float(np.linalg.norm(px[i] - px[i - 1])) for i in range(3)]
        corners = [{"px": r2(px[i]), "value": int(t.values[i])} for i in range(3)]
        loose = bool(sc.loose[t.field])
        tiles.append({"field": t.field, "cell": list(t.cell), "values": list(t.values), "center_px": r2(cen),
                      "corners": corners, "visible": round(_in_picture(px, w, h), 4), "up": LATTICE.is_up(t.cell),
                      "loose": loose})
        if 0 <= cen[0] < w and 0 <= cen[1] < h:
            read.append({"center_px": r2(cen), "corners": corners, "cell": list(t.cell), "field": t.field})
    lk = sc.look
    face = lk.face
    return {
        "game": sc.scene.game, "renderer": "povray", "seed": seed, "image_size": [w, h],
        "tiles": tiles,
        "fields": [{"origin_mm": list(f.origin_mm), "angle_deg": f.angle_deg, "loose": lo}
                   for f, lo in zip(sc.scene.fields, sc.loose, strict=True)],
        "read": {"game": sc.scene.game, "tiles": read},
        "style": {"edition": lk.edition, "marking": lk.marks, "cut": lk.cut, "body": lk.body,
                  "typeface": face.name if face else "-", "typeface_file": face.file if face else "-",
                  "typeface_group": face.group if face else "-", "pip_layout": lk.pip_layout if lk.marks == "pips"
                  else "-", "thickness_mm": round(lk.thickness_mm, 2), "tile_mm": round(sc.scene.tile_mm, 2),
                  "cloth": sc.cloth, "light": sc.light, "tile_px": round(float(np.median(sides)), 1) if sides else 0.0,
                  "megapixels": round(w * h / 1e6, 2), "loose_tiles": sum(sc.loose)},
        "camera": {"tilt_deg": round(cam.tilt_deg, 2), "focal_px": round(cam.focal_px, 2)},
    }


def render_tiles_scene(sc: TilesPovScene, seed: int, quality: str = "normal") -> RenderedFrame:
    """Ray-trace ``sc``, post-process it (noise, JPEG), and label it."""
    files = {"cloth.png": cloth_texture(sc)} if sc.cloth in ("oilcloth", "checks") else {}
    raw = run_povray(tiles_scene_text(sc), (sc.camera.width, sc.camera.height), quality, files)
    image = postprocess(raw, sc.exposure, sc.extras, np.random.default_rng([seed, 0x1A6F]))
    return RenderedFrame(image=image, labels=tiles_labels(sc, seed))


def tiles_cache_key(game: str, seed: int, group: str, size: tuple[int, int] | None, quality: str) -> str:
    """The file stem a tile picture is cached under: game, seed and a digest of what shapes it."""
    text = json.dumps({"v": TILES_VERSION, "game": game, "seed": seed, "group": group,
                       "size": list(size) if size else None, "q": quality,
                       "faces": [asdict(f) for f in faces(group)]}, sort_keys=True)
    return f"tiles_b_{game}_{seed}_{hashlib.sha1(text.encode()).hexdigest()[:12]}"


def tiles_frame(seed: int, game: str = "triominos", group: str = "train", size: tuple[int, int] | None = None,
                cache: str | Path | None = None, quality: str = "normal") -> RenderedFrame:
    """One random tile picture with labels (``size`` ``None``: drawn from ``SIZES``), from ``cache``
    (a folder) when it holds it, else rendered (and kept there)."""
    stem = tiles_cache_key(game, seed, group, size, quality)
    return through_cache(cache, stem,
                         lambda: render_tiles_scene(random_tiles_scene(game, seed, group, size), seed, quality))


def cached_frames(folder: str | Path) -> list[tuple[Path, Path]]:
    """``(picture, labels)`` pairs of every tile picture in ``folder``."""
    d = Path(folder)
    return [(j.with_suffix(".jpg"), j) for j in sorted(d.glob("tiles_b_*.json")) if j.with_suffix(".jpg").exists()]


def main(argv: list[str] | None = None) -> int:
    """Render a batch into a cache folder: ``python3 -m lab.render.povray.tiles DIR --games triominos,trio_domino
    --start 0 --count 150 [--group train]`` (seeds ``start …``, each game; already cached frames are skipped)."""
    import argparse
    import time

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("cache")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--group", default="train")
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    for i in range(a.start, a.start + a.count):
        for game in a.games.split(","):
            t0 = time.perf_counter()
            f = tiles_frame(i, game, a.group, cache=a.cache)
            st = f.labels["style"]
            print(f"{game} {i}: {st['edition']}, {st['cloth']}, {len(f.labels['tiles'])} tiles, "
                  f"{st['tile_px']} px, {st['megapixels']} MP, {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
