"""Renderer B: a random Triolet table rendered by POV-Ray (ray-traced 3D tiles, soft and hard
shadows, glossy glare), then sensor noise and JPEG; labels in the project renderer's format
(``lab/render/triolet.py``), so ``lab.evaluate.triolet.score_frame`` scores it.

Positions come from the project renderer's sampler (``triolet_random.position_tiles``: a simulated
engine game). Renders are cached on disk by seed and settings (``cache``).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.frame import RenderedFrame, r2
from lab.render.povray.faces import faces
from lab.render.povray.scene import EDITIONS, TILE_BODIES, TILE_NAMES, PovCamera, PovScene, PovTile, TileSet, scene_text
from lab.render.triolet import BOARD_CORNER_NAMES, view_rotation
from lab.render.triolet_board import parse_square, rotate_square, square_name
from lab.render.triolet_random import position_tiles

#: Bumped when a change alters the pictures: part of the cache key.
RENDERER_VERSION = 1
TABLES = ("wood", "cloth", "marble", "laminate")


class PovrayMissing(RuntimeError):
    """POV-Ray is not installed (``apt-get install povray``)."""


def povray_binary() -> str:
    """The ``povray`` executable; ``PovrayMissing`` if there is none."""
    exe = shutil.which("povray")
    if exe is None:
        raise PovrayMissing("POV-Ray is not installed (apt-get install povray)")
    return exe


def _unit(v: Any) -> Any:
    a = np.asarray(v, np.float64)
    return a / np.linalg.norm(a)


def camera_looking_at(target: Any, tilt_deg: float, yaw_deg: float, roll_deg: float, dist: float, focal_px: float,
                      size: tuple[int, int]) -> PovCamera:
    """A pinhole ``dist`` mm from ``target`` (world), ``tilt_deg`` from straight above, facing along
    ``yaw_deg`` (the picture's up points away from the camera), rolled by ``roll_deg``."""
    w, h = size
    t, y = math.radians(tilt_deg), math.radians(yaw_deg)
    # from the target, back along the view: up (−Z) and out toward the yaw direction
    back = np.array([math.sin(t) * math.cos(y), math.sin(t) * math.sin(y), -math.cos(t)])
    tgt = np.asarray(target, np.float64)
    pos = tgt + dist * back
    fwd = _unit(tgt - pos)
    ref = np.array([-math.cos(y), -math.sin(y), 0.0])  # the picture's up: away from the camera
    up0 = _unit(ref - fwd * (ref @ fwd))
    right0 = _unit(np.cross(-up0, fwd))
    down0 = np.cross(fwd, right0)
    r = math.radians(roll_deg)
    right = math.cos(r) * right0 + math.sin(r) * down0
    down = np.cross(fwd, right)
    return PovCamera(tuple(pos), tuple(right), tuple(down), tuple(fwd), focal_px, w, h, tilt_deg)


def random_pov_camera(rng: np.random.Generator, scene_half: float, corners: Any, size: tuple[int, int],
                      yaw: float | None = None) -> PovCamera:
    """A camera 0–45° from straight above, facing the board from any side (or from ``yaw`` degrees),
    the whole board in view."""
    w, h = size
    hfov = float(rng.uniform(45, 70))
    f = 0.5 * w / math.tan(math.radians(hfov) / 2)
    tilt = float(rng.uniform(0, 45))
    drawn = float(rng.uniform(-180, 180))
    yaw = drawn if yaw is None else yaw
    roll = float(rng.uniform(-4, 4))
    fill = float(rng.uniform(0.6, 0.95))
    target = np.array([*rng.uniform(-0.08, 0.08, 2) * scene_half, 0.0])
    dist = f * 2 * scene_half / (fill * min(w, h))
    cam = None
    for _ in range(40):
        cam = camera_looking_at(target, tilt, yaw, roll, dist, f, size)
        px = cam.project(corners)
        m = 0.03 * min(w, h)
        if px[:, 0].min() > m and px[:, 1].min() > m and px[:, 0].max() < w - m and px[:, 1].max() < h - m:
            break
        dist *= 1.07
        target *= 0.8
    assert cam is not None
    return cam


Light = tuple[tuple[float, float, float], tuple[float, float, float], float]


def random_lights(rng: np.random.Generator, warmth: float = 1.0) -> list[Light]:
    """A key area light (soft shadows) from neutral daylight to a warm lamp (``warmth`` 1: mildly
    warm at most; 2: tungsten), a hard light (a bare bulb or the sun) in 60 % of scenes, a ceiling
    fill. Each light: position (world mm), colour, area side (0: a point light)."""
    warm = float(rng.uniform(0, warmth))
    col = (1.0, 0.96 - 0.06 * warm, 0.92 - 0.14 * warm)
    az = float(rng.uniform(0, 2 * math.pi))
    elev = math.radians(float(rng.uniform(35, 80)))
    d = float(rng.uniform(900, 1600))
    key = (d * math.cos(elev) * math.cos(az), d * math.cos(elev) * math.sin(az), -d * math.sin(elev))
    k0, k1, k2 = (float(rng.uniform(0.65, 0.95)) for _ in range(3))  # strength, a slight tint
    lights: list[Light] = [
        (key, (col[0] * k0, col[1] * k1, col[2] * k2), float(rng.uniform(80, 400)))]
    if rng.random() < 0.6:  # a hard light: a bare bulb or the sun through a window
        az2 = az + float(rng.uniform(1.5, 4.5))
        e2 = math.radians(float(rng.uniform(25, 70)))
        h0, h1, h2 = (float(rng.uniform(0.2, 0.4)) for _ in range(3))
        lights.append(((2000 * math.cos(e2) * math.cos(az2), 2000 * math.cos(e2) * math.sin(az2),
                        -2000 * math.sin(e2)), (h0, h1, h2), 0.0))
    lights.append(((0.0, 0.0, -2500.0), (0.15, 0.15, 0.15), 0.0))  # ceiling fill, no distinct shadow
    return lights


def random_scene(seed: int, group: str = "train", size: tuple[int, int] = (1280, 720)) -> PovScene:
    """A random table for renderer B, fully determined by ``seed`` and the typeface ``group``."""
    rng = np.random.default_rng([seed, 0xB0B])
    tiles, _ = position_tiles(rng, int(rng.integers(5, 71)))
    placed = []
    for sq, value, wild in tiles:
        placed.append(PovTile(sq, value, wild, int(rng.integers(0, 4)), float(rng.uniform(-6, 6)),
                              (float(rng.uniform(-0.06, 0.06)), float(rng.uniform(-0.06, 0.06)))))
    pool = faces(group)
    face = pool[int(rng.integers(len(pool)))]
    edition = EDITIONS[int(rng.integers(len(EDITIONS)))]
    body, ink = TILE_BODIES[int(rng.integers(len(TILE_BODIES)))]
    tile_set = TileSet(body, ink, "engraved" if rng.random() < 0.35 else "printed", bool(rng.random() < 0.5),
                       float(rng.uniform(0, 1)), float(rng.uniform(0.04, 0.12)))
    square_mm = float(rng.uniform(18, 26))
    half = 7.5 * square_mm + edition.border_ratio * square_mm
    h15 = 7.5 * square_mm
    corners = np.array([[-half, -half, 0.0], [half, -half, 0.0], [half, half, 0.0], [-half, half, 0.0]])
    cam = random_pov_camera(rng, half, corners, size)
    lights = random_lights(rng)
    scene = PovScene(
        tiles=tuple(placed), edition=edition, tile_set=tile_set, face=face, square_mm=square_mm,
        tile_ratio=float(rng.uniform(0.84, 0.94)),
        tile_height_mm=float(rng.uniform(1.5, 3.0) if edition.name == "travel magnetic" else rng.uniform(3.0, 6.5)),
        board_thickness_mm=float(rng.uniform(1.5, 5.0)), numeral_height=float(rng.uniform(0.36, 0.5)),
        camera=cam, lights=tuple(lights), ambient=float(rng.uniform(0.06, 0.16)),
        table=TABLES[int(rng.integers(len(TABLES)))], exposure=float(rng.uniform(0.8, 1.15)),
        extras={"noise": float(rng.uniform(1.5, 6)), "jpeg": float(rng.uniform(70, 95)),
                "blur": float(rng.uniform(0, 0.8)), "vignette": float(rng.uniform(0, 0.3))},
    )
    assert h15 > 0
    return scene


def tile_set_name(ts: TileSet) -> str:
    """The name of ``ts``'s body and ink colours (``scene.TILE_NAMES``)."""
    return next((n for n, (b, i) in zip(TILE_NAMES, TILE_BODIES, strict=True) if b == ts.body and i == ts.ink), "other")


def frame_style(labels: dict[str, Any]) -> dict[str, Any]:
    """A frame's ``style`` labels, with the tile set's name worked out from its seed when the labels
    were cached before they named it."""
    style = dict(labels["style"])
    if "tiles" not in style:
        w, h = labels["image_size"]
        scene = random_scene(int(labels["seed"]), str(style["typeface_group"]), (w, h))
        style["tiles"] = tile_set_name(scene.tile_set)
    return style


def postprocess(img: Any, exposure: float, extras: dict[str, float], rng: np.random.Generator) -> NDArray[np.uint8]:
    """Exposure, vignetting, lens softness, sensor noise (shot and read), JPEG (``extras``: ``vignette``,
    ``blur``, ``noise``, ``jpeg``)."""
    x = img.astype(np.float32) * exposure
    h, w = x.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    rr = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    x *= (1 - extras["vignette"] * rr)[..., None]
    if extras["blur"] > 0.05:
        x = cv2.GaussianBlur(x, (0, 0), extras["blur"])
    sigma = extras["noise"]
    x += rng.normal(0, 1, x.shape).astype(np.float32) * (sigma * np.sqrt(np.clip(x, 0, 255) / 128.0) + 0.5)
    out = np.clip(x, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, round(extras["jpeg"])])
    assert ok
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


