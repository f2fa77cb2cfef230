"""An edition's own tiles as exemplars (``companion calibrate tiles``): the reader compares each
square it reads as a tile with the 17 tiles of the players' own box (0–15 and a wild), photographed
once, and combines that with its nets' reading.

Each exemplar is the square CNN's penultimate layer (its 128 hidden units, ``embed``) of the
tile's crop in its four quarter turns. A square's crop, embedded upright, scores each class by
its best cosine similarity over that class's turns; ``softmax(score / temperature)`` is the
exemplars' reading, and the square's tile classes become ``p_net^NET_WEIGHT · p_exemplars``
(normalised, its "empty" probability kept). Why embeddings rather than a fine-tuned last layer:
one picture gives one tile per class, and a nearest-exemplar rule needs no training step, cannot
forget the faces the net knows, and stays small in the profile (17 × 4 × 128 bytes).

The temperature is fitted on the calibration picture itself (``fit_temperature``: the 17 crops
shifted, turned slightly and blurred, matched against the exemplars), so a score means what it
says on the picture it was learnt from.

The profile's ``tiles.learned`` (``EditionExemplars.to_json``) names the net whose hidden layer
it holds (``net``: a digest of its weight file): exemplars taken with another net cannot be
compared, and the profile is refused (``ProfileError``: calibrate again).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import ProfileError, TileReference
from vision.nets import conv3x3
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.cnn import CNN_PATH, SquareCnn, load_cnn, max_pool2, prepare

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

#: Tile classes (0–15 and the wild) an edition's picture shows, in its order.
CLASSES = WILD + 1
#: The nets' reading counts as ``p ** NET_WEIGHT`` against the exemplars' (1: as much; below: less).
NET_WEIGHT = 0.5
#: Squares whose "empty" probability is below this are compared with the exemplars.
MAX_EMPTY = 0.5
#: Temperatures ``fit_temperature`` chooses from, and the lowest it may pick (a floor against a
#: picture that matches itself too well).
TEMPERATURES = tuple(float(t) for t in np.geomspace(0.01, 0.5, 40))
MIN_TEMPERATURE = 0.02


def net_digest() -> str:
    """A digest of the square CNN's weight file (which hidden layer an exemplar is in)."""
    return _digest(str(CNN_PATH))


@lru_cache(maxsize=4)
def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()[:12]


def embed(crops: U8, cnn: SquareCnn | None = None) -> F32:
    """(n, 128) unit-length hidden-layer activations of the square CNN for 56 px BGR crops."""
    net = cnn or load_cnn()
    x = prepare(crops, net.in_size)
    for w, b in net.convs:
        x = np.maximum(max_pool2(conv3x3(x, w.reshape(3, 3, x.shape[3], -1), b)), 0.0)
    h = np.maximum(x.reshape(len(x), -1) @ net.hidden[0] + net.hidden[1], 0.0)
    return np.asarray(h / np.maximum(np.linalg.norm(h, axis=1, keepdims=True), 1e-6), np.float32)


def turned_embeddings(crops: U8, cnn: SquareCnn | None = None) -> F32:
    """(n, 4, 128): each crop's ``embed`` in its four quarter turns."""
    stack = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)])
    return np.ascontiguousarray(embed(np.ascontiguousarray(stack), cnn).reshape(4, len(crops), -1).transpose(1, 0, 2))


def scores(emb: F32, exemplars: F32) -> F32:
    """(n, CLASSES) best cosine similarity of each embedding with each class's turned exemplars."""
    return np.asarray(np.einsum("nd,ktd->nkt", emb, exemplars).max(axis=2), np.float32)


def softmax_t(s: F32, temperature: float) -> F32:
    z = s / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def augmented(crops: U8, rng: np.random.Generator) -> tuple[U8, NDArray[np.intp]]:
    """Crops shifted (±3 px), turned slightly (±4°), blurred and turned a quarter at random: what
    the same tiles look like on another square; and each one's class (its index in ``crops``)."""
    out, cls = [], []
    c = (crops.shape[2] / 2 - 0.5, crops.shape[1] / 2 - 0.5)
    for k, crop in enumerate(crops):
        for dx, dy in ((3, 0), (-3, 0), (0, 3), (0, -3), (2, 2), (-2, -2)):
            m = cv2.getRotationMatrix2D(c, float(rng.uniform(-4, 4)), float(rng.uniform(0.95, 1.05)))
            m[:, 2] += (dx, dy)
            a = cv2.warpAffine(crop, m, (crop.shape[1], crop.shape[0]), borderMode=cv2.BORDER_REPLICATE)
            a = cv2.GaussianBlur(a, (0, 0), float(rng.uniform(0.3, 1.0)))
            out.append(np.rot90(a, int(rng.integers(4))))
            cls.append(k)
    return np.ascontiguousarray(np.stack(out)), np.asarray(cls, np.intp)


