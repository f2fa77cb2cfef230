"""The square CNN (no torch at run time): square crops → class probabilities (0–15 values,
16 wild, 17 empty). ``cnn_onnx`` writes the net as ONNX in memory; ONNX Runtime runs it (about 4×
faster than OpenCV's DNN module on one core), or where it is not installed ``cv2.dnn`` (~1.5×
faster than numpy), or else the same net runs in plain numpy. All three give the same logits to
float rounding.

The net: the 56 px BGR crop is shrunk by area averaging to ``in_size`` px, standardised per crop,
then 3×3 convolutions (batch norm folded into their weights) each followed by ReLU and a 2×2 max
pool, a ReLU hidden layer and the 18 outputs. Trained by ``lab/train/train_triolet_cnn.py``;
weights in ``vision/models/triolet_cnn.npz``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.nets import MODELS_DIR, ONNX_RUNTIMES, conv3x3, load_weights, onnx_runner, softmax
from vision.read.triolet.cnn_onnx import square_cnn_onnx

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

CNN_PATH = MODELS_DIR / "triolet_cnn.npz"
#: A second net, trained apart (another seed, more tiles under hands): the reader averages the two
#: where the first is unsure.
SECOND_CNN_PATH = CNN_PATH.with_name("triolet_cnn_b.npz")
#: Two nets fine-tuned (from the two above) on pictures with a hand over the board: they read the
#: squares a hand touches again, averaged (``hand_net.py``).
HAND_CNN_PATHS: tuple[Path, ...] = (CNN_PATH.with_name("triolet_cnn_hand.npz"),
                                    CNN_PATH.with_name("triolet_cnn_hand_b.npz"))
#: Added to a crop's standard deviation (0–1 intensity units) before dividing by it.
NORM_EPS = 0.03
#: What can run the net, fastest first (``SquareCnn.preferred_runtime`` picks one, or ``"auto"``).
RUNTIMES = ("onnxruntime", "cv2.dnn", "numpy")

Runner = Callable[[F32], F32]


class CnnMissingError(RuntimeError):
    """The CNN weight file is missing (train it with lab/train/train_triolet_cnn.py)."""


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
    n, side, _, channels = crops.shape
    if n == 0:
        return np.zeros((0, in_size, in_size, channels), np.float32)
    x = crops.astype(np.float32) * np.float32(1.0 / 255.0)
    # the crops stacked into one tall picture: its rows shrink crop by crop (each output crop's
    # first row starts on its own crop's first row), the same pixels as one resize per crop
    out = cv2.resize(x.reshape(n * side, side, channels), (in_size, n * in_size),
                     interpolation=cv2.INTER_AREA).reshape(n, in_size, in_size, channels)
    mu = out.mean(axis=(1, 2, 3), keepdims=True)
    sd = out.std(axis=(1, 2, 3), keepdims=True)
    return np.asarray((out - mu) / (sd + np.float32(NORM_EPS)), np.float32)


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
    #: What runs the net: ``"auto"`` (the first of ``RUNTIMES`` that loads it), or one of ``RUNTIMES``
    #: (``dataclasses.replace(net, preferred_runtime=...)``).
    preferred_runtime: str = "auto"
    #: runtime name → the loaded net's runner (``None``: that runtime cannot run it), and its lock
    _runners: dict[str, Runner | None] = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def logits(self, crops: U8, chunk: int = 128) -> F32:
        """Raw scores (n, 18) of BGR uint8 crops (n, S, S, 3)."""
        res = [self._logits(crops[i:i + chunk]) for i in range(0, len(crops), chunk)]
        return np.concatenate(res) if res else np.zeros((0, self.out[1].shape[0]), np.float32)

    def runner(self, runtime: str) -> Runner | None:
        """A function running the net on ``prepare``d crops in ``runtime`` (one of ``RUNTIMES``),
        loaded once; ``None`` when that runtime is missing or cannot load the net."""
        with self._lock:
            if runtime not in self._runners:
                self._runners[runtime] = _load_runner(self, runtime)
            return self._runners[runtime]

    def runtime(self) -> str:
        """The runtime ``logits`` uses: ``preferred_runtime``, or with ``"auto"`` the first that loads the net."""
        if self.preferred_runtime != "auto":
            return self.preferred_runtime
        return next(r for r in RUNTIMES if self.runner(r) is not None)

    def _logits(self, crops: U8) -> F32:
        x = prepare(crops, self.in_size)
        run = self.runner(self.runtime())
        if run is None:
            raise CnnMissingError(f"the CNN runtime {self.preferred_runtime!r} cannot run the net")
        return run(x)

    def numpy_logits(self, x: F32) -> F32:
        """Raw scores of crops already ``prepare``d, by the numpy implementation."""
        for w, b in self.convs:
            kernel = w.reshape(3, 3, x.shape[3], -1)  # stored (9·in, out) in (dy, dx, in) order
            x = np.maximum(max_pool2(conv3x3(x, kernel, b)), 0.0)  # pooling commutes with ReLU
        h = np.maximum(x.reshape(len(x), -1) @ self.hidden[0] + self.hidden[1], 0.0)
        return np.asarray(h @ self.out[0] + self.out[1], np.float32)

    def proba(self, crops: U8) -> F32:
        """Class probabilities (n, 18), rows summing to 1."""
        return softmax(self.logits(crops))


def _load_runner(cnn: SquareCnn, runtime: str) -> Runner | None:
    """``cnn`` loaded into ``runtime`` (one thread), or ``None`` when it cannot be."""
    if runtime == "numpy":
        return cnn.numpy_logits
    if runtime not in ONNX_RUNTIMES:
        raise ValueError(f"unknown CNN runtime {runtime!r} (one of {', '.join(RUNTIMES)})")
    run = onnx_runner(square_cnn_onnx(cnn), runtime)
    if run is None:
        return None

    def run_nhwc(x: F32) -> F32:  # the crops are channels last, the model channels first
        return np.asarray(run(np.ascontiguousarray(x.transpose(0, 3, 1, 2))), np.float32).reshape(len(x), -1)
    return run_nhwc


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


@lru_cache(maxsize=6)
def load_cnn(path: str | None = None) -> SquareCnn:
    """The square CNN from ``path`` (default: the committed ``triolet_cnn.npz``)."""
    return cnn_from_arrays(load_weights(Path(path) if path else CNN_PATH, CnnMissingError, "CNN weight file",
                                        "lab.train.train_triolet_cnn"))
