"""Renderer B for the Blokus games: a Trigon hexagon of triangle cells, a classic 20 × 20 or a Duo
14 × 14 board of squares, ray-traced by POV-Ray with translucent coloured pieces
(``docs/RENDERER_B.md``, Blokus section).

The board is worn grey plastic with raised borders between its cells; pieces are merged solids of
clear coloured plastic (``filter`` with an index of refraction: the board shows through tinted,
light refracts, highlights are sharp, and shadows take the plastic's colour because POV-Ray's
shadow rays pass through filtering objects). Photon-mapped caustics are off: they multiply the
render time and the tinted shadows already carry the plastic's colour. Positions are legal
positions of the engines' random games; each piece lies slightly off its cells and askew. Cups and
spare pieces stand on the table around the board; the camera, light and sensor are the Triolet
scenes' (``render.random_pov_camera``, ``render.random_lights``, ``render.postprocess``).

Labels follow the project renderers: Trigon as ``lab.render.trigon.trigon_labels`` (``read.cells``
named in the view frame, ``board.side``, ``variant``), the square boards as
``lab.render.blokus._labels_of`` (``read.cells`` named from the board edge nearest the top of the
picture, RULES K-B1) with the ``truth`` rows ``lab.bench.real`` compares.

World frame (mm): the board's centre at the origin, ``X`` right and ``Y`` down as the board is
drawn in its own frame (``vision.read.trigon.board_geometry``; square boards row 0 at the top),
``Z`` into the table (up is ``-Z``; the board's top at ``Z = 0``).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lab.render.frame import RenderedFrame, r2
from lab.render.povray.render import Light, postprocess, random_lights, random_pov_camera, run_povray, through_cache
from lab.render.povray.scene import _PRELUDE, _PRISM_UP, PovCamera, _m, _rgb, lights_text

F64 = NDArray[np.float64]
RGB = tuple[float, float, float]

#: Bumped when a change alters the pictures: part of the cache key.
BLOKUS_RENDERER_VERSION = 2
GAMES = ("trigon", "blokus", "blokus_duo")
#: squares per side of the square boards
SIZES = {"blokus": 20, "blokus_duo": 14}
#: piece plastics (sRGB 0–1), two shades each: the maker's and a faded one
PLASTICS: dict[str, tuple[RGB, RGB]] = {
    "blue": ((0.08, 0.3, 0.85), (0.2, 0.4, 0.8)),
    "yellow": ((1.0, 0.82, 0.05), (0.98, 0.88, 0.3)),
    "red": ((0.9, 0.1, 0.12), (0.85, 0.2, 0.25)),
    "green": ((0.05, 0.62, 0.3), (0.2, 0.65, 0.4)),
    "purple": ((0.5, 0.18, 0.72), (0.55, 0.3, 0.7)),
    "orange": ((1.0, 0.45, 0.05), (0.98, 0.55, 0.2)),
}
COLOURS = {"trigon": ("blue", "yellow", "red", "green"), "blokus": ("blue", "yellow", "red", "green"),
           "blokus_duo": ("purple", "orange")}
#: board plastics (sRGB): light grey, mid grey, warm grey, blue grey
BOARDS: dict[str, RGB] = {"light grey": (0.78, 0.78, 0.77), "mid grey": (0.6, 0.61, 0.62),
                          "warm grey": (0.72, 0.7, 0.66), "blue grey": (0.62, 0.66, 0.72)}
TABLES = ("wood", "cloth", "marble", "laminate", "dark wood")
#: a piece's lift off the board (its underside) and its thickness (mm)
PIECE_LIFT = 0.25
PIECE_THICK = 2.0
RIDGE_HEIGHT = 0.9


@dataclass(frozen=True)
class BlokusPiece:
    """A piece: colour, the cells it covers (engine names), its shift (mm) and turn (degrees)
    about its centre, and which shade of the colour's plastic."""

    colour: str
    cells: tuple[str, ...]
    shift: tuple[float, float] = (0.0, 0.0)
    turn_deg: float = 0.0


