"""One cell-colour model for the Blokus family: empty or one of the six piece colours (blue, yellow,
red, green, purple, orange) for every cell of a Trigon (triangles), classic Blokus or Blokus Duo
(squares) board.

The model knows no board geometry. A reader hands it each cell's inner part seen straight on as a
fixed number of colour samples (``triangle_points`` / ``square_points`` place them; ``samples``
reads them from the reader's straight-on view). Everything is relative to the board's own
reference grey: the median log colour of the least coloured of the brighter cells (empty board
plastic), so the board's tint and the light's colour cancel. A sample is glare when it is blown
out or brighter than the reference grey in every channel (clear plastic never passes more light
than the bare board beside it; only a highlight does), and glare samples are left out of the
cell's statistics; when nearly all of a cell is glare, its least bright samples stand for it, so a
highlight is never read as bare board. Per cell the features are percentiles of brightness and of
two opponent-colour axes (red–green, yellow–blue) in log units, chroma, the glare share, and the
picture's context (the reference's tint and brightness). A small MLP (numpy at run time,
``vision/models/piece_colours.npz``, trained by ``lab/train/train_piece_colours.py`` on both of
the project's renderers for all three boards) gives the seven class scores; at inference they are
restricted to the game's colours and renormalised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.nets import MODELS_DIR, load_weights, softmax

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: every colour the model knows, and its classes in output order (``None``: empty)
COLOURS = ("blue", "yellow", "red", "green", "purple", "orange")
CLASSES: tuple[str | None, ...] = (None, *COLOURS)
MODEL_PATH = MODELS_DIR / "piece_colours.npz"
#: log-colour offset (intensity units) and the scale of log differences in the features
LOG_EPS = 4.0
SCALE = 2.0
#: a sample at or above this in any channel is blown out
BLOWN = 250
#: a sample brighter than the reference grey by this (log units) in every channel is glare
GLARE_LOG = 0.18
#: fewer unglared samples than this: the least bright ones stand for the cell
MIN_CLEAR = 4
#: reference grey: the least coloured ``REF_SHARE`` of the brighter ``BRIGHT_SHARE`` of cells
REF_SHARE = 0.12
BRIGHT_SHARE = 0.6
#: percentiles of each axis in the features
PERCENTILES = (0.1, 0.5, 0.9)
N_FEATURES = 3 * len(PERCENTILES) + 2 + 1 + 3


class PieceColourModelMissingError(RuntimeError):
    """The piece-colour model's weight file is missing (train it with lab/train/train_piece_colours.py)."""


# ----------------------------------------------------------------------------------------------
# where a cell is sampled


def triangle_points(verts: F64, shrink: float = 0.7, levels: int = 6) -> F64:
    """Sample points (cells × K × 2) spread evenly over each triangle (``verts``: cells × 3 × 2, any
    frame) shrunk by ``shrink`` towards its centroid; ``K = (levels + 1)(levels + 2) / 2``."""
    lam = np.array([(i, j, levels - i - j) for i in range(levels + 1) for j in range(levels + 1 - i)],
                   np.float64) / levels
    v = np.asarray(verts, np.float64)
    cen = v.mean(axis=1, keepdims=True)
    pts = np.einsum("kt,ctd->ckd", lam, v)
    return np.asarray(cen + (pts - cen) * shrink, np.float64)


def square_points(n: int, unit: float, inner: float = 0.6, per_side: int = 7) -> F64:
    """Sample points (n² × per_side² × 2, rows from the top) over each square's inner ``inner`` share
    in a straight-on view of ``unit`` pixels per square (pixel centres at integers)."""
    t = (np.arange(per_side) + 0.5) / per_side
    off = (0.5 + (t - 0.5) * inner) * unit - 0.5
    ox, oy = np.meshgrid(off, off)
    grid = np.stack([ox.ravel(), oy.ravel()], axis=1)
    rows, cols = np.mgrid[0:n, 0:n]
    base = np.stack([cols.ravel(), rows.ravel()], axis=1).astype(np.float64) * unit
    return np.asarray(base[:, None, :] + grid[None, :, :], np.float64)


