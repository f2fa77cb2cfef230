"""Synthetic photos of the ChArUco calibration target with exact ground truth.

The printed target (``calibration.target``) is a plane seen by a pinhole camera with known
intrinsics ``K``, Brown–Conrady distortion ``(k1, k2, p1, p2, k3)`` and pose. Rendering maps
every output pixel backwards: undistort → ray → point on the target plane → target texture
(``cv2.remap``), on a 2×2 supersampled grid averaged down. Pixel centres are undistorted exactly
(Newton, to 1e-12) and sub-pixel samples to within 1e-4 px, so the lens model holds exactly where
it matters; the true corner positions are the forward projection of the board corners (equal to
``cv2.projectPoints``).

``python -m lab.render.charuco DIR [COUNT [SEED]]`` writes a calibration set and its truth.

Board frame: origin at the board's top-left outer corner, x right, y down (along the rows of
squares), z into the board — the frame of ``CharucoBoard.getChessboardCorners()``; millimetres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.distortion import distort_normalized, normalized_to_pixels, pixels_to_normalized, undistort_normalized
from calibration.target import DEFAULT_TARGET, CharucoTarget, target_image

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class PinholeCamera:
    """Intrinsics: focal lengths and principal point (px), distortion, image size ``(w, h)``."""

    fx: float = 1000.0
    fy: float = 1000.0
    cx: float = 639.5
    cy: float = 359.5
    dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)
    width: int = 1280
    height: int = 720

    def camera_matrix(self) -> FloatArray:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    def dist_coeffs(self) -> FloatArray:
        return np.asarray(self.dist, dtype=np.float64)

    @property
    def image_size(self) -> tuple[int, int]:
        return (self.width, self.height)


@dataclass(frozen=True)
class TargetPose:
    """Where the target is, seen from the camera.

    ``tilt_deg``: angle between the optical axis and the target's normal (0 = facing the camera).
    ``tilt_dir_deg``: direction, in the image, of the axis the target is tilted about.
    ``yaw_deg``: rotation of the target about its own normal. ``distance_mm``: camera centre to
    the target's centre. ``center``: where the target's centre appears, as a fraction of the
    image size from the image centre (``(0, 0)`` = centre, ``(0.5, 0.5)`` = bottom-right corner).
    """

    tilt_deg: float = 0.0
    tilt_dir_deg: float = 0.0
    yaw_deg: float = 0.0
    distance_mm: float = 450.0
    center: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Scene:
    """Paper, lighting and picture quality around the target."""

    square_mm: float = 30.0
    paper_margin_squares: float = 0.5
    background_seed: int = 0
    blur_sigma_px: float = 0.0
    noise_std: float = 0.0
    noise_seed: int = 0
    light_gradient: float = 0.15
    supersample: int = 2


@dataclass(frozen=True)
class CharucoRender:
    """A rendered photo (BGR, uint8) and its truth."""

    image: NDArray[np.uint8]
    camera: PinholeCamera
    rvec: FloatArray
    tvec: FloatArray
    corner_ids: NDArray[np.int32]
    """Ids of the ChArUco corners that fall inside the image, ascending."""
    corners_px: FloatArray
    """True pixel positions of those corners (distortion included), shape (n, 2)."""


def pose_to_rt(pose: TargetPose, camera: PinholeCamera, target: CharucoTarget, square_mm: float
               ) -> tuple[FloatArray, FloatArray]:
    """``(rvec, tvec)`` mapping board-frame points to camera coordinates for ``pose``."""
    a = math.radians(pose.yaw_deg)
    rz = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    d = math.radians(pose.tilt_dir_deg)
    axis = np.array([math.cos(d), math.sin(d), 0.0]) * math.radians(pose.tilt_deg)
    rt, _ = cv2.Rodrigues(axis)
    rot = np.asarray(rt, dtype=np.float64) @ rz
    # Direction of the ray through the wanted image position (ideal, undistorted).
    u = camera.width * (0.5 + pose.center[0]) - 0.5
    v = camera.height * (0.5 + pose.center[1]) - 0.5
    xy_d = pixels_to_normalized(np.array([u, v], dtype=np.float64), camera.camera_matrix())
    xy, _ = undistort_normalized(xy_d, camera.dist)
    ray = np.array([xy[0], xy[1], 1.0])
    centre_cam = ray / np.linalg.norm(ray) * pose.distance_mm
    centre_board = np.array([target.squares_x * square_mm / 2.0, target.squares_y * square_mm / 2.0, 0.0])
    tvec = centre_cam - rot @ centre_board
    rvec, _ = cv2.Rodrigues(rot)
    return np.asarray(rvec, dtype=np.float64).reshape(3), tvec


@lru_cache(maxsize=2)
def _ideal_rays(camera: PinholeCamera, supersample: int) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Ideal normalised coordinates of every supersampled pixel centre, and where they are valid.

    Pixel centres are inverted exactly (Newton, residual < 1e-12); the sub-pixel sample points of
    a supersampled pixel are reached from its centre by the inverse Jacobian of the lens model
    (a first-order step of at most half a pixel: error below 1e-4 px for ordinary lenses).
    """
    f = supersample
    us = np.arange(camera.width, dtype=np.float64)
    vs = np.arange(camera.height, dtype=np.float64)
    grid = np.stack(np.meshgrid(us, vs), axis=-1)
    k = camera.camera_matrix()
    xy_d = pixels_to_normalized(grid, k)
    xy, residual = undistort_normalized(xy_d, camera.dist)
    valid = residual < 1e-9
    if f == 1:
        return xy, valid
    inv = _inverse_jacobian(xy, camera.dist)
    offsets = (np.arange(f, dtype=np.float64) + 0.5) / f - 0.5  # sub-pixel centres, in pixels
    out = np.empty((camera.height * f, camera.width * f, 2))
    for j, dv in enumerate(offsets):
        for i, du in enumerate(offsets):
            dn = np.array([du / camera.fx, dv / camera.fy])  # normalised (distorted) step
            out[j::f, i::f, 0] = xy[..., 0] + inv[..., 0, 0] * dn[0] + inv[..., 0, 1] * dn[1]
            out[j::f, i::f, 1] = xy[..., 1] + inv[..., 1, 0] * dn[0] + inv[..., 1, 1] * dn[1]
    return out, np.repeat(np.repeat(valid, f, axis=0), f, axis=1)