@dataclass(frozen=True)
class BlokusPovScene:
    """Everything renderer B draws for one Blokus picture."""

    game: str
    variant: str
    pieces: tuple[BlokusPiece, ...]
    cell_mm: float
    rim_mm: float
    board: str
    board_thickness_mm: float
    wear: float
    filter: float  # how much light the pieces' plastic lets through (POV-Ray filter)
    shade: int
    camera: PovCamera
    lights: tuple[Light, ...]
    ambient: float
    table: str
    exposure: float
    cups: tuple[tuple[float, float, float, RGB], ...] = ()  # x, y, radius (mm), colour
    spares: tuple[tuple[str, tuple[tuple[float, float], ...], float], ...] = ()  # colour, square offsets, turn
    extras: dict[str, float] = field(default_factory=dict)

    @property
    def side(self) -> int:
        """Trigon: the variant's hexagon side (B-B1); square boards: squares per side."""
        if self.game == "trigon":
            return 8 if self.variant == "trigon_3" else 9
        return SIZES[self.game]

    def outline(self) -> F64:
        """The board's outer corners (N×3 world mm, on its top)."""
        if self.game == "trigon":
            from vision.read.trigon.board_geometry import hexagon_corners_mm

            hexr = 9 * self.cell_mm + self.rim_mm * 2 / math.sqrt(3)
            xy = hexagon_corners_mm(9, self.cell_mm) * (hexr / (9 * self.cell_mm))
        else:
            h = self.side * self.cell_mm / 2 + self.rim_mm
            xy = np.array([[-h, -h], [h, -h], [h, h], [-h, h]], np.float64)
        return np.asarray(np.c_[xy, np.zeros(len(xy))], np.float64)

    def playing_corners(self) -> F64:
        """The playing area's corners (world mm): Trigon's hexagon of the variant, clockwise from the
        top-left one; a square board's TL, TR, BR, BL."""
        if self.game == "trigon":
            from vision.read.trigon.board_geometry import hexagon_corners_mm

            xy = hexagon_corners_mm(self.side, self.cell_mm)
        else:
            h = self.side * self.cell_mm / 2
            xy = np.array([[-h, -h], [h, -h], [h, h], [-h, h]], np.float64)
        return np.asarray(np.c_[xy, np.zeros(len(xy))], np.float64)

    def cell_polygon(self, name: str) -> F64:
        """The outline (N×2 world mm) of the cell named ``name`` (engine names, board frame)."""
        if self.game == "trigon":
            from lab.render.trigon import _to_phys
            from vision.read.trigon.board_geometry import cell_vertices_mm, parse_cell

            return np.asarray(cell_vertices_mm(_to_phys(parse_cell(name, self.side), self.side), 9, self.cell_mm))
        n, s = self.side, self.cell_mm
        c, r = square_of(name, n)
        x0, y0 = (c - n / 2) * s, (r - n / 2) * s
        return np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]], np.float64)


def square_of(name: str, n: int) -> tuple[int, int]:
    """``(column, row from the top)`` of a square board's K-B1 name in the board frame."""
    return "abcdefghijklmnopqrst".index(name[0]), n - int(name[1:])


# --- positions -------------------------------------------------------------------------------


def engine_position(game: str, variant: str, seed: int, moves: int) -> list[tuple[str, tuple[str, ...]]]:
    """The pieces (colour, cells) after up to ``moves`` random legal moves of the engine's game."""
    if game == "trigon":
        from lab.render.trigon import engine_pieces

        pieces, _ = engine_pieces(seed, variant, moves)
        return pieces
    from engine.blokus import BlokusPlace
    from engine.core.header import Header
    from engine.core.session import Session

    players = {"blokus": 4, "blokus_duo": 2}[game]
    session = Session(Header(game=game, players=tuple(f"P{i + 1}" for i in range(players))))
    pick = random.Random(seed)
    out: list[tuple[str, tuple[str, ...]]] = []
    for _ in range(moves):
        options = [o for o in session.state.legal_placements() if isinstance(o, BlokusPlace)]
        if not options:
            break
        ev = pick.choice(options)
        session.submit(ev)
        out.append((ev.colour, tuple(ev.cells)))
    return out


