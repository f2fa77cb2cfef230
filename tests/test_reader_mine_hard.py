"""Hard-example mining for the square CNN: a crop read wrong, or right but unsure (four quarter
turns averaged), is hard; a crop read right and surely is not."""

from __future__ import annotations

from typing import cast

import numpy as np
from numpy.typing import NDArray

from lab.train.mine_triolet_hard import hard_mask
from vision.read.triolet.classifier import N_CLASSES
from vision.read.triolet.cnn import SquareCnn


class _ByBrightness:
    """A stand-in net: class 3 for a dark crop, 5 for a light one, 3 vs 5 at 60/40 for grey."""

    def proba(self, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
        out = np.zeros((len(crops), N_CLASSES), np.float32)
        for i, c in enumerate(crops):
            m = float(c.mean())
            out[i, 3], out[i, 5] = (1.0, 0.0) if m < 80 else (0.0, 1.0) if m > 170 else (0.6, 0.4)
        return out


def test_reader_mine_hard_wrong_and_unsure_crops() -> None:
    crops = np.stack([np.full((56, 56, 3), v, np.uint8) for v in (20, 20, 240, 128)])
    y = np.array([3, 5, 5, 3])  # right and sure, wrong, right and sure, right but at 0.6
    net = cast(SquareCnn, _ByBrightness())
    assert hard_mask(net, crops, y).tolist() == [False, True, False, True]
    assert hard_mask(net, crops, y, below=0.5).tolist() == [False, True, False, False]