def samples(view: U8, points: F64) -> U8:
    """The BGR samples (cells × K × 3) of ``view`` at ``points`` (cells × K × 2, view pixels), bilinear."""
    c, k = points.shape[:2]
    m = points.reshape(1, c * k, 2).astype(np.float32)
    out = cv2.remap(view, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out.reshape(c, k, 3), np.uint8)


# ----------------------------------------------------------------------------------------------
# reference grey and features


def reference(logs: F32, inside: NDArray[np.bool_] | None = None, blown: NDArray[np.bool_] | None = None) -> F32:
    """The board's reference log colour (3,) from the samples' log colours (cells × K × 3): the
    median of the least coloured ``REF_SHARE`` of the brighter ``BRIGHT_SHARE`` of cells (empty
    squares are the light ones; under a coloured lamp a dark piece can look less coloured). Blown
    samples (``blown``, cells × K) are left out of each cell's median, and cells mostly blown out
    are no candidates: a highlight is not the board."""
    if blown is None:
        med = np.median(logs, axis=1)
        usable = np.ones(len(logs), bool)
    else:
        ok = ~blown
        usable = ok.mean(axis=1) >= 0.5
        ok[~usable] = True
        med = np.stack([_masked_quantiles(logs[..., i], ok, (0.5,))[:, 0] for i in range(3)], axis=1)
    if inside is not None and (inside & usable).sum() >= 10:
        usable = usable & inside
    if usable.sum() >= 10:
        med = med[usable]
    level = med.mean(axis=1)
    spread = med.max(axis=1) - med.min(axis=1)
    bright = np.argsort(-level)[: max(3, int(BRIGHT_SHARE * len(med)))]
    keep = bright[np.argsort(spread[bright])[: max(3, int(REF_SHARE * len(med)))]]
    return np.asarray(np.median(med[keep], axis=0), np.float32)


def _opponent(x: F32) -> F32:
    """Brightness, red–green and yellow–blue of BGR log differences (…× 3 → …× 3)."""
    b, g, r = x[..., 0], x[..., 1], x[..., 2]
    return np.stack([(b + g + r) / 3, r - g, (r + g) / 2 - b], axis=-1)


def _masked_quantiles(v: F32, ok: NDArray[np.bool_], qs: tuple[float, ...]) -> F32:
    """Quantiles (cells × len(qs)) of each row of ``v`` (cells × K) over its ``ok`` entries."""
    s = np.sort(np.where(ok, v, np.float32(np.inf)), axis=1)
    cnt = ok.sum(axis=1)
    out = np.empty((v.shape[0], len(qs)), np.float32)
    rows = np.arange(v.shape[0])
    for j, q in enumerate(qs):
        pos = q * (cnt - 1)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, cnt - 1)
        f = (pos - lo).astype(np.float32)
        out[:, j] = s[rows, lo] * (1 - f) + s[rows, hi] * f
    return out


def features(raw: U8, inside: NDArray[np.bool_] | None = None) -> tuple[F32, F32]:
    """``(features (cells × N_FEATURES), reference log colour (3,))`` of every cell's samples
    ``raw`` (cells × K × 3 BGR); ``inside``: cells wholly in the picture (the reference is taken
    over those)."""
    logs = np.log(raw.astype(np.float32) + np.float32(LOG_EPS))
    blown = raw.max(axis=2) >= BLOWN
    ref = reference(logs, inside, blown)
    x = logs - ref
    glare = blown | (x.min(axis=2) > GLARE_LOG)
    ok = ~glare
    few = ok.sum(axis=1) < MIN_CLEAR
    if few.any():  # mostly glare: the least bright samples stand for the cell
        lv = x[few].mean(axis=2)
        order = np.argsort(lv, axis=1)[:, :MIN_CLEAR]
        sub = np.zeros_like(lv, dtype=bool)
        np.put_along_axis(sub, order, True, axis=1)
        ok[few] = sub
    opp = _opponent(x) * np.float32(SCALE)
    parts = [_masked_quantiles(opp[..., i], ok, PERCENTILES) for i in range(3)]
    chroma = np.hypot(opp[..., 1], opp[..., 2])
    parts.append(_masked_quantiles(chroma, ok, (0.5, 0.9)))
    parts.append(glare.mean(axis=1, dtype=np.float32)[:, None])
    ro = _opponent(ref - ref.mean())
    ctx = np.array([ro[1] * 4, ro[2] * 4, float(ref.mean()) - math.log(128.0)], np.float32)
    parts.append(np.broadcast_to(ctx, (raw.shape[0], 3)))
    return np.asarray(np.concatenate(parts, axis=1), np.float32), ref


