"""Named, enumerable styles: typefaces, board schemes, tile finishes, table surfaces, lights.

Every random choice of appearance goes through these tables, so a benchmark can hold out whole
styles (``StylePool(exclude=...)``) and test a reader on looks it never trained on.
Colours are RGB tuples (0–255); the renderer converts to OpenCV's BGR.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Typeface:
    """How numerals are drawn. ``kind``: ``hershey`` (cv2 font ``face``), ``stroke`` (own stroke
    font, ``variant`` picks digit shapes), or ``ttf`` (``path`` of an outline font; falls back to
    ``fallback`` if the file is missing on this machine)."""

    name: str
    kind: str
    face: int = 0
    variant: str = ""
    weight: float = 0.12  # stroke width / glyph height
    aspect: float = 1.0  # horizontal stretch
    slant: float = 0.0  # shear (x += slant · (h − y))
    path: str = ""
    fallback: str = "geometric"
    underline_69: bool = False


#: The outline typefaces' files, in the repository (digits-only subsets of DejaVu and Liberation,
#: ``make_typefaces.py``): the same seed renders the same picture whatever fonts a machine has.
TYPEFACE_DIR = Path(__file__).resolve().parent / "typefaces"
_FONTS = f"{TYPEFACE_DIR}/"

_FIRST_TYPEFACES = [
    Typeface("hershey_simplex", "hershey", face=0, weight=0.11),
    Typeface("hershey_duplex", "hershey", face=2, weight=0.13),
    Typeface("hershey_complex", "hershey", face=3, weight=0.10),
    Typeface("hershey_triplex", "hershey", face=4, weight=0.12),
    Typeface("hershey_plain", "hershey", face=1, weight=0.14, aspect=1.1),
    Typeface("hershey_italic", "hershey", face=0 | 16, weight=0.11),
    Typeface("geometric", "stroke", variant="geometric", weight=0.13),
    Typeface("geometric_light", "stroke", variant="geometric", weight=0.08, aspect=0.95),
    Typeface("rounded", "stroke", variant="rounded", weight=0.17, aspect=1.05),
    Typeface("rounded_bold", "stroke", variant="rounded", weight=0.22, aspect=1.15, underline_69=True),
    Typeface("condensed", "stroke", variant="condensed", weight=0.12, aspect=0.75),
    Typeface("slanted", "stroke", variant="geometric", weight=0.13, slant=0.18),
    Typeface("ttf_dejavu_sans_bold", "ttf", path=_FONTS + "DejaVuSans-Bold.ttf", fallback="rounded"),
    Typeface("ttf_liberation_sans_bold", "ttf", path=_FONTS + "LiberationSans-Bold.ttf", fallback="geometric"),
    Typeface("ttf_liberation_serif_bold", "ttf", path=_FONTS + "LiberationSerif-Bold.ttf",
             fallback="hershey_triplex"),
    Typeface("ttf_dejavu_condensed_bold", "ttf", path=_FONTS + "DejaVuSansCondensed-Bold.ttf", fallback="condensed"),
    Typeface("ttf_liberation_narrow", "ttf", path=_FONTS + "LiberationSansNarrow-Regular.ttf",
             fallback="condensed"),
    Typeface("pil_builtin", "ttf", path="", fallback="geometric_light"),
]
#: serif, monospaced and oblique outline faces, added for the Triolet reader's variety
_LATER_TYPEFACES = [
    Typeface("ttf_dejavu_serif_bold", "ttf", path=_FONTS + "DejaVuSerif-Bold.ttf", fallback="hershey_triplex"),
    Typeface("ttf_dejavu_serif", "ttf", path=_FONTS + "DejaVuSerif.ttf", fallback="hershey_complex"),
    Typeface("ttf_dejavu_serif_condensed", "ttf", path=_FONTS + "DejaVuSerifCondensed.ttf",
             fallback="hershey_complex"),
    Typeface("ttf_liberation_mono_bold", "ttf", path=_FONTS + "LiberationMono-Bold.ttf", fallback="geometric"),
    Typeface("ttf_dejavu_sans_mono", "ttf", path=_FONTS + "DejaVuSansMono.ttf", fallback="geometric_light"),
    Typeface("ttf_dejavu_sans_bold_oblique", "ttf", path=_FONTS + "DejaVuSans-BoldOblique.ttf", fallback="slanted"),
]
TYPEFACES: dict[str, Typeface] = {t.name: t for t in _FIRST_TYPEFACES + _LATER_TYPEFACES}

#: Typefaces of the triangle-tile games' renders (Triominos, Trio Domino): the first 18, which
#: their readers were measured on; the later faces are drawn only on Triolet tiles so far.
TILE_GAME_TYPEFACES: tuple[str, ...] = tuple(t.name for t in _FIRST_TYPEFACES)


@dataclass(frozen=True)
class BoardScheme:
    """A Triolet board edition's colours and proportions (T-B1, T-B2)."""

    name: str
    base: RGB  # playing squares
    grid: RGB  # lines between squares
    border: RGB  # frame around the playing area
    double: RGB
    triple: RGB
    replay: RGB
    centre: RGB
    ink: RGB  # text on premium squares ("BIS") and the compass rose
    border_ratio: float = 0.8  # border width in square pitches
    grid_ratio: float = 0.06  # grid line width in square pitches
    inset_squares: bool = False  # squares drawn as inset tiles with a gap rather than lines
    premium_text: bool = False  # "x2"/"x3" printed on premium squares
    border_labels: bool = False  # A–O / 1–15 printed on the border
    title: str = ""  # word printed on the border


