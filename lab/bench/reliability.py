"""The reliability table: of the reader's answers at a given confidence, how many are right.

An answer is a square in view that holds a tile or is read as holding one (``FrameScore.readings``):
its class read and the confidence the reader gave it. Confidence that means something puts the
right answers high and the wrong ones low (issue target: ≥ 99.9 % right at ≥ 0.9).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Confidence bands, highest first: (name, lower bound inclusive, upper bound exclusive).
BANDS: tuple[tuple[str, float, float], ...] = (("≥0.9", 0.9, float("inf")), ("0.6–0.9", 0.6, 0.9),
                                               ("<0.6", float("-inf"), 0.6))
HEADERS = ["row", "confidence", "answers", "right", "right %", "share of answers %"]


def band_name(conf: float) -> str:
    """The band ``conf`` falls in."""
    return next(name for name, lo, hi in BANDS if lo <= conf < hi)


def reliability_rows(row: str, readings: Iterable[tuple[float, bool]]) -> list[list[Any]]:
    """Table rows for one bench row: per band, answers, right, right % and the band's share."""
    counts = {name: [0, 0] for name, _, _ in BANDS}
    for conf, right in readings:
        c = counts[band_name(conf)]
        c[0] += 1
        c[1] += int(right)
    total = sum(n for n, _ in counts.values())
    out: list[list[Any]] = []
    for name, _, _ in BANDS:
        n, ok = counts[name]
        out.append([row, name, n, ok, 100.0 * ok / n if n else "-", 100.0 * n / total if total else "-"])
    return out


TITLE = ("reliability: of the reader's answers on squares in view that hold or are read as a tile, "
         "how many are right, by the confidence it gave (lab/bench/reliability.py)")
