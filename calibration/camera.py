"""Camera intrinsics from photos of the ChArUco target (INTERFACES §4b ``calibrate camera``).

Each photo is screened (enough corners, not collinear, sharp, not a near-duplicate of a kept
photo, same size as the others); the kept views are calibrated with ``cv2.calibrateCamera``
(5 distortion coefficients), views whose reprojection error stands out are dropped and the
calibration is repeated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from .target import DEFAULT_TARGET, CharucoTarget
from .views import CharucoView, detect_charuco

FloatArray = NDArray[np.float64]
Progress = Callable[[str], None]


class CalibrationError(ValueError):
    """Calibration cannot be done from these photos (the message says why)."""


@dataclass(frozen=True)
class CalibrationOptions:
    """Screening thresholds. Blur is the estimated Gaussian sigma of the target's edges in pixels."""

    min_corners: int = 8
    max_blur_px: float = 2.0
    duplicate_overlap: float = 0.8
    """Two views sharing at least this fraction of their corners …"""
    duplicate_motion: float = 0.015
    """… whose shared corners moved less than this fraction of the image diagonal are duplicates."""
    min_views: int = 5
    outlier_factor: float = 3.0
    """A view is an outlier when its RMS exceeds this many times the median view RMS …"""
    outlier_floor_px: float = 0.5
    """… and exceeds this absolute RMS too."""
    corner_outlier_factor: float = 6.0
    """A single corner is dropped when its residual exceeds this many times the median residual …"""
    corner_outlier_px: float = 1.0
    """… and this many pixels."""
    max_outlier_rounds: int = 3
    min_max_tilt_deg: float = 20.0
    """Warn when no kept view is tilted at least this much (focal length then poorly determined)."""
    min_coverage: float = 0.5
    """Warn when the kept views' corner hulls together cover less than this share of the picture."""


@dataclass(frozen=True)
class ViewResult:
    """How one kept view fits the final calibration."""

    image: str
    corners: int
    rms_px: float
    blur_px: float
    tilt_deg: float = float("nan")
    """Angle between the target's normal and the optical axis in this view."""
    corners_dropped: int = 0
    """Corners left out because they reprojected far off (misplaced by the detector)."""

    def to_json(self) -> dict[str, Any]:
        return {"image": self.image, "corners": self.corners, "rms_px": _rounded(self.rms_px, 4),
                "blur_px": _rounded(self.blur_px, 3), "tilt_deg": _rounded(self.tilt_deg, 1),
                "corners_dropped": self.corners_dropped}


def _rounded(value: float, digits: int) -> float | None:
    """``value`` rounded, or ``None`` (JSON null) when it is not a finite number."""
    return round(value, digits) if np.isfinite(value) else None


@dataclass(frozen=True)
class Rejection:
    """A photo left out, and why (a stable ``code`` and a sentence)."""

    image: str
    code: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"image": self.image, "code": self.code, "reason": self.reason}


