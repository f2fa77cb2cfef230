"""Pick the crops a square CNN gets wrong or is unsure of (hard-example mining), for fine-tuning.

    python3 -m lab.train.mine_triolet_hard /tmp/hard_a.npz /tmp/c_82000.npz /tmp/t_84000.npz

Each crop file (``train_triolet_digits data``) is read by the CNN (default: the committed
``triolet_cnn.npz``; ``--cnn`` another) in its four quarter turns, averaged, as the reader does;
the crops whose most probable class is wrong, or below ``--below``, go to the output file (same
format: ``crops``, ``y``). ``train_triolet_cnn`` then takes that file, repeated to weigh it.
Dev-time only; needs only numpy (the CNN runs as at run time).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.read.triolet.classifier import N_CLASSES
from vision.read.triolet.cnn import SquareCnn, load_cnn
from vision.read.triolet.reader import turns_averaged

#: A crop whose top probability (four turns averaged) is below this counts as hard.
BELOW = 0.9


def hard_mask(net: SquareCnn, crops: NDArray[np.uint8], y: NDArray[np.int64], below: float = BELOW
              ) -> NDArray[np.bool_]:
    """Which crops ``net`` reads wrong, or right with less than ``below`` (averaged over the
    reader's quarter turns, ``reader.turns_averaged``)."""
    p = turns_averaged(net.proba, crops)
    return np.asarray((p.argmax(axis=1) != y) | (p.max(axis=1) < below), bool)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, help="output crop file (.npz)")
    ap.add_argument("data", type=Path, nargs="+", help="crop files (train_triolet_digits data)")
    ap.add_argument("--cnn", type=Path, default=None, help="CNN weights (default: the committed triolet_cnn.npz)")
    ap.add_argument("--below", type=float, default=BELOW, help="top probability under which a crop is hard")
    a = ap.parse_args(argv)
    net = load_cnn(str(a.cnn) if a.cnn else None)
    xs, ys = [], []
    for path in a.data:
        with np.load(path) as d:
            crops, y = np.asarray(d["crops"], np.uint8), np.asarray(d["y"], np.int64)
        hard = hard_mask(net, crops, y, a.below)
        print(f"{path}: {len(y)} crops, {int(hard.sum())} hard", file=sys.stderr)
        xs.append(crops[hard])
        ys.append(y[hard])
    y_all = np.concatenate(ys)
    np.savez(a.out, crops=np.concatenate(xs), y=y_all)
    print(f"{a.out}: {len(y_all)} crops, per class {np.bincount(y_all, minlength=N_CLASSES).tolist()}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