# --- the random scene ------------------------------------------------------------------------


def random_blokus_scene(seed: int, game: str, size: tuple[int, int] = (1280, 960)) -> BlokusPovScene:
    """A random Blokus table for renderer B, fully determined by ``seed`` and ``game``."""
    if game not in GAMES:
        raise ValueError(f"unknown Blokus game {game!r}; choose {', '.join(GAMES)}")
    rng = np.random.default_rng([seed, 0xB10C, GAMES.index(game)])
    variant = ("trigon_3" if rng.random() < 0.25 else "trigon") if game == "trigon" else game
    most = {"trigon": 60, "blokus": 80, "blokus_duo": 40}[game]
    pieces = engine_position(game, variant, int(rng.integers(1 << 31)), int(rng.integers(2, most + 1)))
    cell = float(rng.uniform(19, 23)) if game == "trigon" else float(rng.uniform(18.5, 21))
    placed = tuple(BlokusPiece(c, cells, (float(rng.normal(0, 0.03 * cell)), float(rng.normal(0, 0.03 * cell))),
                               float(rng.normal(0, 1.2))) for c, cells in pieces)
    rim = float(rng.uniform(8, 22)) if game == "trigon" else float(rng.uniform(0.4, 1.1)) * cell
    board = list(BOARDS)[int(rng.integers(len(BOARDS)))]
    proto = BlokusPovScene(game, variant, placed, cell, rim, board, 0.0, 0.0, 0.0, 0, _DUMMY_CAMERA, (), 0.0, "", 1.0)
    outline = proto.outline()
    half = float(np.abs(outline[:, :2]).max())
    cam = random_pov_camera(rng, half, outline, size)
    lights = random_lights(rng, warmth=2.0)
    # cups and spare pieces on the table around the board
    cups = []
    behind = math.atan2(-cam.position[1], -cam.position[0])  # cups beyond the board: they hide none of it
    for _ in range(int(rng.integers(0, 3))):
        a = behind + float(rng.uniform(-1.0, 1.0))
        d = half * 1.1 + float(rng.uniform(45, 200))
        col = [(0.93, 0.93, 0.9), (0.85, 0.25, 0.2), (0.2, 0.3, 0.5), (0.95, 0.85, 0.6)][int(rng.integers(4))]
        cups.append((d * math.cos(a), d * math.sin(a), float(rng.uniform(35, 45)), col))
    spares = []
    colours = COLOURS[game]
    for _ in range(int(rng.integers(0, 6))):
        a = float(rng.uniform(0, 2 * math.pi))
        d = half * 1.08 + float(rng.uniform(10, 90))
        k = int(rng.integers(1, 6))
        shape = [(0.0, 0.0)]
        while len(shape) < k:
            bx, by = shape[int(rng.integers(len(shape)))]
            dx, dy = [(1, 0), (-1, 0), (0, 1), (0, -1)][int(rng.integers(4))]
            if (bx + dx, by + dy) not in shape:
                shape.append((bx + dx, by + dy))
        cx, cy = d * math.cos(a), d * math.sin(a)
        spares.append((colours[int(rng.integers(len(colours)))],
                       tuple((cx + x * cell, cy + y * cell) for x, y in shape), float(rng.uniform(0, 360))))
    return BlokusPovScene(
        game=game, variant=variant, pieces=placed, cell_mm=cell, rim_mm=rim, board=board,
        board_thickness_mm=float(rng.uniform(4, 10)), wear=float(rng.uniform(0, 1)),
        filter=float(rng.uniform(0.45, 0.8)), shade=int(rng.random() < 0.3),
        camera=cam, lights=tuple(lights), ambient=float(rng.uniform(0.06, 0.16)),
        table=TABLES[int(rng.integers(len(TABLES)))], exposure=float(rng.uniform(0.8, 1.15)),
        cups=tuple(cups), spares=tuple(spares),
        extras={"noise": float(rng.uniform(1.5, 6)), "jpeg": float(rng.uniform(70, 95)),
                "blur": float(rng.uniform(0, 0.8)), "vignette": float(rng.uniform(0, 0.3))})


