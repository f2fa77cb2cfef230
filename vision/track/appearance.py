"""Cheap per-frame appearance of the board: a small rectified picture and per-cell signatures.

Every frame is warped (from a crop halved by an image pyramid) to ``pitch`` pixels per square with ``margin``
squares around the playing area. Each cell (playing squares and the margin ring) gets a
signature: the log mean colour of its inner part and a coarse brightness texture normalised by
its mean. :func:`change_map` compares two signatures with the light factored out: a smooth
(quadratic) log-gain field per channel is fitted robustly over all cells and removed, so a lamp
switched on or a cloud passing changes nothing, while a tile, a hand or a shadow does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.track.observer import BoardFix

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
B = NDArray[np.bool_]
Image = NDArray[Any]


@dataclass(frozen=True)
class AppearanceConfig:
    """Sizes and thresholds of the cheap per-frame check (defaults tuned on rendered videos)."""

    pitch: int = 12  # rectified pixels per square
    margin: int = 2  # squares of border/table around the playing area
    inner: float = 0.8  # fraction of a cell's side within which its signature is taken
    texture_grid: int = 6  # the texture signature: texture_grid² pixels at the cell's centre
    colour_threshold: float = 0.16  # log-colour residual that counts as a change
    texture_threshold: float = 0.07  # mean texture difference that counts as a change
    motion_scale: float = 0.75  # frame-to-frame thresholds are this fraction of the above


@dataclass
class Appearance:
    """Signatures of one frame: ``logmean`` (G×G×3), ``texture`` (G×G×n²), ``valid`` (G×G),
    ``gray`` (the rectified brightness, for alignment checks) and ``rect`` (BGR, for debugging)."""

    logmean: F32
    texture: F32
    valid: B
    gray: F32
    rect: Image
    config: AppearanceConfig = field(default_factory=AppearanceConfig)


@dataclass
class ChangeMap:
    """Per-cell change between two appearances: ``score`` (>1 = changed) and ``changed``."""

    score: F32
    changed: B

    def playing(self, margin: int, size: int) -> B:
        return self.changed[margin:margin + size, margin:margin + size]


def _units_to_rect(cfg: AppearanceConfig) -> F64:
    """Affine map from rectified pixels to board units."""
    p, m = float(cfg.pitch), float(cfg.margin)
    return np.array([[1 / p, 0, -m], [0, 1 / p, -m], [0, 0, 1]], np.float64)


def observe(image: Image, fix: BoardFix, cfg: AppearanceConfig | None = None) -> Appearance:
    """The appearance of ``image`` where ``fix`` says the board is."""
    cfg = cfg or AppearanceConfig()
    g = fix.size + 2 * cfg.margin
    side = g * cfg.pitch
    h_img, w_img = image.shape[:2]
    rect_to_units = _units_to_rect(cfg)
    m_full = fix.homography @ rect_to_units  # rect px -> image px
    outline = np.array([[0, 0, 1], [side, 0, 1], [side, side, 1], [0, side, 1]], np.float64) @ m_full.T
    outline = outline[:, :2] / outline[:, 2:3]
    x0 = int(max(0, np.floor(outline[:, 0].min()) - 2))
    y0 = int(max(0, np.floor(outline[:, 1].min()) - 2))
    x1 = int(min(w_img, np.ceil(outline[:, 0].max()) + 3))
    y1 = int(min(h_img, np.ceil(outline[:, 1].max()) + 3))
    if x1 - x0 < 4 or y1 - y0 < 4:
        x0, y0, x1, y1 = 0, 0, w_img, h_img
    roi = image[y0:y1, x0:x1]
    # halve (pyramid) while a square stays at least 2 rectified pitches wide: cheap anti-aliasing
    f = cfg.pitch / max(1e-6, fix.square_px())
    while f <= 0.5 and min(roi.shape[:2]) >= 8:
        roi = cv2.pyrDown(roi)
        f *= 2.0
    fx, fy = roi.shape[1] / (x1 - x0), roi.shape[0] / (y1 - y0)
    s = np.array([[fx, 0, -x0 * fx], [0, fy, -y0 * fy], [0, 0, 1]], np.float64)
    m = s @ m_full
    rect = cv2.warpPerspective(roi, m, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    if rect.ndim == 2:
        rect = cv2.cvtColor(rect, cv2.COLOR_GRAY2BGR)
    # validity: every corner of the cell inside the image
    grid = np.arange(g + 1, dtype=np.float64) - cfg.margin
    gx, gy = np.meshgrid(grid, grid)
    pts = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)], axis=1) @ fix.homography.T
    px = pts[:, :2] / pts[:, 2:3]
    inside = ((px[:, 0] >= 0) & (px[:, 0] < w_img) & (px[:, 1] >= 0) & (px[:, 1] < h_img)
              & (pts[:, 2] > 0)).reshape(g + 1, g + 1)
    valid = inside[:-1, :-1] & inside[1:, :-1] & inside[:-1, 1:] & inside[1:, 1:]
    return _signatures(rect, valid, cfg)


def _signatures(rect: Image, valid: B, cfg: AppearanceConfig) -> Appearance:
    p = cfg.pitch
    g = rect.shape[0] // p
    cut = max(1, round(p * (1 - cfg.inner) / 2))
    k = p - 2 * cut
    n = cfg.texture_grid
    k3 = max(n, (k // n) * n)
    lo = max(0, cut + (k - k3) // 2)
    cells = rect.astype(np.float32).reshape(g, p, g, p, 3)[:, lo:lo + k3, :, lo:lo + k3, :]
    mean = cells.mean(axis=(1, 3))
    logmean = np.log(mean + 8.0).astype(np.float32)
    gray = cells.mean(axis=4)  # g, k3, g, k3
    b = k3 // n
    blocks = gray.reshape(g, n, b, g, n, b).mean(axis=(2, 5))  # g,n,g,n
    tex = blocks.transpose(0, 2, 1, 3).reshape(g, g, n * n)
    tex = tex / (tex.mean(axis=2, keepdims=True) + 4.0)  # 1 on average
    full_gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return Appearance(logmean, tex.astype(np.float32), valid, full_gray, rect, cfg)


_GRID_CACHE: dict[int, F64] = {}


def _grid_terms(g: int) -> F64:
    """Smooth-field terms per cell: 1, x, y, x², y², xy (cell centres in [-1, 1])."""
    if g not in _GRID_CACHE:
        c = (np.arange(g, dtype=np.float64) - (g - 1) / 2) / max(1.0, (g - 1) / 2)
        gx, gy = np.meshgrid(c, c)
        x, y = gx.ravel(), gy.ravel()
        _GRID_CACHE[g] = np.stack([np.ones_like(x), x, y, x * x, y * y, x * y], axis=1)
    return _GRID_CACHE[g]


def light_residual(cur: Appearance, ref: Appearance, valid: B) -> F32:
    """|log colour change| per cell once the light is explained.

    The light model, fitted robustly to all valid cells, per channel: a smooth field over the
    board (lamp position, gradients) plus a term linear in the cell's reference log colour
    (colour temperature, white balance and tone curves act differently on dark, bright and
    coloured surfaces). A tile, a hand or a shadow changes a few cells against that model.
    """
    g = cur.logmean.shape[0]
    ref_log = ref.logmean.reshape(g * g, 3).astype(np.float64)
    d = cur.logmean.reshape(g * g, 3).astype(np.float64) - ref_log
    v = valid.ravel()
    if v.sum() < 16:
        return np.zeros((g, g), np.float32)
    centred = ref_log - ref_log[v].mean(axis=0)
    x = np.concatenate([_grid_terms(g), centred], axis=1)
    resid = np.zeros_like(d)
    for ch in range(3):
        y = d[:, ch]
        fit: F64 = np.full_like(y, np.median(y[v]))
        for tol in (0.3, 0.15, 0.08):
            inl = v & (np.abs(y - fit) < tol)
            if inl.sum() < 16:
                break
            coef, *_ = np.linalg.lstsq(x[inl], y[inl], rcond=None)
            fit = np.asarray(x @ coef, np.float64)
        resid[:, ch] = np.abs(y - fit)
    return np.asarray(resid.max(axis=1).reshape(g, g), np.float32)


def texture_residual(cur: Appearance, ref: Appearance) -> F32:
    """Mean texture difference per cell, allowing the contrast to change (0.6–1.6×)."""
    a = cur.texture - 1.0
    b = ref.texture - 1.0
    bb = (b * b).sum(axis=2)
    alpha = np.where(bb > 1e-6, (a * b).sum(axis=2) / np.maximum(bb, 1e-6), 1.0)
    alpha = np.clip(alpha, 0.6, 1.6)
    return np.asarray(np.abs(a - alpha[..., None] * b).mean(axis=2), np.float32)


def change_map(cur: Appearance, ref: Appearance, scale: float = 1.0) -> ChangeMap:
    """Which cells differ between two appearances of one board (light changes factored out)."""
    cfg = cur.config
    valid = cur.valid & ref.valid
    colour = light_residual(cur, ref, valid) / (cfg.colour_threshold * scale)
    texture = texture_residual(cur, ref) / (cfg.texture_threshold * scale)
    score = np.maximum(colour, texture).astype(np.float32)
    score[~valid] = 0.0
    return ChangeMap(score, score > 1.0)


def misalignment(cur: Appearance, ref: Appearance) -> tuple[float, float]:
    """Shift of ``cur`` against ``ref`` in squares (phase correlation) and the peak's strength."""
    h, w = cur.gray.shape
    win = cv2.createHanningWindow((w, h), cv2.CV_32F)
    a = cv2.Laplacian(cv2.GaussianBlur(ref.gray, (3, 3), 0), cv2.CV_32F)
    b = cv2.Laplacian(cv2.GaussianBlur(cur.gray, (3, 3), 0), cv2.CV_32F)
    (dx, dy), response = cv2.phaseCorrelate(a, b, win)
    return float(np.hypot(dx, dy)) / cur.config.pitch, float(response)


def register(cur: Appearance, ref: Appearance, fix: BoardFix) -> BoardFix | None:
    """The fix under which ``cur``'s board lines up with ``ref``'s (a small nudge or camera bump),
    found by ECC image alignment of the rectified boards (robust to light changes), or ``None``.

    ``fix`` is the fix ``cur`` was observed with.
    """
    a = cv2.GaussianBlur(ref.gray, (5, 5), 0)
    b = cv2.GaussianBlur(cur.gray, (5, 5), 0)
    warp = np.eye(3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5)
    try:
        mask = np.full(a.shape, 255, np.uint8)
        _cc, found = cv2.findTransformECC(a, b, warp, cv2.MOTION_HOMOGRAPHY, criteria, mask, 5)
    except cv2.error:
        return None
    r = _units_to_rect(cur.config)  # rect px -> units
    h = fix.homography @ r @ np.asarray(found, np.float64) @ np.linalg.inv(r)
    corners = np.array([[0, 0, 1], [fix.size, 0, 1], [fix.size, fix.size, 1], [0, fix.size, 1]], np.float64) @ h.T
    if (corners[:, 2] <= 0).any():
        return None
    return BoardFix.from_corners(corners[:, :2] / corners[:, 2:3], fix.size, fix.confidence)
