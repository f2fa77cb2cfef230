"""Light and sensor: ``LookSpec`` and the photometric steps applied to a rendered canvas."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]


@dataclass(frozen=True)
class Glare:
    """A specular highlight: centre and radius as fractions of the image width/height, strength 0–1."""

    x: float
    y: float
    radius: float
    strength: float
    elongation: float = 1.0
    angle_deg: float = 0.0


@dataclass(frozen=True)
class LookSpec:
    """Everything about light, optics and sensor (no geometry)."""

    light: str = "daylight"
    kelvin: float = 6000.0
    white_balance: float = 0.6  # how much of the colour cast the camera corrects (1 = all)
    level: float = 1.0
    key_azimuth_deg: float = 135.0  # direction the key light comes *from* (world, 0 = +X)
    key_elevation_deg: float = 50.0
    gradient: float = 0.2  # brightness ramp across the image
    gradient_angle_deg: float = 0.0
    shadow_strength: float = 0.35
    glare: tuple[Glare, ...] = ()
    vignette: float = 0.15
    noise_sigma: float = 2.0
    defocus_sigma: float = 0.0  # px at 1280 px image width (scaled with the width)
    motion_px: float = 0.0  # px at 1280 px image width
    motion_angle_deg: float = 0.0
    jpeg_quality: int = 92  # 100 = no compression
    saturation: float = 1.0
    gamma: float = 1.0
    tint_green: float = 0.0
    background: tuple[int, int, int] = (70, 70, 75)  # BGR beyond the table
    #: a large soft shadow (the photographer, a lamp arm): centre x, y and radius as fractions of the
    #: image width, and how much light it takes (0–1); ``None`` for none
    cast_shadow: tuple[float, float, float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["glare"] = [asdict(g) for g in self.glare]
        return out

    def glare_chance(self) -> float:
        """How glossy surfaces catch the light here: 0 (flat light) to 1 (strong key light, glare)."""
        return float(min(1.0, 0.25 * len(self.glare) + self.gradient))

    def shadow_offset_dir(self) -> tuple[float, float, float]:
        """World vector (per mm of height) from an object's point to its shadow on the table."""
        az, el = math.radians(self.key_azimuth_deg), math.radians(max(10.0, self.key_elevation_deg))
        run = 1.0 / math.tan(el)
        return -math.cos(az) * run, -math.sin(az) * run, 1.0


@dataclass
class Illumination:
    """Multiplicative light field applied before distortion."""

    gains: tuple[float, float, float] = field(default=(1.0, 1.0, 1.0))


