"""The Brown–Conrady lens model (OpenCV's 5-coefficient ``k1, k2, p1, p2, k3``) on normalised points.

Normalised points are ``((u - cx) / fx, (v - cy) / fy)`` before distortion is applied.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


def _coefficients(dist: Sequence[float] | FloatArray) -> tuple[float, float, float, float, float]:
    d = [float(v) for v in np.asarray(dist, dtype=np.float64).ravel()]
    d = (d + [0.0] * 5)[:5]
    if len(np.asarray(dist).ravel()) > 5 and any(float(v) != 0.0 for v in np.asarray(dist).ravel()[5:]):
        raise ValueError("only the 5-coefficient model (k1, k2, p1, p2, k3) is supported")
    return d[0], d[1], d[2], d[3], d[4]


def distort_normalized(xy: FloatArray, dist: Sequence[float] | FloatArray) -> FloatArray:
    """Distorted normalised coordinates of ideal normalised points ``xy`` (shape (..., 2))."""
    k1, k2, p1, p2, k3 = _coefficients(dist)
    x = xy[..., 0]
    y = xy[..., 1]
    r2 = x * x + y * y
    radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
    yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
    return np.stack([xd, yd], axis=-1)


def undistort_normalized(
    xy_distorted: FloatArray, dist: Sequence[float] | FloatArray, iterations: int = 20
) -> tuple[FloatArray, FloatArray]:
    """Ideal normalised points whose distortion gives ``xy_distorted``, and the residual of each.

    Newton's method on the distortion equations, started from a few fixed-point steps. The
    residual is the distance (normalised units) between ``distort(result)`` and the input; it is
    large where the model cannot be inverted (far outside the calibrated field of view).
    """
    k1, k2, p1, p2, k3 = _coefficients(dist)
    xd = xy_distorted[..., 0]
    yd = xy_distorted[..., 1]
    x = xd.copy()
    y = yd.copy()
    for _ in range(3):  # fixed-point steps: a good start for Newton
        r2 = x * x + y * y
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        radial = np.where(np.abs(radial) < 1e-6, 1e-6, radial)
        x, y = (
            (xd - 2.0 * p1 * x * y - p2 * (r2 + 2.0 * x * x)) / radial,
            (yd - p1 * (r2 + 2.0 * y * y) - 2.0 * p2 * x * y) / radial,
        )
    for _ in range(iterations):
        r2 = x * x + y * y
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        d_radial = k1 + r2 * (2.0 * k2 + 3.0 * k3 * r2)
        fx = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x) - xd
        fy = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y - yd
        jxx = radial + 2.0 * x * x * d_radial + 2.0 * p1 * y + 6.0 * p2 * x
        jxy = 2.0 * x * y * d_radial + 2.0 * p1 * x + 2.0 * p2 * y
        jyy = radial + 2.0 * y * y * d_radial + 6.0 * p1 * y + 2.0 * p2 * x
        det = jxx * jyy - jxy * jxy
        det = np.where(np.abs(det) < 1e-12, 1e-12, det)
        step_x = (jyy * fx - jxy * fy) / det
        step_y = (jxx * fy - jxy * fx) / det
        x = x - step_x
        y = y - step_y
        step = max(float(np.max(np.abs(step_x), initial=0.0)), float(np.max(np.abs(step_y), initial=0.0)))
        if not step > 1e-13:  # converged (or diverged to nan: the residual says which)
            break
    ideal = np.stack([x, y], axis=-1)
    again = distort_normalized(ideal, dist)
    residual = np.hypot(again[..., 0] - xd, again[..., 1] - yd)
    residual = np.where(np.isfinite(residual), residual, np.inf)
    return ideal, residual


def pixels_to_normalized(points: FloatArray, camera_matrix: FloatArray) -> FloatArray:
    """Normalised (still distorted) coordinates of pixel points (shape (..., 2))."""
    k = np.asarray(camera_matrix, dtype=np.float64)
    fx, fy, cx, cy, skew = k[0, 0], k[1, 1], k[0, 2], k[1, 2], k[0, 1]
    y = (points[..., 1] - cy) / fy
    x = (points[..., 0] - cx - skew * y) / fx
    return np.stack([x, y], axis=-1)


def normalized_to_pixels(xy: FloatArray, camera_matrix: FloatArray) -> FloatArray:
    """Pixel coordinates of normalised points (shape (..., 2))."""
    k = np.asarray(camera_matrix, dtype=np.float64)
    u = k[0, 0] * xy[..., 0] + k[0, 1] * xy[..., 1] + k[0, 2]
    v = k[1, 1] * xy[..., 1] + k[1, 2]
    return np.stack([u, v], axis=-1)
