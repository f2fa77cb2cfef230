"""The synthetic ChArUco renderer: exact truth, the lens model, the pose conventions."""

from __future__ import annotations

import numpy as np
from calib_helpers import CAMERA, calibration_renders

from calibration.distortion import distort_normalized, normalized_to_pixels, pixels_to_normalized, undistort_normalized
from calibration.views import detect_charuco
from lab.render.charuco import PinholeCamera, Scene, TargetPose, render_charuco


def test_calib_render_truth_matches_detected_corners() -> None:
    """Detected corners sit on the renderer's true corners (sub-pixel), over the standard views."""
    errors = []
    for r in calibration_renders()[:6]:
        view = detect_charuco(r.image)
        common, ia, ib = np.intersect1d(view.ids, r.corner_ids, return_indices=True)
        assert len(common) >= 12
        errors.append(np.linalg.norm(view.corners[ia] - r.corners_px[ib], axis=1))
    err = np.concatenate(errors)
    assert np.median(err) < 0.15
    assert np.max(err) < 1.0


def test_calib_render_pinhole_facing_camera() -> None:
    """No distortion, target facing the camera at Z: corner (X, Y) lands at f·(X − Xc)/Z + c."""
    cam = PinholeCamera(fx=800.0, fy=800.0, cx=639.5, cy=359.5, dist=(0, 0, 0, 0, 0))
    r = render_charuco(cam, TargetPose(distance_mm=500.0), Scene(supersample=1))
    ids = r.corner_ids
    assert len(ids) == 24
    # Corner 0 is one square right and down of the board's top-left; the board centre is on axis.
    x_mm = np.array([(i % 6 + 1) * 30.0 - 105.0 for i in ids])
    y_mm = np.array([(i // 6 + 1) * 30.0 - 75.0 for i in ids])
    expected = np.stack([800.0 * x_mm / 500.0 + 639.5, 800.0 * y_mm / 500.0 + 359.5], axis=1)
    assert np.allclose(r.corners_px, expected, atol=1e-6)
    view = detect_charuco(r.image)
    assert view.count == 24
    assert np.max(np.linalg.norm(view.corners - expected, axis=1)) < 0.3


def test_calib_render_tilt_foreshortens() -> None:
    """A 60° tilt about the image's x axis halves the target's height in the image."""
    cam = PinholeCamera(dist=(0, 0, 0, 0, 0))
    flat = render_charuco(cam, TargetPose(distance_mm=700.0))
    tilted = render_charuco(cam, TargetPose(tilt_deg=60.0, tilt_dir_deg=0.0, distance_mm=700.0))

    def height(pts: np.ndarray) -> float:
        return float(pts[:, 1].max() - pts[:, 1].min())

    def width(pts: np.ndarray) -> float:
        return float(pts[:, 0].max() - pts[:, 0].min())

    assert abs(height(tilted.corners_px) / height(flat.corners_px) - 0.5) < 0.05
    assert abs(width(tilted.corners_px) / width(flat.corners_px) - 1.0) < 0.1


def test_calib_distortion_inverse_is_exact() -> None:
    rng = np.random.default_rng(3)
    px = rng.uniform([0, 0], [1279, 719], size=(500, 2))
    k = CAMERA.camera_matrix()
    ideal, residual = undistort_normalized(pixels_to_normalized(px, k), CAMERA.dist)
    back = normalized_to_pixels(distort_normalized(ideal, CAMERA.dist), k)
    assert np.max(residual) < 1e-12
    assert np.max(np.abs(back - px)) < 1e-8


def test_calib_render_is_deterministic() -> None:
    pose = TargetPose(tilt_deg=30, yaw_deg=20)
    a = render_charuco(CAMERA, pose, Scene(noise_std=3, noise_seed=4))
    b = render_charuco(CAMERA, pose, Scene(noise_std=3, noise_seed=4))
    assert np.array_equal(a.image, b.image)


def test_calib_render_truth_equals_opencv_projection() -> None:
    import cv2

    from calibration.target import DEFAULT_TARGET

    r = calibration_renders()[4]
    obj = DEFAULT_TARGET.corner_points(30.0)[r.corner_ids]
    proj, _ = cv2.projectPoints(obj, r.rvec, r.tvec, CAMERA.camera_matrix(), CAMERA.dist_coeffs())
    assert np.allclose(proj.reshape(-1, 2), r.corners_px, atol=1e-6)
