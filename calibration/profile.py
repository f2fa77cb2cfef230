"""The calibration profile: a versioned JSON file (``companion calibrate`` writes it, ``--calibration``
reads it).

Layout (version 1)::

    {"version": 1,
     "camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]], "dist_coeffs": [k1, k2, p1, p2, k3],
     "image_size": [w, h], "rms_px": 0.31, "images_used": 14, "per_image": [...], "rejected": [...],
     "board": {"game": "triolet", "corners_px": [[x, y], ...4], "image_size": [w, h],
               "colours": {"base": {"lab": [L, a, b], "rgb": [r, g, b], "spread": 2.1,
                                    "points_px": [[x, y], ...], "cells": ["A1", ...]}, ...},
               "edges": [[...], ...]},
     "tiles": {"game": "triolet", "image_size": [w, h], "summary": {"values": 17, ...},
               "learned": {...}}}

The camera section is the top-level object exactly as ``calibrate camera`` prints it
(INTERFACES §4b); the board section sits under ``"board"``; what ``calibrate tiles`` taught the
reader about an edition's tiles sits under ``"tiles"`` (``learned`` is the game's reader's own
payload, which that reader validates). Any section may be missing. All pixel
positions are in the raw (distorted) camera image; ``board.corners_px`` follow INTERFACES §3:
clockwise from the corner nearest the image's top-left. Colours are CIE L*a*b* (D65, sRGB).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from .camera import CameraCalibration, Rejection, ViewResult

PROFILE_VERSION = 1
CAMERA_FIELDS = ("camera_matrix", "dist_coeffs", "image_size", "rms_px", "images_used", "per_image",
                 "rejected", "square_mm", "target", "coverage", "warnings")
GAMES = ("triolet", "trigon", "triominos", "trio_domino")
#: games whose edition's tiles ``calibrate tiles`` can teach the reader
TILE_GAMES = ("triolet", "triominos", "trio_domino")

Point = tuple[float, float]


class ProfileError(ValueError):
    """A profile that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class ColourReference:
    """A colour of the board as calibrated, and where it was sampled (raw image pixels)."""

    lab: tuple[float, float, float]
    rgb: tuple[int, int, int]
    spread: float
    """Median colour difference (ΔE76) of the samples from ``lab``."""
    points_px: tuple[Point, ...] = ()
    cells: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "lab": [round(v, 2) for v in self.lab],
            "rgb": list(self.rgb),
            "spread": round(self.spread, 2),
            "points_px": [[round(x, 2), round(y, 2)] for x, y in self.points_px],
        }
        if self.cells:
            out["cells"] = list(self.cells)
        return out


@dataclass(frozen=True)
class BoardReference:
    """Where the board lies in the camera image and what its colours look like."""

    game: str
    corners_px: tuple[Point, Point, Point, Point]
    image_size: tuple[int, int]
    colours: Mapping[str, ColourReference] = field(default_factory=dict)
    edges: tuple[tuple[float, ...], ...] = ()
    """Grey-level profile across each side of the board outline at calibration (for re-validation)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "corners_px": [[round(x, 2), round(y, 2)] for x, y in self.corners_px],
            "image_size": [self.image_size[0], self.image_size[1]],
            "colours": {name: ref.to_json() for name, ref in self.colours.items()},
            "edges": [[round(v, 2) for v in side] for side in self.edges],
        }


@dataclass(frozen=True)
class TileReference:
    """What one picture of an edition's tiles taught the game's reader (``calibrate tiles``)."""

    game: str
    image_size: tuple[int, int]
    summary: Mapping[str, Any] = field(default_factory=dict)
    """What the calibration printed (JSON values), e.g. ``{"values": 17, "typeface_match": 0.93}``."""
    learned: Mapping[str, Any] = field(default_factory=dict)
    """The reader's own payload (JSON values): exemplars, colours, ...; the reader validates it."""

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "image_size": [self.image_size[0], self.image_size[1]],
                "summary": dict(self.summary), "learned": dict(self.learned)}