@dataclass(frozen=True)
class CameraCalibration:
    """Pinhole intrinsics and 5-coefficient distortion, with how well the kept views fit them."""

    camera_matrix: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
    dist_coeffs: tuple[float, ...]
    image_size: tuple[int, int]
    rms_px: float
    images_used: int
    per_image: tuple[ViewResult, ...] = ()
    rejected: tuple[Rejection, ...] = ()
    square_mm: float | None = None
    target: dict[str, Any] = field(default_factory=dict)
    coverage: float | None = None
    """Share of the picture covered by the kept views' corner hulls together."""
    warnings: tuple[str, ...] = ()

    def k(self) -> FloatArray:
        """``camera_matrix`` as a 3×3 array."""
        return np.asarray(self.camera_matrix, dtype=np.float64)

    def dist(self) -> FloatArray:
        """``dist_coeffs`` as an array."""
        return np.asarray(self.dist_coeffs, dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        """The INTERFACES §4b object: the five contract fields first, then the extras."""
        out: dict[str, Any] = {
            "camera_matrix": [[float(v) for v in row] for row in self.camera_matrix],
            "dist_coeffs": [float(v) for v in self.dist_coeffs],
            "image_size": [int(self.image_size[0]), int(self.image_size[1])],
            "rms_px": _rounded(float(self.rms_px), 4),
            "images_used": int(self.images_used),
            "per_image": [v.to_json() for v in self.per_image],
            "rejected": [r.to_json() for r in self.rejected],
        }
        if self.square_mm is not None:
            out["square_mm"] = self.square_mm
        if self.target:
            out["target"] = dict(self.target)
        if self.coverage is not None:
            out["coverage"] = round(self.coverage, 3)
        out["warnings"] = list(self.warnings)
        return out


def calibrate_camera(
    images: Sequence[NDArray[Any]],
    names: Sequence[str] | None = None,
    square_mm: float = 30.0,
    target: CharucoTarget = DEFAULT_TARGET,
    options: CalibrationOptions = CalibrationOptions(),
    progress: Progress | None = None,
) -> CameraCalibration:
    """Calibrate from photos of ``target``; raises ``CalibrationError`` if too few views are usable."""
    names = list(names) if names is not None else [f"image_{i}" for i in range(len(images))]
    if len(names) != len(images):
        raise ValueError("names and images differ in length")
    views = []
    for i, (name, image) in enumerate(zip(names, images, strict=True)):
        view = detect_charuco(image, name, target)
        if progress:
            blur = "-" if np.isnan(view.blur_px) else f"{view.blur_px:.2f}"
            progress(f"[{i + 1}/{len(images)}] {name}: {view.count} corners, blur {blur} px")
        views.append(view)
    return calibrate_views(views, square_mm, target, options, progress)


def screen_views(
    views: Sequence[CharucoView], target: CharucoTarget = DEFAULT_TARGET,
    options: CalibrationOptions = CalibrationOptions(),
) -> tuple[list[CharucoView], list[Rejection]]:
    """Views fit to calibrate from, and the rejected ones with reasons (in input order)."""
    kept: list[CharucoView] = []
    rejected: list[Rejection] = []
    board = target.board(1.0)
    sizes = [v.image_size for v in views if v.count >= options.min_corners]
    size = max(set(sizes), key=sizes.count) if sizes else None
    # Sharpest first, so that of two near-duplicates the sharper one stays.
    order = sorted(range(len(views)), key=lambda i: (np.nan_to_num(views[i].blur_px, nan=99.0), i))
    verdicts: dict[int, Rejection | None] = {}
    for i in order:
        v = views[i]
        verdict: Rejection | None = None
        if v.count < options.min_corners:
            verdict = Rejection(v.name, "too_few_corners",
                                f"{v.count} target corners found, at least {options.min_corners} needed")
        elif v.image_size != size:
            verdict = Rejection(v.name, "size_differs",
                                f"image is {v.image_size[0]}x{v.image_size[1]}, the others {size[0]}x{size[1]}"
                                if size else "image size differs")
        elif board.checkCharucoCornersCollinear(v.ids.reshape(-1, 1)):
            verdict = Rejection(v.name, "collinear", "the corners found lie on one line")
        elif not v.blur_px <= options.max_blur_px:
            verdict = Rejection(v.name, "blurred",
                                f"edges blurred by ~{v.blur_px:.1f} px (limit {options.max_blur_px:.1f} px)")
        else:
            twin = next((k for k in kept if _near_duplicate(v, k, options)), None)
            if twin is not None:
                verdict = Rejection(v.name, "duplicate", f"nearly the same view as {twin.name}")
        verdicts[i] = verdict
        if verdict is None:
            kept.append(v)
    kept_in_order = [views[i] for i in range(len(views)) if verdicts[i] is None]
    rejected = [r for i in range(len(views)) if (r := verdicts[i]) is not None]
    return kept_in_order, rejected


def _near_duplicate(a: CharucoView, b: CharucoView, options: CalibrationOptions) -> bool:
    common, ia, ib = np.intersect1d(a.ids, b.ids, return_indices=True)
    if len(common) < options.duplicate_overlap * max(a.count, b.count):
        return False
    diagonal = float(np.hypot(*a.image_size))
    motion = float(np.median(np.linalg.norm(a.corners[ia] - b.corners[ib], axis=1)))
    return motion < options.duplicate_motion * diagonal


def calibrate_views(
    views: Sequence[CharucoView],
    square_mm: float = 30.0,
    target: CharucoTarget = DEFAULT_TARGET,
    options: CalibrationOptions = CalibrationOptions(),
    progress: Progress | None = None,
) -> CameraCalibration:
    """Screen ``views``, calibrate, drop outlier views and recalibrate."""
    if square_mm <= 0:
        raise ValueError(f"square size must be positive, got {square_mm}")
    kept, rejected = screen_views(views, target, options)
    if len(kept) < options.min_views:
        raise CalibrationError(_too_few_message(len(views), kept, rejected, options))
    obj_all = target.corner_points(square_mm)
    size = kept[0].image_size
    dropped: dict[str, int] = {}
    rounds = 0
    while True:
        rms, k, dist, residuals, tilts = _calibrate(kept, obj_all, size)
        errors = [float(np.sqrt(np.mean(r ** 2))) for r in residuals]
        if rounds >= options.max_outlier_rounds:
            break
        # 1. Single corners the detector misplaced (pulled onto a marker edge): drop them.
        all_res = np.concatenate(residuals)
        corner_limit = max(options.corner_outlier_factor * float(np.median(all_res)), options.corner_outlier_px)
        if float(all_res.max()) > corner_limit:
            rounds += 1
            still: list[CharucoView] = []
            lost: list[Rejection] = []
            trimmed_counts: dict[str, int] = {}
            for v, r in zip(kept, residuals, strict=True):
                good = r <= corner_limit
                if good.all():
                    still.append(v)
                    continue
                bad = int((~good).sum())
                trimmed_counts[v.name] = bad
                trimmed = replace(v, ids=v.ids[good], corners=v.corners[good])
                if trimmed.count < options.min_corners:
                    lost.append(Rejection(v.name, "outlier", f"{bad} corners reproject more than "
                                          f"{corner_limit:.2f} px off; too few left"))
                else:
                    still.append(trimmed)
            if len(still) < options.min_views:
                break
            kept = still
            rejected.extend(lost)
            for name, bad in trimmed_counts.items():
                dropped[name] = dropped.get(name, 0) + bad
                if progress:
                    progress(f"{name}: left out {bad} corner(s) reprojecting over {corner_limit:.2f} px")
            continue
        # 2. Whole views that fit worse than the rest: drop the worst and recalibrate.
        median = float(np.median(errors))
        limit = max(options.outlier_factor * median, options.outlier_floor_px)
        worst = int(np.argmax(errors))
        if errors[worst] <= limit or len(kept) <= options.min_views:
            break
        v = kept.pop(worst)
        rounds += 1
        rejected.append(Rejection(v.name, "outlier",
                                  f"reprojection error {errors[worst]:.2f} px, median of views {median:.2f} px"))
        if progress:
            progress(f"dropped {v.name}: reprojection error {errors[worst]:.2f} px; recalibrating")
    per_image = tuple(
        ViewResult(v.name, v.count, float(e), float(v.blur_px), float(tilt), dropped.get(v.name, 0))
        for v, e, tilt in zip(kept, errors, tilts, strict=True)
    )
    coverage = _coverage(kept, size)
    warnings = []
    if max(tilts) < options.min_max_tilt_deg:
        warnings.append(f"the target never tilts more than {max(tilts):.0f}° from facing the camera: the focal "
                        f"length is poorly determined (add views tilted by 30–50°)")
    if coverage < options.min_coverage:
        warnings.append(f"the target's corners cover only {coverage:.0%} of the picture: distortion near the "
                        f"edges is guessed (add views with the target near the corners)")
    kk = tuple(tuple(float(x) for x in row) for row in k)
    return CameraCalibration(
        camera_matrix=(kk[0], kk[1], kk[2]),  # type: ignore[arg-type]
        dist_coeffs=tuple(float(x) for x in dist.ravel()[:5]),
        image_size=size,
        rms_px=float(rms),
        images_used=len(kept),
        per_image=per_image,
        rejected=tuple(rejected),
        square_mm=float(square_mm),
        target=target.to_json(),
        coverage=coverage,
        warnings=tuple(warnings),
    )


def _coverage(views: Sequence[CharucoView], size: tuple[int, int], cells: int = 64) -> float:
    """Share of the picture covered by the union of the views' corner hulls (on a coarse grid)."""
    w, h = size
    scale = cells / max(w, h)
    mask = np.zeros((max(1, round(h * scale)), max(1, round(w * scale))), np.uint8)
    for v in views:
        hull = cv2.convexHull((v.corners * scale).astype(np.float32))
        cv2.fillConvexPoly(mask, np.round(hull).astype(np.int32), 1)
    return float(mask.mean())


def _calibrate(views: Sequence[CharucoView], obj_all: FloatArray, size: tuple[int, int]
               ) -> tuple[float, FloatArray, FloatArray, list[FloatArray], list[float]]:
    """RMS, K, distortion, per-view corner residuals (px) and tilts (target normal vs. optical axis, °)."""
    obj = [obj_all[v.ids].astype(np.float32).reshape(-1, 1, 3) for v in views]
    img = [v.corners.astype(np.float32).reshape(-1, 1, 2) for v in views]
    rms, k, dist, rvecs, tvecs = cv2.calibrateCamera(obj, img, size, None, None)
    errors = []
    tilts = []
    for o, p, r, t in zip(obj, img, rvecs, tvecs, strict=True):
        proj, _ = cv2.projectPoints(o, r, t, k, dist)
        errors.append(np.linalg.norm(proj.reshape(-1, 2) - p.reshape(-1, 2), axis=1).astype(np.float64))
        rot, _ = cv2.Rodrigues(r)
        tilts.append(float(np.degrees(np.arccos(np.clip(abs(rot[2, 2]), 0.0, 1.0)))))
    return float(rms), np.asarray(k, dtype=np.float64), np.asarray(dist, dtype=np.float64), errors, tilts


def _too_few_message(total: int, kept: Sequence[CharucoView], rejected: Sequence[Rejection],
                     options: CalibrationOptions) -> str:
    counts: dict[str, int] = {}
    for r in rejected:
        counts[r.code] = counts.get(r.code, 0) + 1
    why = ", ".join(f"{n} {code.replace('_', ' ')}" for code, n in sorted(counts.items()))
    return (f"only {len(kept)} of {total} images are usable views of the target, at least "
            f"{options.min_views} needed" + (f" (rejected: {why})" if why else ""))
