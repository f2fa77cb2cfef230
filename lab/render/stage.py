"""The shared rendering stage: an undistorted float canvas (with a margin for lens distortion)
onto which flat textures are warped at a height, prisms get their sides, hands are drawn, and
which ``finish`` turns into the camera's picture (light, distortion, sensor)."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.camera import CameraSpec, apply_distortion, canvas_margin
from lab.render.hands import HandSpec, draw_hands
from lab.render.look import LookSpec, apply_light, apply_sensor
from lab.render.table import ClutterItem, draw_clutter, surface_texture

F64 = NDArray[np.float64]
F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]


def texture_to_world(ppm: float, x0_mm: float, y0_mm: float) -> F64:
    """Homography from texture pixels to world mm: ``X = u / ppm + x0``."""
    return np.array([[1.0 / ppm, 0.0, x0_mm], [0.0, 1.0 / ppm, y0_mm], [0.0, 0.0, 1.0]])


class Stage:
    """One picture being drawn by ``cam``."""

    def __init__(self, cam: CameraSpec) -> None:
        self.cam = cam
        self.margin = canvas_margin(cam)
        mx, my = self.margin
        self.size = (cam.width + 2 * mx, cam.height + 2 * my)
        self.shift = np.array([[1.0, 0.0, mx], [0.0, 1.0, my], [0.0, 0.0, 1.0]])
        self.canvas: F32 = np.zeros((self.size[1], self.size[0], 3), np.float32)

    # -- geometry ---------------------------------------------------------------------------
    def plane_h(self, z_mm: float) -> F64:
        """World plane ``Z = z_mm`` (mm) → canvas pixels."""
        return np.asarray(self.shift @ self.cam.plane_homography(z_mm))

    def project(self, pts: Any) -> F64:
        """World points (N×3) → undistorted canvas pixels."""
        p = self.cam.project(pts, distort=False)
        return p + np.array(self.margin, np.float64)

    def image_ppm(self, pts_mm: F64, z_mm: float = 0.0) -> float:
        """Largest pixels-per-mm over the quad ``pts_mm`` (N×2) as seen in the image."""
        p3 = np.concatenate([pts_mm, np.full((len(pts_mm), 1), z_mm)], axis=1)
        px = self.project(p3)
        best = 0.0
        for i in range(len(px)):
            j = (i + 1) % len(px)
            span = max(1e-6, float(np.linalg.norm(pts_mm[j] - pts_mm[i])))
            best = max(best, float(np.linalg.norm(px[j] - px[i])) / span)
        return best

    def _front_mask(self, h_canvas_to_world: F64) -> U8:
        """Canvas pixels whose ray meets the plane in front of the camera."""
        w, h = self.size
        row = h_canvas_to_world[2]
        xs = np.arange(w, dtype=np.float64) * row[0]
        ys = np.arange(h, dtype=np.float64) * row[1] + row[2]
        wmap = ys[:, None] + xs[None, :]
        # sign of w for a point known to be in front (the image centre ray hits the table)
        centre = row[0] * w / 2 + row[1] * h / 2 + row[2]
        return np.asarray((wmap * np.sign(centre)) > 1e-9, dtype=np.uint8)

    # -- drawing --------------------------------------------------------------------------------
    def background(self, look: LookSpec, rng: np.random.Generator) -> None:
        """The far room beyond the table: a soft vertical gradient."""
        h = self.size[1]
        base = np.array(look.background, np.float32)
        ramp = np.linspace(0.7, 1.2, h, dtype=np.float32)[:, None, None]
        self.canvas[:] = base * ramp

    def warp(self, tex: U8, tex_to_world: F64, z_mm: float, alpha: U8 | None = None) -> None:
        """Warp a flat texture lying at height ``z_mm`` onto the canvas (blending by ``alpha``)."""
        hmat = self.plane_h(z_mm) @ tex_to_world
        w, h = self.size
        th, tw = tex.shape[:2]
        corners_tex = np.array([[0, 0, 1], [tw, 0, 1], [tw, th, 1], [0, th, 1]], np.float64)
        world = (tex_to_world @ corners_tex.T).T
        world = world[:, :2] / world[:, 2:3]
        in_front = bool(self.cam.depth(np.concatenate([world, np.full((4, 1), z_mm)], axis=1)).min() > 1.0)
        if in_front:
            pc = (hmat @ corners_tex.T).T
            pc = pc[:, :2] / pc[:, 2:3]
            x0, y0 = np.floor(pc.min(axis=0)).astype(int) - 2
            x1, y1 = np.ceil(pc.max(axis=0)).astype(int) + 2
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        else:
            x0, y0, x1, y1 = 0, 0, w, h
        if x1 <= x0 or y1 <= y0:
            return
        shifted = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ hmat
        src = tex if tex.shape[2] == 4 else np.dstack([tex, alpha if alpha is not None else
                                                        np.full(tex.shape[:2], 255, np.uint8)])
        warped = cv2.warpPerspective(src, shifted, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        a = warped[..., 3].astype(np.float32) * (1.0 / 255.0)
        if not in_front:
            a *= self._front_mask(np.asarray(np.linalg.inv(hmat), np.float64))
        roi = self.canvas[y0:y1, x0:x1]
        col = warped[..., :3].astype(np.float32)
        col -= roi
        col *= a[..., None]
        roi += col

    def table(self, surface: str, seed: int, z_mm: float, look: LookSpec, clutter: list[ClutterItem],
              rng: np.random.Generator, exclude_mm: float, tile_face_fn: Any = None,
              max_px: int = 1000) -> None:
        """Warp the table surface (with clutter) onto the canvas."""
        hm = self.plane_h(z_mm)
        inv = np.linalg.inv(hm)
        w, h = self.size
        border = [(x, 0) for x in np.linspace(0, w - 1, 12)] + [(x, h - 1) for x in np.linspace(0, w - 1, 12)]
        border += [(0, y) for y in np.linspace(0, h - 1, 8)] + [(w - 1, y) for y in np.linspace(0, h - 1, 8)]
        reach = 0.0
        for x, y in border:
            v = inv @ np.array([x, y, 1.0])
            if v[2] * np.sign((inv @ np.array([w / 2, h / 2, 1.0]))[2]) <= 1e-12:
                reach = 3000.0
                break
            reach = max(reach, abs(v[0] / v[2]), abs(v[1] / v[2]))
        reach = float(np.clip(reach * 1.05, exclude_mm + 50, 3000.0))
        n = int(min(max_px, max(256, 2 * reach * 0.8)))
        ppm = n / (2 * reach)
        tex = surface_texture(surface, n, n, ppm, seed)
        to_world = texture_to_world(ppm, -reach, -reach)

        def to_px(mm: F64) -> F64:
            return (np.asarray(mm, np.float64) + reach) * ppm

        sd = look.shadow_offset_dir()
        draw_clutter(tex, clutter, to_px, ppm, (sd[0], sd[1]), look.shadow_strength, tile_face_fn)
        self.table_ppm = ppm
        self.warp(tex, to_world, z_mm)

    def shadow_on_table(self, footprint_mm: F64, height_mm: float, z_mm: float, look: LookSpec) -> None:
        """Darken the canvas where a raised polygon (e.g. the board) casts its shadow on the table."""
        sd = look.shadow_offset_dir()
        off = np.array([sd[0], sd[1]]) * height_mm
        pts = np.concatenate([footprint_mm + off, np.full((len(footprint_mm), 1), z_mm)], axis=1)
        px = self.project(pts)
        mask = np.zeros((self.size[1], self.size[0]), np.uint8)
        cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        k = min(61, max(3, int(self.image_ppm(footprint_mm, z_mm) * height_mm * 0.8) | 1))
        m = cv2.GaussianBlur(mask, (k, k), 0).astype(np.float32) / 255.0
        self.canvas *= (1 - look.shadow_strength * 0.7 * m)[..., None]

    def prism_sides(self, footprint_mm: F64, z_bottom: float, z_top: float, colour_bgr: tuple[float, float, float],
                    look: LookSpec) -> None:
        """Draw the camera-facing sides of a vertical prism (tile, board) with simple shading."""
        n = len(footprint_mm)
        bot = self.project(np.concatenate([footprint_mm, np.full((n, 1), z_bottom)], axis=1))
        top = self.project(np.concatenate([footprint_mm, np.full((n, 1), z_top)], axis=1))
        cam_xy = self.cam.position_mm()[:2]
        centre = footprint_mm.mean(axis=0)
        az = math.radians(look.key_azimuth_deg)
        light = np.array([math.cos(az), math.sin(az)])
        col = np.array(colour_bgr, np.float32)
        for i in range(n):
            j = (i + 1) % n
            mid = (footprint_mm[i] + footprint_mm[j]) / 2
            normal = mid - centre
            normal = normal / max(1e-9, float(np.linalg.norm(normal)))
            if float(np.dot(normal, cam_xy - mid)) <= 0:
                continue  # faces away from the camera
            quad = np.array([bot[i], bot[j], top[j], top[i]])
            shade = 0.62 + 0.3 * max(0.0, float(np.dot(normal, light)))
            cv2.fillConvexPoly(self.canvas, np.round(quad * 16).astype(np.int32),
                               tuple(float(v) for v in col * shade), cv2.LINE_AA, 4)

    def hands(self, hands: list[HandSpec], look: LookSpec) -> U8:
        """Draw hands and arms with shadows; return the canvas occluder mask."""
        cam = self.cam
        sd = look.shadow_offset_dir()

        def project_safe(p: F64) -> F64:
            """Project, pushing points behind or too near the camera forward along the optical axis."""
            p = np.array(p, np.float64)
            d = cam.depth(p)
            fwd = cam.rotation()[2]
            p = p + np.maximum(0.0, 60.0 - d)[:, None] * fwd[None, :]
            return self.project(p)

        def shadow_px(spec: HandSpec) -> F64:
            tip = np.array([[spec.tip_mm[0], spec.tip_mm[1], -spec.height_mm]])
            ground = np.array([[spec.tip_mm[0] + sd[0] * spec.height_mm, spec.tip_mm[1] + sd[1] * spec.height_mm, 0.0]])
            return np.asarray(self.project(ground)[0] - self.project(tip)[0])

        return draw_hands(self.canvas, hands, project_safe, shadow_px, look.shadow_strength)

    def finish(self, look: LookSpec, rng: np.random.Generator, masks: dict[str, U8] | None = None
               ) -> tuple[U8, dict[str, U8]]:
        """Light, lens distortion and sensor: the camera picture and the masks in image pixels."""
        canvas = apply_light(self.canvas, look, self.margin, (self.cam.width, self.cam.height))
        img = apply_distortion(canvas, self.cam, self.margin)
        out = apply_sensor(np.ascontiguousarray(img, dtype=np.float32), look, rng)
        done: dict[str, U8] = {}
        for name, m in (masks or {}).items():
            dm = apply_distortion(m, self.cam, self.margin, cv2.INTER_LINEAR)
            done[name] = np.where(dm > 127, 255, 0).astype(np.uint8)
        return out, done
