"""The tile finder net (vision/read/tritiles/finder.py): its ONNX model, and tiles assembled from its
centre, corner and face maps."""

from __future__ import annotations

import cv2
import numpy as np

from vision.read.tritiles.finder import (
    LAYERS,
    MAPS,
    STRIDE,
    FinderNet,
    finder_from_arrays,
    load_finder,
    prepare,
    tiles_from_maps,
)


def _blob(m: np.ndarray, x: float, y: float, height: float = 1.0) -> None:
    """Add a unit-spread Gaussian at working pixel (x, y) to map ``m`` (map cells are STRIDE px)."""
    yy, xx = np.mgrid[0:m.shape[0], 0:m.shape[1]]
    m[:] = np.maximum(m, height * np.exp(-((xx - x / STRIDE) ** 2 + (yy - y / STRIDE) ** 2) / 2.0))


def _strip(side: float = 40.0) -> list[np.ndarray]:
    """Four tiles in a row, alternately pointing up and down (working px)."""
    h = side * np.sqrt(3) / 2
    x0, y0 = 60.0, 60.0
    tiles = []
    for k in range(4):
        x = x0 + k * side / 2
        if k % 2 == 0:
            tiles.append(np.array([[x + side / 2, y0], [x + side, y0 + h], [x, y0 + h]]))
        else:
            tiles.append(np.array([[x, y0], [x + side, y0], [x + side / 2, y0 + h]]))
    return tiles


def _maps_of(tiles: list[np.ndarray], drop_corner: tuple[float, float] | None = None) -> np.ndarray:
    maps = np.zeros((len(MAPS), 60, 80), np.float32)
    corners = {tuple(np.round(p, 3)) for t in tiles for p in t}
    for t in tiles:
        c = t.mean(axis=0)
        _blob(maps[0], c[0], c[1])
    for p in corners:
        if drop_corner is not None and np.allclose(p, drop_corner):
            continue
        _blob(maps[1], p[0], p[1])
    face = np.zeros((60 * 8, 80 * 8), np.uint8)
    for t in tiles:
        cv2.fillPoly(face, [np.round(t / STRIDE * 8).astype(np.int32)], 1)
    maps[2] = cv2.resize(face.astype(np.float32), (80, 60), interpolation=cv2.INTER_AREA)
    return maps


def _matches(found: list[tuple[np.ndarray, float, float]], tiles: list[np.ndarray], tol: float) -> int:
    hit = 0
    for t in tiles:
        for tri, _cover, _h in found:
            d = [min(np.linalg.norm(tri - p, axis=1)) for p in t]
            if max(d) <= tol:
                hit += 1
                break
    return hit


def test_every_centre_peak_gets_its_three_corners() -> None:
    """Four tiles sharing corners: each centre takes the three corners about its radius away,
    not the neighbours' far corners (twice as far)."""
    tiles = _strip()
    found = tiles_from_maps(_maps_of(tiles))
    assert len(found) == 4
    assert _matches(found, tiles, tol=1.5) == 4


def test_a_corner_under_a_finger_is_completed_from_the_other_two() -> None:
    """A tile whose lone corner has no peak (a finger over it) is still found, its third corner
    placed from the centre and the two others."""
    tiles = _strip()
    lone = tuple(tiles[0][0])  # the top corner of the first (upward) tile belongs to it alone
    found = tiles_from_maps(_maps_of(tiles, drop_corner=lone))
    assert _matches(found, tiles, tol=2.5) == 4


def test_no_face_no_tile() -> None:
    """Centre and corner peaks over bare table (face map empty) make no tile."""
    tiles = _strip()
    maps = _maps_of(tiles)
    maps[2] = 0.0
    assert tiles_from_maps(maps) == []


def test_onnx_model_gives_maps_at_a_quarter_resolution() -> None:
    """The committed net loads and maps any picture size to ⌈H/4⌉×⌈W/4⌉ probabilities."""
    net = load_finder()
    rng = np.random.default_rng(3)
    out = net.run(prepare(rng.integers(0, 255, (101, 150, 3), dtype=np.uint8)))
    assert out.shape == (len(MAPS), 26, 38)
    assert float(out.min()) >= 0.0 and float(out.max()) <= 1.0


def test_onnx_model_matches_a_direct_convolution() -> None:
    """The ONNX graph computes strided, dilated convolutions, ReLU and the 1×1 sigmoid head as the
    weights say (checked against a plain numpy evaluation on small random weights)."""
    rng = np.random.default_rng(11)
    arrays: dict[str, np.ndarray] = {}
    for i, (cin, cout, _s, _d) in enumerate(LAYERS):
        arrays[f"w{i}"] = rng.normal(0, 0.3, (cout, cin, 3, 3)).astype(np.float32)
        arrays[f"b{i}"] = rng.normal(0, 0.1, cout).astype(np.float32)
    arrays["wh"] = rng.normal(0, 0.3, (len(MAPS), LAYERS[-1][1], 1, 1)).astype(np.float32)
    arrays["bh"] = rng.normal(0, 0.1, len(MAPS)).astype(np.float32)
    net: FinderNet = finder_from_arrays(arrays)
    x = rng.normal(0, 1, (1, 3, 21, 30)).astype(np.float32)

    def conv(a: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int, dil: int) -> np.ndarray:
        _cin, h, wd = a.shape
        p = np.pad(a, ((0, 0), (dil, dil), (dil, dil)))
        oh, ow = (h - 1) // stride + 1, (wd - 1) // stride + 1
        out = np.zeros((w.shape[0], oh, ow), np.float64)
        for dy in range(3):
            for dx in range(3):
                ys = slice(dy * dil, dy * dil + (oh - 1) * stride + 1, stride)
                xs = slice(dx * dil, dx * dil + (ow - 1) * stride + 1, stride)
                patch = p[:, ys, xs]
                out += np.einsum("oc,chw->ohw", w[:, :, dy, dx], patch)
        return np.asarray(out + b[:, None, None])

    a = x[0].astype(np.float64)
    for i, (_cin, _cout, s, d) in enumerate(LAYERS):
        a = np.maximum(conv(a, arrays[f"w{i}"], arrays[f"b{i}"], s, d), 0.0)
    logits = np.einsum("oc,chw->ohw", arrays["wh"][:, :, 0, 0], a) + arrays["bh"][:, None, None]
    want = 1 / (1 + np.exp(-logits))
    got = net.run(x)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-4)


def _found_of(found: list[tuple[np.ndarray, float, float]], labels: dict) -> int:
    """How many labelled tiles have a found tile whose centre lies within 0.35 side of theirs."""
    truth = [np.array([c["px"] for c in t["corners"]], np.float64) for t in labels["tiles"]]
    side = float(np.median([np.linalg.norm(t[0] - t[1]) for t in truth]))
    centres = [t[0].mean(axis=0) for t in found]
    return sum(any(np.linalg.norm(c - t.mean(axis=0)) < 0.35 * side for c in centres) for t in truth)


def test_small_tiles_spread_over_a_large_picture_are_looked_for_magnified() -> None:
    """A 1920×1080 table seen from afar (tiles ~15 px a side, three fields far apart, one false
    tile on a notebook as the only sure one): the first look at the working size finds 2 of the 30
    tiles and judged them large (by the false one); the second look magnifies the whole picture."""
    from othersreader_helpers import tiles_frame

    from vision.read.tritiles.finder import find_tiles_net

    image, labels = tiles_frame("trio_domino", 720030, "normal")
    assert image.shape[1] == 1920 and len(labels["tiles"]) == 30
    found = find_tiles_net(image, load_finder())
    assert _found_of(found, labels) >= 18