BOARD_SCHEMES: dict[str, BoardScheme] = {s.name: s for s in [
    BoardScheme("classic_green", (28, 110, 62), (235, 235, 220), (18, 70, 40), (246, 214, 60), (205, 40, 40),
                (240, 135, 40), (250, 220, 70), (30, 30, 30), 0.9, 0.07, title="TRIOLET"),
    BoardScheme("cream_print", (238, 230, 205), (120, 95, 70), (150, 40, 40), (245, 205, 70), (210, 50, 45),
                (245, 140, 55), (245, 210, 80), (60, 40, 30), 0.6, 0.05, border_labels=True),
    BoardScheme("white_thin", (248, 248, 246), (40, 40, 40), (235, 235, 235), (250, 220, 80), (225, 45, 45),
                (250, 150, 50), (250, 225, 90), (20, 20, 20), 0.3, 0.035, premium_text=True),
    BoardScheme("navy", (30, 45, 95), (200, 205, 220), (20, 28, 60), (240, 205, 50), (215, 50, 60),
                (245, 130, 35), (240, 210, 60), (25, 25, 35), 1.1, 0.06, title="TRIOLET"),
    BoardScheme("wood", (200, 160, 110), (95, 65, 40), (120, 80, 45), (240, 200, 70), (190, 45, 35),
                (230, 125, 45), (240, 205, 80), (50, 30, 20), 1.3, 0.05, border_labels=True),
    BoardScheme("grey_tiles", (160, 165, 170), (70, 72, 75), (90, 92, 96), (240, 215, 70), (200, 40, 40),
                (240, 140, 40), (245, 220, 80), (20, 20, 20), 0.7, 0.08, inset_squares=True),
    BoardScheme("burgundy", (120, 30, 40), (230, 200, 160), (70, 15, 22), (245, 210, 60), (230, 60, 50),
                (250, 150, 50), (245, 215, 70), (30, 20, 20), 1.0, 0.05, premium_text=True, title="TRIOLET"),
    BoardScheme("black_gold", (35, 35, 38), (190, 160, 80), (20, 20, 22), (235, 200, 60), (200, 35, 35),
                (235, 130, 30), (235, 205, 70), (20, 20, 20), 0.8, 0.05, inset_squares=True),
    BoardScheme("sky_blue", (150, 200, 230), (250, 250, 250), (60, 120, 170), (250, 225, 80), (220, 55, 55),
                (250, 155, 60), (250, 230, 100), (40, 40, 50), 0.5, 0.08, premium_text=True, border_labels=True),
    BoardScheme("beige_travel", (215, 200, 165), (150, 130, 95), (215, 200, 165), (235, 195, 60), (190, 55, 40),
                (225, 130, 50), (235, 200, 75), (70, 50, 30), 0.15, 0.05),
]}


