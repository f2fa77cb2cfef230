"""Classify each Trigon triangle as empty or covered by a blue, yellow, red or green piece.

Three methods (``classify_cells``' ``method``):

``"shared"``: the piece-colour model shared with the square Blokus boards
(``vision.read.piece_colours``): each triangle's inner part is sampled from the fine straight-on
view (``net_view``) at 28 evenly spread points over the triangle shrunk by ``TRI_SHRINK``, and
classified among Trigon's four colours relative to the board's reference grey, glare left out
(``trigon_samples``, ``classify_cells_shared``).

``"net"`` (default: on both renderers it reads more boards entirely right than the shared model,
which gets more cells right on ray-traced pictures but reads casts and hands as pieces): a small
fully-convolutional net (``vision/models/trigon_cells.npz``, trained on rendered frames by
``lab/train/train_trigon_cells.py``) over the board seen straight on at ``NET_UNIT`` pixels per cell
edge. Its input is the view's log colour relative to a reference grey: the median colour of the
least coloured 40 % of the triangles (most triangles are empty, and the covered ones spread over
four hues), so the board's own tint and the light's colour cancel; the reference's own tint and
brightness are extra constant input planes, and a picture-wide average of the features feeds back
into the last layer (board and light as context). Per-pixel class scores (empty, blue, yellow, red,
green) at half that resolution are averaged over each triangle's inner part and turned into
probabilities. Triangles under a hand were trained towards a flat distribution with empty on top, so
there the net answers "empty" with low confidence. Inference is numpy: 20–45 ms a picture on one
core (view, input, net and verdicts; 720p–1080p).

``"rule"`` (the earlier method, kept for comparison): the view white-balanced on the plain rim (von
Kries gains that make the rim neutral grey); Lab chroma and hue relative to that grey; a triangle
is covered when its chroma reaches ``MIN_CHROMA``, by the colour of the nearest hue. Pixels blown
out by glare are ignored. It is misled where the rim is not the colour of the playing cells, by
dark pieces in warm light, and by hands (skin reads red or yellow).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.nets import MODELS_DIR, conv3x3, load_weights, softmax
from vision.read import piece_colours
from vision.read.trigon.geometry import SQRT3, cell_table, hexagon_corners

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
I64 = NDArray[np.int64]
U8 = NDArray[np.uint8]

COLOURS = ("blue", "yellow", "red", "green")
#: the net's classes, in output order
CLASSES: tuple[str | None, ...] = (None, *COLOURS)
#: Lab hue (degrees, atan2(b, a)) of each piece colour seen over grey.
HUES = {"blue": -85.0, "yellow": 85.0, "red": 35.0, "green": 150.0}
#: Chroma (Lab units, relative to the rim grey) above which a triangle counts as covered.
MIN_CHROMA = 14.0
VIEW_UNIT = 16.0

CELLS_NET_PATH = MODELS_DIR / "trigon_cells.npz"
#: the net's view: pixels per board unit, and its half-width in board units (side ``NET_SIZE`` px)
NET_UNIT = 8
NET_HALF = 10
NET_SIZE = 2 * NET_UNIT * NET_HALF
#: (in, out, stride, dilation) of the net's 3×3 convolutions; the picture-wide context is added
#: before the last one, and a 1×1 convolution to the classes follows
NET_LAYERS: tuple[tuple[int, int, int, int], ...] = ((7, 16, 1, 1), (16, 24, 2, 1), (24, 24, 1, 1), (24, 24, 1, 2))
NET_IN = NET_LAYERS[0][0]
#: the net's class maps have 1/``NET_STRIDE`` of the view's resolution
NET_STRIDE = 2
#: triangles are sampled over their centre part, shrunk by this factor towards the centroid
POOL_SHRINK = 0.6
#: reference grey: the median of the ``REF_SHARE`` least coloured triangles
REF_SHARE = 0.4
#: log-colour offset (intensity units) and input scales
LOG_EPS = 4.0
IN_SCALE = 2.0
TINT_SCALE = 4.0


@dataclass(frozen=True)
class CellColour:
    """One triangle's verdict: ``colour`` (``None`` = empty), confidence 0–1, chroma and hue measured."""

    colour: str | None
    confidence: float
    chroma: float
    hue: float


