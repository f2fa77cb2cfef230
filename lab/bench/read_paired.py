"""``companion bench read --game triolet --against DIR`` — this checkout's Triolet reader against
another checkout's (``DIR``: a clone, or ``git worktree add DIR COMMIT``) on the same rendered
frames, with the CPU time paired frame by frame.

A shared machine's speed drifts within minutes, so two runs minutes apart cannot be compared; here
two worker processes (one per checkout, one core and one BLAS thread each) read every frame in
the order A B B A, and the table gives each reader's median CPU ms, the ratio (median over frames
of this reader's time over the other's), and on how many frames both read exactly the same squares
(a change meant to save time only must keep that at 100 %). A second table scores both readings
of every frame as ``companion bench read`` does: each reader's perfect boards and squares read
right, and the boards only one of them reads perfectly (``--errors`` names their seeds): a change
of the reader is judged on the same frames, not on two samples.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

import numpy as np

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table, machine_line

#: The reader run by each worker: reads a frame file named on stdin, answers one JSON line (CPU ms
#: and the squares read) on stdout. Only ``read_triolet`` (in ``vision.read.triolet.reader``, or
#: ``vision.triolet.reader`` in older checkouts) and ``vision.locate.BoardNotLocatedError`` are assumed.
WORKER = """
import json, sys, time
import cv2, numpy as np
cv2.setNumThreads(1)
from vision.locate import BoardNotLocatedError
try:
    from vision.read.triolet.reader import read_triolet
except ImportError:
    from vision.triolet.reader import read_triolet
print("ready", flush=True)
for line in sys.stdin:
    image = np.load(line.strip())
    t = time.process_time()
    try:
        reading = read_triolet(image)
    except BoardNotLocatedError:
        reading = None
    ms = (time.process_time() - t) * 1e3
    cells = corners = None
    if reading is not None:
        cells = sorted([c.square, c.value, bool(c.wild), float(c.confidence)] for c in reading.cells)
        corners = [[float(x), float(y)] for x, y in reading.board.corners_px]
    print(json.dumps({"ms": ms, "cells": cells, "corners": corners}), flush=True)
"""


class _Worker:
    """One checkout's reader in its own process."""

    def __init__(self, root: Path, label: str, err: IO[str]) -> None:
        env = dict(os.environ, PYTHONPATH=str(root), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1")
        self.label = label
        self.err = err
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, env=env, cwd=tempfile.gettempdir())
        if self._line() != "ready":
            raise self._failed("did not start")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def _failed(self, what: str) -> CliError:
        self.err.seek(0)
        tail = self.err.read().strip().splitlines()[-3:]
        return CliError(f"{self.label}: the reader {what}" + (": " + " / ".join(tail) if tail else ""), 1)

    def read(self, frame_file: str) -> dict[str, Any]:
        """CPU ms and squares read of one frame file."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(frame_file + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise self._failed("stopped") from None
        line = self._line()
        if not line:
            raise self._failed("stopped")
        out: dict[str, Any] = json.loads(line)
        return out

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def checkout_root(path: str) -> Path:
    """The folder holding a checkout's ``vision`` package, or a ``CliError`` saying what is missing."""
    root = Path(path).expanduser().resolve()
    if not any((root / "vision" / where / "reader.py").is_file() for where in ("read/triolet", "triolet")):
        raise CliError(f"--against {path}: no Triolet reader there (expected vision/read/triolet/reader.py "
                       "in a checkout; "
                       "make one with: git worktree add DIR COMMIT)")
    return root


def run_paired(args: argparse.Namespace, size: tuple[int, int], rows: list[str]) -> int:
    """Render ``args.frames`` frames per row and read each with both checkouts; print the tables."""
    import vision
    from lab.bench.read import ROWS, row_first_seed

    other = checkout_root(args.against)
    here = Path(vision.__file__).resolve().parent.parent
    timing: list[list[Any]] = []
    scores: list[list[Any]] = []
    differ: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryFile("w+") as err_here, \
            tempfile.TemporaryFile("w+") as err_other:
        workers = [_Worker(here, "this checkout", err_here)]
        try:
            workers.append(_Worker(other, f"--against {args.against}", err_other))
            frame_file = str(Path(tmp) / "frame.npy")
            for row in (r for r in ROWS if r in rows):
                t, sc, d = _paired_row(args, size, row, row_first_seed(args.seed, row), workers, frame_file,
                                       warm_up=not timing)
                timing.append(t)
                scores.append(sc)
                differ += d
        finally:
            for w in workers:
                w.close()
    print(format_table(["row", "frames", "cpu ms (this)", "cpu ms (--against)", "ratio this/against",
                        "same reading"], timing,
                       title=f"companion bench read --game triolet --against {args.against} "
                             f"({size[0]}x{size[1]}, one core each, paired per frame A B B A)"))
    print()
    print(format_table(["row", "frames", "perfect % (this)", "perfect % (--against)", "per square % (this)",
                        "per square % (--against)", "perfect only here", "perfect only --against"], scores,
                       title="both readings of each frame scored (lab/evaluate/triolet.py)"))
    if getattr(args, "errors", False):
        for line in differ:
            print(line, file=sys.stderr)
    print(machine_line())
    return 0


