"""Square crops from renderer B's pictures (``lab/render/povray``, docs/RENDERER_B.md) for the Triolet
square nets; dev-time only::

    python3 -m lab.train.data_triolet_povray data --start 0 --count 250 \
        --cache /work/cache/i55mix/frames --out /work/cache/i55mix/b_0.npz

Frame ``i`` is renderer B's picture of seed ``POVRAY_TRAIN_SEED_BASE + i`` (3,000,000 on) drawn from
the **train** typeface group only: the held-out faces never reach training, and the seeds are
disjoint from every benchmark's (``companion bench read --renderer povray`` reads seeds ``--seed``
… ``--seed + frames``, from 0; the project renderer's training frames use 1,000,000–1,999,999).
Pictures are rendered at 1280×720 (the benchmark's size, so a square spans 25–45 px as when read)
or taken from ``--cache``.

Each picture is rectified at its **true** board corners (the labels' ``corners_px_view``), exactly as
the reader rectifies a located board (``vision.read.triolet.geometry.rectified_board``), so a board the
locator misses still gives its crops; the crops are the reader's ``square_crops``. Kept: every tile in
the picture, labelled with its value (``WILD`` for a wild; 6 and 9 by their true value, the count
digit and any bar as printed), and ``--empties`` empty squares per picture, labelled ``EMPTY``. The
file holds ``crops`` (n×56×56×3 BGR) and ``y`` like ``train_triolet_digits data``'s, plus ``seed``
and ``square`` (view name) per crop.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.locate import BoardLocation, units_to_image
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.features import square_crops
from vision.read.triolet.geometry import rectified_board

#: renderer-B training pictures use seeds from here up (benchmarks stay far below)
POVRAY_TRAIN_SEED_BASE = 3_000_000
#: the only typeface group training may draw from
TRAIN_GROUP = "train"
COLUMNS = "ABCDEFGHIJKLMNO"
SIZE = (1280, 720)
EMPTIES = 45

Crops = tuple[NDArray[np.uint8], NDArray[np.int64], list[str]]


def true_location(labels: dict[str, Any]) -> BoardLocation:
    """The board as the labels place it (view corners, INTERFACES §3 order), as a ``BoardLocation``."""
    corners = np.asarray(labels["board"]["corners_px_view"], np.float64)
    return BoardLocation(tuple((float(x), float(y)) for x, y in corners), units_to_image(corners), 1.0, {})


def frame_crops(image: NDArray[np.uint8], labels: dict[str, Any], empties: int = EMPTIES,
                rng: np.random.Generator | None = None) -> Crops:
    """The crops, labels and view square names of one labelled picture: every tile in the picture and
    ``empties`` empty squares drawn by ``rng`` (all of them when ``rng`` is ``None``)."""
    rect = rectified_board(image, true_location(labels))
    tiles: dict[tuple[int, int], int] = {}
    for c in labels["read"]["cells"]:
        sq = str(c["square"])
        tiles[(COLUMNS.index(sq[0]), int(sq[1:]) - 1)] = WILD if c["wild"] else int(c["value"])
    empty = [(c, r) for r in range(15) for c in range(15) if (c, r) not in tiles]
    if rng is not None:
        rng.shuffle(empty)
        empty = empty[:empties]
    picked = [*tiles.items(), *((sq, EMPTY) for sq in empty)]
    squares = [sq for sq, _ in picked]
    names = [f"{COLUMNS[c]}{r + 1}" for c, r in squares]
    return square_crops(rect, squares), np.array([y for _, y in picked], np.int64), names


def make_data(start: int, count: int, out: Path, cache: Path | None, size: tuple[int, int] = SIZE,
              empties: int = EMPTIES) -> int:
    """Render (or load from ``cache``) pictures ``start … start + count - 1`` and write their crops to
    ``out``; returns the number of crops."""
    from lab.render.povray import povray_frame

    xs: list[NDArray[np.uint8]] = []
    ys: list[NDArray[np.int64]] = []
    seeds: list[NDArray[np.int64]] = []
    names: list[str] = []
    t0 = time.time()
    for i in range(start, start + count):
        seed = POVRAY_TRAIN_SEED_BASE + i
        fr = povray_frame(seed, TRAIN_GROUP, size, cache=cache)
        crops, y, sq = frame_crops(fr.image, fr.labels, empties, np.random.default_rng(seed))
        xs.append(crops)
        ys.append(y)
        seeds.append(np.full(len(y), seed, np.int64))
        names += sq
        if (i - start + 1) % 25 == 0:
            print(f"data: {i - start + 1}/{count} pictures, {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
    y_all = np.concatenate(ys)
    np.savez(out, crops=np.concatenate(xs), y=y_all, seed=np.concatenate(seeds), square=np.array(names))
    print(f"{out}: {len(y_all)} crops ({int((y_all != EMPTY).sum())} tiles) from {count} pictures",
          file=sys.stderr)
    return len(y_all)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="render renderer-B training pictures and cut their square crops")
    d.add_argument("--start", type=int, default=0, help=f"first picture (seed {POVRAY_TRAIN_SEED_BASE:,} + start)")
    d.add_argument("--count", type=int, default=250)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--cache", type=Path, default=None, help="folder of cached renders (kept outside the repository)")
    d.add_argument("--empties", type=int, default=EMPTIES, help="empty squares kept per picture")
    a = ap.parse_args(argv)
    if a.start < 0 or a.count < 1 or a.empties < 0:
        ap.error("--start must be ≥ 0, --count ≥ 1 and --empties ≥ 0")
    make_data(a.start, a.count, a.out, a.cache, SIZE, a.empties)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
