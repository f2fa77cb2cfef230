"""A Triolet table as a POV-Ray scene: what lies on it (editions, tiles, light, camera) sampled from
a seed, and the scene text POV-Ray renders.

World frame (mm): the board's centre at the origin, ``X`` toward column O, ``Y`` toward row 15,
``Z`` into the table (up is ``-Z``; the board's top at ``Z = 0``). Square ``(c, r)`` (A1 = (0, 0))
spans ``X ∈ [(c − 7.5)·s, (c − 6.5)·s]``, ``Y`` likewise. A tile turned 0 has its numeral's top
toward row 1 (as the project's renderer, ``lab/render/triolet.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from lab.render.povray.faces import Face, face_path
from lab.render.triolet_board import DOUBLE, REPLAY, TRIPLE, parse_square
from lab.render.triolet_tiles import TILE_COUNTS

F64 = NDArray[np.float64]
RGB = tuple[float, float, float]


@dataclass(frozen=True)
class Edition:
    """How a board is printed: colours (RGB 0–1), how premium squares are marked (``fill``: the whole
    square; ``ring``: a coloured frame; ``dot``: a coloured disc), labels on them, the border."""

    name: str
    base: RGB
    grid: RGB
    double: RGB
    triple: RGB
    replay: RGB
    centre: RGB
    border: RGB
    ink: RGB
    premium: str = "fill"
    labels: bool = True
    border_ratio: float = 0.6
    grid_ratio: float = 0.04
    wood: bool = False


EDITIONS: tuple[Edition, ...] = (
    Edition("cream classic", (0.92, 0.89, 0.78), (0.35, 0.33, 0.3), (0.55, 0.75, 0.9), (0.85, 0.25, 0.2),
            (0.35, 0.65, 0.35), (0.9, 0.7, 0.2), (0.1, 0.3, 0.2), (0.1, 0.1, 0.1)),
    Edition("white modern", (0.96, 0.96, 0.95), (0.7, 0.72, 0.75), (0.2, 0.6, 0.65), (0.95, 0.5, 0.1),
            (0.5, 0.3, 0.6), (0.95, 0.8, 0.2), (0.12, 0.12, 0.14), (0.15, 0.15, 0.2), "fill", False, 0.35, 0.03),
    Edition("travel magnetic", (0.55, 0.62, 0.7), (0.25, 0.3, 0.38), (0.95, 0.95, 0.95), (0.95, 0.8, 0.2),
            (0.8, 0.35, 0.3), (0.9, 0.9, 0.9), (0.3, 0.33, 0.4), (0.1, 0.12, 0.2), "ring", True, 0.25, 0.06),
    Edition("wooden", (0.6, 0.42, 0.25), (0.3, 0.2, 0.12), (0.3, 0.45, 0.6), (0.6, 0.15, 0.12),
            (0.25, 0.45, 0.25), (0.85, 0.7, 0.3), (0.4, 0.27, 0.15), (0.15, 0.1, 0.05), "dot", True, 0.5, 0.05,
            True),
    Edition("dark deluxe", (0.15, 0.17, 0.2), (0.45, 0.45, 0.45), (0.2, 0.45, 0.75), (0.75, 0.2, 0.25),
            (0.2, 0.6, 0.45), (0.85, 0.65, 0.2), (0.05, 0.05, 0.06), (0.9, 0.9, 0.85), "fill", True, 0.45, 0.03),
    Edition("pastel", (0.97, 0.93, 0.88), (0.8, 0.72, 0.68), (0.7, 0.85, 0.95), (0.98, 0.7, 0.65),
            (0.75, 0.9, 0.7), (0.98, 0.88, 0.6), (0.55, 0.35, 0.45), (0.3, 0.2, 0.25), "ring", False, 0.55, 0.04),
)


@dataclass(frozen=True)
class TileSet:
    """A tile edition: body and ink colours, how numerals are put on (``printed`` flush or
    ``engraved``), whether 6 and 9 carry a bar below, gloss (0 matte – 1 glossy)."""

    body: RGB
    ink: RGB
    marking: str
    six_nine_bar: bool
    gloss: float
    roundness: float  # edge radius / tile side


#: The tile sets' names, in ``TILE_BODIES`` order.
TILE_NAMES = ("ivory", "white", "cream", "wood-coloured", "black", "yellow")
TILE_BODIES: tuple[tuple[RGB, RGB], ...] = (
    ((0.95, 0.92, 0.82), (0.08, 0.08, 0.08)),  # ivory, black ink
    ((0.97, 0.97, 0.96), (0.1, 0.12, 0.3)),  # white, navy
    ((0.93, 0.88, 0.7), (0.45, 0.08, 0.08)),  # cream, dark red
    ((0.85, 0.7, 0.5), (0.12, 0.08, 0.04)),  # wood-coloured, dark brown
    ((0.15, 0.15, 0.17), (0.95, 0.95, 0.9)),  # black, white ink
    ((0.98, 0.85, 0.35), (0.1, 0.1, 0.1)),  # yellow, black
)


@dataclass(frozen=True)
class PovTile:
    """A tile on a square: ``value`` (a wild's declared value), quarter turns clockwise seen from
    above, extra skew (degrees), shift from the square's centre (square pitches)."""

    square: str
    value: int
    wild: bool
    rotation: int
    askew_deg: float
    offset: tuple[float, float]


@dataclass(frozen=True)
class PovCamera:
    """A pinhole camera: position and the picture's right / down / forward unit axes (world),
    focal length in pixels, picture size. Pixel ``(x, y)``'s centre is at integer ``x, y``."""

    position: tuple[float, float, float]
    right: tuple[float, float, float]
    down: tuple[float, float, float]
    forward: tuple[float, float, float]
    focal_px: float
    width: int
    height: int
    tilt_deg: float

    def project(self, pts: F64) -> F64:
        """World points (N×3) → pixels (N×2)."""
        p = np.asarray(pts, np.float64) - np.array(self.position)
        z = p @ np.array(self.forward)
        x = p @ np.array(self.right) / z * self.focal_px + (self.width - 1) / 2
        y = p @ np.array(self.down) / z * self.focal_px + (self.height - 1) / 2
        return np.stack([x, y], axis=1)

    def pov(self) -> str:
        """The POV-Ray camera: ray = forward + u·right·W/f + v·up·H/f for screen ``u, v`` in ±½."""
        w, h, f = self.width, self.height, self.focal_px
        up = tuple(-v for v in self.down)
        return (f"camera {{ perspective location {_v(self.position)} direction {_v(self.forward)}\n"
                f"  right {_v(tuple(v * w / f for v in self.right))} up {_v(tuple(v * h / f for v in up))} }}\n")


@dataclass(frozen=True)
class PovScene:
    """Everything renderer B draws for one picture."""

    tiles: tuple[PovTile, ...]
    edition: Edition
    tile_set: TileSet
    face: Face
    square_mm: float
    tile_ratio: float
    tile_height_mm: float
    board_thickness_mm: float
    numeral_height: float  # numeral cap height / tile side
    camera: PovCamera
    lights: tuple[tuple[tuple[float, float, float], RGB, float], ...]  # position, colour, area side (0: hard)
    ambient: float
    table: str
    exposure: float
    extras: dict[str, float] = field(default_factory=dict)
    #: ``False``: the tiles lie on the bare table (a calibration picture), no board drawn.
    board: bool = True

    def tile_corners(self, t: PovTile) -> F64:
        """The tile's top outline (4×3 world mm) in its printed order TL, TR, BR, BL."""
        c, r = parse_square(t.square)
        s = self.square_mm
        cx, cy = (c - 7 + t.offset[0]) * s, (r - 7 + t.offset[1]) * s
        a = math.radians(t.rotation * 90 + t.askew_deg)
        half = self.tile_ratio * s / 2
        local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        xy = local @ rot.T + np.array([cx, cy])
        return np.concatenate([xy, np.full((4, 1), -self.tile_height_mm)], axis=1)

    def playing_corners(self) -> F64:
        """Outer corners of A1, O1, O15, A15 (world mm, on the board's top)."""
        h = 7.5 * self.square_mm
        return np.array([[-h, -h, 0.0], [h, -h, 0.0], [h, h, 0.0], [-h, h, 0.0]])

    def outer_half(self) -> float:
        """Half the board's side, border included (mm)."""
        return 7.5 * self.square_mm + self.edition.border_ratio * self.square_mm


def _v(p: tuple[float, ...] | F64) -> str:
    return "<" + ", ".join(f"{float(x):.5f}" for x in p) + ">"


def _rgb(c: RGB) -> str:
    return f"srgb <{c[0]:.4f}, {c[1]:.4f}, {c[2]:.4f}>"


def _esc(path: Path) -> str:
    return str(path).replace("\\", "/").replace('"', "")


def _m(a: F64, t: F64) -> str:
    """POV ``matrix``: local x, y, z map to the columns of ``a``; then translate by ``t``."""
    return "matrix <" + ", ".join(f"{float(v):.6f}" for v in (*a[:, 0], *a[:, 1], *a[:, 2], *t)) + ">"


_PRELUDE = """#version 3.7;
#include "shapes.inc"
global_settings { assumed_gamma 1.0 max_trace_level 6 ambient_light rgb <1, 1, 1> }
// a string centred on the origin in x and y (depth 0..D in z), cap height H, at most W wide
#macro Label(F, S, D, H, W)
  #local T = text { ttf F S 1, 0 };
  #local Lo = min_extent(T);
  #local Hi = max_extent(T);
  #local K = min(H / (Hi.y - Lo.y), W / (Hi.x - Lo.x));
  object { T translate -<(Lo.x + Hi.x) / 2, (Lo.y + Hi.y) / 2, 0> scale <K, K, D> }
#end
"""


def _board(sc: PovScene) -> str:
    """The board: a slab, the grid, premium squares, their labels, the centre star."""
    e = sc.edition
    s = sc.square_mm
    half = sc.outer_half()
    h15 = 7.5 * s
    out = []
    base_pig = (f"pigment {{ wood turbulence 0.08 colour_map {{ [0 {_rgb(e.base)}] "
                f"[1 {_rgb((0.8 * e.base[0], 0.8 * e.base[1], 0.8 * e.base[2]))}] }} scale 6 rotate <88, 3, 0> }}"
                if e.wood else f"pigment {{ {_rgb(e.base)} }}")
    out.append(f"box {{ <{-half:.3f}, {-half:.3f}, 0>, <{half:.3f}, {half:.3f}, {sc.board_thickness_mm:.3f}> "
               f"pigment {{ {_rgb(e.border)} }} finish {{ diffuse 0.8 specular 0.15 roughness 0.05 }} }}")
    out.append(f"box {{ <{-h15:.3f}, {-h15:.3f}, -0.01>, <{h15:.3f}, {h15:.3f}, 0.5> {base_pig} "
               f"finish {{ diffuse 0.8 specular 0.1 roughness 0.05 }} }}")
    gw = e.grid_ratio * s
    for i in range(16):
        p = -h15 + i * s
        out.append(f"box {{ <{p - gw / 2:.3f}, {-h15:.3f}, -0.03>, <{p + gw / 2:.3f}, {h15:.3f}, 0.1> "
                   f"pigment {{ {_rgb(e.grid)} }} }}")
        out.append(f"box {{ <{-h15:.3f}, {p - gw / 2:.3f}, -0.03>, <{h15:.3f}, {p + gw / 2:.3f}, 0.1> "
                   f"pigment {{ {_rgb(e.grid)} }} }}")
    font = _esc(face_path(sc.face) or Path("cyrvetic.ttf"))
    flip = np.diag([1.0, -1.0, 1.0])  # glyph up (+y) → toward row 1 (−Y)
    for names, colour, label in ((DOUBLE, e.double, "x2"), (TRIPLE, e.triple, "x3"), (REPLAY, e.replay, "BIS")):
        for name in names:
            c, r = parse_square(name)
            x0, y0 = (c - 7.5) * s + gw / 2, (r - 7.5) * s + gw / 2
            x1, y1 = x0 + s - gw, y0 + s - gw
            col = e.centre if name == "H8" else colour
            if e.premium == "fill":
                out.append(f"box {{ <{x0:.3f}, {y0:.3f}, -0.02>, <{x1:.3f}, {y1:.3f}, 0.1> "
                           f"pigment {{ {_rgb(col)} }} }}")
            elif e.premium == "ring":
                w = 0.12 * s
                out.append(f"difference {{ box {{ <{x0:.3f}, {y0:.3f}, -0.02>, <{x1:.3f}, {y1:.3f}, 0.1> }} "
                           f"box {{ <{x0 + w:.3f}, {y0 + w:.3f}, -0.05>, <{x1 - w:.3f}, {y1 - w:.3f}, 0.2> }} "
                           f"pigment {{ {_rgb(col)} }} }}")
            else:
                out.append(f"cylinder {{ <{(x0 + x1) / 2:.3f}, {(y0 + y1) / 2:.3f}, -0.02>, "
                           f"<{(x0 + x1) / 2:.3f}, {(y0 + y1) / 2:.3f}, 0.1>, {0.36 * s:.3f} "
                           f"pigment {{ {_rgb(col)} }} }}")
            if e.labels and name != "H8":
                t = np.array([(x0 + x1) / 2, (y0 + y1) / 2, -0.035])
                out.append(f'object {{ Label("{font}", "{label}", 0.02, {0.22 * s:.3f}, {0.7 * s:.3f}) '
                           f"{_m(flip, t)} pigment {{ {_rgb(e.ink)} }} }}")
    # the centre square's star
    cx = cy = 0.0
    pts = _star(0.42 * s, 0.17 * s, 8)
    out.append(f"prism {{ linear_sweep linear_spline 0.0, 0.04, {len(pts) + 1}, "
               + ", ".join(f"<{x + cx:.3f}, {y + cy:.3f}>" for x, y in [*pts, pts[0]])
               + f" {_m(_PRISM_UP, np.zeros(3))} pigment {{ {_rgb(e.ink)} }} }}")
    return "\n".join(out)


#: A prism's outline (its x, z) onto the board (X, Y), its sweep height y upward (−Z).
_PRISM_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])