def _inverse_jacobian(xy: FloatArray, dist: tuple[float, ...]) -> FloatArray:
    """Inverse of d(distorted)/d(ideal) at ideal points ``xy``, shape (..., 2, 2)."""
    k1, k2, p1, p2, k3 = dist
    x, y = xy[..., 0], xy[..., 1]
    r2 = x * x + y * y
    radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
    d_radial = k1 + r2 * (2.0 * k2 + 3.0 * k3 * r2)
    jxx = radial + 2.0 * x * x * d_radial + 2.0 * p1 * y + 6.0 * p2 * x
    jxy = 2.0 * x * y * d_radial + 2.0 * p1 * x + 2.0 * p2 * y
    jyy = radial + 2.0 * y * y * d_radial + 6.0 * p1 * y + 2.0 * p2 * x
    det = jxx * jyy - jxy * jxy
    det = np.where(np.abs(det) < 1e-12, 1e-12, det)
    inv = np.empty((*x.shape, 2, 2))
    inv[..., 0, 0] = jyy / det
    inv[..., 0, 1] = -jxy / det
    inv[..., 1, 0] = -jxy / det
    inv[..., 1, 1] = jxx / det
    return inv


def _paper_roi(hinv: FloatArray, rays: FloatArray, valid: NDArray[np.bool_], f: int,
               bounds_mm: tuple[float, float, float, float], size: tuple[int, int], step: int = 6
               ) -> tuple[int, int, int, int] | None:
    """Pixel box ``(x0, y0, x1, y1)`` (exclusive ends) holding the paper, or None if it is not seen.

    The paper test runs on every ``step``-th pixel; the box is widened by two steps so that a
    sharp paper corner poking out between test pixels stays inside.
    """
    w, h = size
    coarse = rays[::step * f, ::step * f]
    ok = valid[::step * f, ::step * f]
    x, y = coarse[..., 0], coarse[..., 1]
    bw = hinv[2, 0] * x + hinv[2, 1] * y + hinv[2, 2]
    safe = np.where(bw > 1e-12, bw, 1.0)
    bx = (hinv[0, 0] * x + hinv[0, 1] * y + hinv[0, 2]) / safe
    by = (hinv[1, 0] * x + hinv[1, 1] * y + hinv[1, 2]) / safe
    x_min, y_min, x_max, y_max = bounds_mm
    hit = ok & (bw > 1e-12) & (bx >= x_min) & (bx <= x_max) & (by >= y_min) & (by <= y_max)
    if not hit.any():
        return None
    rows = np.nonzero(hit.any(axis=1))[0]
    cols = np.nonzero(hit.any(axis=0))[0]
    x0 = max(int(cols[0]) * step - 2 * step, 0)
    y0 = max(int(rows[0]) * step - 2 * step, 0)
    x1 = min(int(cols[-1]) * step + 2 * step + 1, w)
    y1 = min(int(rows[-1]) * step + 2 * step + 1, h)
    return (x0, y0, x1, y1)


