"""Camera calibration from synthetic ChArUco photos with known intrinsics (INTERFACES §4b)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from calib_helpers import CAMERA, calibration_renders

from calibration.camera import CalibrationError, CalibrationOptions, calibrate_camera, calibrate_views
from calibration.views import detect_charuco
from lab.render.charuco import Scene, TargetPose, render_charuco


@pytest.mark.slow  # renders the 18 shared views (~7 s on an idle 2-core VM); later tests reuse them
def test_calib_intrinsics_recovered_from_18_views() -> None:
    """Focal length within 1 %, principal point within 3 px, RMS below 0.5 px."""
    renders = calibration_renders()
    cal = calibrate_camera([r.image for r in renders], [f"v{i}.png" for i in range(len(renders))])
    k = cal.k()
    assert abs(k[0, 0] / CAMERA.fx - 1.0) < 0.01
    assert abs(k[1, 1] / CAMERA.fy - 1.0) < 0.01
    assert abs(k[0, 2] - CAMERA.cx) < 3.0
    assert abs(k[1, 2] - CAMERA.cy) < 3.0
    assert cal.rms_px < 0.5
    assert cal.images_used == len(renders) and not cal.rejected
    assert cal.image_size == (1280, 720)
    # Per-image errors are reported, one per kept view, and agree with the overall RMS.
    assert len(cal.per_image) == cal.images_used
    errs = np.array([v.rms_px for v in cal.per_image])
    assert np.all(errs < 0.5) and np.all(errs > 0)
    # The recovered lens model maps ideal points like the true one over the image (within 1 px).
    from calibration.distortion import distort_normalized

    grid = np.stack(np.meshgrid(np.linspace(-0.55, 0.55, 9), np.linspace(-0.3, 0.3, 5)), axis=-1).reshape(-1, 2)
    true = distort_normalized(grid, CAMERA.dist) * CAMERA.fx
    got = distort_normalized(grid, cal.dist()) * k[0, 0]
    assert np.max(np.linalg.norm(true - got, axis=1)) < 1.5


def test_calib_json_has_contract_fields() -> None:
    renders = calibration_renders()[:8]
    cal = calibrate_camera([r.image for r in renders])
    obj = cal.to_json()
    assert list(obj)[:5] == ["camera_matrix", "dist_coeffs", "image_size", "rms_px", "images_used"]
    assert len(obj["camera_matrix"]) == 3 and all(len(row) == 3 for row in obj["camera_matrix"])
    assert len(obj["dist_coeffs"]) == 5
    assert obj["image_size"] == [1280, 720] and obj["images_used"] == 8


def test_calib_blurred_view_rejected() -> None:
    renders = calibration_renders()[:8]
    blurred = render_charuco(CAMERA, TargetPose(tilt_deg=20, yaw_deg=10, distance_mm=350),
                             Scene(blur_sigma_px=2.8, noise_std=2.0))
    view = detect_charuco(blurred.image, "blurred.png")
    assert view.count >= 8, "the blurred view must still show corners, so that blur is what rejects it"
    cal = calibrate_camera([*(r.image for r in renders), blurred.image],
                           [*(f"v{i}" for i in range(len(renders))), "blurred.png"])
    codes = {r.image: r.code for r in cal.rejected}
    assert codes == {"blurred.png": "blurred"}
    assert cal.images_used == len(renders)


def test_calib_sharp_and_mildly_soft_views_kept() -> None:
    for sigma in (0.0, 1.0):
        r = render_charuco(CAMERA, TargetPose(tilt_deg=30, yaw_deg=40, distance_mm=420), Scene(blur_sigma_px=sigma))
        v = detect_charuco(r.image)
        assert v.blur_px < CalibrationOptions().max_blur_px


def test_calib_duplicate_view_rejected() -> None:
    renders = calibration_renders()[:7]
    pose = TargetPose(tilt_deg=25, tilt_dir_deg=30, yaw_deg=15, distance_mm=420, center=(0.1, 0.05))
    first = render_charuco(CAMERA, pose, Scene(noise_std=2.0, noise_seed=1))
    nudged = replace(pose, yaw_deg=15.3, center=(0.102, 0.05))
    again = render_charuco(CAMERA, nudged, Scene(noise_std=2.0, noise_seed=2))
    names = [*(f"v{i}" for i in range(len(renders))), "first.png", "again.png"]
    cal = calibrate_camera([*(r.image for r in renders), first.image, again.image], names)
    rejected = [(r.image, r.code) for r in cal.rejected]
    assert len(rejected) == 1 and rejected[0][1] == "duplicate"
    assert rejected[0][0] in ("first.png", "again.png")
    assert cal.images_used == len(renders) + 1


def test_calib_outlier_view_dropped_and_recalibrated() -> None:
    renders = calibration_renders()[:10]
    views = [detect_charuco(r.image, f"v{i}") for i, r in enumerate(renders)]
    bad = views[3]
    rng = np.random.default_rng(5)
    views[3] = replace(bad, corners=bad.corners + rng.normal(0, 4.0, bad.corners.shape))
    cal = calibrate_views(views)
    assert [(r.image, r.code) for r in cal.rejected] == [("v3", "outlier")]
    assert cal.rms_px < 0.5
    assert abs(cal.k()[0, 0] / CAMERA.fx - 1.0) < 0.01


def test_calib_too_few_views_is_an_error() -> None:
    renders = calibration_renders()[:3]
    blank = np.full((720, 1280, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match=r"only 3 of 4 images .* at least 5 needed .*1 too few corners"):
        calibrate_camera([*(r.image for r in renders), blank])


def test_calib_outlier_rounds_are_limited() -> None:
    """With no outlier rounds allowed, bad views stay (and show in the RMS); by default both go."""
    renders = calibration_renders()[:10]
    views = [detect_charuco(r.image, f"v{i}") for i, r in enumerate(renders)]
    rng = np.random.default_rng(6)
    for i in (2, 6):
        views[i] = replace(views[i], corners=views[i].corners + rng.normal(0, 5.0, views[i].corners.shape))
    kept_all = calibrate_views(views, options=CalibrationOptions(max_outlier_rounds=0))
    assert not kept_all.rejected and kept_all.images_used == 10 and kept_all.rms_px > 1.0
    both = calibrate_views(views)
    assert sorted(r.image for r in both.rejected) == ["v2", "v6"] and both.rms_px < 0.5
    assert {r.code for r in both.rejected} == {"outlier"} and len(both.per_image) == 8


def test_calib_single_misplaced_corners_dropped() -> None:
    """A corner the detector misplaced by a few pixels is left out; its view stays."""
    renders = calibration_renders()[:10]
    views = [detect_charuco(r.image, f"v{i}") for i, r in enumerate(renders)]
    bent = views[4].corners.copy()
    bent[3] += (3.0, -2.0)
    views[4] = replace(views[4], corners=bent)
    cal = calibrate_views(views)
    assert not cal.rejected and cal.images_used == 10
    per = {v.image: v for v in cal.per_image}
    assert per["v4"].corners_dropped == 1 and per["v4"].corners == views[4].count - 1
    assert sum(v.corners_dropped for v in cal.per_image) == 1
    assert cal.rms_px < 0.3


def test_calib_warns_when_views_never_tilt() -> None:
    """Views all facing the camera leave the focal length poorly determined: say so."""
    facing = [render_charuco(CAMERA, TargetPose(tilt_deg=3.0, tilt_dir_deg=40.0 * i, yaw_deg=25.0 * i,
                                                distance_mm=380.0 + 15 * i,
                                                center=((-0.2, 0.0, 0.2)[i % 3], (-0.15, 0.15)[i % 2])))
              for i in range(6)]
    cal = calibrate_camera([r.image for r in facing])
    assert any("never tilts" in w for w in cal.warnings)
    assert max(v.tilt_deg for v in cal.per_image) < 10.0
    good = calibrate_camera([r.image for r in calibration_renders()[:12]])
    assert not any("never tilts" in w for w in good.warnings)
    assert good.coverage is not None and good.coverage > 0.5
