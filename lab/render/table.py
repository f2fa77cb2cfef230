"""The table: procedural surfaces and flat clutter (papers, pencils, cups, racks, loose tiles…)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.styles import bgr, table_surface

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]


def _noise(rng: np.random.Generator, h: int, w: int, cell: float) -> F32:
    """Smooth value noise in [-1, 1] with features about ``cell`` px."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    small = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def surface_texture(name: str, width: int, height: int, ppm: float, seed: int) -> U8:
    """A table surface (BGR) of ``width``×``height`` px at ``ppm`` px per mm."""
    surf = table_surface(name)
    rng = np.random.default_rng(seed)
    c1 = np.array(bgr(surf.colour), np.float32)
    c2 = np.array(bgr(surf.colour2), np.float32)
    h, w = height, width
    ang = rng.uniform(0, math.pi)
    xs = np.arange(w, dtype=np.float32)[None, :] / ppm
    ys = np.arange(h, dtype=np.float32)[:, None] / ppm
    u = xs * np.float32(math.cos(ang)) + ys * np.float32(math.sin(ang))  # mm along the grain
    v = -xs * np.float32(math.sin(ang)) + ys * np.float32(math.cos(ang))  # mm across
    kind = surf.kind
    if kind in ("wood", "planks"):
        warp = _noise(rng, h, w, 150 * ppm) * rng.uniform(5, 25) + _noise(rng, h, w, 30 * ppm) * 2.0
        rings = 0.5 + 0.5 * np.sin((v + warp) * rng.uniform(0.15, 0.6))
        streaks = 0.5 + 0.5 * np.sin((v + warp * 1.3) * rng.uniform(1.5, 3.5) + _noise(rng, h, w, 60 * ppm) * 4)
        fine = _noise(rng, h, w, max(2.0, 2 * ppm)) * 0.12
        t = np.clip(0.6 * rings**2 + 0.3 * streaks**3 + fine + _noise(rng, h, w, 200 * ppm) * 0.15, 0, 1)[..., None]
        img = c1 * (1 - t) + c2 * t
        if kind == "planks":
            pw = rng.uniform(90, 160)
            gap = (np.mod(v, pw) < max(1.0, 1.2 / max(ppm, 0.3))).astype(np.float32)[..., None]
            img = img * (1 - 0.5 * gap)
    elif kind == "check":
        sq = rng.uniform(15, 35)
        a = (np.mod(u, 2 * sq) < sq).astype(np.float32)
        b = (np.mod(v, 2 * sq) < sq).astype(np.float32)
        t = ((a + b) / 2.0)[..., None]
        img = c2 * (1 - t) + c1 * t
        weave = _noise(rng, h, w, max(1.5, 1.0 * ppm)) * 12.0
        img = img + weave[..., None]
    elif kind == "marble":
        turb = _noise(rng, h, w, 250 * ppm) * 3 + _noise(rng, h, w, 60 * ppm) * 1.0 + _noise(rng, h, w, 15 * ppm) * 0.3
        vein = np.exp(-np.abs(np.sin(u * 0.012 + turb * 2.0)) / 0.04)  # thin dark veins
        cloud = _noise(rng, h, w, 120 * ppm) * 0.12
        t = np.clip(vein * 0.7 + cloud, 0, 1)[..., None]
        img = c1 * (1 - t) + c2 * t
    elif kind == "printed":
        img = c1 + (_noise(rng, h, w, max(1.5, 1.2 * ppm)) * 8.0)[..., None]
        img = img + (_noise(rng, h, w, 120 * ppm) * 10.0)[..., None]
        dots = rng.uniform(8, 14)  # a grid of small dots under the motifs
        du, dv = np.mod(u, dots) - dots / 2, np.mod(v, dots) - dots / 2
        dot = (du * du + dv * dv < rng.uniform(1.0, 2.5)).astype(np.float32)[..., None]
        img = img * (1 - 0.25 * dot) + np.array([150, 150, 160], np.float32) * 0.25 * dot
        area_mm2 = w * h / (ppm * ppm)
        for _ in range(int(area_mm2 / rng.uniform(1500, 4000))):
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            r = rng.uniform(6, 22) * ppm
            for _k in range(int(rng.integers(1, 4))):  # a cluster of fruit and leaves
                ox, oy = rng.normal(0, r * 0.8, 2)
                col = c2 if rng.random() < 0.5 else np.array(
                    [rng.uniform(40, 120), rng.uniform(60, 130), rng.uniform(40, 110)], np.float32)
                ax = (max(1, int(r * rng.uniform(0.4, 0.9))), max(1, int(r * rng.uniform(0.3, 0.7))))
                cv2.ellipse(img, (int(cx + ox), int(cy + oy)), ax, float(rng.uniform(0, 180)), 0, 360,
                            tuple(float(x) for x in col * rng.uniform(0.7, 1.1)), -1, cv2.LINE_AA)
                if rng.random() < 0.5:  # a darker vein or shade across it
                    cv2.line(img, (int(cx + ox - ax[0]), int(cy + oy)), (int(cx + ox + ax[0]), int(cy + oy)),
                             tuple(float(x) for x in col * 0.6), max(1, int(ppm)), cv2.LINE_AA)
    else:  # cloth, felt, plain, slate
        cell = {"cloth": 1.2, "felt": 0.8, "plain": 40.0, "slate": 1.5}.get(kind, 10.0)
        amp = {"cloth": 14.0, "felt": 10.0, "plain": 6.0, "slate": 7.0}.get(kind, 8.0)
        n1 = _noise(rng, h, w, max(1.5, cell * ppm)) * amp
        n2 = _noise(rng, h, w, 150 * ppm) * 8.0
        img = c1 + (n1 + n2)[..., None]
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