def _postprocess(img: Any, sc: PovScene, rng: np.random.Generator) -> NDArray[np.uint8]:
    """Exposure, vignetting, lens softness, sensor noise (shot and read), JPEG."""
    return postprocess(img, sc.exposure, sc.extras, rng)


def run_povray(text: str, size: tuple[int, int], quality: str = "normal",
               files: dict[str, NDArray[np.uint8]] | None = None) -> NDArray[np.uint8]:
    """Ray-trace the scene ``text`` at ``size`` on one thread; ``files`` are pictures the scene reads
    (name → BGR array, written beside it). Returns the raw BGR picture."""
    exe = povray_binary()
    w, h = size
    aa = ["+A0.2", "+AM2", "+R2"] if quality == "normal" else ["-A"]
    with tempfile.TemporaryDirectory(prefix="povray_") as tmp:
        pov = Path(tmp) / "scene.pov"
        png = Path(tmp) / "scene.png"
        pov.write_text(text, encoding="utf-8")
        for name, pic in (files or {}).items():
            cv2.imwrite(str(Path(tmp) / name), pic)
        cmd = [exe, f"+I{pov}", f"+O{png}", f"+W{w}", f"+H{h}", "+FN", "-D", "-P", "-V", "+WT1", "+Q9", *aa,
               f"+L{tmp}"]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, check=False)
        if res.returncode != 0 or not png.exists():
            tail = " ".join(res.stderr.strip().splitlines()[-3:])
            raise RuntimeError(f"povray failed ({res.returncode}): {tail}")
        raw = cv2.imread(str(png), cv2.IMREAD_COLOR)
    return np.asarray(raw, np.uint8)


