"""Plain-text tables for benchmark output."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> str:
    """A fixed-width table with a rule under the header; numbers right-aligned."""
    cells = [[_fmt(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], len(c))
    numeric = [all(isinstance(r[i], int | float) for r in rows) if rows else False for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        pairs = enumerate(zip(values, widths, strict=True))
        return "  ".join(v.rjust(w) if numeric[i] else v.ljust(w) for i, (v, w) in pairs)

    out = [] if title is None else [title]
    out.append(line(list(headers)))
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(r) for r in cells)
    return "\n".join(out)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.2f}" if abs(v) >= 1 else f"{v:.3f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def machine_line() -> str:
    """One line naming the machine a benchmark ran on (CPU model and count, Python, NumPy, OpenCV, ONNX Runtime):
    timings only compare on one machine, so every table should say which."""
    import os
    import platform

    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    cpu = cpu or platform.processor() or platform.machine() or "unknown CPU"
    parts = [f"machine: {cpu} ({os.cpu_count() or '?'} CPUs)", f"Python {platform.python_version()}"]
    try:
        import numpy

        parts.append(f"NumPy {numpy.__version__}")
    except ImportError:
        pass
    try:
        import cv2

        parts.append(f"OpenCV {cv2.__version__}")
    except ImportError:
        pass
    try:
        import onnxruntime

        parts.append(f"ONNX Runtime {onnxruntime.__version__}")
    except ImportError:
        parts.append("no ONNX Runtime")
    return ", ".join(parts)