def _star(r_out: float, r_in: float, points: int) -> list[tuple[float, float]]:
    out = []
    for k in range(2 * points):
        a = math.pi * k / points - math.pi / 2
        r = r_out if k % 2 == 0 else r_in
        out.append((r * math.cos(a), r * math.sin(a)))
    return out


def _tile(sc: PovScene, t: PovTile) -> str:
    """One tile: a rounded box, its numeral and count (or a star), printed or engraved."""
    ts = sc.tile_set
    s = sc.square_mm
    side = sc.tile_ratio * s
    half = side / 2
    th = sc.tile_height_mm
    rad = max(0.2, min(ts.roundness * side, th * 0.45))
    c, r = parse_square(t.square)
    centre = np.array([(c - 7 + t.offset[0]) * s, (r - 7 + t.offset[1]) * s, 0.0])
    a = math.radians(t.rotation * 90 + t.askew_deg)
    rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    font = _esc(face_path(sc.face) or Path("cyrvetic.ttf"))
    finish = (f"finish {{ diffuse 0.75 specular {0.2 + 0.7 * ts.gloss:.3f} roughness {0.05 - 0.045 * ts.gloss:.4f} "
              f"reflection {{ {0.02 + 0.06 * ts.gloss:.3f} }} }}")
    body = (f"object {{ Round_Box(<{-half:.3f}, {-half:.3f}, {-th:.3f}>, <{half:.3f}, {half:.3f}, -0.02>, "
            f"{rad:.3f}, 0) pigment {{ {_rgb(ts.body)} }} {finish} }}")
    engraved = ts.marking == "engraved"
    depth = 0.55 if engraved else 0.03
    z_face = -th - (0.05 if engraved else 0.025)  # glyph front: just above the top (engraved: cut from it)
    marks: list[str] = []
    flip = np.diag([1.0, -1.0, 1.0])
    if t.wild:
        pts = _star(0.32 * side, 0.13 * side, 5)
        marks.append(f"prism {{ linear_sweep linear_spline 0, {depth:.3f}, {len(pts) + 1}, "
                     + ", ".join(f"<{x:.3f}, {y:.3f}>" for x, y in [*pts, pts[0]])
                     + f" {_m(_PRISM_UP, np.array([0.0, 0.0, z_face + depth]))} }}")
    else:
        num_h = sc.numeral_height * side
        y_num = -0.04 * side
        marks.append(f'object {{ Label("{font}", "{t.value}", {depth:.3f}, {num_h:.3f}, {0.78 * side:.3f}) '
                     f"{_m(flip, np.array([0.0, y_num, z_face]))} }}")
        marks.append(f'object {{ Label("{font}", "{TILE_COUNTS[t.value]}", {depth:.3f}, {0.12 * side:.3f}, '
                     f"{0.2 * side:.3f}) {_m(flip, np.array([0.34 * side, 0.36 * side, z_face]))} }}")
        if ts.six_nine_bar and t.value in (6, 9):
            bw, bh = 0.22 * side, 0.035 * side
            yb = y_num + num_h / 2 + 0.07 * side
            marks.append(f"box {{ <{-bw / 2:.3f}, {yb:.3f}, {z_face:.3f}>, <{bw / 2:.3f}, {yb + bh:.3f}, "
                         f"{z_face + depth:.3f}> }}")
    ink = f"texture {{ pigment {{ {_rgb(ts.ink)} }} finish {{ diffuse 0.7 specular 0.1 }} }}"
    if engraved:
        obj = f"difference {{ {body}\n  " + "\n  ".join(f"object {{ {m} {ink} }}" for m in marks) + " }"
    else:
        obj = f"union {{ {body}\n  " + "\n  ".join(f"object {{ {m} {ink} }}" for m in marks) + " }"
    return f"object {{ {obj} {_m(rot, centre)} }}"


