"""An edition's own tiles taught to the reader (``companion calibrate tiles``): the square CNN's
last layer fine-tuned on the 17 tiles of the players' own box (0–15 and a wild), photographed once.

The CNN's hidden layer (128 units, ``hidden``) stays as trained; its last layer (hidden → 18
classes) is fitted again on the calibration crops, each in its four quarter turns and in
``AUGMENTED`` copies shifted, turned slightly, scaled and blurred (``augmented``), by gradient
descent on the log loss with an L2 pull (``L2``) toward the trained weights, so that the faces
the net knew stay known; the "empty" output is not changed (the picture shows no empty square).
On a board, the squares the reader holds likely to be a tile (``MAX_EMPTY``) have their split
among the tile classes replaced by the fine-tuned layer's reading (four quarter turns averaged);
their "empty" probability is kept.

Why a fine-tuned last layer rather than nearest exemplars: one picture gives one tile per class,
and on renderer B's held-out editions nearest exemplars (the CNN's hidden layer compared by cosine,
or the tiles' ink compared pixel by pixel) read fewer tiles right than the uncalibrated net, while
the fine-tuned layer reads more (docs/READER_TRAINING.md, "Learning an edition from one photo").

The profile's ``tiles.learned`` (``EditionHead.to_json``) holds the change to the last layer's
tile columns (float16, base64) and names the net it was fitted on (``net``: a digest of its weight
file): a change fitted on another net means nothing, and the profile is refused (``ProfileError``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import threading
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import ProfileError, TileReference
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.cnn import CNN_PATH, SquareCnn, load_cnn

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: Tile classes (0–15 and the wild) an edition's picture shows, in its order.
CLASSES = WILD + 1
#: The reader's own split among the tile values counts as ``p ** READER_WEIGHT`` beside the
#: edition's layer (0: the layer's reading replaces it).
READER_WEIGHT = 0.5
#: Squares whose "empty" probability is below this are read by the edition's layer.
MAX_EMPTY = 0.5
#: Augmented copies of each calibration crop per pass (``augmented``: six each), passes.
AUGMENTED_PASSES = 3
#: Gradient steps, step size (relative to the mean squared norm of the hidden activations; the
#: biases' step is ``BIAS_RATE``), and the pull toward the trained weights.
STEPS = 300
RATE = 5.0
BIAS_RATE = 0.05
L2 = 0.01


def net_digest() -> str:
    """A digest of the square CNN's weight file (which last layer an edition was fitted on)."""
    return _digest(str(CNN_PATH))


@lru_cache(maxsize=4)
def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()[:12]


def with_last_layer(weights: Any, biases: Any) -> SquareCnn:
    """The square CNN with another last layer (run by the same runtime as the net: ONNX Runtime
    where it is installed)."""
    net = load_cnn()
    return replace(net, out=(np.asarray(weights, np.float32), np.asarray(biases, np.float32)),
                   _runners={}, _lock=threading.Lock())


@lru_cache(maxsize=1)
def _hidden_net() -> SquareCnn:
    width = load_cnn().hidden[0].shape[1]
    return with_last_layer(np.eye(width), np.zeros(width))


def hidden(crops: U8) -> F32:
    """(n, 128) hidden-layer activations of the square CNN for 56 px BGR crops (the net with an
    identity last layer)."""
    return _hidden_net().logits(crops)


def augmented(crops: U8, rng: np.random.Generator) -> tuple[U8, NDArray[np.intp]]:
    """Crops shifted (±3 px), turned slightly (±4°), scaled (±8 %), blurred and turned a quarter at random: what
    the same tiles look like on another square; and each one's class (its index in ``crops``)."""
    out, cls = [], []
    c = (crops.shape[2] / 2 - 0.5, crops.shape[1] / 2 - 0.5)
    for k, crop in enumerate(crops):
        for dx, dy in ((3, 0), (-3, 0), (0, 3), (0, -3), (2, 2), (-2, -2)):
            m = cv2.getRotationMatrix2D(c, float(rng.uniform(-4, 4)), float(rng.uniform(0.92, 1.08)))
            m[:, 2] += (dx, dy)
            a = cv2.warpAffine(crop, m, (crop.shape[1], crop.shape[0]), borderMode=cv2.BORDER_REPLICATE)
            a = cv2.GaussianBlur(a, (0, 0), float(rng.uniform(0.3, 1.0)))
            out.append(np.rot90(a, int(rng.integers(4))))
            cls.append(k)
    return np.ascontiguousarray(np.stack(out)), np.asarray(cls, np.intp)


def _softmax(z: F64) -> F64:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float64)


