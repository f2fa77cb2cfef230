"""The camera model: a pinhole with pose, focal length and radial distortion (OpenCV's model).

World frame (millimetres): the table is the plane ``Z = 0``; ``X`` runs along the board's columns
(toward column O / the right edge), ``Y`` along its rows (toward row 15 / the bottom edge) and
``Z`` points *into* the table, so a point above the table has ``Z < 0``. A camera straight above
with yaw 0 sees the board upright (A1 at the image's top-left).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


@dataclass(frozen=True)
class CameraSpec:
    """Where the camera is and how it images.

    ``tilt_deg``: angle of the optical axis from the vertical (0 = straight down).
    ``yaw_deg``: rotation of the camera about the vertical through the target (any value).
    ``roll_deg``: rotation about the optical axis. ``distance_mm``: camera to target.
    ``target_mm``: the table point the optical axis meets (board centre is the origin).
    ``hfov_deg``: horizontal field of view of the undistorted pinhole (sets the focal length).
    ``k1``, ``k2``: radial distortion (OpenCV ``dist_coeffs = [k1, k2, 0, 0]``).
    """

    width: int = 1280
    height: int = 720
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0
    distance_mm: float = 600.0
    target_mm: tuple[float, float] = (0.0, 0.0)
    hfov_deg: float = 60.0
    k1: float = 0.0
    k2: float = 0.0
    principal_offset_px: tuple[float, float] = (0.0, 0.0)

    # -- intrinsics -------------------------------------------------------------------------
    @property
    def focal_px(self) -> float:
        return 0.5 * self.width / math.tan(math.radians(self.hfov_deg) / 2.0)

    def camera_matrix(self) -> F64:
        """The 3×3 intrinsic matrix ``K``."""
        f = self.focal_px
        cx = (self.width - 1) / 2.0 + self.principal_offset_px[0]
        cy = (self.height - 1) / 2.0 + self.principal_offset_px[1]
        return np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])

    def dist_coeffs(self) -> F64:
        """OpenCV distortion vector ``[k1, k2, p1, p2]``."""
        return np.array([self.k1, self.k2, 0.0, 0.0])

    # -- extrinsics -------------------------------------------------------------------------
    def rotation(self) -> F64:
        """``R`` mapping world to camera coordinates (``x_cam = R (X - C)``)."""
        return _rotation(self.tilt_deg, self.yaw_deg, self.roll_deg).copy()

    def position_mm(self) -> F64:
        """The camera centre in world coordinates."""
        return _position(self.tilt_deg, self.yaw_deg, self.distance_mm,
                         (float(self.target_mm[0]), float(self.target_mm[1]))).copy()

    def rvec_tvec(self) -> tuple[F64, F64]:
        """OpenCV ``rvec``, ``tvec`` (world → camera)."""
        r = self.rotation()
        t = -r @ self.position_mm()
        rvec, _ = cv2.Rodrigues(r)
        return np.asarray(rvec, np.float64).reshape(3), t

    def plane_homography(self, z_mm: float = 0.0) -> F64:
        """Homography from world plane ``Z = z_mm`` (X, Y in mm) to *undistorted* pixels."""
        r = self.rotation()
        t = -r @ self.position_mm()
        m = np.stack([r[:, 0], r[:, 1], r[:, 2] * z_mm + t], axis=1)
        h = self.camera_matrix() @ m
        return np.asarray(h / h[2, 2])

    # -- projection ---------------------------------------------------------------------------
    def project(self, pts: Any, distort: bool = True) -> F64:
        """Project world points (N×3, or N×2 on the table) to pixels (N×2)."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, np.asarray(pts).shape[-1])
        if p.shape[1] == 2:
            p = np.concatenate([p, np.zeros((len(p), 1))], axis=1)
        cam = (self.rotation() @ (p - self.position_mm()).T).T
        xn = cam[:, 0] / cam[:, 2]
        yn = cam[:, 1] / cam[:, 2]
        if distort:
            xn, yn = distort_normalized(xn, yn, self.k1, self.k2)
        k = self.camera_matrix()
        return np.stack([k[0, 0] * xn + k[0, 2], k[1, 1] * yn + k[1, 2]], axis=1)

    def depth(self, pts: Any) -> F64:
        """Distance along the optical axis of world points (N×3)."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 3)
        return np.asarray((self.rotation() @ (p - self.position_mm()).T).T[:, 2])

    def distort_pixels(self, pix: Any) -> F64:
        """Map undistorted pixel positions (N×2) to where the distorted camera images them."""
        p = np.asarray(pix, dtype=np.float64).reshape(-1, 2)
        k = self.camera_matrix()
        xn = (p[:, 0] - k[0, 2]) / k[0, 0]
        yn = (p[:, 1] - k[1, 2]) / k[1, 1]
        xd, yd = distort_normalized(xn, yn, self.k1, self.k2)
        return np.stack([k[0, 0] * xd + k[0, 2], k[1, 1] * yd + k[1, 2]], axis=1)

    def has_distortion(self) -> bool:
        return self.k1 != 0.0 or self.k2 != 0.0

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CameraSpec:
        """The camera ``to_json`` stored (its derived entries, the matrix and pose, are ignored)."""
        kw: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()
                              if k in cls.__dataclass_fields__}
        return cls(**kw)

    def to_json(self) -> dict[str, Any]:
        """Intrinsics, distortion and pose, as stored in the labels."""
        rvec, tvec = self.rvec_tvec()
        out = asdict(self)
        out.update({
            "camera_matrix": self.camera_matrix().round(6).tolist(),
            "dist_coeffs": self.dist_coeffs().tolist(),
            "rvec": rvec.round(9).tolist(),
            "tvec": tvec.round(6).tolist(),
            "position_mm": self.position_mm().round(4).tolist(),
            "image_size": [self.width, self.height],
        })
        return out


@lru_cache(maxsize=256)
def _rotation(tilt_deg: float, yaw_deg: float, roll_deg: float) -> F64:
    t, y, r = (math.radians(v) for v in (tilt_deg, yaw_deg, roll_deg))
    xa = np.array([1.0, 0.0, 0.0])
    za = np.array([0.0, -math.sin(t), math.cos(t)])
    ya = np.cross(za, xa)
    r_wc = _rot_z(y) @ np.stack([xa, ya, za], axis=1)  # columns: camera axes in world
    cr, sr = math.cos(r), math.sin(r)
    roll = np.array([[cr, -sr, 0.0], [sr, cr, 0.0], [0.0, 0.0, 1.0]])  # about the optical axis
    return np.asarray(roll.T @ r_wc.T)


@lru_cache(maxsize=256)
def _position(tilt_deg: float, yaw_deg: float, distance_mm: float, target_mm: tuple[float, float]) -> F64:
    t, y = math.radians(tilt_deg), math.radians(yaw_deg)
    # before yaw the camera sits toward +Y (the row-15 side), above the table (Z < 0)
    rel = np.array([0.0, distance_mm * math.sin(t), -distance_mm * math.cos(t)])
    return np.asarray(np.array([target_mm[0], target_mm[1], 0.0]) + _rot_z(y) @ rel)


def _rot_z(a: float) -> F64:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def distort_normalized(xn: F64, yn: F64, k1: float, k2: float) -> tuple[F64, F64]:
    """OpenCV's radial model on normalized coordinates: ``x_d = x (1 + k1 r² + k2 r⁴)``."""
    r2 = xn * xn + yn * yn
    f = 1.0 + k1 * r2 + k2 * r2 * r2
    return xn * f, yn * f


