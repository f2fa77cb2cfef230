"""How sure the reader must be that a tile lies on a square a hand touches.

The nets' tile probability is calibrated on squares in view. Where a hand lies over a square, at
its edge or across its face (``reader.hand_squares``, ``occluded_tiles``), a finger's edge and its
shadow look like a tile's edge to them: on 4,000 dev frames (seeds 10,800,000–10,803,999), of the
squares a hand touched that the nets gave a tile probability of 0.5–0.6, 32 % held a tile; of
0.6–0.7, 50 %; of 0.7–0.8, 69 %. So there the odds of a tile are scaled by ``HAND_TILE_ODDS``: a
square a hand touches is read as a tile from a probability of 0.7, elsewhere from 0.5.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.read.triolet.classifier import EMPTY

F32 = NDArray[np.float32]

#: Factor on the odds that a square a hand touches holds a tile (3/7: 0.7 becomes 0.5; 1: no change).
HAND_TILE_ODDS = 3.0 / 7.0


def doubt_tiles_under_hands(probs: F32, touched: NDArray[np.bool_], odds: float = HAND_TILE_ODDS) -> None:
    """Scale, in place, the odds that each ``touched`` square (225 flags, row by row) holds a tile
    by ``odds``: its "empty" probability grows, its tile classes shrink in proportion (their
    ranking is kept)."""
    rows = np.flatnonzero(np.asarray(touched, bool).reshape(-1))
    if len(rows) == 0 or odds == 1.0:
        return
    p_tile = 1.0 - probs[rows, EMPTY].astype(np.float64)
    scaled = p_tile * odds / (p_tile * odds + (1.0 - p_tile))
    factor = scaled / np.maximum(p_tile, 1e-12)  # 0 where there is no tile probability to scale
    probs[rows, :EMPTY] = (probs[rows, :EMPTY] * factor[:, None]).astype(probs.dtype)
    probs[rows, EMPTY] = (1.0 - scaled).astype(probs.dtype)
