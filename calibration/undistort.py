"""Removing lens distortion for the vision stack: whole images (cached maps) and points.

The undistorted image keeps the calibrated camera matrix ``K``: a point's undistorted pixel is
``K · ideal normalised point``. Frames of another size with the same aspect ratio (a camera
streaming 720p after calibrating at 1080p) use ``K`` scaled to that size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from .camera import CameraCalibration
from .distortion import distort_normalized, normalized_to_pixels, pixels_to_normalized, undistort_normalized
from .profile import Profile, ProfileError

FloatArray = NDArray[np.float64]


class Undistorter:
    """Undistorts images and points with one camera calibration."""

    def __init__(self, calibration: Profile | CameraCalibration) -> None:
        camera = calibration.camera if isinstance(calibration, Profile) else calibration
        if camera is None:
            raise ProfileError("the profile holds no camera calibration (run: companion calibrate camera)")
        self.calibration = camera
        self._k = camera.k()
        self._dist = camera.dist()
        self._size = camera.image_size
        self._maps: dict[tuple[int, int], tuple[Any, Any]] = {}

    @property
    def image_size(self) -> tuple[int, int]:
        """``(w, h)`` of the calibration images."""
        return self._size

    def camera_matrix(self, image_size: tuple[int, int] | None = None) -> FloatArray:
        """``K`` for images of ``image_size`` (default: the calibrated size), raw and undistorted alike."""
        if image_size is None or tuple(image_size) == tuple(self._size):
            return self._k.copy()
        w0, h0 = self._size
        w, h = image_size
        if abs((w / h) / (w0 / h0) - 1.0) > 0.01:
            raise ProfileError(f"image is {w}x{h} but the camera was calibrated at {w0}x{h0} "
                               "(a different aspect ratio)")
        sx, sy = w / w0, h / h0
        k = self._k.copy()
        k[0, 0] *= sx
        k[0, 1] *= sx
        k[0, 2] = (k[0, 2] + 0.5) * sx - 0.5
        k[1, 1] *= sy
        k[1, 2] = (k[1, 2] + 0.5) * sy - 0.5
        return k

    def undistort(self, image: NDArray[Any]) -> NDArray[Any]:
        """The image with lens distortion removed (same size and ``K``); maps are computed once per size."""
        h, w = image.shape[:2]
        maps = self._maps.get((w, h))
        if maps is None:
            k = self.camera_matrix((w, h))
            maps = cv2.initUndistortRectifyMap(k, self._dist, None, k, (w, h), cv2.CV_16SC2)
            self._maps[(w, h)] = maps
        return np.asarray(cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT))

    def undistort_points(self, points: ArrayLike | Sequence[Sequence[float]],
                         image_size: tuple[int, int] | None = None) -> FloatArray:
        """Raw-image pixel points → the same points in the undistorted image, shape (n, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        k = self.camera_matrix(image_size)
        ideal, _ = undistort_normalized(pixels_to_normalized(pts, k), self._dist)
        return normalized_to_pixels(ideal, k)

    def distort_points(self, points: ArrayLike | Sequence[Sequence[float]],
                       image_size: tuple[int, int] | None = None) -> FloatArray:
        """Undistorted-image pixel points → raw-image pixels, shape (n, 2) (inverse of ``undistort_points``)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        k = self.camera_matrix(image_size)
        return normalized_to_pixels(distort_normalized(pixels_to_normalized(pts, k), self._dist), k)
