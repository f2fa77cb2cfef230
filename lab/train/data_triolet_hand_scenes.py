"""Crops for the hand net (``vision/read/triolet/hand_net.py``): normal pictures that all have a hand over
the board; dev-time only.

Per picture (training styles, seeds ``holdout.TRAIN_SEED_BASE + i``, normal difficulty with one or
two hands always): the tiles a hand partly covers (over 15 % of the square) with at least 40 % of the
tile and half its printed marks in view, labelled with their values; the empty squares a hand
covers (over 5 %), of which 1.5 per such tile are kept (``--empties-per-tile``); and the clear
squares (every tile no hand covers, up to 12 empty squares). Writes ``c_h<start>.npz`` (clear: the
training script's ``c_`` files, every 19th of them held back for validation) and
``ts_h<start>.npz`` (under hands) into ``--out``::

    python3 -m lab.train.data_triolet_hand_scenes --start 600000 --count 500 --out /tmp/hands
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from lab.cli.render import picture_size
from lab.render import difficulty as render_difficulty
from lab.render import random_frame
from lab.render.holdout import TRAIN_SEED_BASE, training_pool
from lab.train.train_triolet_digits import rectified_with_occluders
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.features import square_crops
from vision.read.triolet.geometry import MARGIN, PITCH

COLUMNS = "ABCDEFGHIJKLMNO"
Samples = tuple[list[tuple[tuple[int, int], int]], list[tuple[tuple[int, int], int]]]


def hand_scene_samples(seed: int, board_fill: tuple[float, float] | None = None,
                       size: tuple[int, int] | None = None) -> tuple[NDArray[np.uint8], Samples] | None:
    """The rectified board of one picture with a hand over it and its (square, label) samples: the
    clear ones and those under a hand; ``None`` when the locator misses the board. ``board_fill``
    (board side / the picture's shorter side) and ``size`` (W, H) replace the normal preset's
    ranges: small, far boards."""
    presets = render_difficulty.DIFFICULTIES
    normal = presets["normal"]
    presets["normal"] = replace(normal, hand_prob=1.0, hands=(1, 2), board_fill=board_fill or normal.board_fill)
    try:
        fr = random_frame("triolet", seed, "normal", pool=training_pool(), size=size)
    finally:
        presets["normal"] = normal
    found = rectified_with_occluders(fr)
    if found is None:
        return None
    rect, occ = found

    def covered(sq: tuple[int, int]) -> float:
        x0, y0 = round((MARGIN + sq[0]) * PITCH), round((MARGIN + sq[1]) * PITCH)
        return float(occ[y0:y0 + PITCH, x0:x0 + PITCH].mean()) / 255.0

    labels = {(COLUMNS.index(c["square"][0]), int(c["square"][1:]) - 1): WILD if c["wild"] else int(c["value"])
              for c in fr.labels["read"]["cells"]}
    seen = {c["square_view"]: (float(c.get("visible", 1.0)), float(c.get("marks_visible", 1.0)))
            for c in fr.labels["cells"]}
    empties = [(c, r) for r in range(15) for c in range(15) if (c, r) not in labels]
    np.random.default_rng(seed).shuffle(empties)
    clear: list[tuple[tuple[int, int], int]] = []
    hand: list[tuple[tuple[int, int], int]] = []
    for sq, y in labels.items():
        top, marks = seen.get(f"{COLUMNS[sq[0]]}{sq[1] + 1}", (1.0, 1.0))
        if covered(sq) <= 0.15:
            clear.append((sq, y))
        elif top >= 0.4 and marks >= 0.5:
            hand.append((sq, y))
    hand += [(e, EMPTY) for e in empties if covered(e) > 0.05]
    clear += [(e, EMPTY) for e in empties[:30] if covered(e) <= 0.15][:12]
    return rect, (clear, hand)


def make_hand_scenes(start: int, count: int, out: Path, empties_per_tile: float = 1.5,
                     board_fill: tuple[float, float] | None = None, size: tuple[int, int] | None = None
                     ) -> tuple[int, int]:
    """Render ``count`` pictures from ``start`` and write their crop files; (clear, hand) counts."""
    xc: list[NDArray[np.uint8]] = []
    yc: list[NDArray[np.int64]] = []
    xh: list[NDArray[np.uint8]] = []
    yh: list[NDArray[np.int64]] = []
    t0, skipped = time.time(), 0
    for i in range(start, start + count):
        res = hand_scene_samples(TRAIN_SEED_BASE + i, board_fill, size)
        if res is None:
            skipped += 1
            continue
        rect, sets = res
        for (xs, ys), samples in zip(((xc, yc), (xh, yh)), sets, strict=True):
            if samples:
                xs.append(square_crops(rect, [sq for sq, _ in samples]))
                ys.append(np.array([y for _, y in samples], np.int64))
        if (i - start) % 50 == 0:
            print(f"picture {i - start}/{count} {time.time() - t0:.0f}s, {skipped} without a board found",
                  file=sys.stderr, flush=True)
    out.mkdir(parents=True, exist_ok=True)
    x, y = np.concatenate(xh), np.concatenate(yh)
    tiles, empty = np.flatnonzero(y != EMPTY), np.flatnonzero(y == EMPTY)
    rng = np.random.default_rng(start)
    keep = np.sort(np.concatenate([tiles, rng.choice(empty, min(len(empty), int(empties_per_tile * len(tiles))),
                                                     replace=False)]))
    np.savez(out / f"c_h{start}.npz", crops=np.concatenate(xc), y=np.concatenate(yc))
    np.savez(out / f"ts_h{start}.npz", crops=x[keep], y=y[keep])
    return sum(len(v) for v in yc), len(keep)


def _fill_range(text: str) -> tuple[float, float]:
    """An argparse type: a board-fill range "LO,HI" (positive, low first)."""
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two numbers joined by ',', got {text!r}") from None
    if lo <= 0 or hi <= 0 or lo > hi:
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive numbers, low first")
    return lo, hi


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--start", type=int, required=True, help="first picture (seed holdout.TRAIN_SEED_BASE + start)")
    ap.add_argument("--count", type=int, default=500, help="pictures")
    ap.add_argument("--out", type=Path, required=True, help="folder for c_h<start>.npz and ts_h<start>.npz")
    ap.add_argument("--empties-per-tile", type=float, default=1.5,
                    help="empty squares under hands kept per tile under a hand")
    ap.add_argument("--board-fill", type=_fill_range, default=None, metavar="LO,HI",
                    help="board side / the picture's shorter side, drawn in this range (default: the normal "
                         "preset's 0.55,0.95; 0.42,0.64 at 1280x720: squares of about 19-27 px)")
    ap.add_argument("--size", type=picture_size, default=None, metavar="WxH",
                    help="picture size (default: the preset's, 1280x720 or 1920x1080)")
    a = ap.parse_args(argv)
    n_clear, n_hand = make_hand_scenes(a.start, a.count, a.out, a.empties_per_tile, a.board_fill, a.size)
    print(f"{a.out}: {n_clear} clear crops, {n_hand} under hands", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