def render_scene(sc: PovScene, seed: int, quality: str = "normal") -> RenderedFrame:
    """Ray-trace ``sc`` with POV-Ray, post-process it, and label it."""
    raw = run_povray(scene_text(sc), (sc.camera.width, sc.camera.height), quality)
    image = _postprocess(raw, sc, np.random.default_rng([seed, 0x1A6E]))
    return RenderedFrame(image=image, labels=scene_labels(sc, seed))


def scene_labels(sc: PovScene, seed: int) -> dict[str, Any]:
    """Exact truth in the project renderer's label format (``docs/RENDERER.md``)."""
    cam = sc.camera
    corners = cam.project(sc.playing_corners())
    k = view_rotation(corners)
    view_corners = np.roll(corners, -k, axis=0)
    half = sc.outer_half()
    outer = cam.project(np.array([[-half, -half, 0], [half, -half, 0], [half, half, 0], [-half, half, 0]], float))
    cells, view_cells = [], []
    for t in sc.tiles:
        c, r = parse_square(t.square)
        cv, rv = rotate_square(c, r, k)
        top = sc.tile_corners(t)
        px = cam.project(top)
        centre = cam.project(top.mean(axis=0, keepdims=True))[0]
        in_image = bool(0 <= centre[0] < cam.width and 0 <= centre[1] < cam.height)
        cells.append({"square": t.square, "value": t.value, "wild": t.wild, "square_view": square_name(cv, rv),
                      "rotation": (t.rotation % 4) * 90, "rotation_view": ((t.rotation - k) % 4) * 90,
                      "askew_deg": round(t.askew_deg, 3), "offset": [round(v, 4) for v in t.offset],
                      "corners_px": r2(px), "center_px": r2(centre), "visible": 1.0, "marks_visible": 1.0,
                      "marks_confusable": [], "in_image": in_image})
        if in_image:
            view_cells.append({"square": square_name(cv, rv), "value": None if t.wild else t.value, "wild": t.wild})
    view_cells.sort(key=lambda d: (int(str(d["square"])[1:]), str(d["square"])[0]))
    return {
        "game": "triolet", "renderer": "povray", "seed": seed, "image_size": [cam.width, cam.height],
        "board": {"corners_px": r2(corners), "corner_names": list(BOARD_CORNER_NAMES),
                  "corners_px_view": r2(view_corners), "view_rotation": k, "outer_corners_px": r2(outer),
                  "square_mm": sc.square_mm, "tile_height_mm": sc.tile_height_mm},
        "cells": cells,
        "read": {"game": "triolet", "board": {"corners_px": r2(view_corners)}, "cells": view_cells},
        "style": {"edition": sc.edition.name, "typeface": sc.face.name, "typeface_file": sc.face.file,
                  "typeface_style": sc.face.style, "typeface_group": sc.face.group,
                  "tiles": tile_set_name(sc.tile_set), "marking": sc.tile_set.marking,
                  "six_nine_bar": sc.tile_set.six_nine_bar, "gloss": round(sc.tile_set.gloss, 3), "table": sc.table,
                  "lights": len(sc.lights)},
        "camera": {"tilt_deg": round(cam.tilt_deg, 2), "focal_px": round(cam.focal_px, 2)},
    }