def _percent(part: int, whole: int) -> float | str:
    """``part`` of ``whole`` in %, or "-" when there is nothing to count."""
    return round(100.0 * part / whole, 2) if whole else "-"


def _paired_row(args: argparse.Namespace, size: tuple[int, int], row: str, first_seed: int,
                workers: list[_Worker], frame_file: str, warm_up: bool
                ) -> tuple[list[Any], list[Any], list[str]]:
    """One row of each table (timing, scores) and the lines naming the frames only one reader reads
    perfectly: ``args.frames`` frames from ``first_seed`` on, each read by both workers in the order
    A B B A; with ``warm_up`` the first frame is read once before, untimed (models loaded, tables
    built)."""
    from lab.bench.read import render_with_timeout, row_style
    from lab.evaluate.triolet import score_cells
    from lab.render import random_frame

    diff, pool = row_style(row)
    ms: list[list[float]] = [[], []]
    same = skipped = 0
    perfect = [0, 0]
    correct = [0, 0]
    squares = [0, 0]
    only: list[list[int]] = [[], []]
    for i in range(args.frames):
        seed = first_seed + i
        fr = render_with_timeout(args.render_timeout, random_frame, "triolet", seed, diff, pool=pool, size=size)
        if fr is None:
            skipped += 1
            continue
        np.save(frame_file, fr.image)
        if warm_up:
            for w in workers:
                w.read(frame_file)
            warm_up = False
        got: list[list[dict[str, Any]]] = [[], []]
        for k in (0, 1, 1, 0):
            got[k].append(workers[k].read(frame_file))
        for k in (0, 1):
            ms[k].append(sum(g["ms"] for g in got[k]) / 2.0)
        read = [_squares_read(got[k][0]) for k in (0, 1)]
        same += int(read[0] == read[1])
        occluders = fr.masks.get("occluders")
        fine = []
        for k in (0, 1):
            g = got[k][0]
            cells = [{"square": c[0], "value": c[1], "wild": c[2], "confidence": c[3]} for c in g["cells"] or []]
            fs = score_cells(g.get("corners"), cells, fr.labels, occluders)
            perfect[k] += int(fs.perfect)
            correct[k] += fs.correct
            squares[k] += fs.squares
            fine.append(fs.perfect)
        if fine[0] != fine[1]:
            only[0 if fine[0] else 1].append(seed)
        print(f"\r{row}: {i + 1}/{args.frames} frames", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    n = len(ms[0])
    frames = n if not skipped else f"{n} (+{skipped} skipped)"
    differ = [f"{row} seed {s}: perfect only {who}" for who, seeds in (("here", only[0]), ("--against", only[1]))
              for s in seeds]
    if not n:
        return [row, frames, "-", "-", "-", "-"], [row, frames, "-", "-", "-", "-", 0, 0], differ
    ratio = float(np.median(np.array(ms[0]) / np.maximum(np.array(ms[1]), 1e-9)))
    timing = [row, frames, float(np.median(ms[0])), float(np.median(ms[1])), round(ratio, 3), f"{same}/{n}"]
    scores = [row, frames, _percent(perfect[0], n), _percent(perfect[1], n), _percent(correct[0], squares[0]),
              _percent(correct[1], squares[1]), len(only[0]), len(only[1])]
    return timing, scores, differ


def _squares_read(answer: dict[str, Any]) -> list[list[Any]] | None:
    """A worker's squares read (square, value, wild), confidences left out."""
    cells = answer.get("cells")
    return None if cells is None else [list(c[:3]) for c in cells]
