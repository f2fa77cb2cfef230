"""Shared helpers for the Trigon / triangle-tile picture reader tests (area ``othersreader``):
rendered frames cached per (game, seed, difficulty), and label look-ups."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray


@lru_cache(maxsize=16)
def trigon_frame(seed: int, difficulty: str = "easy") -> tuple[NDArray[np.uint8], dict[str, Any]]:
    """A rendered Trigon picture and its labels."""
    from lab.render.trigon import random_trigon_frame

    f = random_trigon_frame(seed, difficulty)
    return f.image, f.labels


@lru_cache(maxsize=16)
def tiles_frame(game: str, seed: int, difficulty: str = "easy") -> tuple[NDArray[np.uint8], dict[str, Any]]:
    """A rendered Triominos / Trio Domino picture and its labels."""
    from lab.render.triangles import random_triangles_frame

    f = random_triangles_frame(game, seed, difficulty)
    return f.image, f.labels


def true_corners(labels: dict[str, Any]) -> list[NDArray[np.float64]]:
    """Each labelled tile's three corners (px), M-B3 order."""
    return [np.array([c["px"] for c in t["corners"]], np.float64) for t in labels["tiles"]]


def cell_accuracy(read_cells: dict[str, str], labels: dict[str, Any]) -> float:
    """Share of the board's triangles whose read state (colour or empty) equals the labels' view."""
    from vision.read.trigon.geometry import board_cells, cell_name

    side = int(labels["board"]["side"])
    truth = {c["cell"]: c["colour"] for c in labels["read"]["cells"]}
    names = [cell_name(c, side) for c in board_cells(side)]
    return sum(truth.get(n) == read_cells.get(n) for n in names) / len(names)