@lru_cache(maxsize=8)
def _background(camera: PinholeCamera, seed: int) -> NDArray[np.float32]:
    """A cluttered, smoothly varying colour background (BGR, float32)."""
    rng = np.random.default_rng(seed)
    w, h = camera.width, camera.height
    coarse = rng.uniform(40, 200, size=(6, 10, 3)).astype(np.float32)
    smooth = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    fine = rng.normal(0.0, 12.0, size=(h // 4 + 1, w // 4 + 1)).astype(np.float32)
    fine_up = cv2.resize(fine, (w, h), interpolation=cv2.INTER_LINEAR)
    out: NDArray[np.float32] = np.clip(smooth + fine_up[..., None], 0, 255).astype(np.float32)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4)
def _light(camera: PinholeCamera, gradient: float) -> NDArray[np.float32]:
    """A gentle linear lighting gradient across the image, (h, w, 1)."""
    h, w = camera.height, camera.width
    gx = (np.arange(w, dtype=np.float32) / w - 0.5) * 0.8
    gy = (np.arange(h, dtype=np.float32) / h - 0.5) * 0.6
    light = (1.0 + gradient * (gx[None, :] + gy[:, None]))[..., None].astype(np.float32)
    light.setflags(write=False)
    return light


def _texture_scale(rvec: FloatArray, tvec: FloatArray, camera: PinholeCamera, target: CharucoTarget,
                   square_mm: float) -> float:
    """Largest image size (px) of one board millimetre, over the board."""
    n = 8
    xs = np.linspace(0, target.squares_x * square_mm, n * target.squares_x + 1)
    ys = np.linspace(0, target.squares_y * square_mm, n * target.squares_y + 1)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    pts = np.concatenate([grid, np.zeros((len(grid), 1))], axis=1)
    img, _ = cv2.projectPoints(pts, rvec, tvec, camera.camera_matrix(), camera.dist_coeffs())
    img = img.reshape(len(ys), len(xs), 2)
    step = xs[1] - xs[0]
    dx = np.linalg.norm(np.diff(img, axis=1), axis=-1).max() / step
    dy = np.linalg.norm(np.diff(img, axis=0), axis=-1).max() / step
    return float(max(dx, dy))


def render_charuco(
    camera: PinholeCamera,
    pose: TargetPose,
    scene: Scene = Scene(),
    target: CharucoTarget = DEFAULT_TARGET,
) -> CharucoRender:
    """A photo of the printed target at ``pose``; exact truth for the visible ChArUco corners."""
    rvec, tvec = pose_to_rt(pose, camera, target, scene.square_mm)
    rot, _ = cv2.Rodrigues(rvec)
    f = max(1, int(scene.supersample))
    rays, valid = _ideal_rays(camera, f)

    # Texture: the printed sheet, a texel no larger than a supersampled output pixel.
    scale = _texture_scale(rvec, tvec, camera, target, scene.square_mm) * f
    px_per_square = int(np.clip(math.ceil(scale * scene.square_mm * 1.2), 20, 600))
    margin_px = round(scene.paper_margin_squares * px_per_square)
    sheet = target_image(px_per_square, margin_px, target).astype(np.float32)
    sheet = 28.0 + sheet * (232.0 - 28.0) / 255.0
    texels_per_mm = px_per_square / scene.square_mm

    # Output pixel -> board plane: inverse of the plane-to-camera homography [r1 r2 t], inside the
    # box that holds the paper.
    board_w, board_h = target.squares_x * scene.square_mm, target.squares_y * scene.square_mm
    pad = scene.paper_margin_squares * scene.square_mm
    hom = np.column_stack([rot[:, 0], rot[:, 1], tvec])
    hinv = np.linalg.inv(hom)
    roi = _paper_roi(hinv, rays, valid, f, (-pad, -pad, board_w + pad, board_h + pad), camera.image_size)
    x0, y0, x1, y1 = roi if roi is not None else (0, 0, 1, 1)
    box_rays = rays[y0 * f:y1 * f, x0 * f:x1 * f]
    box_valid = valid[y0 * f:y1 * f, x0 * f:x1 * f]
    x, y = box_rays[..., 0], box_rays[..., 1]
    bx = hinv[0, 0] * x + hinv[0, 1] * y + hinv[0, 2]
    by = hinv[1, 0] * x + hinv[1, 1] * y + hinv[1, 2]
    bw = hinv[2, 0] * x + hinv[2, 1] * y + hinv[2, 2]
    in_front = (bw > 1e-12) & box_valid
    safe_w = np.where(in_front, bw, 1.0)
    map_x = np.where(in_front, (bx / safe_w) * texels_per_mm + margin_px - 0.5, -1e6).astype(np.float32)
    map_y = np.where(in_front, (by / safe_w) * texels_per_mm + margin_px - 0.5, -1e6).astype(np.float32)
    sheet_alpha = cv2.merge([sheet, np.ones_like(sheet)])
    sampled = cv2.remap(sheet_alpha, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                        borderValue=(0.0, 0.0, 0.0, 0.0))
    if f > 1:
        sampled = cv2.resize(sampled, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    # Paper over background, then light, blur, noise.
    out = _background(camera, scene.background_seed).copy()
    paper = sampled[..., 0:1] * np.array([1.0, 0.98, 0.95], np.float32)  # warm white paper
    a = sampled[..., 1:2]
    out[y0:y1, x0:x1] = paper * a + out[y0:y1, x0:x1] * (1.0 - a)
    out *= _light(camera, float(scene.light_gradient))
    if scene.blur_sigma_px > 0:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), scene.blur_sigma_px), dtype=np.float32)
    if scene.noise_std > 0:
        rng = np.random.default_rng(scene.noise_seed)
        out += rng.standard_normal(size=out.shape, dtype=np.float32) * np.float32(scene.noise_std)
    image = np.clip(np.rint(out), 0, 255).astype(np.uint8)

    ids, corners = true_corners(camera, rvec, tvec, target, scene.square_mm)
    return CharucoRender(image, camera, rvec, tvec, ids, corners)


