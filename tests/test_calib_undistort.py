"""Undistortion for the vision stack: images (cached maps) and points."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from calib_helpers import CAMERA, calibration_renders

from calibration.camera import CameraCalibration
from calibration.profile import Profile, ProfileError
from calibration.undistort import Undistorter
from calibration.views import detect_charuco

TRUE = CameraCalibration(
    camera_matrix=((CAMERA.fx, 0.0, CAMERA.cx), (0.0, CAMERA.fy, CAMERA.cy), (0.0, 0.0, 1.0)),
    dist_coeffs=CAMERA.dist,
    image_size=(CAMERA.width, CAMERA.height),
    rms_px=0.0,
    images_used=0,
)


def test_calib_undistorted_image_is_a_pinhole_image() -> None:
    """Corners found in the undistorted image are the ideal pinhole projections (K, no distortion)."""
    und = Undistorter(Profile(camera=TRUE))
    r = calibration_renders()[7]  # the target at the picture's left edge: strong distortion
    flat = und.undistort(r.image)
    assert flat.shape == r.image.shape
    view = detect_charuco(flat)
    obj = np.asarray(cv2.aruco.CharucoBoard((7, 5), 30.0, 21.0, cv2.aruco.getPredefinedDictionary(
        cv2.aruco.DICT_5X5_100)).getChessboardCorners(), np.float64)
    ideal, _ = cv2.projectPoints(obj[view.ids], r.rvec, r.tvec, CAMERA.camera_matrix(), None)
    err = np.linalg.norm(view.corners - ideal.reshape(-1, 2), axis=1)
    assert view.count >= 20 and np.median(err) < 0.25 and np.max(err) < 1.0
    assert und.undistort(r.image) is not flat and len(und._maps) == 1  # maps computed once per size


def test_calib_points_round_trip_and_match_truth() -> None:
    und = Undistorter(TRUE)
    r = calibration_renders()[2]
    flat = und.undistort_points(r.corners_px)
    obj = np.asarray(cv2.aruco.CharucoBoard((7, 5), 30.0, 21.0, cv2.aruco.getPredefinedDictionary(
        cv2.aruco.DICT_5X5_100)).getChessboardCorners(), np.float64)
    ideal, _ = cv2.projectPoints(obj[r.corner_ids], r.rvec, r.tvec, CAMERA.camera_matrix(), None)
    assert np.allclose(flat, ideal.reshape(-1, 2), atol=1e-6)
    assert np.allclose(und.distort_points(flat), r.corners_px, atol=1e-6)


def test_calib_undistorter_scales_to_other_sizes() -> None:
    und = Undistorter(TRUE)
    k = und.camera_matrix((640, 360))
    assert k[0, 0] == pytest.approx(CAMERA.fx / 2) and k[0, 2] == pytest.approx((CAMERA.cx + 0.5) / 2 - 0.5)
    small = cv2.resize(calibration_renders()[0].image, (640, 360), interpolation=cv2.INTER_AREA)
    assert und.undistort(small).shape == small.shape
    with pytest.raises(ValueError, match="aspect ratio"):
        und.camera_matrix((640, 480))


def test_calib_undistorter_needs_a_camera() -> None:
    with pytest.raises(ProfileError, match="no camera calibration"):
        Undistorter(Profile())