class CellNetMissingError(RuntimeError):
    """The Trigon cell net's weight file is missing (train it with lab/train/train_trigon_cells.py)."""


# ----------------------------------------------------------------------------------------------
# the net's view and input


def net_affine(unit: float = NET_UNIT, size: int = NET_SIZE) -> F64:
    """Board units → view pixels (pixel centres at integers; the board centre between the middle four)."""
    c = (size - 1) / 2
    return np.array([[unit, 0, c], [0, unit, c], [0, 0, 1.0]])


def net_view(image: U8, h_board_img: F64) -> tuple[U8, U8, U8]:
    """The board straight on for the net: ``(view, valid, fine)``. ``view``: ``NET_SIZE``² BGR at
    ``NET_UNIT`` px per board unit (area-averaged from a view twice as fine, which is ``fine``);
    ``valid``: 1 where the view lies inside the picture."""
    h_img = np.asarray(h_board_img, np.float64)
    # pixels per board unit at the board centre: shrink big pictures first (less aliasing)
    p = h_img @ np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    pts = p[:2] / p[2]
    jac = np.stack([pts[:, 1] - pts[:, 0], pts[:, 2] - pts[:, 0]])
    ppu = math.sqrt(abs(float(np.linalg.det(jac))))
    fine_unit = 2 * NET_UNIT
    img = image
    if ppu > 1.5 * fine_unit:
        f = 1.25 * fine_unit / ppu
        img = np.asarray(cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), np.uint8)
        s = np.array([[img.shape[1] / image.shape[1], 0, 0], [0, img.shape[0] / image.shape[0], 0], [0, 0, 1.0]])
        h_img = s @ h_img
    size2 = 2 * NET_SIZE
    hv = net_affine(fine_unit, size2) @ np.linalg.inv(h_img)
    fine = np.asarray(cv2.warpPerspective(img, hv, (size2, size2), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0)), np.uint8)
    # inside the picture: the view's pixel centres mapped into it
    q = np.arange(NET_SIZE, dtype=np.float64)
    bx = (q - (NET_SIZE - 1) / 2) / NET_UNIT
    gx, gy = np.meshgrid(bx, bx)
    pts3 = h_img @ np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)])
    u, v = pts3[0] / pts3[2], pts3[1] / pts3[2]
    inside = (pts3[2] > 0) & (u >= 0) & (v >= 0) & (u <= img.shape[1] - 1) & (v <= img.shape[0] - 1)
    valid = inside.reshape(NET_SIZE, NET_SIZE).astype(np.uint8)
    view = np.asarray(cv2.resize(fine, (NET_SIZE, NET_SIZE), interpolation=cv2.INTER_AREA), np.uint8)
    return view, valid, fine


@lru_cache(maxsize=4)
def _cell_index(unit: float, size: int, shrink: float, centre: float) -> tuple[I64, I64]:
    """Pixels of each triangle's shrunken inside in a view (board units × ``unit`` px around pixel
    ``centre``): ``(pixel index, bounds)``, sorted by cell; cell ``i`` owns
    ``pixel index[bounds[i]:bounds[i + 1]]``."""
    cells, verts, cents = cell_table(9)
    lab = np.full((size, size), -1, np.int64)
    for i in range(len(cells)):
        v = cents[i] + (verts[i] - cents[i]) * shrink
        poly = np.round((centre + v * unit) * 16).astype(np.int32)
        m = np.zeros((size, size), np.uint8)
        cv2.fillPoly(m, [poly], 1, cv2.LINE_8, 4)
        lab[m > 0] = i
    flat = lab.ravel()
    idx = np.nonzero(flat >= 0)[0]
    owner = flat[idx]
    order = np.argsort(owner, kind="stable")
    bounds = np.searchsorted(owner[order], np.arange(len(cells) + 1))
    return idx[order], bounds


