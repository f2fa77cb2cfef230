"""Each square's colour: empty or one of the game's piece colours.

Two methods (``square_verdicts``' ``method``):

``"shared"`` (default): the piece-colour model shared with Trigon (``vision.read.piece_colours``)
tells covered squares from empty ones: each square's inner ``SHARED_INNER`` share is sampled at
7 × 7 points of the straight-on view (``square_samples``) and judged relative to the board's
reference grey, glare left out. A covered square then takes the nearest of the picture's own
piece colours (``picture_colours``: the rule's k-means below, over the covered squares only), so
an edition whose green is bluish, or a camera's cast, is read by the picture's own colours.

``"rule"`` (the earlier method, kept for comparison): the board is sampled straight on at
``UNIT`` pixels per square; a square's colour is the per-channel median of its inner part
(``INNER`` of its side), so the grid lines, the dark edges of piece squares and most reflections
stay out, and pixels blown out by glare are left out of the median when the rest of the patch
allows. The white balance comes from the board itself:
the least saturated of the brightest squares are taken as empty, and von Kries gains make their
median neutral. In CIE Lab of the balanced colours, a square whose chroma stays below the gap
between the empty squares and the pieces is empty; the others go to the nearest of the game's
colours, whose centres start at the nominal piece colours (``PROTOTYPES``) and then move to
the picture's own (a few k-means rounds), so a warm lamp or a cold window shifts them together.
Confidence is the margin between the nearest and the second-nearest class.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read import piece_colours

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: view resolution (pixels per square) and the share of a square's side sampled
UNIT = 32
INNER = 0.5
#: share of squares, least saturated first, that set the white balance
REF_SHARE = 0.12
BRIGHT_SHARE = 0.4
#: nominal piece colours as sRGB seen over a white board under neutral light
PROTOTYPES: dict[str, tuple[int, int, int]] = {
    "blue": (40, 70, 200), "yellow": (245, 205, 20), "red": (215, 35, 40), "green": (20, 150, 110),
    "purple": (120, 60, 170), "orange": (240, 120, 30),
}
#: chroma bounds (Lab units) of the empty/covered split: below LOW always empty, above HIGH
#: always covered; in between the split falls in the widest gap of the picture's chromas
CHROMA_LOW = 12.0
CHROMA_HIGH = 30.0
KMEANS_ROUNDS = 4


@dataclass(frozen=True)
class SquareColour:
    """One square's verdict: ``colour`` (``None`` = empty), confidence 0–1, chroma measured."""

    colour: str | None
    confidence: float
    chroma: float


def board_view(image: U8, h_units_img: F64, n: int, unit: int = UNIT) -> U8:
    """The ``n``×``n`` playing area seen straight on, ``unit`` pixels per square (antialiased)."""
    from vision.read.blokus.grid import Pyramid

    return Pyramid(image).view(h_units_img, n * unit, unit, 0)