def _table(sc: PovScene) -> str:
    z = sc.board_thickness_mm
    kind = sc.table
    if kind == "wood":
        pig = ("pigment { wood turbulence 0.1 colour_map { [0 srgb <0.55, 0.36, 0.2>] [0.6 srgb <0.45, 0.28, 0.15>] "
               "[1 srgb <0.35, 0.2, 0.1>] } scale 12 rotate <0, 90, 7> }")
    elif kind == "cloth":
        pig = "pigment { granite colour_map { [0 srgb <0.15, 0.35, 0.2>] [1 srgb <0.1, 0.25, 0.15>] } scale 4 }"
    elif kind == "marble":
        pig = ("pigment { marble turbulence 0.8 colour_map { [0 srgb <0.85, 0.85, 0.83>] [0.8 srgb <0.75, 0.75, 0.75>] "
               "[1 srgb <0.5, 0.5, 0.52>] } scale 80 }")
    else:  # plain laminate
        pig = "pigment { srgb <0.75, 0.72, 0.68> }"
    return f"plane {{ z, {z:.3f} {pig} finish {{ diffuse 0.8 specular 0.1 roughness 0.03 }} }}"


def lights_text(lights: Sequence[tuple[tuple[float, float, float], tuple[float, float, float], float]
                                 | tuple[tuple[float, float, float], tuple[float, float, float], float, float]],
                samples: int = 5) -> str:
    """POV-Ray light sources: each ``(position, colour, size[, fade])``; a size above 0 is a square area
    light of ``samples`` × ``samples`` (adaptive, jittered: soft shadows), 0 a point light (hard
    shadows); a fade above 0 dims the light with the square of the distance beyond it (a low lamp)."""
    out = []
    for pos, col, size, *rest in lights:
        fade = rest[0] if rest else 0.0
        extra = f" fade_distance {fade:.1f} fade_power 2" if fade > 0 else ""
        c = _rgb(col)
        if size > 0:
            out.append(f"light_source {{ {_v(pos)} colour {c} area_light <{size:.1f}, 0, 0>, <0, {size:.1f}, 0>, "
                       f"{samples}, {samples} adaptive 1 jitter circular orient{extra} }}")
        else:
            out.append(f"light_source {{ {_v(pos)} colour {c}{extra} }}")
    return "\n".join(out)


def scene_text(sc: PovScene) -> str:
    """The whole ``.pov`` file for ``sc``."""
    amb = sc.ambient
    parts = [_PRELUDE, f"#default {{ finish {{ ambient {amb:.3f} diffuse 0.8 }} }}", sc.camera.pov(),
             lights_text(sc.lights), _table(sc)]
    if sc.board:
        parts.append(_board(sc))
    parts += [_tile(sc, t) for t in sc.tiles]
    return "\n".join(parts) + "\n"
