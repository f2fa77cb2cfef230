"""What the tile-game training scripts share: their command line (``data``: render frames into a
file; ``train``: fit a net on such files) and the loop over the rendered training frames."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

#: training frames use seeds from here up; the benchmarks' seeds stay below
TRAIN_SEED_BASE = 1_000_000
#: frame ``seed`` is rendered at ``DIFFICULTIES[seed % 4]``, the games alternating
DIFFICULTIES = ("easy", "normal", "normal", "hard")
GAMES = ("triominos", "trio_domino")

MakeData = Callable[[int, int, Path], int]
Train = Callable[[list[Path], int, int, int, Path, Path | None], int]


def tile_frames(start: int, count: int) -> Iterator[tuple[Any, np.random.Generator]]:
    """``count`` rendered Triominos / Trio Domino frames (``RenderedFrame``) from seed
    ``TRAIN_SEED_BASE + start``, each with the generator that picks what to cut from it; progress on
    stderr every 20 frames."""
    from lab.render.triangles import random_triangles_frame

    rng = np.random.default_rng(start)
    t0 = time.time()
    for i in range(count):
        seed = TRAIN_SEED_BASE + start + i
        yield random_triangles_frame(GAMES[i % 2], seed, DIFFICULTIES[seed % len(DIFFICULTIES)]), rng
        if (i + 1) % 20 == 0:
            each = (time.time() - t0) / (i + 1)
            print(f"data: {i + 1}/{count} frames ({each:.2f} s each)", file=sys.stderr, flush=True)


def run_cli(argv: list[str] | None, prog: str, doc: str, make_data: MakeData, train: Train, out: Path,
            epochs: int, seed: int) -> int:
    """Parse ``argv`` and run ``make_data(start, count, out)`` or
    ``train(files, epochs, threads, seed, out, init)``."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="render frames and cut labelled training examples")
    d.add_argument("--start", type=int, default=0, help="first seed, after the training base")
    d.add_argument("--count", type=int, default=200, help="frames to render")
    d.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train", help="train the net on data files (the last one is held back for validation)")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--epochs", type=int, default=epochs)
    t.add_argument("--threads", type=int, default=1, help="torch threads")
    t.add_argument("--seed", type=int, default=seed)
    t.add_argument("--out", type=Path, default=out)
    t.add_argument("--init", type=Path, default=None, metavar="NPZ", help="start from these exported weights")
    a = ap.parse_args(argv)
    if a.cmd == "data":
        return make_data(a.start, a.count, a.out)
    missing = [str(p) for p in a.data if not p.exists()]
    if missing:
        ap.error(f"no such data file: {', '.join(missing)}")
    return train(a.data, a.epochs, a.threads, a.seed, a.out, a.init)