_DUMMY_CAMERA = PovCamera((0.0, 0.0, -1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), 1.0, 1, 1, 0.0)


# --- scene text ------------------------------------------------------------------------------


def _prism(poly: F64, z0: float, z1: float, extra: str = "") -> str:
    """A vertical prism over ``poly`` (N×2 world mm) from height ``z0`` to ``z1`` above the board top."""
    pts = [*poly.tolist(), poly[0].tolist()]
    return (f"prism {{ linear_sweep linear_spline {z0:.3f}, {z1:.3f}, {len(pts)}, "
            + ", ".join(f"<{x:.3f}, {y:.3f}>" for x, y in pts) + f" {_m(_PRISM_UP, np.zeros(3))} {extra} }}")


def _plastic(sc: BlokusPovScene, colour: str) -> str:
    rgb = PLASTICS[colour][sc.shade]
    return (f"texture {{ pigment {{ srgbf <{rgb[0]:.3f}, {rgb[1]:.3f}, {rgb[2]:.3f}, {sc.filter:.3f}> }} "
            "finish { ambient 0.02 diffuse 0.35 specular 0.8 roughness 0.004 "
            "reflection { 0.02, 0.25 fresnel on } conserve_energy } } interior { ior 1.49 }")


def _board_texture(sc: BlokusPovScene, shade: float = 1.0) -> str:
    b = BOARDS[sc.board]
    g = (shade * b[0], shade * b[1], shade * b[2])
    dark = (0.9 * g[0], 0.9 * g[1], 0.9 * g[2])
    worn = (f"normal {{ bumps {0.05 + 0.25 * sc.wear:.3f} scale 0.8 }}" if sc.wear > 0.05 else "")
    return (f"texture {{ pigment {{ bozo turbulence 0.6 colour_map {{ [0 {_rgb(g)}] [1 {_rgb(dark)}] }} "
            f"scale {6 + 20 * sc.wear:.2f} }} {worn} finish {{ diffuse 0.8 specular {0.35 - 0.25 * sc.wear:.3f} "
            f"roughness 0.02 }} }}")


def _board(sc: BlokusPovScene) -> str:
    """The slab, the raised borders between cells, the start points."""
    tex = _board_texture(sc)
    out = [_prism(sc.outline()[:, :2], -sc.board_thickness_mm, 0.0, tex)]
    rw = 0.08 * sc.cell_mm
    ridges: list[str] = []
    if sc.game == "trigon":
        from vision.read.trigon.board_geometry import START_POINTS, board_cells, cell_vertices_mm, parse_cell

        edges: set[tuple[tuple[float, float], tuple[float, float]]] = set()
        for c in board_cells(9):
            v = cell_vertices_mm(c, 9, sc.cell_mm)
            for i in range(3):
                p = (round(float(v[i][0]), 3), round(float(v[i][1]), 3))
                q = (round(float(v[(i + 1) % 3][0]), 3), round(float(v[(i + 1) % 3][1]), 3))
                edges.add((min(p, q), max(p, q)))
        for p, q in sorted(edges):
            ridges.append(_ridge(np.array(p), np.array(q), rw))
        if sc.variant == "trigon_3":  # the outer ring is off the 3-player board: a darker band
            from lab.render.trigon import _to_phys

            inner = {_to_phys(c, 8) for c in board_cells(8)}
            b = BOARDS[sc.board]
            dark = (0.7 * b[0], 0.7 * b[1], 0.7 * b[2])
            for c in board_cells(9):
                if c not in inner:
                    v = cell_vertices_mm(c, 9, sc.cell_mm)
                    out.append(_prism(v, -0.01, 0.05, f"pigment {{ {_rgb(dark)} }}"))
        starts = [cell_vertices_mm(parse_cell(sp, 9), 9, sc.cell_mm).mean(axis=0) for sp in START_POINTS[9]]
    else:
        n, s = sc.side, sc.cell_mm
        h = n * s / 2
        for i in range(n + 1):
            at = -h + i * s
            ridges.append(_ridge(np.array([at, -h]), np.array([at, h]), rw))
            ridges.append(_ridge(np.array([-h, at]), np.array([h, at]), rw))
        starts = ([np.array([(c - n / 2 + 0.5) * s, (c - n / 2 + 0.5) * s]) for c in (4, n - 5)]
                  if sc.game == "blokus_duo" else [])
    # the borders' sides catch grime and shade: a little darker than the plate, seen in any light
    out.append("union { " + "\n".join(ridges) + f" {_board_texture(sc, 0.8)} }}")
    for p in starts:
        out.append(f"torus {{ {0.22 * sc.cell_mm:.3f}, {0.03 * sc.cell_mm:.3f} rotate <90, 0, 0> "
                   f"translate <{p[0]:.3f}, {p[1]:.3f}, -0.05> pigment {{ srgb <0.3, 0.3, 0.3> }} }}")
    return "\n".join(out)


