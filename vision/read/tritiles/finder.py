"""The tile finder net: a picture of tiles on a table → three maps at a quarter of its resolution
(tile centres, tile corners, tile faces), and the tiles assembled from them.

The net (``vision/models/tile_finder.npz``, trained by ``lab/train/train_tile_finder.py`` on
rendered frames): two stride-2 3×3 convolutions, then 3×3 convolutions dilated 1, 2, 4, 8, 1 (a
view about three tiles wide), ReLUs, and a 1×1 convolution to three sigmoid maps. It runs in ONNX
Runtime, or in OpenCV's DNN module where that is not installed (``vision.onnx_proto`` writes the
model in memory).

The net is trained on tiles 18–110 working px a side; the reader runs it over a short pyramid of
the picture (``PYRAMID``), so tiles from about 20 px to the picture's height are found.

Assembly: every peak of the centre map is a tile; its corners are the corner-map peaks around it
about the tile's radius away and about 120° apart (a corner the map misses, under a finger, is
completed from the other two and the centre); each side is then moved onto the strongest edge
nearby (``detect.refine_corners``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.nets import MODELS_DIR, first_onnx_runner, load_weights
from vision.onnx_proto import ints_attr, model, node, tensor, value_info
from vision.read.tritiles.outline import TILE_MIN, OutlineNet, outline_tiles

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

FINDER_PATH = MODELS_DIR / "tile_finder.npz"
#: the same net trained on tiles of every size (``LARGE_SIDES`` working px) and on loose tiles,
#: wooden editions and printed cloths: it reads the pyramid's coarser levels
LARGE_PATH = MODELS_DIR / "tile_finder_large.npz"
#: the net reads a copy of the picture at most this many pixels wide or high
WORK_SIZE = 1100
#: working pixels per map cell
STRIDE = 4
#: (in, out, stride, dilation) of the 3×3 convolutions; a 1×1 convolution to ``MAPS`` follows
LAYERS: tuple[tuple[int, int, int, int], ...] = (
    (3, 16, 2, 1), (16, 24, 2, 1), (24, 24, 1, 1), (24, 24, 1, 2), (24, 24, 1, 4), (24, 24, 1, 8), (24, 24, 1, 1))
MAPS = ("centre", "corner", "face")
#: input scaling: (pixel / 255 − MEAN) / SPREAD
MEAN, SPREAD = 0.5, 0.25


class FinderMissingError(RuntimeError):
    """The finder's weight file is missing (train it with lab/train/train_tile_finder.py)."""


@dataclass(frozen=True)
class FinderNet:
    """Weights of the finder: per layer a (out, in, 3, 3) kernel and bias (batch norm folded in),
    and the 1×1 head."""

    convs: tuple[tuple[F32, F32], ...]
    head: tuple[F32, F32]
    _runner: dict[str, Callable[[F32], F32] | None] = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def onnx(self) -> bytes:
        """The net as a serialized ONNX model: input ``x`` (1, 3, H, W), output ``maps``
        (1, 3, ⌈H/4⌉, ⌈W/4⌉) probabilities."""
        nodes: list[bytes] = []
        inits: list[bytes] = []
        x = "x"
        for i, ((w, b), (_cin, _cout, stride, dil)) in enumerate(zip(self.convs, LAYERS, strict=True)):
            inits += [tensor(f"w{i}", w), tensor(f"b{i}", b)]
            nodes.append(node("Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"],
                              [ints_attr("kernel_shape", [3, 3]), ints_attr("pads", [dil] * 4),
                               ints_attr("strides", [stride, stride]), ints_attr("dilations", [dil, dil])]))
            nodes.append(node("Relu", [f"c{i}"], [f"r{i}"]))
            x = f"r{i}"
        inits += [tensor("wh", self.head[0]), tensor("bh", self.head[1])]
        nodes += [node("Conv", [x, "wh", "bh"], ["logits"], [ints_attr("kernel_shape", [1, 1])]),
                  node("Sigmoid", ["logits"], ["maps"])]
        return model("tile_finder", nodes, inits, [value_info("x", [1, 3, "h", "w"])],
                     [value_info("maps", [1, len(MAPS), "oh", "ow"])])

    def run(self, x: F32) -> F32:
        """Maps (3, h, w) of one prepared input (1, 3, H, W)."""
        with self._lock:
            if "run" not in self._runner:
                self._runner["run"] = first_onnx_runner(self.onnx())
            fn = self._runner["run"]
        if fn is None:
            raise FinderMissingError("neither ONNX Runtime nor OpenCV's DNN module can run the tile finder")
        return np.asarray(fn(x)[0], np.float32)