def square_medians(view: U8, n: int, unit: int = UNIT) -> F64:
    """``(n, n, 3)`` BGR medians of each square's inner part (rows from the top). Where glare has
    blown out much of that part, the median of the unblown pixels of the whole square (its grid
    lines left out) is used instead: the piece's colour survives around the highlight."""
    a = round(unit * (1 - INNER) / 2)
    b = unit - a
    squares = view[: n * unit, : n * unit].reshape(n, unit, n, unit, 3).transpose(0, 2, 1, 3, 4)
    blocks = squares[:, :, a:b, a:b, :].reshape(n, n, -1, 3).astype(np.float64)
    blown = blocks.max(axis=3) >= 250
    out = np.median(blocks, axis=2)
    e = max(1, unit // 10)
    for r, c in zip(*np.nonzero(blown.mean(axis=2) > 0.2), strict=True):
        whole = squares[r, c, e:unit - e, e:unit - e].reshape(-1, 3).astype(np.float64)
        ok = whole.max(axis=1) < 250
        if ok.sum() >= 0.2 * len(whole):
            out[r, c] = np.median(whole[ok], axis=0)
    return np.asarray(out, np.float64)


def to_lab(bgr: F64) -> F64:
    """CIE Lab (L 0–100, a, b) of float BGR 0–255 colours, any leading shape."""
    flat = np.clip(bgr.reshape(-1, 1, 3) / 255.0, 0, 1).astype(np.float32)
    lab = cv2.cvtColor(flat, cv2.COLOR_BGR2LAB).reshape(bgr.shape)
    return np.asarray(lab, np.float64)


def balanced_medians(view: U8, n: int, unit: int = UNIT) -> F64:
    """Square medians of the view white-balanced on the board (``white_balance`` of a first pass):
    a highlight is judged blown against the board's white, so glare in a dim or tinted picture,
    which stays below the sensor's clipping, is still left out."""
    gains = white_balance(square_medians(view, n, unit)) / np.maximum(square_medians(view, n, unit), 1e-6)
    g = np.median(gains.reshape(-1, 3), axis=0)
    balanced = np.clip(view.astype(np.float32) * g[None, None, :].astype(np.float32), 0, 255).astype(np.uint8)
    return square_medians(balanced, n, unit)


def white_balance(bgr: F64) -> F64:
    """Colours scaled so the reference white is a light grey: the median of the least saturated
    ``REF_SHARE`` of squares among the brightest ``BRIGHT_SHARE`` (empty squares are the light
    ones; under a coloured lamp a dark piece can look less saturated than the board)."""
    flat = bgr.reshape(-1, 3)
    value = flat.max(axis=1)
    sat = (value - flat.min(axis=1)) / np.maximum(value, 1.0)
    bright = np.argsort(-value)[: max(3, int(BRIGHT_SHARE * len(flat)))]
    k = max(3, int(REF_SHARE * len(flat)))
    ref = np.median(flat[bright[np.argsort(sat[bright])[:k]]], axis=0)
    gains = 230.0 / np.maximum(ref, 1.0)
    return np.asarray(bgr * gains, np.float64)


def _split(chroma: F64) -> float:
    """The empty/covered chroma threshold: the middle of the widest gap between CHROMA_LOW and
    CHROMA_HIGH among the picture's square chromas (the middle of the bounds if none is wide)."""
    inside = np.sort(chroma[(chroma > CHROMA_LOW) & (chroma < CHROMA_HIGH)])
    pts = np.concatenate([[CHROMA_LOW], inside, [CHROMA_HIGH]])
    gaps = np.diff(pts)
    i = int(np.argmax(gaps))
    return float((pts[i] + pts[i + 1]) / 2)


def classify_squares(bgr: F64, colours: tuple[str, ...]) -> list[list[SquareColour]]:
    """Verdicts for an ``(n, n, 3)`` grid of BGR medians, among ``colours`` (names of PROTOTYPES)."""
    n = bgr.shape[0]
    lab = to_lab(white_balance(bgr)).reshape(-1, 3)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    threshold = _split(chroma)
    covered = chroma >= threshold
    protos = np.array([PROTOTYPES[c][::-1] for c in colours], np.float64)
    centres = to_lab(protos)[:, 1:]
    ab = lab[:, 1:]
    for _ in range(KMEANS_ROUNDS):
        d = np.linalg.norm(ab[:, None, :] - centres[None, :, :], axis=2)
        near = np.argmin(d, axis=1)
        moved = centres.copy()
        for k in range(len(colours)):
            sel = covered & (near == k)
            if sel.sum() >= 3:
                moved[k] = np.median(ab[sel], axis=0)
        # a centre moves at most half-way to a rival colour's
        centres = moved
    d = np.linalg.norm(ab[:, None, :] - centres[None, :, :], axis=2)
    order = np.argsort(d, axis=1)
    out: list[list[SquareColour]] = []
    for r in range(n):
        row = []
        for c in range(n):
            i = r * n + c
            ch = float(chroma[i])
            # empty confidence from the distance to the split, covered from the colour margin too
            edge = min(1.0, abs(ch - threshold) / 8.0)
            if not covered[i]:
                row.append(SquareColour(None, 0.5 + 0.5 * edge, ch))
                continue
            best, second = d[i, order[i, 0]], d[i, order[i, 1]] if len(colours) > 1 else np.inf
            margin = float(min(1.0, (second - best) / max(second, 1e-6) * 2)) if np.isfinite(second) else 1.0
            row.append(SquareColour(colours[int(order[i, 0])], 0.5 + 0.5 * min(edge, margin), ch))
        out.append(row)
    return out


#: share of a square's side the shared model samples
SHARED_INNER = 0.6


def square_samples(image: U8, h_units_img: F64, n: int) -> U8:
    """Every square's samples (n² squares, rows from the top, × 49 × 3 BGR) from the straight-on view."""
    return piece_colours.samples(board_view(image, h_units_img, n), piece_colours.square_points(n, UNIT, SHARED_INNER))


def classify_squares_shared(image: U8, h_units_img: F64, n: int, colours: tuple[str, ...]) -> list[list[SquareColour]]:
    """Verdicts (rows from the top) among ``colours``: the shared model tells covered from empty
    within the rule's sure bounds (chroma below ``CHROMA_LOW`` empty, above ``CHROMA_HIGH``
    covered); a covered square takes the nearest of the picture's own piece colours
    (``picture_colours``)."""
    view = board_view(image, h_units_img, n)
    raw = piece_colours.samples(view, piece_colours.square_points(n, UNIT, SHARED_INNER))
    _verdicts, p = piece_colours.classify(raw, colours)
    lab = to_lab(white_balance(balanced_medians(view, n))).reshape(-1, 3)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    # the rule's sure bounds hold over the model: a square as colourful as a piece is one (colours
    # beyond what the renders showed, like a real edition's saturated blue), a grey one is empty
    covered = ((p[:, 0] < 0.5) & (chroma >= CHROMA_LOW)) | (chroma >= CHROMA_HIGH)
    p[:, 0] = np.where(covered, np.minimum(p[:, 0], 0.49), np.maximum(p[:, 0], 0.51))
    near, margin = picture_colours(lab[:, 1:], covered, colours)
    out = [SquareColour(colours[int(near[i])] if covered[i] else None,
                        float(min(1.0 - p[i, 0], 0.5 + 0.5 * margin[i]) if covered[i] else p[i, 0]), float(chroma[i]))
           for i in range(n * n)]
    return [out[r * n:(r + 1) * n] for r in range(n)]


def picture_colours(ab: F64, covered: NDArray[np.bool_], colours: tuple[str, ...]) -> tuple[NDArray[np.int64], F64]:
    """The nearest of the picture's own piece colours for every square (index into ``colours``) and
    its margin 0–1 over the second nearest: centres start at the nominal colours (``PROTOTYPES``,
    Lab a*b*) and move to the medians of the covered squares nearest them (``KMEANS_ROUNDS``), so
    a lamp's or a camera's cast, or an edition's own shades (a bluish green), shift them together."""
    centres = to_lab(np.array([PROTOTYPES[c][::-1] for c in colours], np.float64))[:, 1:]
    for _ in range(KMEANS_ROUNDS):
        d = np.linalg.norm(ab[:, None, :] - centres[None, :, :], axis=2)
        near = np.argmin(d, axis=1)
        for k in range(len(colours)):
            sel = covered & (near == k)
            if sel.sum() >= 3:
                centres[k] = np.median(ab[sel], axis=0)
    d = np.linalg.norm(ab[:, None, :] - centres[None, :, :], axis=2)
    order = np.argsort(d, axis=1)
    rows = np.arange(len(ab))
    best = d[rows, order[:, 0]]
    second = d[rows, order[:, 1]] if len(colours) > 1 else np.full(len(ab), np.inf)
    margin = np.where(np.isfinite(second), np.clip((second - best) / np.maximum(second, 1e-6) * 2, 0, 1), 1.0)
    return np.asarray(order[:, 0], np.int64), np.asarray(margin, np.float64)


def square_verdicts(image: U8, h_units_img: F64, n: int, colours: tuple[str, ...], method: str = "shared"
                    ) -> list[list[SquareColour]]:
    """Verdicts for the ``n``×``n`` board (rows from the top) among ``colours``, by ``method``:
    ``"shared"`` (the piece-colour model shared with Trigon) or ``"rule"`` (white balance, chroma
    gap, k-means to the picture's colours)."""
    if method == "shared":
        return classify_squares_shared(image, h_units_img, n, colours)
    if method == "rule":
        return classify_squares(balanced_medians(board_view(image, h_units_img, n), n), colours)
    raise ValueError(f"unknown square colour method {method!r} (shared or rule)")