def cache_key(seed: int, group: str, size: tuple[int, int], quality: str) -> str:
    """The file stem a render is cached under: its seed and a digest of everything that shapes it."""
    text = json.dumps({"v": RENDERER_VERSION, "seed": seed, "group": group, "size": list(size), "q": quality,
                       "faces": [asdict(f) for f in faces(group)]}, sort_keys=True)
    return f"triolet_b_{seed}_{hashlib.sha1(text.encode()).hexdigest()[:12]}"


def povray_frame(seed: int, group: str = "train", size: tuple[int, int] = (1280, 720),
                 cache: str | Path | None = None, quality: str = "normal") -> RenderedFrame:
    """One random renderer-B picture with labels, from ``cache`` (a folder) when it holds it."""
    return through_cache(cache, cache_key(seed, group, size, quality),
                         lambda: render_scene(random_scene(seed, group, size), seed, quality))


def through_cache(cache: str | Path | None, stem: str, render: Callable[[], RenderedFrame]) -> RenderedFrame:
    """The picture kept in ``cache`` (a folder) under ``stem`` (``.jpg`` and ``.json``), else ``render()``
    kept there; no cache: ``render()``."""
    if cache is not None:
        d = Path(cache)
        img_path, lab_path = d / f"{stem}.jpg", d / f"{stem}.json"
        if img_path.exists() and lab_path.exists():
            img = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
            if img is not None:
                return RenderedFrame(image=np.asarray(img, np.uint8),
                                     labels=json.loads(lab_path.read_text(encoding="utf-8")))
    frame = render()
    if cache is not None:
        frame.save(cache, stem, jpeg_quality=100)
    return frame