def finder_from_arrays(d: dict[str, NDArray[np.generic]]) -> FinderNet:
    """A ``FinderNet`` from a weight file's arrays (``w{i}``/``b{i}`` per layer, ``wh``/``bh``)."""
    convs = tuple((np.asarray(d[f"w{i}"], np.float32), np.asarray(d[f"b{i}"], np.float32)) for i in range(len(LAYERS)))
    return FinderNet(convs, (np.asarray(d["wh"], np.float32), np.asarray(d["bh"], np.float32)))


@lru_cache(maxsize=4)
def load_finder(path: str | None = None) -> FinderNet:
    """The finder net from ``path`` (default: the committed ``tile_finder.npz``)."""
    return finder_from_arrays(load_weights(Path(path) if path else FINDER_PATH, FinderMissingError,
                                           "tile finder weights", "lab.train.train_tile_finder"))


def load_large() -> FinderNet | None:
    """The net for the pyramid's coarser levels (``LARGE_PATH``), or ``None`` when it is missing."""
    return load_finder(str(LARGE_PATH)) if LARGE_PATH.exists() else None


def prepare(work: U8) -> F32:
    """A BGR working picture → the net's input (1, 3, H, W)."""
    x = (work.astype(np.float32) * np.float32(1 / 255) - np.float32(MEAN)) * np.float32(1 / SPREAD)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


#: a centre-map peak at least this high is a tile
CENTRE_MIN = 0.3
#: a corner-map peak at least this high is a tile corner
CORNER_MIN = 0.15
#: corner candidates of a tile lie within this many times its nearest corner's distance
CORNER_REACH = 1.8
#: largest distance of a triangle's centroid from its centre peak, in units of its radius
CENTROID_TOLERANCE = 0.3
#: a tile's mean face probability must reach this
FACE_MIN = 0.4


