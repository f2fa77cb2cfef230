"""Shared helpers for the renderer tests (area ``render``)."""

from __future__ import annotations

import numpy as np

from lab.render.camera import CameraSpec
from lab.render.look import LookSpec


def quiet_look(**kw: object) -> LookSpec:
    """A look with no noise, blur, glare, vignetting, gradient or compression (pixels are exact)."""
    base = dict(noise_sigma=0.0, defocus_sigma=0.0, motion_px=0.0, jpeg_quality=100, vignette=0.0, gradient=0.0,
                glare=(), kelvin=6500.0, white_balance=1.0, level=1.0, saturation=1.0, gamma=1.0,
                shadow_strength=0.0)
    base.update(kw)
    return LookSpec(**base)  # type: ignore[arg-type]


def cameras() -> list[CameraSpec]:
    """A spread of poses and lenses, including strong distortion and steep tilt."""
    return [
        CameraSpec(1280, 720, 0.0, 0.0, 0.0, 600.0, (0.0, 0.0), 60.0, 0.0, 0.0),
        CameraSpec(1280, 720, 35.0, 70.0, 3.0, 700.0, (10.0, -20.0), 55.0, -0.2, 0.04),
        CameraSpec(1920, 1080, 58.0, -140.0, -8.0, 800.0, (-30.0, 15.0), 70.0, -0.33, 0.09),
        CameraSpec(640, 360, 20.0, 200.0, 0.0, 650.0, (0.0, 0.0), 65.0, 0.08, -0.03),
    ]


def blob_centroid(img: np.ndarray, near: np.ndarray, radius: int = 12) -> np.ndarray:
    """Intensity-weighted centroid of a bright blob around ``near`` (x, y)."""
    g = img.astype(np.float64).mean(axis=2) if img.ndim == 3 else img.astype(np.float64)
    x0, y0 = round(near[0]) - radius, round(near[1]) - radius
    patch = g[y0:y0 + 2 * radius + 1, x0:x0 + 2 * radius + 1]
    patch = np.clip(patch - np.median(patch), 0, None)
    ys, xs = np.mgrid[0:patch.shape[0], 0:patch.shape[1]]
    w = patch.sum()
    return np.array([(xs * patch).sum() / w + x0, (ys * patch).sum() / w + y0])


def signed_area(pts: np.ndarray) -> float:
    """Shoelace area; positive = clockwise on screen (y down)."""
    x, y = pts[:, 0], pts[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