@dataclass(frozen=True)
class Profile:
    """A calibration profile: camera intrinsics, a board reference and/or an edition's tiles."""

    camera: CameraCalibration | None = None
    board: BoardReference | None = None
    version: int = PROFILE_VERSION
    tiles: TileReference | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": self.version}
        if self.camera is not None:
            out.update(self.camera.to_json())
        if self.board is not None:
            out["board"] = self.board.to_json()
        if self.tiles is not None:
            out["tiles"] = self.tiles.to_json()
        return out

    def with_camera(self, camera: CameraCalibration) -> Profile:
        return replace(self, camera=camera)

    def with_board(self, board: BoardReference) -> Profile:
        return replace(self, board=board)

    def with_tiles(self, tiles: TileReference) -> Profile:
        return replace(self, tiles=tiles)

    def tiles_for(self, game: str) -> TileReference | None:
        """The tiles section when it was taught for ``game``; ``ProfileError`` when it is another game's."""
        if self.tiles is None:
            return None
        if self.tiles.game != game:
            raise tiles_of_another_game(self.tiles.game, game)
        return self.tiles


def tiles_of_another_game(taught: str, game: str) -> ProfileError:
    """The error for a profile whose tiles were taught for ``taught`` used to read ``game``."""
    return ProfileError(f"the profile's tiles were calibrated for {taught}, not {game} "
                        f"(run: companion calibrate tiles --game {game})")


# -- saving and loading -------------------------------------------------------------------------

def save_profile(path: str | Path, profile: Profile) -> None:
    """Write ``profile`` as JSON (UTF-8, indented)."""
    text = json.dumps(profile.to_json(), indent=2, ensure_ascii=False)
    Path(path).write_text(text + "\n", encoding="utf-8")


#: Largest profile file read (bytes): a profile with a board's colour samples is tens of kilobytes.
MAX_PROFILE_BYTES = 8 * 1024 * 1024