def _peaks(m: F32, floor: float) -> tuple[F64, F64]:
    """Local maxima of map ``m`` at least ``floor``: positions (n, 2) in working px (x, y), refined to
    the weighted centre of their 3×3 neighbourhood, and their heights."""
    dil = cv2.dilate(m, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((m >= dil) & (m >= floor))
    if len(xs) == 0:
        return np.zeros((0, 2)), np.zeros(0)
    pad = np.pad(m, 1)
    pts = np.zeros((len(xs), 2))
    for k, (y, x) in enumerate(zip(ys, xs, strict=True)):
        win = pad[y:y + 3, x:x + 3].astype(np.float64)
        s = win.sum()
        dy = float((win.sum(axis=1) * np.arange(-1, 2)).sum() / s)
        dx = float((win.sum(axis=0) * np.arange(-1, 2)).sum() / s)
        pts[k] = ((x + dx) * STRIDE, (y + dy) * STRIDE)
    return pts, m[ys, xs].astype(np.float64)


def _triangle_at(centre: F64, corners: F64, heights: F64) -> tuple[F64, float] | None:
    """The likeliest triangle around ``centre`` from corner peaks: (3×2 corners, score) or ``None``.
    Its centroid must lie near the centre; a missing third corner is completed from two."""
    if len(corners) < 2:
        return None
    d = np.linalg.norm(corners - centre, axis=1)
    order = np.argsort(d)
    near = order[d[order] <= CORNER_REACH * max(d[order[0]], 1e-6)][:6]
    best: tuple[F64, float] | None = None
    for k in range(len(near)):
        for j in range(k + 1, len(near)):
            pair = corners[[near[k], near[j]]]
            options = [(int(q), corners[q]) for q in near[j + 1:]] + [(-1, 3 * centre - pair[0] - pair[1])]
            for q, third in options:
                tri = np.array([pair[0], pair[1], third])
                r = float(np.linalg.norm(tri - centre, axis=1).mean())
                if r < 2.0:
                    continue
                err = float(np.linalg.norm(tri.mean(axis=0) - centre)) / r
                sides = np.linalg.norm(np.roll(tri, -1, axis=0) - tri, axis=1)
                if err > CENTROID_TOLERANCE or sides.min() / sides.max() < 0.45:
                    continue
                height = heights[near[k]] + heights[near[j]] + (heights[q] if q >= 0 else 0.0)
                score = height - 2.0 * err - (1.0 - sides.min() / sides.max())
                if best is None or score > best[1]:
                    best = (tri, score)
    return best


def tiles_from_maps(maps: F32) -> list[tuple[F64, float, float]]:
    """Tiles from the net's maps: (corners 3×2 working px, face coverage, centre height)."""
    centres, c_h = _peaks(maps[0], CENTRE_MIN)
    corners, k_h = _peaks(maps[1], CORNER_MIN)
    face = maps[2]
    fh, fw = face.shape
    out: list[tuple[F64, float, float]] = []
    for c, hgt in sorted(zip(centres, c_h, strict=True), key=lambda t: -t[1]):
        got = _triangle_at(c, corners, k_h)
        if got is None:
            continue
        tri = got[0]
        mask = np.zeros((fh, fw), np.uint8)
        cv2.fillPoly(mask, [np.round(tri / STRIDE * 8).astype(np.int32)], 1, shift=3)
        cover = float(face[mask > 0].mean()) if mask.any() else 0.0
        if cover < FACE_MIN:
            continue
        side = float(np.linalg.norm(tri[1] - tri[0]))
        if any(float(np.linalg.norm(t[0].mean(axis=0) - tri.mean(axis=0))) < 0.4 * side for t in out):
            continue
        out.append((tri, cover, float(hgt)))
    return out


#: a tile at least this sure (centre-map height) sets the picture's tile size and search area
SURE_CENTRE = 0.55
#: a tile's mean side must lie within these factors of the sure tiles' median side (one tile set,
#: one camera: perspective changes sizes less than this)
SIDE_RANGE = (0.6, 1.6)
#: per net (``FINDER_PATH``, ``LARGE_PATH``): a tile touching no other (no shared corner) must be at
#: least this sure, and cover face at least this much (the nets' maps are scaled differently)
LONE_CENTRE = (0.55, 0.5)
MIN_COVER = (0.5, 0.4)
#: tiles whose median side is below this many working px are looked at again, magnified
SMALL_SIDE = 32.0
#: the side (working px) a second look magnifies small tiles to, at most ``MAX_ZOOM`` times
ZOOM_SIDE = 42.0
MAX_ZOOM = 2.0
#: most working pixels a second look may read, in units of ``WORK_SIZE``²
ZOOM_BUDGET = 1.5
#: a second look over the whole picture (the tiles too far apart for one magnified area) magnifying
#: less than this is not worth it
MIN_ZOOM = 1.2
#: with fewer sure tiles than this, tiles are small when the median side of the sure ones *or of
#: all* is (with more, the sure ones' alone: on blurred pictures the many unsure tiles are mostly
#: false and small)
FEW_SURE = 3


def _tiles_in(image: U8, scale: float, net: FinderNet, roi: tuple[int, int, int, int] | None = None,
              refine: bool = True) -> list[tuple[F64, float, float]]:
    """Tiles (image px corners, face coverage, centre height) found in ``image`` shrunk or magnified
    by ``scale``, within ``roi`` (x0, y0, x1, y1 image px) if given; each side moved onto its edge
    when ``refine`` (else the corners as the maps give them)."""
    from vision.read.tritiles.detect import refine_corners

    x0, y0 = 0, 0
    if roi is not None:
        x0, y0, x1, y1 = roi
        image = image[y0:y1, x0:x1]
    interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    work = image if scale == 1.0 else np.asarray(cv2.resize(image, None, fx=scale, fy=scale, interpolation=interp),
                                                 np.uint8)
    maps = net.run(prepare(work))
    shift = np.array([x0, y0], np.float64)
    if not refine:
        return [(tri / scale + shift, cover, h) for tri, cover, h in tiles_from_maps(maps)]
    gray = cv2.GaussianBlur(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), (3, 3), 0).astype(np.float32)
    gx = np.asarray(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), np.float32)
    gy = np.asarray(cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3), np.float32)
    return [(refine_corners(gx, gy, tri) / scale + shift, cover, h) for tri, cover, h in tiles_from_maps(maps)]


def mean_side(tri: F64) -> float:
    """A triangle's mean side length."""
    return float(np.linalg.norm(np.roll(tri, -1, axis=0) - tri, axis=1).mean())


