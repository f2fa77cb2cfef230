"""Telling a 6 from a 9 (T-B3) by geometry, whatever the typeface or the way the tile lies.

The small count digit sits in the tile's lower-right corner: its direction from the numeral gives
the tile's quarter turn. Turned upright, a 6 carries its loop (most of its ink) in the lower half,
a 9 in the upper half. Used to confirm or overrule the classifier when 6 and 9 compete.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

U8 = NDArray[np.uint8]

CORE = 46  # px of the crop's centre examined (the tile with its offset)


def six_or_nine(crop: U8) -> tuple[int | None, float]:
    """``(6 or 9, margin 0–1)`` for a BGR square crop, or ``(None, 0.0)`` if the count digit or the
    numeral cannot be found."""
    o = (crop.shape[0] - CORE) // 2
    gray = cv2.cvtColor(np.ascontiguousarray(crop[o:o + CORE, o:o + CORE]), cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (3, 3), 0)
    _, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    n, lab, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    comps = []
    for k in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[k])
        if area < 3 or x == 0 or y == 0 or x + bw >= CORE or y + bh >= CORE:
            continue  # board lines and neighbours touch the border
        if bw > 0.7 * CORE or bh > 0.7 * CORE:
            continue  # the tile's rim or shadow, not ink
        comps.append((area, k))
    if len(comps) < 2:
        return None, 0.0
    comps.sort(reverse=True)
    num_area, num_k = comps[0]
    nc = cents[num_k]
    small = [(a, k) for a, k in comps[1:] if a < 0.45 * num_area
             and math.hypot(*(cents[k] - nc)) > 0.22 * CORE]
    if not small:
        return None, 0.0
    _, cnt_k = max(small)  # the biggest: specks of the tile's rim are smaller than the count digit
    d = cents[cnt_k] - nc
    a = math.degrees(math.atan2(d[1], d[0]))
    q = round((a - 45.0) / 90.0) % 4  # quarter turns clockwise
    mask = (lab == num_k).astype(np.uint8)
    upright = np.ascontiguousarray(np.rot90(mask, q))  # counter-clockwise q times undoes the turn
    ys = np.nonzero(upright)[0]
    if len(ys) < 6:
        return None, 0.0
    mid = 0.5 * (ys.min() + ys.max())
    height = float(ys.max() - ys.min() + 1)
    # the loop: a hole of the glyph, low in a 6, high in a 9
    contours, hier = cv2.findContours(upright * 255, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    holes = [c for c, hh in zip(contours, hier[0], strict=True) if hh[3] >= 0 and cv2.contourArea(c) >= 1.0] \
        if hier is not None else []
    if holes:
        hole = max(holes, key=cv2.contourArea)
        hy = float(hole[:, 0, 1].mean())
        return (6 if hy > mid else 9), float(min(1.0, 2.0 * abs(hy - mid) / height))
    # no clean hole (blur): the loop end is the wider one
    y0, y1 = int(ys.min()), int(ys.max())
    band = max(1, round(0.35 * height))
    def extent(rows: NDArray[np.uint8]) -> float:
        widths = [float(np.ptp(np.nonzero(r)[0])) + 1.0 for r in rows if r.any()]
        return float(np.mean(widths)) if widths else 0.0
    wt = extent(upright[y0:y0 + band])
    wb = extent(upright[y1 - band + 1:y1 + 1])
    margin = abs(wb - wt) / max(1.0, wb + wt)
    return (6 if wb > wt else 9), float(margin)
