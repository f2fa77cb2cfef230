"""A third look at the squares a hand touches, by nets that have seen many of them.

The two square nets learnt from every kind of crop; tiles partly under a hand were about one crop
in seven of their training. The hand nets (``cnn.HAND_CNN_PATHS``) are those two nets fine-tuned on
pictures that all have a hand over the board: 13,300 tiles partly under a hand with at least half
their printed marks in view (given twice), 20,000 empty squares under hands and the clear squares
of the same pictures (``lab/train/data_triolet_hand_scenes.py``; the training command is in
``lab/train/train_triolet_cnn.py``'s docstring). On the squares a hand touches that may hold a
tile, their reading (each net in the four quarter turns, the two averaged) takes the place of what
the two nets and the closer look read before (``HAND_NET_WEIGHT``: the share it gets).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from vision.read.triolet.classifier import EMPTY

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

#: Squares a hand touches are read again when their "empty" probability is below this.
HAND_NET_BELOW_EMPTY = 0.9
#: Share of the hand net's reading in the square's new probabilities (the rest: the reading before).
HAND_NET_WEIGHT = 1.0


def reread_under_hands(probs: F32, crops: U8, touched: NDArray[np.bool_],
                       read: Callable[[U8], F32], weight: float = HAND_NET_WEIGHT) -> NDArray[np.intp]:
    """Mix, in place, ``read``'s reading (the hand nets') into the
    rows of ``probs`` that are ``touched`` (225 flags) and may hold a tile (``HAND_NET_BELOW_EMPTY``);
    returns the rows read."""
    rows = np.flatnonzero(np.asarray(touched, bool).reshape(-1) & (probs[:, EMPTY] < HAND_NET_BELOW_EMPTY))
    if len(rows) and weight > 0:
        probs[rows] = (weight * read(crops[rows]) + (1.0 - weight) * probs[rows]).astype(probs.dtype)
    return rows