def kelvin_rgb(kelvin: float) -> tuple[float, float, float]:
    """Approximate RGB (0–1) of a black body at ``kelvin`` (Tanner Helland's fit)."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    return tuple(min(255.0, max(0.0, v)) / 255.0 for v in (r, g, b))  # type: ignore[return-value]


def light_gains(look: LookSpec) -> NDArray[np.float32]:
    """BGR multipliers from colour temperature (partly white-balanced), level and tint."""
    k = 6500.0 + (look.kelvin - 6500.0) * (1.0 - look.white_balance)
    r, g, b = kelvin_rgb(k)
    r0, g0, b0 = kelvin_rgb(6500.0)
    gains = np.array([b / b0, g / g0 * (1 + look.tint_green), r / r0], np.float32)
    gains /= float(gains.max())
    return np.asarray(gains * look.level, np.float32)


def apply_light(canvas: F32, look: LookSpec, origin: tuple[int, int] = (0, 0),
                size: tuple[int, int] | None = None) -> F32:
    """Colour temperature, level, brightness gradient and glare, on a float canvas (in place)."""
    h, w = canvas.shape[:2]
    out_w, out_h = size if size is not None else (w, h)
    ox, oy = origin
    a = math.radians(look.gradient_angle_deg)
    xs = (np.arange(w, dtype=np.float32) - ox) / max(1, out_w) - 0.5
    ys = (np.arange(h, dtype=np.float32) - oy) / max(1, out_h) - 0.5
    ramp = (math.cos(a) * xs[None, :] + math.sin(a) * ys[:, None]).astype(np.float32)
    field_ = np.clip(1.0 + look.gradient * 1.6 * ramp, 0.2, 2.0)
    if look.cast_shadow is not None:
        sx, sy, sr, strength = look.cast_shadow
        d = np.sqrt((xs[None, :] - (sx - 0.5)) ** 2 + (ys[:, None] - (sy - 0.5) * out_h / max(1, out_w)) ** 2)
        edge = np.clip((sr - d) / max(1e-3, 0.35 * sr) + 0.5, 0.0, 1.0)  # soft penumbra
        field_ = field_ * (1.0 - strength * edge).astype(np.float32)
    canvas *= field_[..., None]
    canvas *= light_gains(look)[None, None, :]
    for g in look.glare:
        cx, cy = ox + g.x * out_w, oy + g.y * out_h
        r = max(2.0, g.radius * out_w)
        ca, sa = math.cos(math.radians(g.angle_deg)), math.sin(math.radians(g.angle_deg))
        x0, x1 = int(max(0, cx - 3 * r * g.elongation)), int(min(w, cx + 3 * r * g.elongation + 1))
        y0, y1 = int(max(0, cy - 3 * r * g.elongation)), int(min(h, cy + 3 * r * g.elongation + 1))
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        du, dv = (xx - cx) * ca + (yy - cy) * sa, -(xx - cx) * sa + (yy - cy) * ca
        d2 = (du / g.elongation) ** 2 + dv**2
        spot = np.exp(-d2 / (r * r)).astype(np.float32) * (255.0 * g.strength)
        canvas[y0:y1, x0:x1] += spot[..., None]
    return canvas


@lru_cache(maxsize=8)
def _radius2(w: int, h: int) -> F32:
    yy, xx = np.ogrid[0:h, 0:w]
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (w / 2)) ** 2
    return np.asarray(np.clip(r2, 0, 2), np.float32)


def apply_sensor(img: F32, look: LookSpec, rng: np.random.Generator) -> U8:
    """Vignetting, defocus and motion blur, saturation, gamma, noise and JPEG (distorted image)."""
    h, w = img.shape[:2]
    px = w / 1280.0  # blur sizes are given for a 1280-pixel-wide picture
    if look.vignette > 0:
        img *= (1.0 - look.vignette * _radius2(w, h))[..., None]
    if look.defocus_sigma * px > 0.25:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), look.defocus_sigma * px), np.float32)
    if look.motion_px * px >= 1.5:
        n = math.ceil(look.motion_px * px) | 1
        k = np.zeros((n, n), np.float32)
        c = n // 2
        a = math.radians(look.motion_angle_deg)
        p0 = (round(c - math.cos(a) * c), round(c - math.sin(a) * c))
        p1 = (round(c + math.cos(a) * c), round(c + math.sin(a) * c))
        cv2.line(k, p0, p1, 1.0, 1, cv2.LINE_AA)
        img = np.asarray(cv2.filter2D(img, -1, k / max(1e-6, float(k.sum()))), np.float32)
    if look.saturation != 1.0:
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        g3 = cv2.merge([grey, grey, grey])
        img = np.asarray(cv2.addWeighted(img, look.saturation, g3, 1.0 - look.saturation, 0.0), np.float32)
    if look.noise_sigma > 0:
        cv2.setRNGSeed(int(rng.integers(1 << 31)))
        noise = np.empty((h, w, 3), np.float32)
        cv2.randn(noise, 0.0, 0.5)  # type: ignore[call-overload]
        common = np.empty((h, w, 1), np.float32)
        cv2.randn(common, 0.0, 0.7)  # type: ignore[call-overload]
        noise += common
        # shot-like noise: stronger in bright areas
        noise *= img * (look.noise_sigma * 0.4 / 128.0) + look.noise_sigma * 0.6
        img += noise
    out = cv2.convertScaleAbs(np.clip(img, 0, 255))
    if look.gamma != 1.0:
        lut = np.clip(255.0 * (np.arange(256) / 255.0) ** (1.0 / look.gamma) + 0.5, 0, 255).astype(np.uint8)
        out = cv2.LUT(out, lut)
    if look.jpeg_quality < 100:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
        dec = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if dec is not None:
            out = dec
    return np.asarray(out, np.uint8)