def cell_means(values: F32, unit: int = NET_UNIT, size: int = NET_SIZE) -> F32:
    """Mean of ``values`` (size² × k) over each triangle's inside (cells × k)."""
    idx, bounds = _cell_index(unit, size, 0.62, (size - 1) / 2)
    v = values[idx]
    sums = np.add.reduceat(v, bounds[:-1], axis=0)
    counts = np.diff(bounds).astype(np.float32)
    return np.asarray(sums / np.maximum(counts, 1.0)[:, None], np.float32)


def reference_grey(view: U8, valid: U8) -> tuple[F32, F32]:
    """``(reference log colour (3,), per-cell mean log colour (cells × 3))``: the reference is the
    median of the ``REF_SHARE`` least coloured triangles inside the picture."""
    logv = np.log(view.reshape(-1, 3).astype(np.float32) + np.float32(LOG_EPS))
    stats = cell_means(np.concatenate([logv, valid.reshape(-1, 1).astype(np.float32)], axis=1))
    means, inside = stats[:, :3], stats[:, 3] > 0.99
    pool = means[inside] if inside.sum() >= 20 else means
    m0 = np.median(pool, axis=0)
    d = pool - m0
    tint = np.linalg.norm(d - d.mean(axis=1, keepdims=True), axis=1)
    keep = tint <= np.quantile(tint, REF_SHARE)
    return np.asarray(np.median(pool[keep], axis=0), np.float32), means


def net_input(view: U8, valid: U8, ref: F32 | None = None) -> F32:
    """The net's input (``NET_SIZE``, ``NET_SIZE``, ``NET_IN``): log colour relative to the reference
    grey (``reference_grey``'s, unless given; zero outside the picture), validity, and the
    reference's tint (two planes) and level."""
    if ref is None:
        ref, _ = reference_grey(view, valid)
    ok = valid.astype(np.float32)
    x = np.empty((NET_SIZE, NET_SIZE, NET_IN), np.float32)
    x[..., :3] = (np.log(view.astype(np.float32) + np.float32(LOG_EPS)) - ref) * np.float32(IN_SCALE) * ok[..., None]
    x[..., 3] = ok
    tint = (ref - ref.mean()) * TINT_SCALE
    x[..., 4] = tint[0]
    x[..., 5] = tint[2]
    x[..., 6] = ref.mean() - math.log(128.0)
    return x


@lru_cache(maxsize=2)
def pool_table(shrink: float = POOL_SHRINK) -> tuple[I64, F32]:
    """Each triangle's sampling of the net's class maps: ``(index, weight)``, both cells × K, into
    the flattened (``NET_SIZE // NET_STRIDE``)² map; weights of a cell sum to 1 (bilinear sampling of
    15 points spread over the triangle shrunk by ``shrink``)."""
    _cells, verts, cents = cell_table(9)
    m = NET_SIZE // NET_STRIDE
    lam = np.array([(i, j, 4 - i - j) for i in range(5) for j in range(5 - i)], np.float64) / 4
    rows: list[dict[int, float]] = []
    for v, c in zip(verts, cents, strict=True):
        pts = c + (lam @ v - c) * shrink
        # map pixel (r, c) is centred on view pixel (2r, 2c)
        q = (pts * NET_UNIT + (NET_SIZE - 1) / 2) / NET_STRIDE
        acc: dict[int, float] = {}
        for x, y in q:
            x0, y0 = math.floor(x), math.floor(y)
            fx, fy = x - x0, y - y0
            for dx, dy, w in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy),
                              (1, 1, fx * fy)):
                xx, yy = min(max(x0 + dx, 0), m - 1), min(max(y0 + dy, 0), m - 1)
                acc[yy * m + xx] = acc.get(yy * m + xx, 0.0) + w / len(q)
        rows.append(acc)
    k = max(len(r) for r in rows)
    idx = np.zeros((len(rows), k), np.int64)
    wts = np.zeros((len(rows), k), np.float32)
    for i, r in enumerate(rows):
        idx[i, :len(r)] = list(r)
        wts[i, :len(r)] = list(r.values())
    return idx, wts