def true_corners(camera: PinholeCamera, rvec: FloatArray, tvec: FloatArray, target: CharucoTarget,
                 square_mm: float) -> tuple[NDArray[np.int32], FloatArray]:
    """Ids and exact pixel positions of the ChArUco corners in front of the camera and inside the image."""
    obj = target.corner_points(square_mm)
    rot, _ = cv2.Rodrigues(rvec)
    cam = obj @ np.asarray(rot).T + tvec
    xy = cam[:, :2] / cam[:, 2:3]
    px = normalized_to_pixels(distort_normalized(xy, camera.dist), camera.camera_matrix())
    inside = (
        (cam[:, 2] > 0)
        & (px[:, 0] >= 0) & (px[:, 0] <= camera.width - 1)
        & (px[:, 1] >= 0) & (px[:, 1] <= camera.height - 1)
    )
    ids = np.nonzero(inside)[0].astype(np.int32)
    return ids, px[inside]


def standard_poses(count: int = 18, seed: int = 0) -> list[TargetPose]:
    """A varied set of poses for a calibration run: tilts 0–60°, any yaw, the target visiting the
    centre, the edges and the corners of the picture in turn (partly outside it at times)."""
    rng = np.random.default_rng(seed)
    spots = [(0.0, 0.0), (-0.3, -0.27), (0.3, 0.27), (0.3, -0.27), (-0.3, 0.27), (0.0, -0.28), (0.0, 0.28),
             (-0.32, 0.0), (0.32, 0.0)]
    poses: list[TargetPose] = []
    for i in range(count):
        tilt = float(rng.uniform(8.0, 60.0)) if i % 6 else float(rng.uniform(0.0, 8.0))
        sx, sy = spots[i % len(spots)]
        poses.append(
            TargetPose(
                tilt_deg=tilt,
                tilt_dir_deg=float(rng.uniform(0.0, 360.0)),
                yaw_deg=float(rng.uniform(-180.0, 180.0)),
                distance_mm=float(rng.uniform(320.0, 520.0)),
                center=(sx + float(rng.uniform(-0.04, 0.04)), sy + float(rng.uniform(-0.04, 0.04))),
            )
        )
    return poses


