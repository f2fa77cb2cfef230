"""The square CNN (no torch at run time): square crops → class probabilities (0–15 values,
16 wild, 17 empty). OpenCV's DNN module runs it (``cnn_onnx`` writes the net for it, ~1.5× faster
on one core); where that fails, the same net runs in plain numpy.

The net: the 56 px BGR crop is shrunk by area averaging to ``in_size`` px, standardised per crop,
then 3×3 convolutions (batch norm folded into their weights) each followed by ReLU and a 2×2 max
pool, a ReLU hidden layer and the 18 outputs. Trained by ``vision/models/train_triolet_cnn.py``;
weights in ``vision/models/triolet_cnn.npz``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from .cnn_onnx import square_cnn_onnx

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

CNN_PATH = Path(__file__).resolve().parent.parent / "models" / "triolet_cnn.npz"
#: A second net, trained apart (another seed, more tiles under hands): the reader averages the two
#: where the first is unsure.
SECOND_CNN_PATH = CNN_PATH.with_name("triolet_cnn_b.npz")
#: Added to a crop's standard deviation (0–1 intensity units) before dividing by it.
NORM_EPS = 0.03
#: Run the net by ``cv2.dnn`` (False: numpy only).
USE_DNN = True


class CnnMissingError(RuntimeError):
    """The CNN weight file is missing (train it with vision/models/train_triolet_cnn.py)."""


def area_matrix(src: int, dst: int) -> F32:
    """(dst, src) matrix shrinking a line of ``src`` pixels to ``dst`` by area averaging."""
    m = np.zeros((dst, src), np.float64)
    scale = src / dst
    for i in range(dst):
        a, b = i * scale, (i + 1) * scale
        for j in range(int(np.floor(a)), min(src, int(np.ceil(b)))):
            m[i, j] = max(0.0, min(b, j + 1) - max(a, j))
    return np.asarray(m / m.sum(axis=1, keepdims=True), np.float32)


def prepare(crops: U8, in_size: int) -> F32:
    """(n, S, S, 3) uint8 crops → (n, in_size, in_size, 3) float32, area-shrunk and standardised
    per crop (mean 0, deviation ≈ 1). OpenCV's area resize equals the training's ``area_matrix``
    shrink to float rounding."""
    x = crops.astype(np.float32) * np.float32(1.0 / 255.0)
    out = np.empty((len(x), in_size, in_size, x.shape[3]), np.float32)
    for i in range(len(x)):
        out[i] = cv2.resize(x[i], (in_size, in_size), interpolation=cv2.INTER_AREA)
    mu = out.mean(axis=(1, 2, 3), keepdims=True)
    sd = out.std(axis=(1, 2, 3), keepdims=True)
    return np.asarray((out - mu) / (sd + np.float32(NORM_EPS)), np.float32)


def conv3x3(x: F32, w: F32, b: F32) -> F32:
    """'Same' 3×3 convolution, NHWC; ``w`` is (9·C_in, C_out) in (dy, dx, c_in) order."""
    n, h, wd, c = x.shape
    if c < 8:  # few channels: one matrix product over 3×3 patches (im2col)
        xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        cols = np.concatenate([xp[:, dy:dy + h, dx:dx + wd, :] for dy in range(3) for dx in range(3)], axis=3)
        out = cols.reshape(n * h * wd, 9 * c) @ w + b
        return np.asarray(out.reshape(n, h, wd, -1), np.float32)
    # more channels: nine products over the zero-padded maps laid out as one row per pixel, each
    # shifted by its tap's offset (no patch copies); the padding rows/columns are dropped after
    hp, wp = h + 2, wd + 2
    m = n * hp * wp
    buf = np.zeros((m + 2 * (wp + 1), c), np.float32)
    buf[wp + 1:wp + 1 + m].reshape(n, hp, wp, c)[:, 1:-1, 1:-1] = x
    taps = w.reshape(9, c, -1)
    acc = np.zeros((m, taps.shape[2]), np.float32)
    for k in range(9):
        dy, dx = divmod(k, 3)
        start = dy * wp + dx
        acc += buf[start:start + m] @ taps[k]
    return np.asarray(acc.reshape(n, hp, wp, -1)[:, 1:-1, 1:-1] + b, np.float32)


def max_pool2(x: F32) -> F32:
    """2×2 max pooling, NHWC (odd edges dropped)."""
    h2, w2 = x.shape[1] // 2 * 2, x.shape[2] // 2 * 2
    top = np.maximum(x[:, 0:h2:2, 0:w2:2], x[:, 0:h2:2, 1:w2:2])
    return np.asarray(np.maximum(top, np.maximum(x[:, 1:h2:2, 0:w2:2], x[:, 1:h2:2, 1:w2:2])), np.float32)


@dataclass(frozen=True)
class SquareCnn:
    """Conv blocks (3×3 conv + ReLU + 2×2 max pool) → ReLU hidden layer → softmax over 18 classes."""

    in_size: int
    convs: tuple[tuple[F32, F32], ...]
    hidden: tuple[F32, F32]
    out: tuple[F32, F32]
    #: the ``cv2.dnn`` net (built on first use; ``False`` when OpenCV cannot run it) and its lock
    _dnn: list[Any] = field(default_factory=list, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def logits(self, crops: U8, chunk: int = 128) -> F32:
        """Raw scores (n, 18) of BGR uint8 crops (n, S, S, 3)."""
        res = [self._logits(crops[i:i + chunk]) for i in range(0, len(crops), chunk)]
        return np.concatenate(res) if res else np.zeros((0, self.out[1].shape[0]), np.float32)

    def _net(self) -> Any:
        """The net loaded into ``cv2.dnn`` (once; call under ``_lock``), or ``False`` when OpenCV
        cannot load it."""
        if not self._dnn:
            try:
                net: Any = cv2.dnn.readNetFromONNX(np.frombuffer(square_cnn_onnx(self), np.uint8))
            except (cv2.error, AttributeError, TypeError):
                net = False
            self._dnn.append(net)
        return self._dnn[0]

    def _logits(self, crops: U8) -> F32:
        x = prepare(crops, self.in_size)
        if USE_DNN:
            with self._lock:  # one forward pass at a time per net
                net = self._net()
                if net is not False:
                    net.setInput(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
                    return np.asarray(net.forward(), np.float32).reshape(len(x), -1)
        return self.numpy_logits(x)

    def numpy_logits(self, x: F32) -> F32:
        """Raw scores of crops already ``prepare``d, by the numpy implementation."""
        for w, b in self.convs:
            x = np.maximum(max_pool2(conv3x3(x, w, b)), 0.0)  # pooling commutes with ReLU
        h = np.maximum(x.reshape(len(x), -1) @ self.hidden[0] + self.hidden[1], 0.0)
        return np.asarray(h @ self.out[0] + self.out[1], np.float32)

    def proba(self, crops: U8) -> F32:
        """Class probabilities (n, 18), rows summing to 1."""
        lg = self.logits(crops)
        lg = lg - lg.max(axis=1, keepdims=True)
        e = np.exp(lg)
        return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def cnn_from_arrays(d: dict[str, NDArray[np.generic]]) -> SquareCnn:
    """A ``SquareCnn`` from the arrays of a weight file (``in_size``, ``conv{i}_w``/``_b``,
    ``fc0_w``/``_b``, ``fc1_w``/``_b``)."""
    def f(k: str) -> F32:
        return np.asarray(d[k], np.float32)

    convs = []
    i = 0
    while f"conv{i}_w" in d:
        convs.append((f(f"conv{i}_w"), f(f"conv{i}_b")))
        i += 1
    return SquareCnn(int(np.asarray(d["in_size"])), tuple(convs), (f("fc0_w"), f("fc0_b")), (f("fc1_w"), f("fc1_b")))


@lru_cache(maxsize=2)
def load_cnn(path: str | None = None) -> SquareCnn:
    """The square CNN from ``path`` (default: the committed ``triolet_cnn.npz``)."""
    p = Path(path) if path else CNN_PATH
    if not p.exists():
        raise CnnMissingError(f"{p}: CNN weight file missing (run python3 -m vision.models.train_triolet_cnn)")
    with np.load(p) as d:
        return cnn_from_arrays({k: d[k] for k in d.files})