def fine_tune(crops: U8, seed: int = 0) -> tuple[F64, F64]:
    """The last layer (weights (128, 18), biases (18,)) fitted on the 17 calibration crops (their
    quarter turns and ``augmented`` copies, class = index); the "empty" column kept as trained."""
    net = load_cnn()
    w0, b0 = np.asarray(net.out[0], np.float64), np.asarray(net.out[1], np.float64)
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for _ in range(AUGMENTED_PASSES):
        aug, cls = augmented(crops, rng)
        xs.append(hidden(aug))
        ys.append(cls)
    for k in range(4):
        xs.append(hidden(np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2)))))
        ys.append(np.arange(len(crops)))
    x = np.concatenate(xs).astype(np.float64)
    y = np.concatenate(ys)
    target = np.zeros((len(x), w0.shape[1]))
    target[np.arange(len(x)), y] = 1.0
    step = RATE / max(1e-6, float(np.mean(np.sum(x * x, axis=1))))
    w, b = w0.copy(), b0.copy()
    for _ in range(STEPS):
        g = _softmax(x @ w + b) - target
        gw = x.T @ g / len(x) + L2 * (w - w0)
        gb = g.mean(axis=0)
        gw[:, EMPTY] = 0.0
        gb[EMPTY] = 0.0
        w -= step * gw
        b -= BIAS_RATE * gb
    return w, b


@dataclass(frozen=True, eq=False)
class EditionHead:
    """The CNN's last layer as fitted on an edition's tiles, and the net it was fitted on."""

    weights: F64
    biases: F64
    net: str

    def to_json(self) -> dict[str, Any]:
        """The profile's ``tiles.learned`` payload: the change to the tile columns (float16, base64)."""
        net = load_cnn()
        dw = (self.weights - np.asarray(net.out[0], np.float64))[:, :CLASSES].astype(np.float16)
        db = (self.biases - np.asarray(net.out[1], np.float64))[:CLASSES]
        return {"method": "fine-tuned last layer", "net": self.net, "shape": list(dw.shape),
                "delta_weights": base64.b64encode(dw.tobytes()).decode("ascii"),
                "delta_biases": [round(float(v), 4) for v in db]}

    @cached_property
    def cnn(self) -> SquareCnn:
        """The square CNN with this last layer."""
        return with_last_layer(self.weights, self.biases)

    def reading(self, crops: U8) -> F32:
        """(n, CLASSES) the fitted layer's reading of crops among the tile classes, in their four
        quarter turns averaged."""
        from vision.read.triolet.reader import turns_averaged

        p = turns_averaged(self.cnn.proba, crops)[:, :CLASSES].astype(np.float64)
        return np.asarray(p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12), np.float32)


def learn_head(crops: U8) -> EditionHead:
    """The edition's last layer fitted on its 17 crops (0–15, then the wild)."""
    w, b = fine_tune(crops)
    return EditionHead(w, b, net_digest())


def from_reference(ref: TileReference) -> EditionHead:
    """The edition's last layer from a profile's tiles section; ``ProfileError`` naming the field
    when it does not fit."""
    learned = ref.learned
    net = load_cnn()
    w0, b0 = np.asarray(net.out[0], np.float64), np.asarray(net.out[1], np.float64)
    try:
        raw = base64.b64decode(str(learned.get("delta_weights", "")), validate=True)
        dw = np.frombuffer(raw, np.float16).astype(np.float64).reshape(w0.shape[0], CLASSES)
    except (ValueError, binascii.Error):
        raise ProfileError(f"tiles.learned.delta_weights: expected {w0.shape[0]} × {CLASSES} float16 in base64 "
                           "(run: companion calibrate tiles --game triolet)") from None
    db = learned.get("delta_biases")
    if not isinstance(db, list) or len(db) != CLASSES or not all(isinstance(v, (int, float)) for v in db):
        raise ProfileError(f"tiles.learned.delta_biases: expected {CLASSES} numbers")
    if str(learned.get("net", "")) != net_digest():
        raise ProfileError("tiles.learned.net: the tiles were learnt with another version of the reader's net "
                           "(run again: companion calibrate tiles --game triolet)")
    w, b = w0.copy(), b0.copy()
    w[:, :CLASSES] += dw
    b[:CLASSES] += np.asarray(db, np.float64)
    return EditionHead(w, b, net_digest())


def apply_edition(probs: F32, crops: U8, edition: EditionHead) -> NDArray[np.intp]:
    """Combine in place, on the squares likely holding a tile (``MAX_EMPTY``), the split among the
    tile classes with the edition's layer's reading (``READER_WEIGHT``; their "empty" probability
    kept); returns those squares."""
    rows = np.flatnonzero(probs[:, EMPTY] < MAX_EMPTY)
    if not len(rows):
        return rows
    q = edition.reading(crops[rows]).astype(np.float64)
    p = probs[rows, :CLASSES].astype(np.float64)
    mass = p.sum(axis=1, keepdims=True)
    if READER_WEIGHT > 0:
        q = q * np.power(np.maximum(p / np.maximum(mass, 1e-12), 1e-12), READER_WEIGHT)
    probs[rows, :CLASSES] = (mass * q / np.maximum(q.sum(axis=1, keepdims=True), 1e-12)).astype(probs.dtype)
    return rows


_ACTIVE: list[EditionHead | None] = [None]


def use_edition(edition: EditionHead | None) -> None:
    """The edition every Triolet read in this process uses (``None``: none), for readers the
    caller does not build itself (the tracker's re-reads in ``replay`` and ``serve``)."""
    _ACTIVE[0] = edition


def active_edition() -> EditionHead | None:
    """The edition set by ``use_edition``."""
    return _ACTIVE[0]