# ----------------------------------------------------------------------------------------------
# the net (numpy inference)


@dataclass(frozen=True)
class CellNet:
    """Weights: per 3×3 layer a (3, 3, in, out) kernel and bias, the context layer (in, out) and bias,
    and the 1×1 head (in, classes) and bias."""

    convs: tuple[tuple[F32, F32], ...]
    context: tuple[F32, F32]
    head: tuple[F32, F32]

    def logits(self, x: F32) -> F32:
        """Class maps (``NET_SIZE // NET_STRIDE``)² × classes of one input (``net_input``)."""
        h = x
        last = len(self.convs) - 1
        for i, ((w, b), (_cin, _cout, stride, dil)) in enumerate(zip(self.convs, NET_LAYERS, strict=True)):
            z = conv3x3(h[None], w, b, stride, dil)[0]
            if i == last:
                z += h.mean(axis=(0, 1)) @ self.context[0] + self.context[1]
            h = np.maximum(z, np.float32(0))
        hw = h.shape[0] * h.shape[1]
        return np.asarray(h.reshape(hw, -1) @ self.head[0] + self.head[1], np.float32)

    def cell_probs(self, x: F32) -> F32:
        """Class probabilities of every ``cell_table(9)`` triangle (cells × classes)."""
        idx, wts = pool_table()
        z = self.logits(x)
        return softmax(np.einsum("ck,ckj->cj", wts, z[idx]))


def net_from_arrays(d: dict[str, NDArray[np.generic]]) -> CellNet:
    """A ``CellNet`` from a weight file's arrays (``w{i}``/``b{i}`` per 3×3 layer, ``wg``/``bg``, ``wh``/``bh``)."""
    def f(k: str) -> F32:
        return np.asarray(d[k], np.float32)
    return CellNet(tuple((f(f"w{i}"), f(f"b{i}")) for i in range(len(NET_LAYERS))), (f("wg"), f("bg")),
                   (f("wh"), f("bh")))


@lru_cache(maxsize=2)
def load_cell_net(path: str | None = None) -> CellNet:
    """The cell net from ``path`` (default: the committed ``trigon_cells.npz``)."""
    return net_from_arrays(load_weights(Path(path) if path else CELLS_NET_PATH, CellNetMissingError,
                                        "Trigon cell net", "lab.train.train_trigon_cells"))


