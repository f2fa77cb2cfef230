"""The tile outline net: a thick tile's top-face corners, and no tile on a patterned cloth."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read.tritiles.detect import refine_corners
from vision.read.tritiles.outline import (
    CROP,
    TILE_MIN,
    clockwise,
    crop,
    load_outline,
    outline_tiles,
    prepare,
)

F64 = NDArray[np.float64]
SIDE_PX = 90.0


def _triangle(centre: tuple[float, float], side: float, angle_deg: float) -> F64:
    r = side / math.sqrt(3.0)
    a = np.radians(angle_deg + np.array([-90.0, 30.0, 150.0]))
    return np.stack([centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)], axis=1)


def _thick_tile(angle_deg: float, seed: int) -> tuple[NDArray[np.uint8], F64, F64]:
    """A picture of one thick tile seen from the front: its light top face, below it the visible
    side (a darker band as deep as ``0.16`` of a side) and its outline on a dark table. Returns the
    picture, the top face's corners and a finder-like candidate around top face and side (a little
    larger than the top face, and lower)."""
    rng = np.random.default_rng(seed)
    img = np.full((240, 240, 3), (60, 70, 85), np.uint8)
    img = np.clip(img.astype(np.int16) + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    top = _triangle((120.0, 110.0), SIDE_PX, angle_deg)
    drop = np.array([0.0, 0.16 * SIDE_PX])
    # the side: the top face swept downwards (its lower edge is the outline's strongest edge)
    for k in np.linspace(0.0, 1.0, 12):
        cv2.fillPoly(img, [np.round((top + drop * k) * 8).astype(np.int32)], (150, 165, 175), cv2.LINE_AA, shift=3)
    cv2.fillPoly(img, [np.round(top * 8).astype(np.int32)], (205, 220, 228), cv2.LINE_AA, shift=3)
    for p in top:  # a numeral-like mark at each corner, a third of the way in
        q = p * 0.62 + top.mean(axis=0) * 0.38
        cv2.circle(img, (round(q[0]), round(q[1])), 5, (40, 40, 40), -1, cv2.LINE_AA)
    cand = top.mean(axis=0) + (top - top.mean(axis=0)) * 1.08 + drop * 0.7
    return img, top, cand


def _error(found: F64, truth: F64) -> float:
    """Mean corner distance (share of a side) after matching corners."""
    found, truth = clockwise(found), clockwise(truth)
    best = min(float(np.linalg.norm(np.roll(found, -k, axis=0) - truth, axis=1).mean()) for k in range(3))
    return best / SIDE_PX


def _edges(img: NDArray[np.uint8], cand: F64) -> F64:
    gray = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (3, 3), 0).astype(np.float32)
    gx = np.asarray(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), np.float32)
    gy = np.asarray(cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3), np.float32)
    return refine_corners(gx, gy, cand)


#: how far (share of a side, mean over corners) an outline may lie from the top face
TOLERANCE = 0.10
ANGLES = (0.0, 60.0, 20.0, 100.0, 45.0, 150.0)


def test_outline_net_puts_a_thick_tiles_corners_on_its_top_face() -> None:
    net = load_outline()
    for seed, angle in enumerate(ANGLES):
        img, top, cand = _thick_tile(angle, seed)
        assert _error(cand, top) > TOLERANCE  # the candidate alone is not good enough
        (tri, score), = outline_tiles(img, [cand], net)
        assert score >= TILE_MIN
        assert _error(tri, top) < TOLERANCE, (angle, _error(tri, top))


def test_edge_search_alone_takes_in_a_thick_tiles_side() -> None:
    # the same drawings with the net off: the strongest edge nearby is the side's lower edge (the
    # outline of top face and side together), not the top face's
    errs = [_error(_edges(img, cand), top) for img, top, cand in (_thick_tile(a, s) for s, a in enumerate(ANGLES))]
    assert min(errs) > TOLERANCE, errs


def test_patterned_cloth_is_no_tile() -> None:
    rng = np.random.default_rng(7)
    img = np.full((300, 300, 3), (235, 240, 245), np.uint8)
    for _ in range(60):  # a printed oilcloth: scattered coloured blossoms and leaves
        c = (int(rng.integers(0, 300)), int(rng.integers(0, 300)))
        colour = tuple(int(v) for v in rng.integers(40, 220, 3))
        cv2.ellipse(img, c, (int(rng.integers(6, 16)), int(rng.integers(4, 10))), float(rng.uniform(0, 180)),
                    0, 360, colour, -1, cv2.LINE_AA)
    net = load_outline()
    cands = [_triangle((150.0 + dx, 150.0 + dy), 80.0, a) for dx, dy, a in ((0, 0, 0), (-40, 30, 45), (35, -30, 90))]
    cands += [_triangle((150.0, 150.0), 40.0, 10.0)]  # a small one, as pips or a blossom make
    scores = [s for _t, s in outline_tiles(img, cands, net)]
    assert max(scores) < TILE_MIN, scores


def test_crop_puts_the_candidate_on_the_canonical_triangle() -> None:
    img = np.zeros((200, 300, 3), np.uint8)
    tri = clockwise(_triangle((150.0, 100.0), 120.0, 37.0))
    cv2.fillPoly(img, [np.round(tri).astype(np.int32)], (255, 255, 255))
    im, m = crop(img, tri)
    assert im.shape == (CROP, CROP, 3)
    mapped = tri @ m[:, :2].T + m[:, 2]
    from vision.read.tritiles.outline import CANON
    assert np.abs(mapped - CANON).max() < 1e-3
    # the crop's centre lies on the tile, its corners on the table
    assert im[CROP // 2, CROP // 2].mean() > 200 and im[1, 1].mean() < 50


def test_onnx_and_numpy_runs_agree() -> None:
    net = load_outline()
    rng = np.random.default_rng(3)
    x = prepare(rng.integers(0, 256, (5, CROP, CROP, 3)).astype(np.uint8))
    assert np.abs(net.run(x) - net.run_numpy(x)).max() < 1e-3
    assert net.run(x[:0]).shape == (0, 7) and net.run_numpy(x[:0]).shape == (0, 7)
