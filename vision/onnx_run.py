"""Running an in-memory ONNX model on one thread: ONNX Runtime or OpenCV's DNN module."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]

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
