"""The readers' nets at run time, one way for all: weight files (``.npz``) loaded into arrays, an
in-memory ONNX model run on one thread by ONNX Runtime or OpenCV's DNN module, and the numpy
pieces the nets that run in numpy share (3×3 convolution, softmax).

Every reader's net (the Triolet square MLP and CNNs, the Trigon cell net, the tile finder and the
tile-value net) is loaded by :func:`load_weights` and, when it runs as ONNX, by :func:`onnx_runner`
or :func:`first_onnx_runner`; no net needs torch or the ``onnx`` package at run time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]

#: where the committed weight files live (``vision/models``)
MODELS_DIR = Path(__file__).resolve().parent / "models"

#: the runtimes ``onnx_runner`` knows, fastest first
ONNX_RUNTIMES = ("onnxruntime", "cv2.dnn")


def onnx_runner(proto: bytes, runtime: str) -> Callable[[F32], F32] | None:
    """A function mapping the model's (NCHW, float32) input to its first output, run by
    ``runtime`` (one of ``ONNX_RUNTIMES``) on one thread; ``None`` when that runtime is missing or
    cannot load the model."""
    if runtime == "onnxruntime":
        try:
            import onnxruntime as ort
        except ImportError:
            return None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1  # the readers' budget is one core
        opts.log_severity_level = 3
        try:
            session = ort.InferenceSession(proto, opts, providers=["CPUExecutionProvider"])
        except Exception:  # any load failure (onnxruntime's own errors): the next runtime runs it
            return None
        name = session.get_inputs()[0].name

        def run_ort(x: F32) -> F32:  # InferenceSession.run is thread-safe: no lock
            return np.asarray(session.run(None, {name: x})[0], np.float32)
        return run_ort
    if runtime == "cv2.dnn":
        try:
            net: Any = cv2.dnn.readNetFromONNX(np.frombuffer(proto, np.uint8))
        except (cv2.error, AttributeError, TypeError):
            return None
        lock = threading.Lock()

        def run_dnn(x: F32) -> F32:
            with lock:  # one forward pass at a time per net
                net.setInput(x)
                return np.asarray(net.forward(), np.float32)
        return run_dnn
    raise ValueError(f"unknown ONNX runtime {runtime!r} (one of {', '.join(ONNX_RUNTIMES)})")


def first_onnx_runner(proto: bytes) -> Callable[[F32], F32] | None:
    """The runner of the first of ``ONNX_RUNTIMES`` that loads ``proto``; ``None`` when none can."""
    runners = (onnx_runner(proto, rt) for rt in ONNX_RUNTIMES)
    return next((r for r in runners if r is not None), None)


def load_weights(path: Path, missing: type[Exception], what: str, train: str) -> dict[str, NDArray[np.generic]]:
    """The arrays of the weight file ``path`` by name, read into memory; raises ``missing`` naming
    ``what`` is missing and the module that trains it (``python3 -m {train}``) when there is no file."""
    if not path.exists():
        raise missing(f"{path}: {what} missing (run python3 -m {train})")
    with np.load(path) as d:
        return {k: d[k] for k in d.files}


def softmax(logits: F32) -> F32:
    """Row-wise probabilities of raw scores (n, classes), rows summing to 1."""
    lg = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(lg)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def conv3x3(x: F32, w: F32, b: F32, stride: int = 1, dil: int = 1) -> F32:
    """A 3×3 convolution of NHWC maps with zero padding ``dil``; ``w`` is (3, 3, C, out)."""
    num, hgt, wid, cin = x.shape
    if num == 0:
        return np.zeros((0, (hgt - 1) // stride + 1, (wid - 1) // stride + 1, w.shape[-1]), np.float32)
    if stride == 1:
        # nine products of contiguous row-major slices of the padded maps stacked one under the
        # other (one spare row at the end), computed over the padded width; each map's own rows
        # are kept and the pad columns dropped at the end
        hp, wp = hgt + 2 * dil, wid + 2 * dil
        xp = np.zeros((num * hp + 1, wp, cin), np.float32)
        for k in range(num):
            xp[k * hp + dil:k * hp + dil + hgt, dil:dil + wid] = x[k]
        flat = xp.reshape(-1, cin)
        n = ((num - 1) * hp + hgt) * wp
        acc = np.empty((n, w.shape[-1]), np.float32)
        acc[:] = b
        for i in range(3):
            for j in range(3):
                o = (i * wp + j) * dil
                acc += flat[o:o + n] @ w[i, j]
        return np.stack([np.asarray(acc[k * hp * wp:(k * hp + hgt) * wp].reshape(hgt, wp, -1)[:, :wid], np.float32)
                         for k in range(num)])
    xp = np.pad(x, ((0, 0), (dil, dil), (dil, dil), (0, 0)))
    ho, wo = (hgt - 1) // stride + 1, (wid - 1) // stride + 1
    cols = np.empty((num, ho, wo, 9, cin), np.float32)
    for i in range(3):
        for j in range(3):
            cols[:, :, :, 3 * i + j] = xp[:, i * dil:i * dil + stride * (ho - 1) + 1:stride,
                                          j * dil:j * dil + stride * (wo - 1) + 1:stride]
    out = cols.reshape(num * ho * wo, 9 * cin) @ w.reshape(9 * cin, -1) + b
    return np.asarray(out.reshape(num, ho, wo, -1), np.float32)
