"""One calibration photo: its ChArUco corners (by id) and how sharp it is."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from .target import DEFAULT_TARGET, CharucoTarget

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class CharucoView:
    """ChArUco corners found in one image: ``ids`` (n,) and pixel ``corners`` (n, 2), by ascending id."""

    name: str
    image_size: tuple[int, int]
    ids: NDArray[np.int32]
    corners: FloatArray
    blur_px: float
    """Estimated edge blur (Gaussian sigma, pixels) around the corners: ~0.8 when sharp."""

    @property
    def count(self) -> int:
        return int(self.ids.size)


def to_gray(image: NDArray[np.generic]) -> NDArray[np.uint8]:
    """8-bit greyscale copy of a grey, BGR or BGRA image."""
    img = np.asarray(image)
    if img.dtype != np.uint8:
        img = np.clip(img, 0, 255).astype(np.uint8)
    if img.ndim == 2:
        return img
    if img.ndim == 3 and img.shape[2] == 1:
        return np.ascontiguousarray(img[:, :, 0])
    if img.ndim == 3 and img.shape[2] == 3:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    if img.ndim == 3 and img.shape[2] == 4:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGRA2GRAY), dtype=np.uint8)
    raise ValueError(f"not an image: array of shape {img.shape}")


def detect_charuco(
    image: NDArray[np.generic], name: str = "", target: CharucoTarget = DEFAULT_TARGET
) -> CharucoView:
    """The target's corners in ``image`` (possibly none); ids come back flat whatever OpenCV gives."""
    gray = to_gray(image)
    detector = cv2.aruco.CharucoDetector(target.board(1.0))
    corners, ids, _marker_corners, _marker_ids = detector.detectBoard(gray)
    size = (int(gray.shape[1]), int(gray.shape[0]))
    if ids is None or corners is None or len(ids) == 0:
        empty_ids = np.zeros((0,), dtype=np.int32)
        return CharucoView(name, size, empty_ids, np.zeros((0, 2)), float("nan"))
    flat_ids = np.asarray(ids, dtype=np.int32).reshape(-1)
    pts = np.asarray(corners, dtype=np.float64).reshape(-1, 2)
    order = np.argsort(flat_ids, kind="stable")
    flat_ids, pts = flat_ids[order], pts[order]
    return CharucoView(name, size, flat_ids, pts, corner_blur_px(gray, pts))


def corner_blur_px(gray: NDArray[np.uint8], corners: FloatArray) -> float:
    """Median estimated blur (Gaussian sigma, px) of the edges meeting at the given corners.

    For a step edge of contrast C blurred by a Gaussian of sigma s, the steepest gradient is
    C / (sqrt(2π)·s); so s ≈ C / (sqrt(2π) · steepest gradient), measured in a window around
    each corner. It does not depend on the scene's scale, unlike the variance of the Laplacian.
    """
    if len(corners) == 0:
        return float("nan")
    img = gray.astype(np.float32)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=1, scale=0.5)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=1, scale=0.5)
    mag = np.hypot(gx, gy)
    h, w = gray.shape
    spacing = _typical_spacing(corners)
    r = int(np.clip(spacing * 0.3, 4, 15))
    estimates: list[float] = []
    for x, y in corners:
        xi, yi = round(x), round(y)
        x0, x1, y0, y1 = max(xi - r, 0), min(xi + r + 1, w), max(yi - r, 0), min(yi + r + 1, h)
        if x1 - x0 < r or y1 - y0 < r:
            continue
        patch = img[y0:y1, x0:x1]
        lo, hi = np.percentile(patch, [5, 95])
        contrast = float(hi - lo)
        steep = float(np.percentile(mag[y0:y1, x0:x1], 98))
        if contrast < 20 or steep <= 0:
            continue
        estimates.append(contrast / (np.sqrt(2 * np.pi) * steep))
    return float(np.median(estimates)) if estimates else float("nan")


def _typical_spacing(corners: FloatArray) -> float:
    if len(corners) < 2:
        return 20.0
    d = np.linalg.norm(corners[:, None, :] - corners[None, :, :], axis=-1)
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


def laplacian_variance(image: NDArray[np.generic]) -> float:
    """Variance of the Laplacian of the whole image (a scene-dependent sharpness score, reported only)."""
    return float(cv2.Laplacian(to_gray(image), cv2.CV_64F).var())