def _sure(found: list[tuple[F64, float, float]]) -> list[tuple[F64, float, float]]:
    """The tiles at least ``SURE_CENTRE`` sure, or all when none is."""
    return [t for t in found if t[2] >= SURE_CENTRE] or found


def plausible(found: list[tuple[F64, float, float]], min_cover: float = 0.5, lone: float = 0.55
              ) -> list[tuple[F64, float, float]]:
    """The tiles of one set seen by one camera: of about the size of the sure ones, covering face
    (``min_cover``), and touching another tile unless sure (``lone``: a table pattern or a pencil
    makes lone, odd-sized triangles)."""
    if not found:
        return found
    med = float(np.median([mean_side(t[0]) for t in _sure(found)]))
    kept = [t for t in found if SIDE_RANGE[0] * med <= mean_side(t[0]) <= SIDE_RANGE[1] * med and t[1] >= min_cover]
    corners = [t[0] for t in kept]
    out = []
    for i, t in enumerate(kept):
        if t[2] >= lone:
            out.append(t)
            continue
        touch = any(j != i and np.linalg.norm(t[0][:, None] - c[None], axis=2).min() < 0.25 * med
                    for j, c in enumerate(corners))
        if touch:
            out.append(t)
    return out


def _outside(t: tuple[F64, float, float], roi: tuple[int, int, int, int]) -> bool:
    cx, cy = t[0].mean(axis=0)
    return not (roi[0] <= cx < roi[2] and roi[1] <= cy < roi[3])


#: the short pyramid: the working picture shrunk by these factors (tiles from about 20 to about 270
#: working px a side meet a net at a side it was trained on)
PYRAMID = (1.0, 0.7, 0.45)
#: a level of the pyramid is read only if its picture is at least this many px on its long side (in
#: a smaller one, a group of tiles looks like one large tile)
MIN_LEVEL_SIZE = 320
#: sides a level keeps, in the finest level's working px: the finest level keeps tiles up to the
#: upper bound, the coarser levels those from the lower one (smaller tiles, as on most tables, are
#: the finest level's net's to find: it knows them best)
LEVEL_SIDES = (45.0, 120.0)
#: and at least this many px at their own level (the coarser levels' net was trained from 18 px)
MIN_LEVEL_SIDE = 26.0

#: a coarser level sets the tile size only when it weighs this many times the finest level (whose
#: net knows the usual tables best)
COARSE_MARGIN = 2.0
#: a tile another level adds must be at least this sure (centre height)
ADD_CENTRE = 0.8

Found = list[tuple[F64, float, float]]


def _inside(p: F64, tri: F64) -> bool:
    return cv2.pointPolygonTest(tri.astype(np.float32).reshape(-1, 1, 2), (float(p[0]), float(p[1])), False) >= 0


def overlaps(a: F64, b: F64) -> bool:
    """Whether two triangles (3×2 px) cover one another's centre, or lie closer than half a side."""
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    near = float(np.linalg.norm(ca - cb)) < 0.5 * min(mean_side(a), mean_side(b))
    return near or _inside(ca, b) or _inside(cb, a)


def _outlined(image: U8, found: Found, outline: OutlineNet | None) -> Found:
    """``found`` as the outline net places their corners, without those it takes for no tile
    (``found`` itself when there is no net)."""
    if outline is None:
        return found
    placed = outline_tiles(image, [t[0] for t in found], outline)
    return [(tri, t[1], t[2]) for (tri, score), t in zip(placed, found, strict=True) if score >= TILE_MIN]


def _level(image: U8, f: float, k: int, net: FinderNet, large: FinderNet | None,
           outline: OutlineNet | None = None, refine: bool = True) -> Found:
    """The ``plausible`` tiles of pyramid level ``k`` (the picture at ``f·PYRAMID[k]``) within its
    sides: the finest level read by ``net``, the coarser ones by ``large`` when there is one; then
    placed by ``outline`` when given (which drops what it takes for no tile; else each side is moved
    by the edge search when ``refine``)."""
    sc = f * PYRAMID[k]
    which = 1 if k > 0 and large is not None else 0
    found = _tiles_in(image, sc, large if large is not None and which else net, refine=refine and outline is None)
    lo = max(MIN_LEVEL_SIDE, LEVEL_SIDES[0] * PYRAMID[k]) if k > 0 else 0.0
    hi = LEVEL_SIDES[1] if k == 0 else np.inf
    kept = plausible([t for t in found if lo <= mean_side(t[0]) * sc <= hi], MIN_COVER[which], LONE_CENTRE[which])
    return _outlined(image, kept, outline)


