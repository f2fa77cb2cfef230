"""Occluders: hands and arms reaching over the table, with their shadows.

A hand is specified in the world (fingertip over a table point, at a height, arm coming from an
azimuth) and drawn as 2D shapes in the undistorted canvas; its mask is exact truth.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]


@dataclass(frozen=True)
class HandSpec:
    """One hand and arm. ``tip_mm``: table point under the fingertip; ``height_mm`` above it;
    ``from_deg``: world azimuth the arm comes from (0 = +X); ``pose``: open|point|pinch|fist|flat;
    ``skin``/``sleeve`` RGB; ``sleeve_at``: fraction of the visible arm that is bare;
    ``holding``: a tile value held in the fingers (or None)."""

    tip_mm: tuple[float, float]
    height_mm: float = 60.0
    from_deg: float = 90.0
    pose: str = "open"
    skin: tuple[int, int, int] = (225, 180, 150)
    sleeve: tuple[int, int, int] = (40, 70, 150)
    sleeve_at: float = 0.35
    scale: float = 1.0
    spread_deg: float = 0.0
    left: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _capsule(mask: U8, a: NDArray[np.float64], b: NDArray[np.float64], width: float) -> None:
    cv2.line(mask, (round(a[0] * 16), round(a[1] * 16)), (round(b[0] * 16), round(b[1] * 16)), 255,
             max(1, round(width)), cv2.LINE_AA, 4)


def hand_masks(spec: HandSpec, project: Any, canvas_wh: tuple[int, int]) -> tuple[U8, U8, NDArray[np.float64]]:
    """(skin mask, sleeve mask, fingertip px) in the canvas; ``project`` maps world N×3 → canvas px."""
    w, h = canvas_wh
    az = math.radians(spec.from_deg)
    dirw = np.array([math.cos(az), math.sin(az)])
    tip_w = np.array([spec.tip_mm[0], spec.tip_mm[1], -spec.height_mm])
    # palm centre 70 mm back from the tip, wrist 150 mm, elbow 420 mm rising
    def at(dist: float, rise: float) -> NDArray[np.float64]:
        p = tip_w + np.array([dirw[0] * dist, dirw[1] * dist, -rise]) * spec.scale
        return np.asarray(project(p[None, :])[0], np.float64)

    tip = at(0, 0)
    palm = at(75, 12)
    wrist = at(150, 25)
    elbow = at(430, 120)
    far = at(900, 300)
    # pixel size of 1 mm near the palm
    mm = float(np.linalg.norm(at(76, 12) - palm))
    mm = max(mm, 0.05)
    skin = np.zeros((h, w), np.uint8)
    sleeve = np.zeros((h, w), np.uint8)
    d = tip - palm
    dn = d / max(1e-6, float(np.linalg.norm(d)))
    nrm = np.array([-dn[1], dn[0]])
    palm_w = 85 * mm * spec.scale
    cv2.ellipse(skin, (round(palm[0] * 16), round(palm[1] * 16)),
                (max(1, round(palm_w * 0.62 * 16)), max(1, round(palm_w * 0.5 * 16))),
                math.degrees(math.atan2(dn[1], dn[0])), 0, 360, 255, -1, cv2.LINE_AA, 4)
    finger_w = 17 * mm * spec.scale
    lens = {"open": [1.0, 1.08, 1.0, 0.8], "point": [1.0, 0.45, 0.42, 0.4], "pinch": [0.9, 0.85, 0.7, 0.6],
            "fist": [0.35, 0.38, 0.35, 0.3], "flat": [0.95, 1.02, 0.95, 0.8]}.get(spec.pose, [1, 1, 1, 1])
    base_len = float(np.linalg.norm(d)) * 0.75
    spread = math.radians(spec.spread_deg + (12 if spec.pose == "open" else 4))
    lead = int(np.argmax(lens))
    for i, fl in enumerate(lens):
        off = (i - 1.5) * palm_w * 0.24
        root = palm + dn * palm_w * 0.35 + nrm * off
        if i == lead:  # the longest finger ends exactly over the tip point
            _capsule(skin, root, tip, finger_w)
            continue
        ang = (i - 1.5) * spread * 0.5
        ca, sa = math.cos(ang), math.sin(ang)
        fd = np.array([dn[0] * ca - dn[1] * sa, dn[0] * sa + dn[1] * ca])
        _capsule(skin, root, root + fd * base_len * fl, finger_w)
    # thumb
    side = -1.0 if spec.left else 1.0
    troot = palm + nrm * side * palm_w * 0.45 - dn * palm_w * 0.1
    tdir = dn * 0.7 + nrm * side * 0.7
    _capsule(skin, troot, troot + tdir * base_len * (0.6 if spec.pose != "fist" else 0.3), finger_w * 1.15)
    # forearm: bare part then sleeve
    arm_w0 = 65 * mm * spec.scale
    _capsule(skin, palm, wrist, arm_w0)
    split = wrist + (far - wrist) * spec.sleeve_at
    _capsule(skin, wrist, split, arm_w0 * 1.1)
    _capsule(sleeve, split, elbow, arm_w0 * 1.45)
    _capsule(sleeve, elbow, far, arm_w0 * 1.7)
    return skin, sleeve, tip


def draw_hands(canvas: F32, hands: list[HandSpec], project: Any, shadow_px: Any, shadow_strength: float) -> U8:
    """Draw hands with shading and shadows on a float canvas; return the occluder mask (0/255)."""
    h, w = canvas.shape[:2]
    occ = np.zeros((h, w), np.uint8)
    if not hands:
        return occ
    shadows = np.zeros((h, w), np.float32)
    drawn: list[tuple[U8, U8, HandSpec]] = []
    for spec in hands:
        skin, sleeve, _tip = hand_masks(spec, project, (w, h))
        both = cv2.max(skin, sleeve)
        off = shadow_px(spec)
        shift = np.array([[1, 0, off[0]], [0, 1, off[1]]], np.float32)
        # soft shadow: blurred at quarter resolution (a large kernel at full size is slow)
        small = cv2.resize(cv2.warpAffine(both, shift, (w, h)), (max(1, w // 4), max(1, h // 4)),
                           interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        blur = min(61, max(3, int((abs(off[0]) + abs(off[1])) * 0.06 + 3) | 1))
        sh = cv2.resize(cv2.GaussianBlur(small, (blur, blur), 0), (w, h), interpolation=cv2.INTER_LINEAR)
        shadows = np.maximum(shadows, sh)
        drawn.append((skin, sleeve, spec))
    canvas *= (1.0 - shadow_strength * 0.85 * shadows)[..., None]
    for skin, sleeve, spec in drawn:
        for mask, col in ((skin, spec.skin), (sleeve, spec.sleeve)):
            x, y, bw, bh = cv2.boundingRect(mask)
            if bw == 0 or bh == 0:
                continue
            part = mask[y:y + bh, x:x + bw]
            dist = cv2.distanceTransform(np.pad((part > 127).astype(np.uint8), 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
            mx = float(dist.max()) or 1.0
            shade = 0.7 + 0.3 * np.sqrt(np.clip(dist / (mx * 0.6), 0, 1))
            a = part.astype(np.float32)[..., None] / 255.0
            colour = np.array([col[2], col[1], col[0]], np.float32)
            roi = canvas[y:y + bh, x:x + bw]
            roi[:] = roi * (1 - a) + (colour * shade[..., None]) * a
        occ = np.maximum(occ, np.maximum(skin, sleeve))
    return occ