def _ridge(p: F64, q: F64, width: float) -> str:
    """A raised border from ``p`` to ``q`` (world mm): a box turned along it."""
    d = q - p
    length = float(np.hypot(*d))
    u = d / length
    turn = np.array([[u[0], -u[1], 0.0], [u[1], u[0], 0.0], [0.0, 0.0, 1.0]])
    return (f"box {{ <{-width / 2:.3f}, {-width / 2:.3f}, {-RIDGE_HEIGHT:.3f}>, "
            f"<{length + width / 2:.3f}, {width / 2:.3f}, 0> {_m(turn, np.array([p[0], p[1], 0.0]))} }}")


def _box(x0: float, y0: float, x1: float, y1: float, z0: float, z1: float) -> str:
    """An axis-aligned box over ``[x0, x1] × [y0, y1]`` from height ``z0`` to ``z1`` above the board top."""
    return f"box {{ <{x0:.3f}, {y0:.3f}, {-z1:.3f}>, <{x1:.3f}, {y1:.3f}, {-z0:.3f}> }}"


def _piece(sc: BlokusPovScene, piece: BlokusPiece) -> str:
    """A piece: its cells merged into one solid of coloured plastic, shifted and turned a little."""
    polys = [sc.cell_polygon(name) for name in piece.cells]
    centre = np.mean([p.mean(axis=0) for p in polys], axis=0)
    top = PIECE_LIFT + PIECE_THICK
    parts = []
    for poly in polys:
        # cells overlap their neighbours a hair so the merged solid has no seams
        cen = poly.mean(axis=0)
        grown = cen + (poly - cen) * 1.004
        if sc.game == "trigon":
            parts.append(_prism(grown, PIECE_LIFT, top))
        else:  # boxes (fast to trace), with the raised square each square of a classic piece has
            (x0, y0), (x1, y1) = grown.min(axis=0), grown.max(axis=0)
            parts.append(_box(x0, y0, x1, y1, PIECE_LIFT, top))
            (u0, v0), (u1, v1) = cen + (poly.min(axis=0) - cen) * 0.62, cen + (poly.max(axis=0) - cen) * 0.62
            parts.append(_box(u0, v0, u1, v1, top - 0.01, top + 0.45))
    a = math.radians(piece.turn_deg)
    turn = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    at = np.array([centre[0] + piece.shift[0], centre[1] + piece.shift[1], 0.0])
    place = f"translate <{-centre[0]:.3f}, {-centre[1]:.3f}, 0> {_m(turn, at)}"
    return "merge { " + "\n  ".join(parts) + f" {place} {_plastic(sc, piece.colour)} }}"