def undistort_normalized(xd: F64, yd: F64, k1: float, k2: float, iters: int = 10) -> tuple[F64, F64]:
    """Invert :func:`distort_normalized` (Newton's method on the radius; exact where the lens
    model is monotonic, see :func:`distortion_is_monotonic`)."""
    rd = np.sqrt(xd * xd + yd * yd)
    ru = rd.copy()
    for _ in range(iters):
        r2 = ru * ru
        g = ru * (1.0 + k1 * r2 + k2 * r2 * r2) - rd
        dg = 1.0 + 3.0 * k1 * r2 + 5.0 * k2 * r2 * r2
        ru = ru - g / np.maximum(dg, 0.05)
        ru = np.maximum(ru, 0.0)
    scale = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
    return xd * scale, yd * scale


def distortion_is_monotonic(cam: CameraSpec, slack: float = 1.05) -> bool:
    """Whether the radial model keeps growing out to beyond the image corners (no fold-over), so
    every pixel has exactly one undistorted direction."""
    k = cam.camera_matrix()
    rd_max = math.hypot(max(k[0, 2], cam.width - 1 - k[0, 2]) / k[0, 0],
                        max(k[1, 2], cam.height - 1 - k[1, 2]) / k[1, 1]) * slack
    r = np.linspace(0.0, 3.0, 3001)
    g = r * (1.0 + cam.k1 * r**2 + cam.k2 * r**4)
    dg = 1.0 + 3.0 * cam.k1 * r**2 + 5.0 * cam.k2 * r**4
    bad = np.nonzero(dg <= 0.15)[0]
    reach = g[: bad[0]].max() if len(bad) else g.max()
    return bool(reach >= rd_max)