def write_views(folder: str, camera: PinholeCamera, count: int = 18, seed: int = 0, noise_std: float = 2.0,
                ) -> list[str]:
    """Render ``count`` standard views as ``view_NN.png`` plus ``truth.json`` (camera and poses)."""
    import json
    from pathlib import Path

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    names = []
    poses = []
    for i, pose in enumerate(standard_poses(count, seed)):
        r = render_charuco(camera, pose, Scene(noise_std=noise_std, noise_seed=seed * 1000 + i,
                                               background_seed=seed * 1000 + i))
        name = f"view_{i:02d}.png"
        cv2.imwrite(str(out / name), r.image)
        names.append(name)
        poses.append({"image": name, "rvec": r.rvec.tolist(), "tvec": r.tvec.tolist(),
                      "tilt_deg": pose.tilt_deg, "yaw_deg": pose.yaw_deg, "distance_mm": pose.distance_mm})
    truth = {"camera_matrix": camera.camera_matrix().tolist(), "dist_coeffs": list(camera.dist),
             "image_size": [camera.width, camera.height], "square_mm": Scene().square_mm, "views": poses}
    (out / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    return names


if __name__ == "__main__":  # python -m lab.render.charuco DIR [COUNT [SEED]]
    import sys

    args = sys.argv[1:]
    if not args:
        sys.stderr.write("usage: python -m lab.render.charuco DIR [COUNT [SEED]]\n")
        raise SystemExit(2)
    demo = PinholeCamera(fx=1000.0, fy=1002.0, cx=643.2, cy=357.9, dist=(-0.28, 0.09, 0.0008, -0.0005, -0.012))
    written = write_views(args[0], demo, int(args[1]) if len(args) > 1 else 18, int(args[2]) if len(args) > 2 else 0)
    sys.stderr.write(f"wrote {len(written)} views and truth.json to {args[0]}\n")