def _table(sc: BlokusPovScene) -> str:
    z = sc.board_thickness_mm
    pig = {
        "wood": "pigment { wood turbulence 0.1 colour_map { [0 srgb <0.55, 0.36, 0.2>] [0.6 srgb <0.45, 0.28, 0.15>] "
                "[1 srgb <0.35, 0.2, 0.1>] } scale 12 rotate <0, 90, 7> }",
        "dark wood": "pigment { wood turbulence 0.15 colour_map { [0 srgb <0.3, 0.18, 0.1>] [1 srgb <0.18, 0.1, 0.05>] "
                     "} scale 10 rotate <0, 90, -20> }",
        "cloth": "pigment { granite colour_map { [0 srgb <0.15, 0.35, 0.2>] [1 srgb <0.1, 0.25, 0.15>] } scale 4 }",
        "marble": "pigment { marble turbulence 0.8 colour_map { [0 srgb <0.85, 0.85, 0.83>] "
                  "[0.8 srgb <0.75, 0.75, 0.75>] [1 srgb <0.5, 0.5, 0.52>] } scale 80 }",
        "laminate": "pigment { srgb <0.75, 0.72, 0.68> }",
    }[sc.table]
    return f"plane {{ z, {z:.3f} {pig} finish {{ diffuse 0.8 specular 0.1 roughness 0.03 }} }}"


def _clutter(sc: BlokusPovScene) -> str:
    z = sc.board_thickness_mm
    out = []
    for x, y, r, col in sc.cups:
        out.append(f"difference {{ cylinder {{ <{x:.2f}, {y:.2f}, {z:.2f}>, <{x:.2f}, {y:.2f}, {z - 95:.2f}>, "
                   f"{r:.2f} }} cylinder {{ <{x:.2f}, {y:.2f}, {z - 6:.2f}>, <{x:.2f}, {y:.2f}, {z - 96:.2f}>, "
                   f"{r - 3:.2f} }}"
                   f" pigment {{ {_rgb(col)} }} finish {{ diffuse 0.7 specular 0.5 roughness 0.01 }} }}")
    s = sc.cell_mm
    for colour, squares, angle in sc.spares:
        c0 = np.mean(squares, axis=0)
        a = math.radians(angle)
        turn = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
        parts = [_box(cx - 0.502 * s, cy - 0.502 * s, cx + 0.502 * s, cy + 0.502 * s, -z, -z + PIECE_THICK)
                 for cx, cy in squares]
        place = f"translate <{-c0[0]:.3f}, {-c0[1]:.3f}, 0> {_m(turn, np.array([c0[0], c0[1], 0.0]))}"
        out.append("merge { " + " ".join(parts) + f" {place} {_plastic(sc, colour)} }}")
    return "\n".join(out)


def blokus_scene_text(sc: BlokusPovScene) -> str:
    """The whole ``.pov`` file for ``sc``."""
    parts = [_PRELUDE, f"#default {{ finish {{ ambient {sc.ambient:.3f} diffuse 0.8 }} }}", sc.camera.pov(),
             lights_text(sc.lights, samples=3), _table(sc), _board(sc), _clutter(sc)]
    parts += [_piece(sc, p) for p in sc.pieces]
    return "\n".join(parts) + "\n"


# --- labels ----------------------------------------------------------------------------------


