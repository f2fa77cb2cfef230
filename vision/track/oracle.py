"""An observer that knows the truth: board and tiles from the renderer's per-frame labels.

It lets the tracker's logic be tested apart from the reader's accuracy. Misreads can be
injected: a :class:`Misread` makes a tile read as another token (with the truth as second
candidate), on every read or only until the tracker looks again (``effort`` > 0).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.track.layout import TRIOLET_LAYOUT, GridLayout, best_rotation, rotate_cell
from vision.track.observer import EMPTY, WILD, BoardFix, CellRead, Frame

Labels = dict[str, Any]
LabelSource = Callable[[int], Labels | None]


@dataclass(frozen=True)
class Misread:
    """Read the tile on ``square`` (board frame of the labels) as ``token`` with probability ``prob``.

    ``persistent``: the wrong token stays first on a closer look too (the tracker must then
    fall back to the next candidates); otherwise a closer look reads the truth.
    """

    square: str
    token: str
    prob: float = 0.6
    persistent: bool = True


@dataclass
class OracleObserver:
    """A :class:`~vision.track.observer.BoardObserver` over renderer labels."""

    labels_of: LabelSource
    misreads: Sequence[Misread] = ()
    #: chance per tile of a random systematic misread (decided by a hash of seed, square, value)
    misread_rate: float = 0.0
    seed: int = 0
    min_visible: float = 0.6
    layout: GridLayout = TRIOLET_LAYOUT
    game: str = "triolet"
    #: a real locator to use instead of the labels' corners (reads still come from the labels)
    locator: Callable[[Frame, BoardFix | None], BoardFix | None] | None = None
    calls: dict[str, int] = field(default_factory=lambda: {"locate": 0, "read": 0, "cells": 0})

    def locate(self, frame: Frame, hint: BoardFix | None = None) -> BoardFix | None:
        self.calls["locate"] += 1
        if self.locator is not None:
            return self.locator(frame, hint)
        labels = self.labels_of(frame.index)
        if labels is None:
            return None
        corners = labels["board"].get("corners_px_view") or labels["board"]["corners_px"]
        return BoardFix.from_corners(corners, self.layout.size, 1.0)

    def read(self, frame: Frame, fix: BoardFix, cells: Sequence[str], effort: int = 0) -> dict[str, CellRead]:
        self.calls["read"] += 1
        self.calls["cells"] += len(cells)
        labels = self.labels_of(frame.index)
        if labels is None:
            return {c: CellRead(c, ((EMPTY, 0.5),)) for c in cells}
        board_corners = np.asarray(labels["board"]["corners_px"], np.float64)
        # fix frame = label board frame turned q times
        q = best_rotation(board_corners, fix.corners_array())
        tiles: dict[str, dict[str, Any]] = {}
        for cell in labels.get("cells", []):
            tiles[rotate_cell(self.layout, cell["square"], q)] = cell
        out: dict[str, CellRead] = {}
        for name in cells:
            cell = tiles.get(name)
            if cell is None:
                out[name] = CellRead(name, ((EMPTY, 0.98), ("0", 0.02)))
                continue
            truth = WILD if cell.get("wild") else str(cell["value"])
            if float(cell.get("visible", 1.0)) < self.min_visible:
                out[name] = CellRead(name, ((EMPTY, 0.5), (truth, 0.5)))
                continue
            wrong = self._misread(cell["square"], truth, effort)
            if wrong is None:
                out[name] = CellRead(name, ((truth, 0.96), (_neighbour_token(truth), 0.03), (EMPTY, 0.01)))
            else:
                token, prob = wrong
                out[name] = CellRead(name, ((token, prob), (truth, max(0.0, 0.98 - prob)), (EMPTY, 0.02)))
        return out

    def _misread(self, square: str, truth: str, effort: int) -> tuple[str, float] | None:
        for m in self.misreads:
            if m.square == square and m.token != truth:
                if effort > 0 and not m.persistent:
                    return None
                return m.token, m.prob
        if self.misread_rate > 0:
            h = hashlib.sha256(f"{self.seed}:{square}:{truth}".encode()).digest()
            if h[0] / 256.0 < self.misread_rate:
                return _confusion(truth, h[1]), 0.55
        return None


def _neighbour_token(token: str) -> str:
    if token == WILD:
        return "0"
    v = int(token)
    return str(v + 1 if v < 15 else v - 1)


CONFUSIONS = {"6": "9", "9": "6", "1": "7", "7": "1", "3": "8", "8": "3", "5": "6", "11": "1", "13": "3",
              "10": "0", "0": "8", "wild": "0"}


def _confusion(truth: str, byte: int) -> str:
    if truth in CONFUSIONS and byte % 2 == 0:
        return CONFUSIONS[truth]
    v = 0 if truth == WILD else int(truth)
    return str((v + 1 + byte % 15) % 16)


def load_labels(path: str | Path) -> list[dict[str, Any]]:
    """A rendered video's labels, one JSON object per frame (``VIDEO.labels.jsonl``)."""
    with Path(path).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