# ----------------------------------------------------------------------------------------------
# the model


@dataclass(frozen=True)
class PieceColourModel:
    """An MLP over ``features``: input standardisation (``mean``, ``std``), then (weight, bias)
    layers with ReLU between them; the last gives the ``CLASSES`` scores."""

    mean: F32
    std: F32
    layers: tuple[tuple[F32, F32], ...]

    def logits(self, feats: F32) -> F32:
        """Class scores (cells × ``CLASSES``)."""
        h = (feats - self.mean) / self.std
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, np.float32(0))
        return np.asarray(h, np.float32)

    def probs(self, feats: F32, colours: tuple[str, ...] = COLOURS) -> F32:
        """Probabilities (cells × (1 + len(colours))): empty, then ``colours`` in that order, the
        other colours left out and the rest renormalised."""
        cols = [0, *(CLASSES.index(c) for c in colours)]
        return softmax(self.logits(feats)[:, cols])


def model_from_arrays(d: dict[str, NDArray[np.generic]]) -> PieceColourModel:
    """A ``PieceColourModel`` from a weight file's arrays (``mean``, ``std``, ``w0``/``b0``, …)."""
    k = 0
    layers = []
    while f"w{k}" in d:
        layers.append((np.asarray(d[f"w{k}"], np.float32), np.asarray(d[f"b{k}"], np.float32)))
        k += 1
    return PieceColourModel(np.asarray(d["mean"], np.float32), np.asarray(d["std"], np.float32), tuple(layers))


@lru_cache(maxsize=2)
def load_model(path: str | None = None) -> PieceColourModel:
    """The model from ``path`` (default: the committed ``piece_colours.npz``)."""
    return model_from_arrays(load_weights(Path(path) if path else MODEL_PATH, PieceColourModelMissingError,
                                          "piece-colour model", "lab.train.train_piece_colours"))


@dataclass(frozen=True)
class Verdict:
    """One cell's verdict: ``colour`` (``None`` = empty), confidence 0–1 (its probability), and the
    chroma (Lab-like units) and hue (degrees) of its median colour relative to the reference grey."""

    colour: str | None
    confidence: float
    chroma: float
    hue: float


def classify(raw: U8, colours: tuple[str, ...], inside: NDArray[np.bool_] | None = None,
             model: PieceColourModel | None = None) -> tuple[list[Verdict], F32]:
    """Verdicts for every cell's samples ``raw`` (cells × K × 3 BGR) among ``colours`` (and empty),
    and the probabilities (cells × (1 + len(colours)))."""
    unknown = [c for c in colours if c not in COLOURS]
    if unknown:
        raise ValueError(f"unknown piece colour {unknown[0]!r}; choose from {', '.join(COLOURS)}")
    model = model or load_model()
    feats, _ref = features(raw, inside)
    p = model.probs(feats, colours)
    best = p.argmax(axis=1)
    names: tuple[str | None, ...] = (None, *colours)
    # chroma and hue of the median opponent colour (scaled to about Lab units)
    a, b = feats[:, 4] * 25.0, feats[:, 7] * 25.0
    chroma, hue = np.hypot(a, b), np.degrees(np.arctan2(b, a))
    out = [Verdict(names[k], round(float(p[i, k]), 3), float(chroma[i]), float(hue[i])) for i, k in enumerate(best)]
    return out, p


__all__ = ["CLASSES", "COLOURS", "N_FEATURES", "PieceColourModel", "PieceColourModelMissingError", "Verdict",
           "classify", "features", "load_model", "model_from_arrays", "reference", "samples", "square_points",
           "triangle_points"]
