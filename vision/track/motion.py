"""Each cell's usual frame-to-frame flicker, learnt from quiet frames, as the threshold for motion."""

from __future__ import annotations

from collections import deque

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]


class NoiseFloor:
    """Per-cell motion threshold: 1, raised where frame-to-frame scores are usually high (printed
    coordinates on a board's border, compression noise on edges): 1 + 2 × their upper quartile over
    the last ``frames`` quiet frames (at most ``quiet_cells`` cells changed, none by 3×: no hand)."""

    def __init__(self, frames: int = 30, quiet_cells: int = 12) -> None:
        self.quiet_cells = quiet_cells
        self._scores: deque[F32] = deque(maxlen=frames)
        self.floor: F32 = np.ones((1, 1), np.float32)

    def clear(self) -> None:
        self._scores.clear()

    def update(self, score: F32) -> F32:
        """Learn from ``score`` (a frame-to-frame change map) if the frame is quiet; the floor now."""
        quiet = int((score > 1.0).sum()) <= self.quiet_cells and float(score.max()) < 3.0
        if quiet:  # flicker only, no hand: learn from this frame
            self._scores.append(np.minimum(score, 5.0))
        if len(self._scores) < 5:
            self.floor = np.ones_like(score)
        else:
            self.floor = (1.0 + 2.0 * np.percentile(np.stack(self._scores), 75, axis=0)).astype(np.float32)
        return self.floor