def fit_temperature(crops: U8, exemplars: F32, seed: int = 0) -> float:
    """The temperature (``TEMPERATURES``, at least ``MIN_TEMPERATURE``) under which the exemplars'
    reading of ``augmented`` copies of the calibration crops has the least log loss."""
    aug, cls = augmented(crops, np.random.default_rng(seed))
    s = scores(embed(aug), exemplars)
    best, best_t = float("inf"), TEMPERATURES[-1]
    for t in TEMPERATURES:
        p = softmax_t(s, t)[np.arange(len(cls)), cls]
        loss = float(-np.log(np.maximum(p, 1e-9)).mean())
        if loss < best:
            best, best_t = loss, t
    return max(best_t, MIN_TEMPERATURE)


@dataclass(frozen=True)
class EditionExemplars:
    """What the reader keeps of an edition: exemplars (CLASSES, 4, 128), their temperature, the net."""

    exemplars: F32
    temperature: float
    net: str

    def to_json(self) -> dict[str, Any]:
        """The profile's ``tiles.learned`` payload: the embeddings as bytes (each vector scaled so
        its largest unit is 255: cosine similarity does not depend on the scale), in base64."""
        ex = np.asarray(self.exemplars, np.float64)
        q = np.round(255.0 * ex / np.maximum(ex.max(axis=2, keepdims=True), 1e-9))
        return {"method": "cnn-embedding", "net": self.net, "temperature": round(self.temperature, 4),
                "net_weight": NET_WEIGHT, "shape": list(ex.shape),
                "exemplars": base64.b64encode(np.clip(q, 0, 255).astype(np.uint8).tobytes()).decode("ascii")}

    def reading(self, crops: U8) -> F32:
        """(n, CLASSES) the exemplars' reading of crops (their tile classes)."""
        return softmax_t(scores(embed(crops), self.exemplars), self.temperature)


def from_reference(ref: TileReference) -> EditionExemplars:
    """The exemplars of a profile's tiles section; ``ProfileError`` naming the field when it does not fit."""
    learned = ref.learned
    arr: F32 | None
    try:
        raw = base64.b64decode(str(learned.get("exemplars", "")), validate=True)
        arr = np.frombuffer(raw, np.uint8).astype(np.float32).reshape(CLASSES, 4, -1)
    except (ValueError, binascii.Error):
        arr = None
    if arr is None or arr.size == 0:
        raise ProfileError(f"tiles.learned.exemplars: expected {CLASSES} × 4 embeddings "
                           "(run: companion calibrate tiles --game triolet)")
    t = learned.get("temperature")
    if not isinstance(t, (int, float)) or not t > 0:
        raise ProfileError(f"tiles.learned.temperature: expected a positive number, got {t!r}")
    net = str(learned.get("net", ""))
    if net != net_digest():
        raise ProfileError("tiles.learned.net: the tiles were learnt with another version of the reader's net "
                           "(run again: companion calibrate tiles --game triolet)")
    arr = arr / np.maximum(np.linalg.norm(arr, axis=2, keepdims=True), 1e-6)
    return EditionExemplars(np.asarray(arr, np.float32), float(t), net)


def apply_edition(probs: F32, crops: U8, edition: EditionExemplars) -> NDArray[np.intp]:
    """Combine in place, on the squares likely holding a tile (``MAX_EMPTY``), the nets' tile
    classes with the edition's exemplars' reading; returns the squares changed."""
    rows = np.flatnonzero(probs[:, EMPTY] < MAX_EMPTY)
    if not len(rows):
        return rows
    ex = edition.reading(crops[rows])
    p = probs[rows, :CLASSES].astype(np.float64)
    mass = p.sum(axis=1, keepdims=True)
    new = np.power(np.maximum(p / np.maximum(mass, 1e-12), 1e-12), NET_WEIGHT) * ex
    new = mass * new / np.maximum(new.sum(axis=1, keepdims=True), 1e-300)
    probs[rows, :CLASSES] = new.astype(probs.dtype)
    return rows


_ACTIVE: list[EditionExemplars | None] = [None]


def use_edition(edition: EditionExemplars | None) -> None:
    """The edition every Triolet read in this process compares tiles with (``None``: none), for
    readers the caller does not build itself (the tracker's re-reads in ``replay`` and ``serve``)."""
    _ACTIVE[0] = edition


def active_edition() -> EditionExemplars | None:
    """The edition set by ``use_edition``."""
    return _ACTIVE[0]
