"""What the tile-game training scripts share: their command line (``data``: render frames into a
file; ``train``: fit a net on such files) and the loop over the rendered training frames."""

from __future__ import annotations

import argparse
import json
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

#: renderer B's benchmark pictures use seeds from here up: the training data never takes them
B_BENCH_SEED = 500_000

MakeData = Callable[[int, int, Path], int]
#: ``(cache, start, count, out)``: cut examples from renderer B's cached pictures
MakeDataB = Callable[[Path, int, int, Path], int]
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


def b_frames(cache: Path, start: int, count: int) -> Iterator[tuple[Any, np.random.Generator]]:
    """Renderer B's cached tile pictures (``lab.render.povray.tiles``, both games) with seeds
    ``start … start + count - 1``, as ``RenderedFrame`` (picture and labels as cached), each with the
    generator that picks what to cut from it. Pictures of held-out typefaces and seeds from
    ``B_BENCH_SEED`` up (the benchmark's) are never taken."""
    import cv2

    from lab.render.frame import RenderedFrame
    from lab.render.povray.tiles import cached_frames

    if start < 0 or start + count > B_BENCH_SEED:
        raise ValueError(f"renderer B training seeds lie in 0 … {B_BENCH_SEED - 1}")
    rng = np.random.default_rng(start)
    for img_path, lab_path in cached_frames(cache):
        labels = json.loads(lab_path.read_text(encoding="utf-8"))
        if not start <= int(labels["seed"]) < start + count:
            continue
        if labels.get("style", {}).get("typeface_group", "-") not in ("-", "train"):
            continue
        img = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        yield RenderedFrame(image=np.asarray(img, np.uint8), labels=labels), rng


def run_cli(argv: list[str] | None, prog: str, doc: str, make_data: MakeData, train: Train, out: Path,
            epochs: int, seed: int, make_data_b: MakeDataB | None = None) -> int:
    """Parse ``argv`` and run ``make_data(start, count, out)`` (with ``--from-b DIR``:
    ``make_data_b(DIR, start, count, out)`` on renderer B's cached pictures, seeds ``start …``) or
    ``train(files, epochs, threads, seed, out, init)``."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="render frames and cut labelled training examples")
    d.add_argument("--start", type=int, default=0, help="first seed, after the training base")
    d.add_argument("--count", type=int, default=200, help="frames to render")
    d.add_argument("--out", type=Path, required=True)
    if make_data_b is not None:
        d.add_argument("--from-b", type=Path, default=None, metavar="DIR",
                       help="cut from renderer B's cached pictures in DIR (seeds start …) instead of rendering")
    t = sub.add_parser("train", help="train the net on data files (the last one is held back for validation)")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--epochs", type=int, default=epochs)
    t.add_argument("--threads", type=int, default=1, help="torch threads")
    t.add_argument("--seed", type=int, default=seed)
    t.add_argument("--out", type=Path, default=out)
    t.add_argument("--init", type=Path, default=None, metavar="NPZ", help="start from these exported weights")
    a = ap.parse_args(argv)
    if a.cmd == "data":
        if make_data_b is not None and a.from_b is not None:
            if not a.from_b.is_dir():
                ap.error(f"no such folder: {a.from_b}")
            if a.start < 0 or a.start + a.count > B_BENCH_SEED:
                ap.error(f"renderer B training seeds lie in 0 … {B_BENCH_SEED - 1}")
            return make_data_b(a.from_b, a.start, a.count, a.out)
        return make_data(a.start, a.count, a.out)
    missing = [str(p) for p in a.data if not p.exists()]
    if missing:
        ap.error(f"no such data file: {', '.join(missing)}")
    return train(a.data, a.epochs, a.threads, a.seed, a.out, a.init)