def classify_cells_net(image: U8, h_board_img: F64, net: CellNet | None = None
                       ) -> tuple[list[CellColour], U8, F32]:
    """The net's verdicts (``cell_table(9)`` order), the fine view balanced on the reference grey,
    and the class probabilities (cells × ``CLASSES``)."""
    net = net or load_cell_net()
    view, valid, fine = net_view(image, h_board_img)
    ref, _ = reference_grey(view, valid)
    probs = net.cell_probs(net_input(view, valid, ref))
    grey = np.exp(ref) - LOG_EPS
    gains = (grey.mean() / np.maximum(grey, 1.0)).astype(np.float32)
    balanced = np.clip(view.astype(np.float32) * gains, 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(balanced, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    ab = cell_means(lab[:, 1:] - np.float32(128))
    best = probs.argmax(axis=1)
    conf = np.round(probs[np.arange(len(best)), best], 3).tolist()
    chroma = np.hypot(ab[:, 0], ab[:, 1]).tolist()
    hue = np.degrees(np.arctan2(ab[:, 1], ab[:, 0])).tolist()
    out = [CellColour(CLASSES[k], c, ch, hu) for k, c, ch, hu in zip(best.tolist(), conf, chroma, hue, strict=True)]
    fine_bal = np.clip(fine.astype(np.float32) * gains, 0, 255).astype(np.uint8)
    return out, fine_bal, probs


# ----------------------------------------------------------------------------------------------
# the shared piece-colour model

#: triangles are sampled over their inner part, shrunk by this factor towards the centroid, at
#: ``(TRI_LEVELS + 1)(TRI_LEVELS + 2) / 2`` points
TRI_SHRINK = 0.7
TRI_LEVELS = 6


@lru_cache(maxsize=1)
def _triangle_points() -> F64:
    _cells, verts, _cents = cell_table(9)
    unit, size = 2 * NET_UNIT, 2 * NET_SIZE
    return piece_colours.triangle_points(verts * unit + (size - 1) / 2, TRI_SHRINK, TRI_LEVELS)


def _samples_and_view(image: U8, h_board_img: F64) -> tuple[U8, NDArray[np.bool_], U8]:
    _view, valid, fine = net_view(image, h_board_img)
    inside = cell_means(valid.reshape(-1, 1).astype(np.float32))[:, 0] > 0.99
    return piece_colours.samples(fine, _triangle_points()), np.asarray(inside, np.bool_), fine


def trigon_samples(image: U8, h_board_img: F64) -> tuple[U8, NDArray[np.bool_]]:
    """Every ``cell_table(9)`` triangle's samples (cells × K × 3 BGR) from the fine straight-on view,
    and which triangles lie wholly in the picture."""
    raw, inside, _fine = _samples_and_view(image, h_board_img)
    return raw, inside


def classify_cells_shared(image: U8, h_board_img: F64) -> tuple[list[CellColour], U8]:
    """The shared model's verdicts (``cell_table(9)`` order) and the fine view balanced on the
    board's reference grey."""
    raw, inside, fine = _samples_and_view(image, h_board_img)
    verdicts, _p = piece_colours.classify(raw, COLOURS, inside)
    _feats, ref = piece_colours.features(raw, inside)
    grey = np.exp(ref) - piece_colours.LOG_EPS
    gains = (grey.mean() / np.maximum(grey, 1.0)).astype(np.float32)
    balanced = np.clip(fine.astype(np.float32) * gains, 0, 255).astype(np.uint8)
    return [CellColour(v.colour, v.confidence, v.chroma, v.hue) for v in verdicts], balanced


# ----------------------------------------------------------------------------------------------
# the rule (kept for comparison)


def _rim_mask(size: int, unit: float, side: int, plate_radius: float) -> U8:
    c = size / 2
    outer = np.round(c + hexagon_corners(1) * (min(plate_radius, side / 0.84) - 0.25) * unit).astype(np.int32)
    inner = np.round(c + hexagon_corners(side) * (1 + 0.25 / side) * unit).astype(np.int32)
    m = np.zeros((size, size), np.uint8)
    cv2.fillPoly(m, [outer], 1)
    cv2.fillPoly(m, [inner], 0)
    return m


def board_view(image: U8, h_board_img: F64, size: int, unit: float = VIEW_UNIT) -> U8:
    """The board seen straight on: board units × ``unit`` pixels around the view centre."""
    a = np.array([[unit, 0, size / 2], [0, unit, size / 2], [0, 0, 1.0]])
    hv = a @ np.linalg.inv(h_board_img)
    return np.asarray(cv2.warpPerspective(image, hv, (size, size), flags=cv2.INTER_LINEAR), np.uint8)


def classify_cells(image: U8, h_board_img: F64, plate_radius: float, side: int = 9, *, method: str = "net"
                   ) -> tuple[list[CellColour], U8]:
    """A verdict for every cell of ``cell_table(9)`` (side-9 frame) and the white-balanced view, by
    ``method``: ``"net"`` (the Trigon cell net), ``"shared"`` (the piece-colour model shared with the
    square boards) or ``"rule"`` (rim white balance + chroma
    threshold; ``plate_radius`` and ``side`` matter to the rule only)."""
    if method not in ("shared", "net", "rule"):
        raise ValueError(f"unknown Trigon cell method {method!r} (shared, net or rule)")
    if method == "shared":
        return classify_cells_shared(image, h_board_img)
    if method == "net":
        verdicts, view, _ = classify_cells_net(image, h_board_img)
        return verdicts, view
    return classify_cells_rule(image, h_board_img, plate_radius, side)


def classify_cells_rule(image: U8, h_board_img: F64, plate_radius: float, side: int = 9
                        ) -> tuple[list[CellColour], U8]:
    """The rule's verdicts: rim white balance, chroma threshold, nearest hue."""
    size = int(2 * VIEW_UNIT * max(plate_radius, 9.2)) + 8
    view = board_view(image, h_board_img, size).astype(np.float32)
    rim = _rim_mask(size, VIEW_UNIT, side, plate_radius) > 0
    rim_px = view[rim]
    lum = rim_px.mean(axis=1)
    keep = (lum > np.percentile(lum, 20)) & (lum < np.percentile(lum, 90)) if len(lum) > 50 else np.ones(len(lum), bool)
    ref = np.median(rim_px[keep], axis=0) if keep.sum() > 10 else np.median(view.reshape(-1, 3), axis=0)
    gains = ref.mean() / np.maximum(ref, 1.0)
    balanced = np.clip(view * gains[None, None, :], 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(balanced, cv2.COLOR_BGR2LAB).astype(np.float32)
    idx, bounds = _cell_index(VIEW_UNIT, size, 0.62, size / 2)
    flat_s = lab.reshape(-1, 3)[idx]
    out: list[CellColour] = []
    # per-cell robust statistics: drop glare (the brightest, least coloured pixels)
    for i in range(len(bounds) - 1):
        px = flat_s[bounds[i]:bounds[i + 1]]
        if len(px) == 0:
            out.append(CellColour(None, 0.0, 0.0, 0.0))
            continue
        a, b = px[:, 1] - 128, px[:, 2] - 128
        ch = np.hypot(a, b)
        glare = (px[:, 0] > 245) & (ch < MIN_CHROMA)
        if (~glare).sum() >= 5:
            a, b, ch = a[~glare], b[~glare], ch[~glare]
        am, bm = float(np.median(a)), float(np.median(b))
        chroma = math.hypot(am, bm)
        hue = math.degrees(math.atan2(bm, am))
        out.append(_verdict(chroma, hue))
    return out, balanced


def _hue_gap(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _verdict(chroma: float, hue: float) -> CellColour:
    if chroma < MIN_CHROMA:
        conf = min(1.0, 0.5 + (MIN_CHROMA - chroma) / MIN_CHROMA)
        return CellColour(None, round(conf, 3), chroma, hue)
    gaps = sorted((_hue_gap(hue, h), name) for name, h in HUES.items())
    best, second = gaps[0], gaps[1]
    hue_conf = min(1.0, (second[0] - best[0]) / 40.0)
    chroma_conf = min(1.0, (chroma - MIN_CHROMA) / MIN_CHROMA + 0.3)
    return CellColour(best[1], round(max(0.05, min(hue_conf, chroma_conf)), 3), chroma, hue)


def prototype_hue(rgb: tuple[int, int, int]) -> float:
    """Lab hue of an sRGB colour (for checking ``HUES``)."""
    px = np.array([[rgb[::-1]]], np.uint8)
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB).astype(np.float32)[0, 0]
    return math.degrees(math.atan2(lab[2] - 128, lab[1] - 128))


__all__ = ["CLASSES", "COLOURS", "SQRT3", "CellColour", "CellNet", "CellNetMissingError", "board_view",
           "cell_means", "classify_cells", "classify_cells_net", "classify_cells_rule", "classify_cells_shared",
           "load_cell_net", "net_input", "net_view", "prototype_hue", "trigon_samples"]