def blokus_labels(sc: BlokusPovScene, seed: int) -> dict[str, Any]:
    """Exact truth in the project renderers' label formats (module docstring)."""
    cam = sc.camera
    w, h = cam.width, cam.height
    style = {"board": sc.board, "wear": round(sc.wear, 3), "filter": round(sc.filter, 3), "shade": sc.shade,
             "table": sc.table, "cups": len(sc.cups), "spares": len(sc.spares),
             "warmth": round(_warmth(sc.lights[0][1]), 3), "lights": len(sc.lights)}
    common = {"renderer": "povray", "seed": seed, "image_size": [w, h], "style": style,
              "camera": {"tilt_deg": round(cam.tilt_deg, 2), "focal_px": round(cam.focal_px, 2)}}
    corners = cam.project(sc.playing_corners())
    mids = np.array([(corners[i] + corners[(i + 1) % len(corners)]) / 2 for i in range(len(corners))])
    k = int(np.argmin(mids[:, 1]))
    cells = []
    for pi, piece in enumerate(sc.pieces):
        for name in piece.cells:
            centre = np.r_[sc.cell_polygon(name).mean(axis=0), -PIECE_LIFT - PIECE_THICK]
            cells.append({"cell": name, "colour": piece.colour, "piece": pi,
                          "center_px": r2(cam.project(centre[None, :])[0])})
    if sc.game == "trigon":
        from vision.read.trigon.board_geometry import START_POINTS, cell_name, parse_cell, rotation_map

        rot = rotation_map(sc.side, k)
        view = []
        for c in cells:
            vname = cell_name(rot[parse_cell(str(c["cell"]), sc.side)], sc.side)
            c["cell_view"] = vname
            x, y = c["center_px"]
            if 0 <= x < w and 0 <= y < h:
                view.append({"cell": vname, "colour": c["colour"]})
        return {"game": "trigon", "variant": sc.variant, **common,
                "board": {"hexagon_px": r2(corners), "view_rotation": k, "cell_mm": sc.cell_mm, "side": sc.side,
                          "start_points": list(START_POINTS[sc.side])},
                "cells": cells, "read": {"game": "trigon", "cells": view}}
    n = sc.side
    grid: list[list[str | None]] = [[None] * n for _ in range(n)]
    for c in cells:
        col, row = square_of(str(c["cell"]), n)
        grid[row][col] = str(c["colour"])
    turned = np.rot90(np.array(grid, dtype=object), k)
    truth = [[v if v is None else str(v) for v in line] for line in turned.tolist()]
    view_cells = [{"cell": f"{'abcdefghijklmnopqrst'[c]}{n - r}", "colour": v}
                  for r, line in enumerate(truth) for c, v in enumerate(line) if v is not None]
    return {"game": sc.game, **common,
            "board": {"corners_px": r2(np.roll(corners, -k, axis=0)), "view_rotation": k, "cell_mm": sc.cell_mm},
            "cells": cells, "truth": truth, "read": {"game": sc.game, "cells": view_cells}}


def _warmth(col: RGB) -> float:
    """How warm a light is: 0 neutral daylight, about 2 a tungsten lamp (from its blue/red ratio)."""
    return float(np.clip((0.92 - col[2] / max(col[0], 1e-6)) / 0.14, 0, 3))


# --- rendering and cache ---------------------------------------------------------------------


def render_blokus_scene(sc: BlokusPovScene, seed: int, quality: str = "normal") -> RenderedFrame:
    """Ray-trace ``sc``, put it through the sensor, and label it."""
    raw = run_povray(blokus_scene_text(sc), (sc.camera.width, sc.camera.height), quality)
    image = postprocess(raw, sc.exposure, sc.extras, np.random.default_rng([seed, 0x5E75]))
    return RenderedFrame(image=image, labels=blokus_labels(sc, seed))


def blokus_cache_key(seed: int, game: str, size: tuple[int, int], quality: str) -> str:
    """The file stem a render is cached under: the game, the seed and a digest of its settings."""
    text = json.dumps({"v": BLOKUS_RENDERER_VERSION, "seed": seed, "game": game, "size": list(size), "q": quality},
                      sort_keys=True)
    return f"{game}_b_{seed}_{hashlib.sha1(text.encode()).hexdigest()[:12]}"


def povray_blokus_frame(seed: int, game: str, size: tuple[int, int] = (1280, 960),
                        cache: str | Path | None = None, quality: str = "normal") -> RenderedFrame:
    """One random renderer-B picture of ``game`` with labels, from ``cache`` (a folder) when it holds it."""
    stem = blokus_cache_key(seed, game, size, quality)
    return through_cache(cache, stem, lambda: render_blokus_scene(random_blokus_scene(seed, game, size), seed, quality))


def scene_json(sc: BlokusPovScene) -> dict[str, Any]:
    """``sc`` as JSON-ready data (for debugging a picture)."""
    return asdict(sc)


def main(argv: list[str] | None = None) -> int:
    """Fill a cache: ``python3 -m lab.render.povray.blokus --games trigon,blokus --first 0 --count 50
    --cache DIR`` renders seeds ``first … first + count − 1`` of each game in turn (skips cached ones)."""
    import argparse
    import time

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--size", default="1280x960")
    ap.add_argument("--cache", required=True)
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    for seed in range(args.first, args.first + args.count):
        for game in args.games.split(","):
            t0 = time.perf_counter()
            povray_blokus_frame(seed, game, (w, h), cache=args.cache)
            print(f"{game} {seed} {time.perf_counter() - t0:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