@dataclass(frozen=True)
class ClutterItem:
    """A flat object on the table: ``kind`` in paper|pencil|cup|rack|tile_back|tile_face|phone|dice|coin|
    pouch|box. Centre and size in mm, angle in degrees; ``colour`` RGB; ``value`` for a face-up tile."""

    kind: str
    x: float
    y: float
    length: float
    width: float
    angle_deg: float
    colour: tuple[int, int, int]
    value: int | None = None
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _rect(cx: float, cy: float, length: float, width: float, angle: float) -> NDArray[np.float64]:
    a = math.radians(angle)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-math.sin(a), math.cos(a)])
    c = np.array([cx, cy])
    return np.array([c - d * length / 2 - n * width / 2, c + d * length / 2 - n * width / 2,
                     c + d * length / 2 + n * width / 2, c - d * length / 2 + n * width / 2])


def draw_clutter(tex: U8, items: list[ClutterItem], to_px: Any, ppm: float, shadow_dir: tuple[float, float],
                 shadow_strength: float, tile_face_fn: Any = None) -> None:
    """Draw ``items`` on a table texture; ``to_px`` maps world mm (N×2) to texture pixels."""
    h, w = tex.shape[:2]
    shadow = np.zeros((h, w), np.uint8)
    layers: list[tuple[NDArray[np.int32], tuple[int, int, int], ClutterItem]] = []
    for it in items:
        poly_mm = _rect(it.x, it.y, it.length, it.width, it.angle_deg)
        px = np.round(to_px(poly_mm) * 16).astype(np.int32)
        height = {"paper": 0.3, "pencil": 7, "cup": 90, "rack": 25, "tile_back": 5, "tile_face": 5, "phone": 9,
                  "dice": 16, "coin": 2, "pouch": 30, "box": 40}.get(it.kind, 5)
        off = np.array([shadow_dir[0], shadow_dir[1]]) * min(height, 40) * ppm
        if it.kind in ("cup", "coin"):
            c = to_px(np.array([[it.x, it.y]]))[0]
            cv2.circle(shadow, (round((c[0] + off[0]) * 16), round((c[1] + off[1]) * 16)),
                       round(it.length / 2 * ppm * 16),
                       255, -1, cv2.LINE_AA, 4)
        else:
            cv2.fillPoly(shadow, [px + np.round(off * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        layers.append((px, bgr(it.colour), it))
    if shadow_strength > 0 and items:
        k = max(3, int(6 * ppm) | 1)
        sh = cv2.GaussianBlur(shadow, (k, k), 0).astype(np.float32) / 255.0
        tex[:] = (tex.astype(np.float32) * (1 - shadow_strength * 0.8 * sh[..., None])).astype(np.uint8)
    for px, col, it in layers:
        rng = np.random.default_rng(it.seed)
        if it.kind == "cup":
            c = to_px(np.array([[it.x, it.y]]))[0]
            r = it.length / 2 * ppm
            cc = (round(c[0] * 16), round(c[1] * 16))
            cv2.circle(tex, cc, round(r * 16), col, -1, cv2.LINE_AA, 4)
            inner = tuple(int(v * 0.45) for v in col) if rng.random() < 0.5 else (40, 60, 90)
            cv2.circle(tex, cc, round(r * 0.82 * 16), inner, -1, cv2.LINE_AA, 4)
            cv2.circle(tex, cc, round(r * 0.9 * 16), tuple(min(255, int(v * 1.2) + 20) for v in col),
                       max(1, round(r * 0.06)), cv2.LINE_AA, 4)
        elif it.kind == "coin":
            c = to_px(np.array([[it.x, it.y]]))[0]
            cv2.circle(tex, (round(c[0] * 16), round(c[1] * 16)), round(it.length / 2 * ppm * 16), col, -1,
                       cv2.LINE_AA, 4)
        else:
            cv2.fillPoly(tex, [px], col, cv2.LINE_AA, 4)
            p = px.astype(np.float64) / 16.0
            if it.kind == "paper":
                ink = (150, 110, 90) if rng.random() < 0.5 else (170, 170, 170)
                for i in range(1, int(it.width / 8)):
                    t = i * 8 / it.width
                    a, b = p[0] + (p[3] - p[0]) * t, p[1] + (p[2] - p[1]) * t
                    cv2.line(tex, tuple(np.round(a).astype(int)), tuple(np.round(b).astype(int)), ink, 1, cv2.LINE_AA)
                for _ in range(rng.integers(3, 12)):  # handwriting scribbles
                    t = rng.uniform(0.1, 0.9)
                    s0 = rng.uniform(0.05, 0.5)
                    base = p[0] + (p[3] - p[0]) * t
                    dirv = (p[1] - p[0])
                    pts = [base + dirv * (s0 + k * 0.02) + (p[3] - p[0]) * rng.uniform(-0.015, 0.015)
                           for k in range(rng.integers(4, 16))]
                    cv2.polylines(tex, [np.round(np.array(pts)).astype(np.int32)], False, (120, 50, 30), 1, cv2.LINE_AA)
            elif it.kind == "pencil":
                tip = p[1] + (p[2] - p[1]) / 2
                cv2.circle(tex, tuple(np.round(tip).astype(int)), max(1, round(it.width * ppm / 3)), (60, 60, 60), -1)
            elif it.kind == "rack":
                for i in range(3):
                    t0, t1 = 0.1 + i * 0.28, 0.32 + i * 0.28
                    q = np.array([p[0] + (p[1] - p[0]) * t0, p[0] + (p[1] - p[0]) * t1,
                                  p[3] + (p[2] - p[3]) * t1 * 0 + (p[2] - p[3]) * t1 - (p[3] - p[0]) * 0.45,
                                  p[3] + (p[2] - p[3]) * t0 - (p[3] - p[0]) * 0.45])
                    cv2.fillPoly(tex, [np.round(q).astype(np.int32)], (200, 215, 225), cv2.LINE_AA)
            elif it.kind == "phone":
                inset = 0.06
                q = p + (p.mean(axis=0) - p) * inset * 2
                cv2.fillPoly(tex, [np.round(q).astype(np.int32)], (25, 20, 20), cv2.LINE_AA)
            elif it.kind == "dice":
                c = p.mean(axis=0)
                for _ in range(int(rng.integers(1, 7))):
                    d = c + (p[0] - c) * rng.uniform(-0.6, 0.6) + (p[1] - c) * rng.uniform(-0.6, 0.6)
                    cv2.circle(tex, tuple(np.round(d).astype(int)), max(1, round(it.length * ppm * 0.09)), (30, 30, 30),
                               -1, cv2.LINE_AA)
            elif it.kind == "tile_face" and tile_face_fn is not None:
                face = tile_face_fn(it.value, max(8, round(it.length * ppm)))
                fh, fw = face.shape[:2]
                src = np.array([[0, 0], [fw - 1, 0], [fw - 1, fh - 1], [0, fh - 1]], np.float32)
                m = cv2.getPerspectiveTransform(src, p.astype(np.float32))
                x0, y0 = np.floor(p.min(axis=0)).astype(int)
                x1, y1 = np.ceil(p.max(axis=0)).astype(int) + 1
                x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
                if x1 > x0 and y1 > y0:
                    hm = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ m
                    warped = cv2.warpPerspective(face, hm, (x1 - x0, y1 - y0))
                    a = warped[..., 3:4].astype(np.float32) / 255.0
                    roi = tex[y0:y1, x0:x1]
                    roi[:] = (roi * (1 - a) + warped[..., :3] * a).astype(np.uint8)
