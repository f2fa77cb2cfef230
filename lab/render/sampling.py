"""Random cameras, looks, clutter and hands within a difficulty's ranges (shared by every game)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from lab.render.camera import CameraSpec, distortion_is_monotonic
from lab.render.difficulty import Difficulty
from lab.render.hands import HandSpec
from lab.render.look import Glare, LookSpec
from lab.render.styles import LIGHTS, SKIN_TONES, SLEEVES, StylePool
from lab.render.table import ClutterItem

F64 = NDArray[np.float64]


def uni(rng: np.random.Generator, r: tuple[float, float]) -> float:
    """Uniform draw from a closed range (a degenerate range returns its value)."""
    lo, hi = r
    return float(lo) if hi <= lo else float(rng.uniform(lo, hi))


def random_camera(rng: np.random.Generator, diff: Difficulty, footprint_mm: F64, board_mm: float,
                  size: tuple[int, int] | None = None) -> CameraSpec:
    """A camera looking at a board of side ``board_mm`` (``footprint_mm``: corners that must stay in view
    when the difficulty wants the whole board)."""
    w, h = size if size is not None else diff.sizes[int(rng.integers(len(diff.sizes)))]
    hfov = uni(rng, diff.hfov_deg)
    tilt = uni(rng, diff.tilt_deg)
    yaw = uni(rng, diff.yaw_deg)
    roll = uni(rng, diff.roll_deg)
    fill = uni(rng, diff.board_fill)
    k1 = uni(rng, diff.k1)
    k2 = uni(rng, diff.k2)
    j = diff.target_jitter * board_mm
    target = (uni(rng, (-j, j)), uni(rng, (-j, j)))
    while not distortion_is_monotonic(CameraSpec(w, h, hfov_deg=hfov, k1=k1, k2=k2)):
        k1, k2 = k1 * 0.85, k2 * 0.85  # strong barrel on a wide lens would fold the picture
    f = 0.5 * w / math.tan(math.radians(hfov) / 2)
    dist = f * board_mm / (fill * min(w, h))
    cam = CameraSpec(w, h, tilt, yaw, roll, dist, target, hfov, k1, k2)
    if diff.full_board:
        for _ in range(30):
            px = cam.project(np.concatenate([footprint_mm, np.zeros((len(footprint_mm), 1))], axis=1))
            m = 0.02 * min(w, h)
            if (px[:, 0].min() > m and px[:, 1].min() > m and px[:, 0].max() < w - m and px[:, 1].max() < h - m
                    and cam.depth(np.concatenate([footprint_mm, np.zeros((len(footprint_mm), 1))], axis=1)).min() > 0):
                break
            dist *= 1.08
            target = (target[0] * 0.8, target[1] * 0.8)
            cam = CameraSpec(w, h, tilt, yaw, roll, dist, target, hfov, k1, k2)
    return cam


def random_look(rng: np.random.Generator, diff: Difficulty, pool: StylePool) -> LookSpec:
    """Light, optics and sensor within the difficulty's ranges."""
    name = pool.pick(rng, LIGHTS, pool.lights)
    lt = LIGHTS[name]
    kelvin = float(np.clip(lt.kelvin + rng.normal(0, 400), *diff.kelvin))
    glares = []
    for _ in range(int(rng.integers(diff.glare[0], diff.glare[1] + 1))):
        glares.append(Glare(uni(rng, (0.2, 0.8)), uni(rng, (0.2, 0.8)), uni(rng, (0.012, 0.05)),
                            uni(rng, diff.glare_strength), uni(rng, (1.0, 2.5)), uni(rng, (0, 180))))
    motion = uni(rng, diff.motion) if rng.random() < diff.motion_prob else 0.0
    jpeg = int(rng.integers(diff.jpeg[0], diff.jpeg[1] + 1))
    bg = tuple(int(v) for v in rng.integers(20, 200, 3))
    cast = None
    if rng.random() < diff.cast_shadow_prob:
        cast = (uni(rng, (-0.2, 1.2)), uni(rng, (-0.2, 1.2)), uni(rng, (0.2, 0.6)), uni(rng, (0.2, 0.55)))
    return LookSpec(
        light=name, kelvin=kelvin, white_balance=uni(rng, diff.white_balance),
        level=float(np.clip(lt.level * uni(rng, (0.9, 1.1)), *diff.level)),
        key_azimuth_deg=uni(rng, (0, 360)), key_elevation_deg=uni(rng, (30, 80)),
        gradient=uni(rng, diff.gradient) * (0.5 + lt.key), gradient_angle_deg=uni(rng, (0, 360)),
        shadow_strength=uni(rng, diff.shadow) * (0.4 + 0.6 * lt.key), glare=tuple(glares),
        vignette=uni(rng, diff.vignette), noise_sigma=uni(rng, diff.noise), defocus_sigma=uni(rng, diff.defocus),
        motion_px=motion, motion_angle_deg=uni(rng, (0, 180)), jpeg_quality=jpeg,
        saturation=uni(rng, diff.saturation), gamma=uni(rng, diff.gamma), tint_green=lt.tint_green,
        background=(bg[0], bg[1], bg[2]), cast_shadow=cast,
    )