def read_profile_text(path: str | Path) -> str:
    """A profile file's text (at most ``MAX_PROFILE_BYTES``); ``ProfileError`` naming the file."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_PROFILE_BYTES + 1)
        if len(data) > MAX_PROFILE_BYTES:
            raise ProfileError(f"{p}: larger than {MAX_PROFILE_BYTES // (1024 * 1024)} MB, not a profile")
        return data.decode("utf-8")
    except FileNotFoundError:
        raise ProfileError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ProfileError(f"{p}: is a folder, expected a profile file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{p}: cannot read: {exc}") from None


def load_profile(path: str | Path) -> Profile:
    """Read and validate a profile; ``ProfileError`` names the file and the field on bad input."""
    p = Path(path)
    text = read_profile_text(p)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{p}: not JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise ProfileError(f"{p}: not a profile (JSON nested too deeply)") from None
    return parse_profile(obj, str(p))


def update_profile(path: str | Path, camera: CameraCalibration | None = None,
                   board: BoardReference | None = None) -> Profile:
    """Add or replace sections of the profile at ``path`` (created if missing); returns the result."""
    p = Path(path)
    profile = load_profile(p) if p.exists() else Profile()
    if camera is not None:
        profile = profile.with_camera(camera)
    if board is not None:
        profile = profile.with_board(board)
    save_profile(p, profile)
    return profile


def parse_profile(obj: Any, source: str = "profile") -> Profile:
    """Validate a decoded profile object."""
    c = _Checker(source)
    if not isinstance(obj, dict):
        raise ProfileError(f"{source}: expected a JSON object, got {_kind(obj)}")
    if "version" not in obj:
        raise ProfileError(f"{source}: version: missing (expected {PROFILE_VERSION})")
    version = obj["version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProfileError(f"{source}: version: expected an integer, got {_kind(version)}")
    if version != PROFILE_VERSION:
        raise ProfileError(f"{source}: version: {version} is not supported (expected {PROFILE_VERSION})")
    camera = _parse_camera(obj, c) if any(k in obj for k in CAMERA_FIELDS) else None
    board = _parse_board(obj["board"], c) if "board" in obj and obj["board"] is not None else None
    tiles = _parse_tiles(obj["tiles"], c) if "tiles" in obj and obj["tiles"] is not None else None
    return Profile(camera=camera, board=board, version=version, tiles=tiles)


def _parse_camera(obj: dict[str, Any], c: _Checker) -> CameraCalibration:
    for name in ("camera_matrix", "dist_coeffs", "image_size"):
        if name not in obj:
            c.fail(name, "missing (a camera section needs camera_matrix, dist_coeffs and image_size)")
    k = c.matrix(obj["camera_matrix"], "camera_matrix", 3, 3)
    if k[0][0] <= 0 or k[1][1] <= 0:
        c.fail("camera_matrix", "focal lengths (fx, fy) must be positive")
    if k[1][0] != 0 or k[2][0] != 0 or k[2][1] != 0 or k[2][2] != 1:
        c.fail("camera_matrix", "expected [[fx, s, cx], [0, fy, cy], [0, 0, 1]]")
    dist = c.numbers(obj["dist_coeffs"], "dist_coeffs")
    if len(dist) not in (4, 5, 8, 12, 14):
        c.fail("dist_coeffs", f"expected 4, 5, 8, 12 or 14 numbers, got {len(dist)}")
    if len(dist) > 5 and any(v != 0 for v in dist[5:]):
        c.fail("dist_coeffs", "only k1, k2, p1, p2, k3 are supported (later coefficients must be 0)")
    size = c.size(obj["image_size"], "image_size")
    rms = c.optional_number(obj.get("rms_px"), "rms_px")
    used = c.integer(obj.get("images_used", 0), "images_used")
    per_image = tuple(
        ViewResult(
            str(v.get("image", "")),
            c.integer(v.get("corners", 0), f"per_image[{i}].corners"),
            c.optional_number(v.get("rms_px"), f"per_image[{i}].rms_px"),
            c.optional_number(v.get("blur_px"), f"per_image[{i}].blur_px"),
            c.optional_number(v.get("tilt_deg"), f"per_image[{i}].tilt_deg"),
            c.integer(v.get("corners_dropped", 0), f"per_image[{i}].corners_dropped"),
        )
        for i, v in enumerate(c.objects(obj.get("per_image", []), "per_image"))
    )
    rejected = tuple(
        Rejection(str(v.get("image", "")), str(v.get("code", "")), str(v.get("reason", "")))
        for v in c.objects(obj.get("rejected", []), "rejected")
    )
    square = obj.get("square_mm")
    coverage = obj.get("coverage")
    warnings = obj.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        c.fail("warnings", "expected a list of strings")
    target = obj.get("target", {})
    if not isinstance(target, dict):
        c.fail("target", f"expected an object, got {_kind(target)}")
    return CameraCalibration(
        camera_matrix=(tuple(k[0]), tuple(k[1]), tuple(k[2])),  # type: ignore[arg-type]
        dist_coeffs=tuple((dist + [0.0] * 5)[:5]),
        image_size=size,
        rms_px=rms,
        images_used=used,
        per_image=per_image,
        rejected=rejected,
        square_mm=None if square is None else c.number(square, "square_mm"),
        target=target,
        coverage=None if coverage is None else c.number(coverage, "coverage"),
        warnings=tuple(warnings),
    )


def _parse_board(obj: Any, c: _Checker) -> BoardReference:
    if not isinstance(obj, dict):
        c.fail("board", f"expected an object, got {_kind(obj)}")
    game = obj.get("game")
    if game not in GAMES:
        c.fail("board.game", f"expected one of {', '.join(GAMES)}, got {game!r}")
    if "corners_px" not in obj:
        c.fail("board.corners_px", "missing")
    corners = c.matrix(obj["corners_px"], "board.corners_px", 4, 2)
    if "image_size" not in obj:
        c.fail("board.image_size", "missing")
    size = c.size(obj["image_size"], "board.image_size")
    colours_obj = obj.get("colours", {})
    if not isinstance(colours_obj, dict):
        c.fail("board.colours", f"expected an object, got {_kind(colours_obj)}")
    colours = {str(name): _parse_colour(ref, f"board.colours.{name}", c) for name, ref in colours_obj.items()}
    edges_obj = obj.get("edges", [])
    if not isinstance(edges_obj, list):
        c.fail("board.edges", f"expected a list, got {_kind(edges_obj)}")
    edges = tuple(tuple(c.numbers(side, f"board.edges[{i}]")) for i, side in enumerate(edges_obj))
    pts = tuple((row[0], row[1]) for row in corners)
    return BoardReference(game=str(game), corners_px=(pts[0], pts[1], pts[2], pts[3]), image_size=size,
                          colours=colours, edges=edges)


def _parse_tiles(obj: Any, c: _Checker) -> TileReference:
    if not isinstance(obj, dict):
        c.fail("tiles", f"expected an object, got {_kind(obj)}")
    game = obj.get("game")
    if game not in TILE_GAMES:
        c.fail("tiles.game", f"expected one of {', '.join(TILE_GAMES)}, got {game!r}")
    if "image_size" not in obj:
        c.fail("tiles.image_size", "missing")
    size = c.size(obj["image_size"], "tiles.image_size")
    summary = obj.get("summary", {})
    if not isinstance(summary, dict):
        c.fail("tiles.summary", f"expected an object, got {_kind(summary)}")
    learned = obj.get("learned", {})
    if not isinstance(learned, dict):
        c.fail("tiles.learned", f"expected an object, got {_kind(learned)}")
    return TileReference(game=str(game), image_size=size, summary=summary, learned=learned)


def _parse_colour(obj: Any, where: str, c: _Checker) -> ColourReference:
    if not isinstance(obj, dict):
        c.fail(where, f"expected an object, got {_kind(obj)}")
    if "lab" not in obj:
        c.fail(f"{where}.lab", "missing")
    lab = c.numbers(obj["lab"], f"{where}.lab")
    if len(lab) != 3:
        c.fail(f"{where}.lab", f"expected 3 numbers [L, a, b], got {len(lab)}")
    rgb = c.numbers(obj.get("rgb", [0, 0, 0]), f"{where}.rgb")
    if len(rgb) != 3:
        c.fail(f"{where}.rgb", f"expected 3 numbers [r, g, b], got {len(rgb)}")
    points = c.matrix(obj.get("points_px", []), f"{where}.points_px", None, 2)
    cells = obj.get("cells", [])
    if not isinstance(cells, list) or not all(isinstance(s, str) for s in cells):
        c.fail(f"{where}.cells", "expected a list of cell names")
    return ColourReference(
        lab=(lab[0], lab[1], lab[2]),
        rgb=(round(rgb[0]), round(rgb[1]), round(rgb[2])),
        spread=c.number(obj.get("spread", 0.0), f"{where}.spread"),
        points_px=tuple((p[0], p[1]) for p in points),
        cells=tuple(cells),
    )


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) < 30 else "a string"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class _Checker:
    """Field checks that raise ``ProfileError("<source>: <field>: <problem>")``."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str) -> NoReturn:
        raise ProfileError(f"{self.source}: {where}: {problem}")

    def number(self, value: Any, where: str, allow_nan: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(where, f"expected a number, got {_kind(value)}")
        v = float(value)
        if not math.isfinite(v) and not (allow_nan and math.isnan(v)):
            self.fail(where, f"expected a finite number, got {value}")
        return v

    def optional_number(self, value: Any, where: str) -> float:
        """A number, or NaN for a missing or null one."""
        return math.nan if value is None else self.number(value, where, allow_nan=True)

    def integer(self, value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(where, f"expected a non-negative integer, got {_kind(value)}")
        return int(value)

    def numbers(self, value: Any, where: str) -> list[float]:
        if not isinstance(value, list):
            self.fail(where, f"expected a list of numbers, got {_kind(value)}")
        return [self.number(v, f"{where}[{i}]") for i, v in enumerate(value)]

    def matrix(self, value: Any, where: str, rows: int | None, cols: int) -> list[list[float]]:
        shape = f"{rows}×{cols}" if rows is not None else f"n×{cols}"
        if not isinstance(value, list) or (rows is not None and len(value) != rows):
            self.fail(where, f"expected a {shape} list of numbers, got {_kind(value)}")
        out = []
        for i, row in enumerate(value):
            if not isinstance(row, list) or len(row) != cols:
                self.fail(f"{where}[{i}]", f"expected {cols} numbers (a {shape} list), got {_kind(row)}")
            out.append([self.number(v, f"{where}[{i}][{j}]") for j, v in enumerate(row)])
        return out

    def size(self, value: Any, where: str) -> tuple[int, int]:
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)):
            self.fail(where, f"expected [width, height] in whole pixels, got {_kind(value)}")
        return (int(value[0]), int(value[1]))

    def objects(self, value: Any, where: str) -> list[dict[str, Any]]:
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.fail(where, "expected a list of objects")
        return list(value)