@dataclass(frozen=True)
class TileFinish:
    """Tile plastic colour, ink and side colour."""

    name: str
    face: RGB
    ink: RGB
    side: RGB
    gloss: float = 0.3  # strength of specular highlights


TILE_FINISHES: dict[str, TileFinish] = {f.name: f for f in [
    TileFinish("ivory", (238, 232, 212), (25, 25, 25), (205, 196, 170), 0.35),
    TileFinish("cream", (242, 226, 188), (40, 30, 25), (210, 190, 150), 0.3),
    TileFinish("white", (247, 247, 244), (15, 15, 20), (215, 215, 212), 0.45),
    TileFinish("bone", (226, 216, 196), (45, 35, 30), (190, 178, 155), 0.2),
    TileFinish("yellowed", (232, 218, 170), (30, 30, 30), (200, 180, 130), 0.25),
    TileFinish("grey_white", (225, 228, 230), (20, 30, 60), (185, 188, 192), 0.4),
    TileFinish("ivory_brown_ink", (240, 233, 214), (80, 45, 25), (208, 198, 172), 0.3),
]}


@dataclass(frozen=True)
class TableSurface:
    """A procedural table texture: ``kind`` in wood|cloth|check|felt|marble|plain|slate|printed
    (a light oilcloth printed with scattered fruit-and-leaf motifs and dots)."""

    name: str
    kind: str
    colour: RGB
    colour2: RGB


TABLE_SURFACES: dict[str, TableSurface] = {t.name: t for t in [
    TableSurface("wood_light", "wood", (196, 160, 115), (160, 120, 80)),
    TableSurface("wood_dark", "wood", (110, 70, 45), (75, 45, 28)),
    TableSurface("wood_red", "wood", (150, 80, 55), (110, 55, 35)),
    TableSurface("oak_planks", "planks", (180, 140, 95), (140, 100, 62)),
    TableSurface("cloth_red_check", "check", (200, 40, 40), (240, 235, 230)),
    TableSurface("cloth_blue_check", "check", (60, 90, 170), (235, 235, 240)),
    TableSurface("cloth_plain_beige", "cloth", (210, 195, 165), (190, 175, 145)),
    TableSurface("felt_green", "felt", (40, 110, 60), (30, 90, 50)),
    TableSurface("marble_white", "marble", (230, 228, 225), (150, 150, 155)),
    TableSurface("laminate_white", "plain", (238, 238, 235), (225, 225, 222)),
    TableSurface("slate_dark", "slate", (60, 62, 66), (45, 47, 50)),
    TableSurface("laminate_grey", "plain", (150, 152, 155), (140, 142, 145)),
]}

#: Busy printed tablecloths, asked for by name only (random frames draw from ``TABLE_SURFACES``, so
#: adding one here changes no benchmark picture).
PRINTED_CLOTHS: dict[str, TableSurface] = {t.name: t for t in [
    TableSurface("oilcloth_fruit", "printed", (236, 222, 226), (170, 40, 50)),
    TableSurface("oilcloth_leaves", "printed", (240, 236, 220), (60, 110, 60)),
    TableSurface("paper_plain", "plain", (228, 214, 208), (220, 206, 200)),
]}


def table_surface(name: str) -> TableSurface:
    """The table surface called ``name`` (``TABLE_SURFACES`` or ``PRINTED_CLOTHS``)."""
    return TABLE_SURFACES[name] if name in TABLE_SURFACES else PRINTED_CLOTHS[name]


