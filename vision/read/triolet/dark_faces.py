"""Tiles with light ink on a dark face (black tiles, white numerals), which the square nets read empty.

The nets learnt tiles lighter than their ink; a black tile with white ink is to them a dark square
with marks, so they call it empty, often surely. Whether a square holds a tile must not depend on
the tile being lighter than the board: a square the nets call empty whose centre shows far more
structure (ink, a tile's top edges) than the board's plain squares is read again with its
brightness inverted, which turns a light-on-dark face into the dark-on-light faces the nets know.
Inverted, an empty square stays an empty square to the nets (a plain square, a special square's
label or frame), so a tile is taken only where the net is sure of one; its value is the inverted
reading's, flagged as unsure (``INVERTED_CONFIDENCE``): the nets never saw such faces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import PREMIUM
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.geometry import MARGIN, PITCH

F32 = NDArray[np.float32]
U8 = NDArray[Any]

#: A tile read from its inverted face gets at most this confidence (below the tracker's sure
#: threshold: the phone confirms it).
INVERTED_CONFIDENCE = 0.75
#: A square read empty whose centre shows ink that no reading explains (``structured``, not taken
#: by the inverted reading) is empty with at most this probability: a tile the nets cannot read
#: may lie there, and "empty" is then no sure answer.
EMPTY_DOUBT = 0.55
#: The core of a square whose structure is measured: this many px in from each side (of ``PITCH``).
CORE_INSET = 4


def square_structure(rect: U8) -> F32:
    """Per square (225, row by row), the grey-level standard deviation of its core in a rectified
    board (``geometry.rectified_board``): ink and a tile's edges raise it, a plain square's paint
    does not."""
    grey = cv2.cvtColor(np.ascontiguousarray(rect), cv2.COLOR_BGR2GRAY).astype(np.float32)
    o, n = round(MARGIN * PITCH), 15 * PITCH
    board = grey[o:o + n, o:o + n].reshape(15, PITCH, 15, PITCH)
    core = board[:, CORE_INSET:PITCH - CORE_INSET, :, CORE_INSET:PITCH - CORE_INSET]
    return np.asarray(core.std(axis=(1, 3)).reshape(-1), np.float32)


def structured(structure: F32, factor: float) -> NDArray[np.bool_]:
    """Squares whose core shows more than ``factor`` × the lower quartile of structure among the
    squares of their kind (plain, double, triple, replay: a kind's squares carry the same label),
    +2 grey levels (a flat board's noise): an empty square's while at most three quarters of a
    kind's squares hold tiles (a full game lays about 70 on 195 plain squares)."""
    ref = float(np.percentile(structure[~PREMIUM.reshape(-1)], 25)) + 2.0
    return np.asarray(structure > factor * ref, bool)


def read_inverted(probs: F32, crops: U8, net: Callable[[U8], F32], candidates: NDArray[np.intp],
                  turns: Callable[[Callable[[U8], F32], U8, F32], F32], max_empty: float) -> NDArray[np.intp]:
    """Squares ``candidates`` (indices into ``probs`` / ``crops``) read again with their brightness
    inverted by ``net``; where the reading averaged over the quarter turns (``turns``) gives
    "empty" less than ``max_empty`` (the net is sure a tile is there), it replaces the square's
    probabilities in place. The squares taken (indices)."""
    if not len(candidates):
        return np.zeros(0, np.intp)
    inverted = np.ascontiguousarray(255 - crops[candidates])
    first = net(inverted)
    keep = first[:, EMPTY] < max_empty * 4.0  # a first "empty" that high cannot average below the limit
    if not keep.any():
        return np.zeros(0, np.intp)
    idx = candidates[keep]
    acc = turns(net, inverted[keep], first[keep])
    sure = acc[:, EMPTY] < max_empty
    probs[idx[sure]] = unsure_values(acc[sure])
    return np.asarray(idx[sure], np.intp)


def unsure_values(probs: F32) -> F32:
    """Tile readings (n, 18) with their values made unsure and their occupancy kept: mixed with an
    even spread over the 17 tile classes so that no value is above ``INVERTED_CONFIDENCE`` + a
    seventeenth of the rest."""
    spread = np.full(probs.shape[1], 1.0 / EMPTY, np.float32)
    spread[EMPTY] = 0.0
    a = np.float32(INVERTED_CONFIDENCE)
    out = a * probs + (1 - a) * (1 - probs[:, EMPTY:EMPTY + 1]) * spread
    out[:, EMPTY] = probs[:, EMPTY]
    return np.asarray(out, np.float32)


def light_on_dark(probs: F32, rect: U8, crops: U8, net: Callable[[U8], F32],
                  turns: Callable[[Callable[[U8], F32], U8, F32], F32], *, factor: float, max_empty: float,
                  squares: Sequence[int] | None = None, skip: NDArray[np.bool_] | None = None
                  ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The light-on-dark pass (module docstring): among the squares read empty (``probs`` rows;
    ``squares``: their board indices when only some are read, else all 225) and not ``skip``ped
    (board indices: outside the picture, under a hand), those ``structured`` beyond ``factor`` are
    read inverted (``read_inverted``). The rows taken as tiles and the rows it did not take
    (indices into ``probs``): still empty, but not surely (``doubt_empties``, which the caller
    applies once every other step has read them)."""
    board = np.arange(225) if squares is None else np.asarray(squares, np.intp)
    busy = structured(square_structure(rect), factor)[board]
    if skip is not None:
        busy &= ~skip[board]
    rows = np.flatnonzero(busy & (probs[:, EMPTY] >= 0.5)).astype(np.intp)
    taken = read_inverted(probs, crops, net, rows, turns, max_empty)
    return taken, np.setdiff1d(rows, taken).astype(np.intp)


def doubt_empties(probs: F32, rows: NDArray[np.intp]) -> None:
    """Rows ``rows`` of ``probs`` read empty more surely than ``EMPTY_DOUBT`` get that much, the
    rest given to the 17 tile classes in the proportions the reading gave them (still read empty,
    no longer surely; its likeliest values stay its candidates), in place."""
    rows = np.asarray(rows, np.intp)
    over = rows[probs[rows, EMPTY] > EMPTY_DOUBT]
    if not len(over):
        return
    extra = probs[over, EMPTY] - np.float32(EMPTY_DOUBT)
    shares = probs[over, :EMPTY] + np.float32(1e-6)
    probs[over, :EMPTY] += extra[:, None] * shares / shares.sum(axis=1, keepdims=True)
    probs[over, EMPTY] = np.float32(EMPTY_DOUBT)
