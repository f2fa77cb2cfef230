"""Optional lens correction from a calibration profile (``camera_matrix``, ``dist_coeffs``)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


def _camera(calibration: dict[str, Any] | None) -> tuple[F64, F64] | None:
    if not calibration:
        return None
    cam = calibration.get("camera", calibration)
    if not isinstance(cam, dict) or "camera_matrix" not in cam or "dist_coeffs" not in cam:
        return None
    return np.asarray(cam["camera_matrix"], np.float64), np.asarray(cam["dist_coeffs"], np.float64).ravel()


def undistort_image(image: NDArray[np.uint8], calibration: dict[str, Any] | None) -> NDArray[np.uint8]:
    """The picture with lens distortion removed (same camera matrix); unchanged without a profile."""
    cam = _camera(calibration)
    if cam is None:
        return image
    return np.asarray(cv2.undistort(image, cam[0], cam[1]))


def redistort_points(pts: F64, calibration: dict[str, Any] | None) -> F64:
    """Points of the undistorted picture mapped back into the original one."""
    cam = _camera(calibration)
    if cam is None or len(pts) == 0:
        return pts
    k, d = cam
    ones = np.ones((len(pts), 1))
    norm = np.concatenate([pts, ones], axis=1) @ np.linalg.inv(k).T
    obj = np.concatenate([norm[:, :2] / norm[:, 2:3], ones], axis=1).astype(np.float64)
    img, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), k, d)
    return np.asarray(img.reshape(-1, 2), np.float64)
