"""Shared pictures for the calibration tests: ChArUco renders with exact truth, synthetic boards."""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_colours import TRIOLET_SPECIALS
from calibration.board_geometry import H, corner_units, trigon_cells, triolet_square_name
from lab.render.charuco import CharucoRender, PinholeCamera, Scene, render_charuco, standard_poses

#: A 720p webcam-like camera: barrel distortion, slightly off-centre principal point.
CAMERA = PinholeCamera(fx=1000.0, fy=1002.0, cx=643.2, cy=357.9, dist=(-0.28, 0.09, 0.0008, -0.0005, -0.012))
VIEW_COUNT = 18


@lru_cache(maxsize=1)
def calibration_renders() -> tuple[CharucoRender, ...]:
    """18 views of the target (tilts 0–60°, any yaw, spread over the image), light noise; seeded."""
    return tuple(
        render_charuco(CAMERA, pose, Scene(noise_std=2.0, noise_seed=i, background_seed=i))
        for i, pose in enumerate(standard_poses(VIEW_COUNT, seed=0))
    )


# -- Triolet ----------------------------------------------------------------------------------------

#: BGR colours of the synthetic Triolet board.
TRIOLET_BGR = {
    "base": (196, 222, 232),
    "double": (60, 205, 240),
    "triple": (55, 60, 200),
    "replay": (40, 140, 245),
    "centre": (60, 205, 240),
    "line": (70, 80, 90),
    "border": (60, 110, 40),
}


def triolet_board(px: int = 40, border: int = 30) -> NDArray[np.uint8]:
    """A flat, upright Triolet board: 15×15 squares of ``px`` pixels inside a ``border``."""
    n = 15 * px + 2 * border
    img = np.zeros((n, n, 3), np.uint8)
    img[:] = TRIOLET_BGR["border"]
    kinds = {name: kind for kind, names in TRIOLET_SPECIALS.items() for name in names}
    for r in range(15):
        for c in range(15):
            name = triolet_square_name(c, r)
            kind = "centre" if name == "H8" else kinds.get(name, "base")
            x0, y0 = border + c * px, border + r * px
            img[y0:y0 + px, x0:x0 + px] = TRIOLET_BGR[kind]
            if name == "H8":  # a compass rose: not a colour sample
                cv2.circle(img, (x0 + px // 2, y0 + px // 2), px // 3, (30, 30, 30), 2)
    for i in range(16):
        v = border + i * px
        cv2.line(img, (v, border), (v, border + 15 * px), TRIOLET_BGR["line"], 1)
        cv2.line(img, (border, v), (border + 15 * px, v), TRIOLET_BGR["line"], 1)
    return img


def table_background(size: tuple[int, int], seed: int = 0) -> NDArray[np.uint8]:
    """A wooden-ish table: smooth brown variations."""
    rng = np.random.default_rng(seed)
    w, h = size
    coarse = rng.uniform(-25, 25, size=(5, 8, 1)).astype(np.float32)
    smooth = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)[..., None]
    base = np.array([60, 95, 140], np.float32)
    table: NDArray[np.uint8] = np.clip(base + smooth, 0, 255).astype(np.uint8)
    return table


def photo_of(board: NDArray[np.uint8], board_corners: NDArray[np.float64], corners_px: NDArray[np.float64],
             size: tuple[int, int] = (1280, 720), seed: int = 0, noise: float = 0.0) -> NDArray[np.uint8]:
    """``board`` warped so that its ``board_corners`` land on ``corners_px``, on a table."""
    hom = cv2.getPerspectiveTransform(board_corners.astype(np.float32), corners_px.astype(np.float32))
    out = table_background(size, seed)
    cv2.warpPerspective(board, hom, size, dst=out, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    if noise > 0:
        out = np.clip(out + np.random.default_rng(seed).normal(0, noise, out.shape), 0, 255).astype(np.uint8)
    return out


def triolet_photo(corners_px: NDArray[np.float64] | None = None, seed: int = 0, noise: float = 0.0
                  ) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """A photo of the synthetic Triolet board and its true playing-area corners (TL, TR, BR, BL)."""
    px, border = 40, 30
    board = triolet_board(px, border)
    src = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], np.float64) * px + border - 0.5
    dst = corners_px if corners_px is not None else np.array(
        [[420.0, 110.0], [905.0, 140.0], [960.0, 640.0], [350.0, 600.0]])
    return photo_of(board, src, dst, seed=seed, noise=noise), dst


# -- Trigon -----------------------------------------------------------------------------------------

TRIGON_GREY = (178, 180, 182)
TRIGON_PIECES = {"blue": (200, 90, 20), "yellow": (30, 210, 235), "red": (40, 40, 210), "green": (70, 170, 40)}


def trigon_board(scale: float = 36.0, pad: int = 20, pieces: dict[str, list[str]] | None = None
                 ) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """A flat Trigon board (grey, dark cell lines) with some cells coloured, and its 4 corners (px)."""
    w = int(18 * scale + 2 * pad)
    hgt = int(18 * H * scale + 2 * pad)
    img = np.zeros((hgt, w, 3), np.uint8)
    img[:] = (235, 235, 235)
    colour_of = {cell: colour for colour, cells in (pieces or {}).items() for cell in cells}
    for name, (cx, _cy), up in trigon_cells():
        row = 18 - int(name.lstrip("abcdefghijklmnopqrstuvwxyz"))
        x_left = cx - 0.5
        if up:
            tri = [(x_left, (row + 1) * H), (x_left + 1, (row + 1) * H), (x_left + 0.5, row * H)]
        else:
            tri = [(x_left, row * H), (x_left + 1, row * H), (x_left + 0.5, (row + 1) * H)]
        poly = np.array([[pad + x * scale, pad + y * scale] for x, y in tri], np.float64)
        colour = TRIGON_PIECES[colour_of[name]] if name in colour_of else TRIGON_GREY
        cv2.fillPoly(img, [np.round(poly * 16).astype(np.int32)], colour, lineType=cv2.LINE_AA, shift=4)
        cv2.polylines(img, [np.round(poly * 16).astype(np.int32)], True, (120, 120, 120), 1, cv2.LINE_AA, shift=4)
    corners = corner_units("trigon") * scale + pad - 0.5
    return img, corners


def rotation_quad(centre: tuple[float, float], half: tuple[float, float], angle_deg: float,
                  squeeze: float = 1.0) -> NDArray[np.float64]:
    """4 corners of a rotated, vertically squeezed rectangle (a board seen at an angle)."""
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    pts = np.array([[-half[0], -half[1]], [half[0], -half[1]], [half[0], half[1]], [-half[0], half[1]]])
    pts = pts @ rot.T
    pts[:, 1] *= squeeze
    quad: NDArray[np.float64] = pts + np.asarray(centre)
    return quad