@dataclass
class DistortionMap:
    """``cv2.remap`` maps taking an undistorted canvas (with margin) to the distorted image."""

    map_x: NDArray[np.float32]
    map_y: NDArray[np.float32]
    margin: tuple[int, int] = field(default=(0, 0))


@lru_cache(maxsize=16)
def distortion_map(width: int, height: int, fx: float, fy: float, cx: float, cy: float,
                   k1: float, k2: float, margin_x: int, margin_y: int) -> DistortionMap:
    """For every distorted output pixel, where to sample in the undistorted canvas.

    The canvas is the pinhole image enlarged by ``margin`` on every side (same focal length,
    principal point shifted by the margin). Computed on a coarse grid and interpolated (the map
    is smooth; interpolation error is far below 0.01 px).
    """
    step = 8
    gx = np.arange(0, width + step, step, dtype=np.float64)
    gy = np.arange(0, height + step, step, dtype=np.float64)
    xx, yy = np.meshgrid(gx, gy)
    xd = (xx - cx) / fx
    yd = (yy - cy) / fy
    xu, yu = undistort_normalized(xd, yd, k1, k2)
    mx = (xu * fx + cx + margin_x).astype(np.float32)
    my = (yu * fy + cy + margin_y).astype(np.float32)
    mx_full = _upsample_nodes(mx, step)[:height, :width]
    my_full = _upsample_nodes(my, step)[:height, :width]
    return DistortionMap(np.ascontiguousarray(mx_full), np.ascontiguousarray(my_full), (margin_x, margin_y))


def _upsample_nodes(grid: NDArray[np.float32], step: int) -> NDArray[np.float32]:
    """Bilinear interpolation of values given at nodes ``(i·step, j·step)`` onto every pixel."""
    h, w = grid.shape
    ys = np.arange((h - 1) * step + 1, dtype=np.float32) / step
    xs = np.arange((w - 1) * step + 1, dtype=np.float32) / step
    mx, my = np.meshgrid(xs, ys)
    out = cv2.remap(grid, mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.float32)


def canvas_margin(cam: CameraSpec) -> tuple[int, int]:
    """How much larger than the output the undistorted canvas must be to cover every pixel."""
    if not cam.has_distortion():
        return 0, 0
    k = cam.camera_matrix()
    corners = np.array([[0, 0], [cam.width - 1, 0], [0, cam.height - 1], [cam.width - 1, cam.height - 1],
                        [cam.width / 2, 0], [0, cam.height / 2]], dtype=np.float64)
    xd = (corners[:, 0] - k[0, 2]) / k[0, 0]
    yd = (corners[:, 1] - k[1, 2]) / k[1, 1]
    xu, yu = undistort_normalized(xd, yd, cam.k1, cam.k2)
    ux = xu * k[0, 0] + k[0, 2]
    uy = yu * k[1, 1] + k[1, 2]
    mx = max(0.0, -ux.min(), ux.max() - (cam.width - 1))
    my = max(0.0, -uy.min(), uy.max() - (cam.height - 1))
    return math.ceil(mx) + 4, math.ceil(my) + 4


def apply_distortion(canvas: NDArray[Any], cam: CameraSpec, margin: tuple[int, int],
                     interpolation: int = cv2.INTER_LINEAR) -> NDArray[Any]:
    """Turn an undistorted canvas (output size + ``margin`` on each side) into the camera image."""
    if not cam.has_distortion():
        mx, my = margin
        return canvas[my:my + cam.height, mx:mx + cam.width]
    k = cam.camera_matrix()
    dm = distortion_map(cam.width, cam.height, float(k[0, 0]), float(k[1, 1]), float(k[0, 2]), float(k[1, 2]),
                        cam.k1, cam.k2, margin[0], margin[1])
    return cv2.remap(canvas, dm.map_x, dm.map_y, interpolation=interpolation, borderMode=cv2.BORDER_REPLICATE)
