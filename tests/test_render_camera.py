"""Camera model: projection matches OpenCV, the distortion map inverts it, and drawn pixels land
exactly where labels say (sub-pixel)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from render_helpers import blob_centroid, cameras, quiet_look

from lab.render.camera import CameraSpec, canvas_margin, distortion_map
from lab.render.stage import Stage, texture_to_world


@pytest.mark.parametrize("cam", cameras())
def test_render_projection_matches_cv2_project_points(cam: CameraSpec) -> None:
    rng = np.random.default_rng(3)
    pts = np.concatenate([rng.uniform(-200, 200, (50, 2)), rng.uniform(-40, 0, (50, 1))], axis=1)
    rvec, tvec = cam.rvec_tvec()
    ref, _ = cv2.projectPoints(pts, rvec, tvec, cam.camera_matrix(), cam.dist_coeffs())
    assert np.abs(ref.reshape(-1, 2) - cam.project(pts)).max() < 1e-6


@pytest.mark.parametrize("cam", cameras())
def test_render_plane_homography_is_undistorted_projection(cam: CameraSpec) -> None:
    pts = np.array([[-100.0, -50.0], [80.0, 120.0], [0.0, 0.0], [150.0, -150.0]])
    for z in (0.0, -5.0):
        h = cam.plane_homography(z)
        p = (h @ np.c_[pts, np.ones(4)].T).T
        p = p[:, :2] / p[:, 2:3]
        assert np.abs(p - cam.project(np.c_[pts, np.full(4, z)], distort=False)).max() < 1e-6


@pytest.mark.parametrize("cam", [c for c in cameras() if c.has_distortion()])
def test_render_distortion_map_inverts_the_lens(cam: CameraSpec) -> None:
    k = cam.camera_matrix()
    m = canvas_margin(cam)
    dm = distortion_map(cam.width, cam.height, k[0, 0], k[1, 1], k[0, 2], k[1, 2], cam.k1, cam.k2, *m)
    rng = np.random.default_rng(5)
    und = np.c_[rng.uniform(50, cam.width - 50, 40), rng.uniform(50, cam.height - 50, 40)]
    dist = cam.distort_pixels(und)
    inside = (dist[:, 0] > 1) & (dist[:, 1] > 1) & (dist[:, 0] < cam.width - 2) & (dist[:, 1] < cam.height - 2)
    mx = cv2.remap(dm.map_x, dist[inside, 0:1].astype(np.float32), dist[inside, 1:2].astype(np.float32),
                   cv2.INTER_LINEAR).ravel() - m[0]
    my = cv2.remap(dm.map_y, dist[inside, 0:1].astype(np.float32), dist[inside, 1:2].astype(np.float32),
                   cv2.INTER_LINEAR).ravel() - m[1]
    assert inside.sum() > 20
    assert np.abs(mx - und[inside, 0]).max() < 0.03
    assert np.abs(my - und[inside, 1]).max() < 0.03


@pytest.mark.parametrize("cam", cameras())
def test_render_drawn_dots_land_on_projected_points(cam: CameraSpec) -> None:
    """A texture with bright dots at known table points, warped and distorted like every frame:
    each dot's centroid in the picture is within 0.25 px of ``cam.project``."""
    ppm = 4.0
    half = 160.0
    n = int(2 * half * ppm)
    tex = np.zeros((n, n, 3), np.uint8)
    pts_mm = np.array([[x, y] for x in (-120.0, -40.0, 40.0, 120.0) for y in (-120.0, 0.0, 120.0)])
    for x, y in pts_mm:
        cv2.circle(tex, (round((x + half) * ppm * 16), round((y + half) * ppm * 16)), 6 * 16, (255, 255, 255), -1,
                   cv2.LINE_AA, 4)
    tex = cv2.GaussianBlur(tex, (0, 0), 3)
    st = Stage(cam)
    st.warp(tex, texture_to_world(ppm, -half, -half), 0.0)
    img, _ = st.finish(quiet_look(), np.random.default_rng(0))
    expected = cam.project(np.c_[pts_mm, np.zeros(len(pts_mm))])
    errs = []
    for p in expected:
        if 20 < p[0] < cam.width - 20 and 20 < p[1] < cam.height - 20:
            errs.append(float(np.linalg.norm(blob_centroid(img, p, 10) - p)))
    assert len(errs) >= 6
    assert max(errs) < 0.25, errs


def test_render_sampled_lenses_never_fold() -> None:
    """Random cameras keep the radial model monotonic over the picture, and undistortion inverts it."""
    from lab.render.camera import distort_normalized, distortion_is_monotonic, undistort_normalized
    from lab.render.difficulty import DIFFICULTIES
    from lab.render.sampling import random_camera

    assert not distortion_is_monotonic(CameraSpec(1280, 720, hfov_deg=75.0, k1=-0.35, k2=-0.05))
    foot = np.array([[-150.0, -150.0], [150.0, -150.0], [150.0, 150.0], [-150.0, 150.0]])
    for seed in range(60):
        cam = random_camera(np.random.default_rng(seed), DIFFICULTIES["hard"], foot, 400.0, None)
        assert distortion_is_monotonic(cam)
        k = cam.camera_matrix()
        xd = (np.array([0.0, cam.width - 1.0]) - k[0, 2]) / k[0, 0]
        yd = (np.array([0.0, cam.height - 1.0]) - k[1, 2]) / k[1, 1]
        xu, yu = undistort_normalized(xd, yd, cam.k1, cam.k2)
        x2, y2 = distort_normalized(xu, yu, cam.k1, cam.k2)
        assert np.abs(x2 - xd).max() < 1e-9 and np.abs(y2 - yd).max() < 1e-9
