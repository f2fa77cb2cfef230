"""The square classifier: a one-hidden-layer MLP in numpy over ``features`` (no cv2.ml, no torch).

Classes 0–15 are tile values, 16 a wild (star), 17 an empty square. The weights live in
``vision/models/triolet_squares.npz`` (trained by ``lab/train/train_triolet_digits.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.triolet.tiles import VALUE_COUNTS, WILDS
from vision.nets import MODELS_DIR, load_weights, softmax

F32 = NDArray[np.float32]

WILD = 16
EMPTY = 17
N_CLASSES = 18
MODEL_PATH = MODELS_DIR / "triolet_squares.npz"


def tile_set_shares() -> F32:
    """The tile classes (0–15, 16 wild) as shares of the tile set (T-B3): what a tile of unknown
    value is likely to be."""
    counts = np.array([*VALUE_COUNTS, WILDS], np.float32)
    return np.asarray(counts / counts.sum(), np.float32)


def class_name(k: int) -> str:
    """``"0"``…``"15"``, ``"wild"``, ``"empty"``."""
    return "wild" if k == WILD else "empty" if k == EMPTY else str(k)


@dataclass(frozen=True)
class Mlp:
    """Standardise → ReLU hidden layer → softmax."""

    mean: F32
    scale: F32
    w1: F32
    b1: F32
    w2: F32
    b2: F32

    def logits(self, x: F32) -> F32:
        z = (x - self.mean) / self.scale
        h = np.maximum(z @ self.w1 + self.b1, 0.0)
        return np.asarray(h @ self.w2 + self.b2, np.float32)

    def proba(self, x: F32) -> F32:
        """Class probabilities, shape (n, 18)."""
        return softmax(self.logits(x))

    def save(self, path: Path) -> None:
        np.savez_compressed(path, mean=self.mean, scale=self.scale, w1=self.w1.astype(np.float16),
                            b1=self.b1, w2=self.w2.astype(np.float16), b2=self.b2)


class ModelMissingError(RuntimeError):
    """The committed model file is missing (train it with lab/train/train_triolet_digits.py)."""


@lru_cache(maxsize=2)
def load_model(path: str | None = None) -> Mlp:
    """The committed square classifier."""
    d = load_weights(Path(path) if path else MODEL_PATH, ModelMissingError, "model file",
                     "lab.train.train_triolet_digits")
    return Mlp(*(np.asarray(d[k], np.float32) for k in ("mean", "scale", "w1", "b1", "w2", "b2")))
