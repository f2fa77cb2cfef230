"""The tile outline net: a tile candidate from the finder → the three corners of the tile's top face,
and how sure it is that a tile lies there at all.

A thick tile shows its top face and, beside it, part of its side; the finder's corners land
anywhere on that shape, and an edge search (``detect.refine_corners``) takes the strongest edge
nearby, which on a thick tile is often the side's lower edge or its shadow. The outline net has
learnt from rendered tiles of both renderers where the top face ends.

Input: the candidate seen through the affine map that puts its corners (clockwise in the picture)
on an upright equilateral triangle of ``SIDE`` px centred in a ``CROP`` × ``CROP`` colour crop (the
picture first shrunk so that a side spans about ``SIDE`` px: scale and orientation normalised).
Output: per canonical corner the offset (in sides) to the top face's corner, and a tile score
(sigmoid): cloth patterns and pips taken for tiles score low.

The net (``vision/models/tile_outline.npz``, trained by ``lab/train/train_tile_outline.py``): four
stride-2 and one stride-1 3×3 convolutions with ReLUs, then one dense layer to the six offsets and
the score; it runs in ONNX Runtime or OpenCV's DNN module (the model written in memory by
``vision.onnx_proto``), in numpy where neither can.
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

from vision.nets import MODELS_DIR, conv3x3, first_onnx_runner, load_weights
from vision.onnx_proto import int_attr, ints_attr, model, node, tensor, value_info

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

OUTLINE_PATH = MODELS_DIR / "tile_outline.npz"
#: crop size (px) and the canonical triangle's side in it
CROP = 64
SIDE = 30.0
#: (in, out, stride) of the 3×3 convolutions; a dense layer to ``OUTPUTS`` follows
LAYERS: tuple[tuple[int, int, int], ...] = ((3, 16, 2), (16, 16, 1), (16, 32, 2), (32, 32, 2), (32, 32, 2))
#: six offsets (x, y per canonical corner, in sides) and a tile logit
OUTPUTS = 7
#: input scaling: (pixel / 255 − MEAN) / SPREAD
MEAN, SPREAD = 0.5, 0.25
#: a candidate scoring below this is not a tile
TILE_MIN = 0.5
#: the crop is read again around the corners found, this many times in all
PASSES = 2


def canonical() -> F64:
    """The canonical triangle (3×2 crop px): clockwise on screen from its top corner."""
    r = SIDE / math.sqrt(3.0)
    c = CROP / 2.0
    return np.array([[c + r * math.cos(a), c + r * math.sin(a)] for a in np.radians([-90.0, 30.0, 150.0])])


CANON = canonical()


class OutlineMissingError(RuntimeError):
    """The outline net's weight file is missing (train it with lab/train/train_tile_outline.py)."""


@dataclass(frozen=True)
class OutlineNet:
    """Weights: per convolution a (3, 3, in, out) kernel and bias, and the dense layer (in, 7), (7,)
    whose inputs are the last maps flattened in (row, column, channel) order."""

    convs: tuple[tuple[F32, F32], ...]
    dense: tuple[F32, F32]
    _runner: dict[str, Callable[[F32], F32] | None] = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def onnx(self) -> bytes:
        """The net as a serialized ONNX model: input ``x`` (n, 3, CROP, CROP), output ``out`` (n, 7)."""
        nodes: list[bytes] = []
        inits: list[bytes] = []
        x = "x"
        for i, ((w, b), (_cin, _cout, stride)) in enumerate(zip(self.convs, LAYERS, strict=True)):
            inits += [tensor(f"w{i}", w.transpose(3, 2, 0, 1)), tensor(f"b{i}", b)]
            nodes.append(node("Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"],
                              [ints_attr("kernel_shape", [3, 3]), ints_attr("pads", [1, 1, 1, 1]),
                               ints_attr("strides", [stride, stride])]))
            nodes.append(node("Relu", [f"c{i}"], [f"r{i}"]))
            x = f"r{i}"
        # the dense rows reordered from (row, column, channel) to ONNX's (channel, row, column) order
        ch = LAYERS[-1][1]
        side = round(math.sqrt(self.dense[0].shape[0] / ch))
        wd = self.dense[0].reshape(side, side, ch, OUTPUTS).transpose(2, 0, 1, 3).reshape(-1, OUTPUTS)
        inits += [tensor("wd", wd), tensor("bd", self.dense[1])]
        nodes += [node("Flatten", [x], ["flat"], [int_attr("axis", 1)]), node("MatMul", ["flat", "wd"], ["mm"]),
                  node("Add", ["mm", "bd"], ["out"])]
        return model("tile_outline", nodes, inits, [value_info("x", ["n", 3, CROP, CROP])],
                     [value_info("out", ["n", OUTPUTS])])

    def run(self, x: F32) -> F32:
        """Raw outputs (n, 7) of prepared crops (n, CROP, CROP, 3): by ONNX Runtime or OpenCV's DNN
        module (``vision.nets``), else in numpy."""
        with self._lock:
            if "run" not in self._runner:
                self._runner["run"] = first_onnx_runner(self.onnx())
            fn = self._runner["run"]
        if fn is not None and len(x):
            return np.asarray(fn(np.ascontiguousarray(x.transpose(0, 3, 1, 2))), np.float32).reshape(len(x), OUTPUTS)
        return self.run_numpy(x)

    def run_numpy(self, x: F32) -> F32:
        """``run`` in numpy alone."""
        if len(x) == 0:
            return np.zeros((0, OUTPUTS), np.float32)
        for (w, b), (_cin, _cout, stride) in zip(self.convs, LAYERS, strict=True):
            x = np.maximum(conv3x3(x, w, b, stride), np.float32(0))
        flat = x.reshape(len(x), -1)
        return np.asarray(flat @ self.dense[0] + self.dense[1], np.float32)


