"""``companion bench read --game triolet --cross`` — the cross-renderer table: the same pictures read
with each set of square nets, to see what training on one renderer does on the other.

Test sets: the project renderer's ``normal`` row (frame ``i``: seed ``--seed + 100000 + i``, the very
frames of ``bench read --rows normal``), and renderer B's pictures in the ``train`` and ``held-out``
typeface groups (frame ``i``: seed ``--seed + i``, the frames of ``--renderer povray``; ``--cache``
keeps them). Every test picture is rendered once and read by every net set.

Net sets (``--models DIR``): a folder holding any of ``NET_FILES`` (the square MLP, the square CNN and
the second CNN) is one set, named after the folder; otherwise each sub-folder that holds any is a
set, in name order. A file a set lacks is the committed one. Without ``--models``: the committed nets
alone. The hand nets (``cnn.HAND_CNN_PATHS``) stay the committed ones in every set.

Columns: ``located %``; ``per square %`` and ``per tile %`` (squares that hold a tile) over the located
boards (``lab.evaluate.triolet.score_frame`` scores squares only where the board was found);
``perfect %`` over all frames and ``perfect % of located`` over the located ones, so that a change of
the square nets shows apart from the locator's misses; the median read time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table, machine_line

#: The weight files a net set may hold (in ``vision/models`` for the committed set).
NET_FILES = ("triolet_squares.npz", "triolet_cnn.npz", "triolet_cnn_b.npz")
#: The test sets, in table order.
TESTS = ("A normal", "B train faces", "B held-out faces")


def net_sets(models: str | None) -> list[tuple[str, dict[str, Path]]]:
    """``(name, {file name: path})`` per net set in ``models`` (see the module docstring)."""
    from vision.nets import MODELS_DIR

    if models is None:
        return [("committed", {f: MODELS_DIR / f for f in NET_FILES})]
    root = Path(models)
    if not root.is_dir():
        raise CliError(f"--models {models}: not a folder")

    def files(d: Path) -> dict[str, Path]:
        return {f: d / f for f in NET_FILES if (d / f).is_file()}

    if files(root):
        found = [(root.name, files(root))]
    else:
        found = [(d.name, files(d)) for d in sorted(root.iterdir()) if d.is_dir() and files(d)]
    if not found:
        raise CliError(f"--models {models}: no net set there (a folder holding any of {', '.join(NET_FILES)})")
    return [(name, {f: have.get(f, MODELS_DIR / f) for f in NET_FILES}) for name, have in found]


@contextmanager
def using_nets(files: dict[str, Path]) -> Iterator[None]:
    """The reader uses ``files`` as its square MLP and CNNs inside the block (the committed ones after)."""
    from vision.read.triolet import classifier, cnn

    saved = classifier.MODEL_PATH, cnn.CNN_PATH, cnn.SECOND_CNN_PATH
    classifier.MODEL_PATH = files["triolet_squares.npz"]
    cnn.CNN_PATH = files["triolet_cnn.npz"]
    cnn.SECOND_CNN_PATH = files["triolet_cnn_b.npz"]
    classifier.load_model.cache_clear()
    cnn.load_cnn.cache_clear()
    try:
        yield
    finally:
        classifier.MODEL_PATH, cnn.CNN_PATH, cnn.SECOND_CNN_PATH = saved
        classifier.load_model.cache_clear()
        cnn.load_cnn.cache_clear()


def cross_frames(args: argparse.Namespace, size: tuple[int, int]) -> dict[str, list[Any]]:
    """The pictures of every test set (``RenderedFrame``), rendered once."""
    from lab.bench.read import row_first_seed, row_style
    from lab.render import random_frame
    from lab.render.povray import PovrayMissing, povray_frame

    diff, pool = row_style("normal")
    out: dict[str, list[Any]] = {t: [] for t in TESTS}
    first = row_first_seed(args.seed, "normal")
    out["A normal"] = [random_frame("triolet", first + i, diff, pool=pool, size=size) for i in range(args.frames)]
    try:
        for test, group in (("B train faces", "train"), ("B held-out faces", "held-out")):
            out[test] = [povray_frame(args.seed + i, group, size, cache=args.cache) for i in range(args.frames)]
    except PovrayMissing as exc:
        raise CliError(str(exc)) from None
    return out


def score_set(frames: list[Any]) -> list[Any]:
    """Read ``frames`` with the nets in use; the table's figures for them."""
    from lab.evaluate.triolet import score_frame
    from vision.locate import BoardNotLocatedError
    from vision.read.triolet.classifier import EMPTY
    from vision.read.triolet.reader import read_triolet

    n = located = squares = correct = perfect = tiles = tiles_ok = 0
    walls: list[float] = []
    for fr in frames:
        t0 = time.perf_counter()
        try:
            reading = read_triolet(fr.image)
        except BoardNotLocatedError:
            reading = None
        walls.append((time.perf_counter() - t0) * 1e3)
        fs = score_frame(reading, fr.labels, fr.masks.get("occluders"))
        n += 1
        squares += fs.squares
        correct += fs.correct
        perfect += int(fs.perfect)
        if fs.located:
            located += 1
            n_tiles = len(fr.labels["read"]["cells"])
            tiles += n_tiles
            tiles_ok += n_tiles - sum(1 for _, t, _, _ in fs.errors if t != EMPTY)

    def pct(a: int, b: int) -> Any:
        return 100.0 * a / b if b else "-"

    return [n, pct(located, n), pct(correct, squares), pct(tiles_ok, tiles), pct(perfect, n), pct(perfect, located),
            float(np.median(walls))]


HEADERS = ["nets", "tested on", "frames", "located %", "per square %", "per tile %", "perfect %",
           "perfect % of located", "median ms"]


def run_cross(args: argparse.Namespace, size: tuple[int, int]) -> int:
    """Read the test sets with every net set and print the cross-renderer table."""
    import cv2

    cv2.setNumThreads(1)
    if args.frames < 1:
        raise CliError("--frames must be at least 1")
    if args.calibration or args.against is not None:
        raise CliError("--cross measures the searching reader: it does not combine with --calibration or --against")
    sets = net_sets(args.models)
    frames = cross_frames(args, size)
    rows: list[list[Any]] = []
    for name, files in sets:
        with using_nets(files):
            for test in TESTS:
                rows.append([name, test, *score_set(frames[test])])
                print(f"{name} on {test}: done", file=sys.stderr, flush=True)
    print(format_table(HEADERS, rows, title=(
        f"companion bench read --game triolet --cross ({size[0]}x{size[1]}, one core; A: the project's renderer, "
        "B: renderer B (POV-Ray); nets from " + (args.models or "vision/models") + ")")))
    print(machine_line())
    return 0