def _weight(found: Found) -> float:
    """How much tile a level shows: centre height × face coverage × area, summed (a cloth pattern
    read as many small false tiles weighs less than the few large true ones a coarser level finds)."""
    return float(sum(t[1] * t[2] * mean_side(t[0]) ** 2 for t in found))


def find_tiles_net(image: U8, net: FinderNet | None = None, outline: OutlineNet | None = None,
                   refine: bool = True) -> Found:
    """Tiles in a BGR picture: (corners 3×2 image px, face coverage, centre height), ``plausible``
    ones only. The net reads a short pyramid of the picture (``PYRAMID``); the level whose tiles
    weigh most (``_weight``) sets the tile size, and other levels add the tiles of
    that size it missed (never one overlapping a tile already found). Small tiles (median side of
    the sure ones, or of all when few are sure, under ``SMALL_SIDE`` working px) are looked for
    again in a magnified copy of the area around the tiles found, or of the whole picture when that
    area is too large (``ZOOM_BUDGET``); tiles found outside the magnified area are kept.
    ``outline``: the outline net places each level's tiles' corners on their top faces and drops
    the candidates it takes for no tile, before a level is chosen (``_outlined``); without it, each
    side is moved onto the strongest edge nearby (``detect.refine_corners``) unless ``refine`` is
    false (the corners as the maps give them)."""
    net = net or load_finder()
    large = load_large()
    h, w = image.shape[:2]
    f = min(1.0, WORK_SIZE / max(h, w))
    levels = [_level(image, f, k, net, large, outline, refine) for k in range(len(PYRAMID))
              if k == 0 or max(h, w) * f * PYRAMID[k] >= MIN_LEVEL_SIZE]
    weights = [_weight(lv) * (1.0 if k == 0 else 1.0 / COARSE_MARGIN) for k, lv in enumerate(levels)]
    best = max(range(len(levels)), key=lambda k: weights[k])
    found = list(levels[best])
    if not found:
        return found
    med = float(np.median([mean_side(t[0]) for t in _sure(found)]))
    extra = sorted((t for k, lv in enumerate(levels) if k != best for t in lv if t[2] >= ADD_CENTRE),
                   key=lambda t: -t[1] * t[2])
    for t in extra:
        if SIDE_RANGE[0] * med <= mean_side(t[0]) <= SIDE_RANGE[1] * med and not any(
                overlaps(t[0], u[0]) for u in found):
            found.append(t)
    if best > 0:
        return found
    return _second_look(image, f, net, found, outline, refine)


def _second_look(image: U8, f: float, net: FinderNet, found: Found, outline: OutlineNet | None = None,
                 refine: bool = True) -> Found:
    """``found``, or when its tiles are small, the tiles of a magnified second look (see
    ``find_tiles_net``)."""
    h, w = image.shape[:2]
    sure = _sure(found)
    side = float(np.median([mean_side(t[0]) for t in sure])) * f
    if len(sure) < FEW_SURE:  # a false large tile as the only sure one must not hide small ones
        side = min(side, float(np.median([mean_side(t[0]) for t in found])) * f)
    if side >= SMALL_SIDE:
        return found
    zoom = min(MAX_ZOOM, ZOOM_SIDE / max(side, 1.0))
    pts = np.concatenate([t[0] for t in found])
    margin = 2.0 * side / f
    x0, y0 = (np.floor(pts.min(axis=0) - margin)).astype(int)
    x1, y1 = (np.ceil(pts.max(axis=0) + margin)).astype(int)
    roi = (max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1)))
    area = (roi[2] - roi[0]) * (roi[3] - roi[1])
    if area * (f * zoom) ** 2 > ZOOM_BUDGET * WORK_SIZE * WORK_SIZE:
        # tiles spread over the picture: magnify it all, as much as the budget allows
        roi = (0, 0, w, h)
        zoom = min(zoom, math.sqrt(ZOOM_BUDGET * WORK_SIZE * WORK_SIZE / (w * h)) / f)
        if zoom < MIN_ZOOM:
            return found
    again = plausible(_tiles_in(image, f * zoom, net, roi, refine and outline is None), MIN_COVER[0], LONE_CENTRE[0])
    return _outlined(image, again, outline) + [
        t for t in found if _outside(t, roi)]