CLUTTER_KINDS = ("paper", "pencil", "cup", "rack", "tile_back", "tile_face", "phone", "dice", "coin", "pouch", "box")


def random_clutter(rng: np.random.Generator, diff: Difficulty, keep_out_mm: float, tile_mm: float,
                   tile_values: int = 16, loose_tiles: bool = True) -> list[ClutterItem]:
    """Objects around (never on) a board of half-size ``keep_out_mm``; ``loose_tiles``: spare Triolet
    tiles (face up or down) among them."""
    items: list[ClutterItem] = []
    kinds = [k for k in CLUTTER_KINDS if loose_tiles or not k.startswith("tile_")]
    for i in range(int(rng.integers(diff.clutter[0], diff.clutter[1] + 1))):
        kind = kinds[int(rng.integers(len(kinds)))]
        size = {"paper": (210, 148), "pencil": (175, 8), "cup": (85, 85), "rack": (230, 32),
                "tile_back": (tile_mm, tile_mm),
                "tile_face": (tile_mm, tile_mm), "phone": (150, 72), "dice": (16, 16), "coin": (24, 24),
                "pouch": (160, 120), "box": (300, 300)}[kind]
        length, width = size[0] * uni(rng, (0.85, 1.15)), size[1] * uni(rng, (0.85, 1.15))
        reach = keep_out_mm + max(length, width) / 2 + 10 + rng.uniform(0, 250)
        a = uni(rng, (0, 2 * math.pi))
        # push out along the direction until the item clears the board square
        x, y = math.cos(a) * reach, math.sin(a) * reach
        scale = max(abs(x), abs(y)) / max(1e-6, reach)
        if max(abs(x), abs(y)) < keep_out_mm + max(length, width) / 2 + 5:
            x, y = x / scale, y / scale
        colour = {"paper": (245, 244, 238), "pencil": tuple(int(v) for v in rng.integers(30, 250, 3)),
                  "cup": tuple(int(v) for v in rng.integers(30, 250, 3)), "rack": (170, 120, 70),
                  "tile_back": (220, 210, 190), "tile_face": (0, 0, 0), "phone": (30, 30, 35),
                  "dice": (240, 240, 240), "coin": (190, 160, 90),
                  "pouch": tuple(int(v) for v in rng.integers(20, 160, 3)),
                  "box": tuple(int(v) for v in rng.integers(30, 230, 3))}[kind]
        value = int(rng.integers(0, tile_values)) if kind == "tile_face" else (-1 if kind == "tile_back" else None)
        kind_drawn = "tile_face" if kind in ("tile_face", "tile_back") else kind
        items.append(ClutterItem(kind_drawn, x, y, length, width, uni(rng, (0, 180)), colour,  # type: ignore[arg-type]
                                 value=value, seed=int(rng.integers(1 << 30)) + i))
    return items


def random_hands(rng: np.random.Generator, diff: Difficulty, targets_mm: list[tuple[float, float]],
                 board_half_mm: float, cam: CameraSpec) -> list[HandSpec]:
    """0–n hands reaching over the board toward ``targets_mm`` (or anywhere on it)."""
    if rng.random() >= diff.hand_prob:
        return []
    n = int(rng.integers(max(1, diff.hands[0]), diff.hands[1] + 1)) if diff.hands[1] > 0 else 0
    hands = []
    for _ in range(n):
        if targets_mm and rng.random() < 0.7:
            tx, ty = targets_mm[int(rng.integers(len(targets_mm)))]
        else:
            tx, ty = uni(rng, (-board_half_mm, board_half_mm)), uni(rng, (-board_half_mm, board_half_mm))
        # players sit around the table: arms come mostly from the camera's side or the sides
        cam_az = math.degrees(math.atan2(cam.position_mm()[1], cam.position_mm()[0]))
        from_deg = cam_az + float(rng.choice([0, 90, -90, 180])) + uni(rng, (-35, 35))
        hands.append(HandSpec(
            tip_mm=(tx + uni(rng, (-20, 20)), ty + uni(rng, (-20, 20))), height_mm=uni(rng, (15, 140)),
            from_deg=from_deg, pose=str(rng.choice(["open", "point", "pinch", "fist", "flat"])),
            skin=SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], sleeve=SLEEVES[int(rng.integers(len(SLEEVES)))],
            sleeve_at=uni(rng, (0.0, 0.6)), scale=uni(rng, (0.85, 1.15)), spread_deg=uni(rng, (-8, 15)),
            left=bool(rng.random() < 0.5)))
    return hands
