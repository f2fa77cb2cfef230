"""Where tile tops lie in the picture, and the board rectified at the tiles' top plane.

Tiles stand a few millimetres proud of the board, so seen at a tilt their faces shift away from
the camera (up to half a square at 60°). From the board homography and an assumed principal point
we recover the focal length and camera pose (Zhang's plane constraints), then map the plane
``TILE_HEIGHT`` squares above the board. Lens bending found by the locator (the grid-crossing
mesh) is added as a smooth correction.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import SIZE, BoardLocation, apply_h

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

TILE_HEIGHT = 0.17  # tile thickness in square pitches (4 mm on a 24 mm square)
PITCH = 40  # rectified px per square
MARGIN = 0.5  # rectified margin around the playing area, squares


def focal_from_homography(h: F64, centre: tuple[float, float]) -> float | None:
    """Focal length (px) making the board's axes orthogonal and equally scaled, or ``None``."""
    c = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]], np.float64)
    m = c @ h
    h1, h2 = m[:, 0], m[:, 1]
    # orthogonality: (h1x h2x + h1y h2y)/f² + h1z h2z = 0 ; equal norms likewise
    est = []
    den = h1[2] * h2[2]
    if abs(den) > 1e-12:
        v = -(h1[0] * h2[0] + h1[1] * h2[1]) / den
        if v > 0:
            est.append(v)
    den2 = h1[2] ** 2 - h2[2] ** 2
    if abs(den2) > 1e-12:
        v = -((h1[0] ** 2 + h1[1] ** 2) - (h2[0] ** 2 + h2[1] ** 2)) / den2
        if v > 0:
            est.append(v)
    if not est:
        return None
    return float(math.sqrt(float(np.median(est))))


def top_plane_homography(h: F64, image_size: tuple[int, int], height: float = TILE_HEIGHT) -> F64:
    """Homography from board units on the plane ``height`` squares above the board to pixels."""
    w, hh = image_size
    centre = ((w - 1) / 2.0, (hh - 1) / 2.0)
    f = focal_from_homography(h, centre)
    if f is None or not (0.3 * w < f < 5.0 * w):
        f = 0.9 * w
    k = np.array([[f, 0, centre[0]], [0, f, centre[1]], [0, 0, 1]], np.float64)
    m = np.linalg.inv(k) @ h
    lam = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    m = m * lam
    if m[2, 2] < 0:  # board in front of the camera
        m = -m
    r1, r2, t = m[:, 0], m[:, 1], m[:, 2]
    r3 = np.cross(r1, r2)
    # z axis of the board frame: into the table is +; tiles stand toward the camera
    toward_cam = -r3 if float(np.dot(r3, t)) < 0 else r3
    top = np.stack([r1, r2, t - height * toward_cam], axis=1)
    ht = k @ top
    return np.asarray(ht / ht[2, 2], np.float64)


def rectify_maps(loc: BoardLocation, image_size: tuple[int, int], pitch: int = PITCH, margin: float = MARGIN,
                 height: float = TILE_HEIGHT) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """``cv2.remap`` maps giving the board at the tile-top plane, ``pitch`` px per square."""
    side = round((SIZE + 2 * margin) * pitch)
    step = 8
    n = side // step + 2
    g = (np.arange(n) + 0.5) * step - 0.5  # node centres as cv2.resize places them
    uu, vv = np.meshgrid(g / pitch - margin, g / pitch - margin)
    pts = np.stack([uu.ravel(), vv.ravel()], axis=1)
    h_top = top_plane_homography(loc.homography, image_size, height)
    img = apply_h(h_top, pts)
    if loc.lens is not None:
        img = loc.lens.distort(img)
    mx = img[:, 0].reshape(n, n).astype(np.float32)
    my = img[:, 1].reshape(n, n).astype(np.float32)
    big = (n * step, n * step)
    mx = np.ascontiguousarray(cv2.resize(mx, big, interpolation=cv2.INTER_LINEAR)[:side, :side])
    my = np.ascontiguousarray(cv2.resize(my, big, interpolation=cv2.INTER_LINEAR)[:side, :side])
    return mx, my


def rectified_board(image: U8, loc: BoardLocation, pitch: int = PITCH, margin: float = MARGIN,
                    height: float = TILE_HEIGHT) -> U8:
    """The picture resampled so square ``(c, r)`` spans ``[(margin + c)·pitch, …)`` at tile-top height."""
    h, w = image.shape[:2]
    mx, my = rectify_maps(loc, (w, h), pitch, margin, height)
    # anti-alias: when the board is big in the picture, blur before sampling
    scale = _image_px_per_rect_px(loc, pitch)
    src: NDArray[Any] = image
    if scale > 1.6:
        sig = 0.45 * scale
        src = cv2.GaussianBlur(image, (0, 0), sig)
    return np.asarray(cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), np.uint8)


def _image_px_per_rect_px(loc: BoardLocation, pitch: int) -> float:
    c = np.asarray(loc.corners_px)
    side = 0.25 * sum(float(np.hypot(*(c[(i + 1) % 4] - c[i]))) for i in range(4))
    return side / (SIZE * pitch)