@dataclass(frozen=True)
class Light:
    """A light setting: colour temperature (K), overall level, and contrast of the key light."""

    name: str
    kelvin: float
    level: float
    key: float  # directional (key) light share: 0 flat, 1 strong gradient/shadows
    tint_green: float = 0.0  # fluorescent green cast


LIGHTS: dict[str, Light] = {lt.name: lt for lt in [
    Light("daylight", 6000, 1.0, 0.4),
    Light("overcast", 7000, 0.85, 0.15),
    Light("sunny_window", 5500, 1.1, 0.9),
    Light("warm_lamp", 2900, 0.8, 0.7),
    Light("candle_dim", 2300, 0.55, 0.6),
    Light("fluorescent", 4200, 0.95, 0.25, tint_green=0.05),
    Light("led_cool", 6500, 1.0, 0.35),
    Light("evening_mixed", 3500, 0.7, 0.5),
]}

#: Skin tones of hands and arms (RGB), light to dark.
SKIN_TONES: list[RGB] = [(240, 205, 180), (225, 180, 150), (200, 150, 115), (170, 120, 85), (130, 85, 60),
                         (95, 62, 45), (70, 45, 35)]
#: Sleeve colours.
SLEEVES: list[RGB] = [(30, 30, 35), (200, 30, 40), (40, 70, 150), (230, 230, 230), (90, 110, 60),
                      (150, 120, 90), (240, 180, 40), (120, 60, 130)]

#: Colours of Blokus Trigon pieces (RGB) with a few shades per colour.
TRIGON_COLOURS: dict[str, list[RGB]] = {
    "blue": [(30, 90, 200), (20, 70, 170), (50, 110, 220)],
    "yellow": [(250, 205, 20), (245, 190, 10), (255, 220, 60)],
    "red": [(215, 35, 40), (190, 20, 30), (230, 60, 50)],
    "green": [(30, 160, 70), (20, 140, 60), (60, 180, 90)],
}

K = TypeVar("K")


@dataclass(frozen=True)
class StylePool:
    """Which named styles a random scene may use (``None`` = all). Hold out styles with ``exclude``."""

    typefaces: tuple[str, ...] | None = None
    boards: tuple[str, ...] | None = None
    tiles: tuple[str, ...] | None = None
    tables: tuple[str, ...] | None = None
    lights: tuple[str, ...] | None = None
    trigon_boards: tuple[str, ...] | None = None
    faces: tuple[str, ...] | None = None  # Triominos / Trio Domino tile faces
    exclude: frozenset[str] = frozenset()

    def pick(self, rng: np.random.Generator, table: Mapping[str, K], allowed: Iterable[str] | None) -> str:
        """A random name from ``table`` restricted to ``allowed`` minus ``exclude``."""
        names = [n for n in (allowed if allowed is not None else table) if n in table and n not in self.exclude]
        if not names:
            raise ValueError("the style pool excludes every style of a kind")
        return names[int(rng.integers(len(names)))]


def tile_game_typeface(rng: np.random.Generator, pool: StylePool) -> str:
    """A typeface for a Triominos / Trio Domino scene (``TILE_GAME_TYPEFACES`` unless the pool names some)."""
    return pool.pick(rng, TYPEFACES, pool.typefaces or TILE_GAME_TYPEFACES)


def all_style_names() -> dict[str, list[str]]:
    """Every style name by kind (for listing and hold-out splits)."""
    from lab.render.triangles import TRIANGLE_FACES
    from lab.render.trigon import TRIGON_BOARDS
    return {"typefaces": list(TYPEFACES), "boards": list(BOARD_SCHEMES), "tiles": list(TILE_FINISHES),
            "tables": list(TABLE_SURFACES), "lights": list(LIGHTS), "trigon_boards": list(TRIGON_BOARDS),
            "faces": list(TRIANGLE_FACES)}


def bgr(c: RGB) -> tuple[int, int, int]:
    """RGB → OpenCV BGR."""
    return c[2], c[1], c[0]