def outline_from_arrays(d: dict[str, NDArray[np.generic]]) -> OutlineNet:
    """An ``OutlineNet`` from a weight file's arrays (``w{i}``/``b{i}`` per convolution, ``wd``/``bd``)."""
    convs = tuple((np.asarray(d[f"w{i}"], np.float32), np.asarray(d[f"b{i}"], np.float32))
                  for i in range(len(LAYERS)))
    return OutlineNet(convs, (np.asarray(d["wd"], np.float32), np.asarray(d["bd"], np.float32)))


@lru_cache(maxsize=4)
def load_outline(path: str | None = None) -> OutlineNet:
    """The outline net from ``path`` (default: the committed ``tile_outline.npz``)."""
    return outline_from_arrays(load_weights(Path(path) if path else OUTLINE_PATH, OutlineMissingError,
                                            "tile outline weights", "lab.train.train_tile_outline"))


def clockwise(tri: F64) -> F64:
    """Corners ordered clockwise on screen (y down), starting from the first given."""
    tri = np.asarray(tri, np.float64)
    a, b, c = tri
    cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return tri if cross >= 0 else tri[[0, 2, 1]]


def crop(image: U8, tri: F64) -> tuple[U8, F64]:
    """The candidate ``tri`` (3×2 px, clockwise) seen canonically: (CROP×CROP×3 crop, 2×3 affine map
    from picture px to crop px)."""
    side = float(np.mean(np.linalg.norm(np.roll(tri, -1, axis=0) - tri, axis=1)))
    s = min(1.0, 1.5 * SIDE / max(side, 1.0))  # shrink first (area-averaged) when the tile is large
    h, w = image.shape[:2]
    pad = 1.2 * side
    x0, y0 = max(0, int(tri[:, 0].min() - pad)), max(0, int(tri[:, 1].min() - pad))
    x1, y1 = min(w, int(tri[:, 0].max() + pad) + 1), min(h, int(tri[:, 1].max() + pad) + 1)
    if x1 <= x0 or y1 <= y0:
        part, x0, y0, s = np.zeros((2, 2, 3), np.uint8), 0, 0, 1.0
    else:
        part = image[y0:y1, x0:x1]
        if s < 1.0:
            part = np.asarray(cv2.resize(part, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), np.uint8)
    local = (tri - np.array([x0, y0], np.float64)) * s
    m = cv2.getAffineTransform(local.astype(np.float32), CANON.astype(np.float32))
    out = np.asarray(cv2.warpAffine(part, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                     np.uint8)
    full = m.astype(np.float64) @ np.array([[s, 0.0, -s * x0], [0.0, s, -s * y0], [0.0, 0.0, 1.0]])
    return out, full


def prepare(crops: U8) -> F32:
    """Crops (n, CROP, CROP, 3) BGR → the net's input (n, CROP, CROP, 3)."""
    return np.asarray((crops.astype(np.float32) * np.float32(1 / 255) - np.float32(MEAN)) * np.float32(1 / SPREAD),
                      np.float32)


def corners_from(out: F32, maps: list[F64]) -> tuple[list[F64], F64]:
    """Picture corners (3×2 px per candidate) and tile scores from raw outputs and the crops' maps."""
    tris, scores = [], np.zeros(len(out))
    for k, (o, m) in enumerate(zip(out, maps, strict=True)):
        pc = CANON + o[:6].astype(np.float64).reshape(3, 2) * SIDE
        inv = cv2.invertAffineTransform(m)
        tris.append(pc @ inv[:, :2].T + inv[:, 2])
        scores[k] = 1.0 / (1.0 + math.exp(-float(o[6])))
    return tris, scores


def outline_tiles(image: U8, candidates: list[F64], net: OutlineNet | None = None, passes: int = PASSES
                  ) -> list[tuple[F64, float]]:
    """Per candidate (3×2 px), the tile's top-face corners (3×2 px, clockwise) and its tile score
    (the first pass's: it saw the candidate as the finder gave it). Later passes read again, around
    the corners found, only the candidates scoring at least ``TILE_MIN``."""
    if not candidates:
        return []
    net = net or load_outline()
    tris = [clockwise(c) for c in candidates]
    scores = np.zeros(len(tris))
    todo = list(range(len(tris)))
    for k in range(max(1, passes)):
        if not todo:
            break
        got = [crop(image, tris[i]) for i in todo]
        out = net.run(prepare(np.stack([g[0] for g in got])))
        new, sc = corners_from(out, [g[1] for g in got])
        if k == 0:
            scores[todo] = sc
        for i, n in zip(todo, new, strict=True):
            # a wild answer (a corner moved over half a side) keeps the candidate as it was
            if float(np.abs(n - tris[i]).max()) < 0.5 * _side(tris[i]):
                tris[i] = n
        todo = [i for i in todo if scores[i] >= TILE_MIN]
    return [(t, float(s)) for t, s in zip(tris, scores, strict=True)]


def _side(tri: F64) -> float:
    return float(np.mean(np.linalg.norm(np.roll(tri, -1, axis=0) - tri, axis=1)))
