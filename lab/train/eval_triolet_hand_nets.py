"""Compare hand nets (``vision/read/triolet/hand_net.py``) on the reader, on pictures with a hand over
the board; dev-time only (no torch).

Renders normal Triolet frames (training styles, 1280×720, seeds from ``--seed``: the same pictures
as ``companion bench read --game triolet --rows normal`` renders from ``--seed`` minus its row
offset), keeps those with a hand over the board (the benchmark's ``hand over board``), and reads
each with every variant: the committed pair (``base``) and the nets named by ``--variant
NAME=PATH[+PATH…]`` (``base`` in a list stands for the committed pair; the nets of a variant are
averaged as the reader averages its pair). Prints, per variant, the boards read perfectly, the
wrong squares and the silent guesses, and the boards it gains and loses against ``base``::

    python3 -m lab.train.eval_triolet_hand_nets --seed 23000000 --count 3000 --workers 2 \\
        --variant wide=/tmp/wide.npz --variant mix=base+/tmp/wide.npz --jsonl /tmp/hands.jsonl

``--workers N`` reads N contiguous parts of the seed range in N processes (one core each) and
adds their scores up; the table is the one a single process prints.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import cv2

from lab.evaluate.triolet import hand_over_board, score_frame
from lab.render import random_frame
from lab.render.frame import RenderedFrame
from lab.render.holdout import training_pool
from vision.locate import BoardNotLocatedError
from vision.read.triolet import cnn as square_cnn
from vision.read.triolet.reader import read_triolet

BASE = "base"
SIZE = (1280, 720)


@dataclass
class VariantScore:
    """One variant's totals over the hand frames."""

    frames: int = 0
    wrong: int = 0
    guesses: int = 0
    perfect_seeds: set[int] = field(default_factory=set)

    @property
    def perfect(self) -> int:
        """Boards read perfectly."""
        return len(self.perfect_seeds)

    def add(self, other: VariantScore) -> None:
        """Add another part's totals to these."""
        self.frames += other.frames
        self.wrong += other.wrong
        self.guesses += other.guesses
        self.perfect_seeds |= other.perfect_seeds


def parse_variant(text: str) -> tuple[str, tuple[Path, ...]]:
    """``NAME=PATH[+PATH…]`` → (name, net paths); ``base`` among the paths is the committed pair."""
    name, sep, paths = text.partition("=")
    if not sep or not name or not paths:
        raise ValueError(f"expected NAME=PATH[+PATH...], got {text!r}")
    if name == BASE:
        raise ValueError(f"{BASE!r} is the committed pair; give the variant another name")
    out: list[Path] = []
    for part in paths.split("+"):
        if part == BASE:
            out.extend(square_cnn.HAND_CNN_PATHS)
            continue
        p = Path(part)
        if not p.is_file():
            raise ValueError(f"{name}: no such net file {part!r}")
        out.append(p)
    return name, tuple(out)


def hand_frames(seed: int, count: int) -> Iterator[tuple[int, RenderedFrame]]:
    """The frames among seeds ``seed`` … ``seed + count - 1`` with a hand over the board."""
    pool = training_pool()
    for s in range(seed, seed + count):
        fr = random_frame("triolet", s, "normal", pool=pool, size=SIZE)
        if hand_over_board(fr.labels, fr.masks.get("occluders")):
            yield s, fr


def compare(variants: dict[str, tuple[Path, ...]], seed: int, count: int,
            jsonl: Path | None = None, progress: bool = True) -> dict[str, VariantScore]:
    """Read the hand frames of ``count`` seeds from ``seed`` with each variant (name → net paths)."""
    scores = {name: VariantScore() for name in variants}
    committed = square_cnn.HAND_CNN_PATHS
    out = jsonl.open("a") if jsonl else None
    t0 = time.perf_counter()
    try:
        for n, (s, fr) in enumerate(hand_frames(seed, count), 1):
            rec: dict[str, object] = {"seed": s}
            for name, paths in variants.items():
                square_cnn.HAND_CNN_PATHS = paths
                try:
                    reading = read_triolet(fr.image)
                except BoardNotLocatedError:
                    reading = None
                fs = score_frame(reading, fr.labels, fr.masks.get("occluders"))
                sc = scores[name]
                sc.frames += 1
                sc.wrong += len(fs.errors)
                sc.guesses += len(fs.guesses)
                if fs.perfect:
                    sc.perfect_seeds.add(s)
                rec[name] = {"perfect": fs.perfect, "errors": [[str(x) for x in e] for e in fs.errors]}
            if out:
                out.write(json.dumps(rec) + "\n")
                out.flush()
            if progress and n % 25 == 0:
                print(f"{n} hand frames up to seed {s}, {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    finally:
        square_cnn.HAND_CNN_PATHS = committed
        if out:
            out.close()
    return scores


def split(seed: int, count: int, parts: int) -> list[tuple[int, int]]:
    """``count`` seeds from ``seed`` as up to ``parts`` contiguous (first seed, count) ranges."""
    parts = max(1, min(parts, count))
    step, extra = divmod(count, parts)
    out: list[tuple[int, int]] = []
    start = seed
    for i in range(parts):
        n = step + (1 if i < extra else 0)
        out.append((start, n))
        start += n
    return out


def _compare_part(variants: dict[str, tuple[Path, ...]], seed: int, count: int,
                  jsonl: Path | None) -> dict[str, VariantScore]:
    """One worker's part, on one core."""
    cv2.setNumThreads(1)
    return compare(variants, seed, count, jsonl)


def compare_parallel(variants: dict[str, tuple[Path, ...]], seed: int, count: int, workers: int,
                     jsonl: Path | None = None) -> dict[str, VariantScore]:
    """``compare`` over ``workers`` processes, each a contiguous part of the seeds; ``jsonl`` gets
    the parts' lines in seed order."""
    ranges = split(seed, count, workers)
    if len(ranges) == 1:
        return compare(variants, seed, count, jsonl)
    parts = [jsonl.with_name(f"{jsonl.name}.part{i}") if jsonl else None for i in range(len(ranges))]
    for part in parts:
        if part:
            part.unlink(missing_ok=True)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(len(ranges), mp_context=ctx) as pool:
        futures = [pool.submit(_compare_part, variants, s, n, part) for (s, n), part in zip(ranges, parts, strict=True)]
        results = [f.result() for f in futures]
    scores = {name: VariantScore() for name in variants}
    for result in results:
        for name, sc in result.items():
            scores[name].add(sc)
    if jsonl:
        with jsonl.open("a") as out:
            for part in parts:
                if part and part.exists():
                    out.write(part.read_text())
                    part.unlink()
    return scores


def table(scores: dict[str, VariantScore]) -> str:
    """The comparison as a Markdown table."""
    base = scores[BASE]
    lines = ["| variant | hand frames | perfect | % | wrong squares | silent guesses | +/- vs base |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for name, sc in scores.items():
        pct = 100.0 * sc.perfect / sc.frames if sc.frames else float("nan")
        delta = ("" if name == BASE else
                 f"+{len(sc.perfect_seeds - base.perfect_seeds)} -{len(base.perfect_seeds - sc.perfect_seeds)}")
        lines.append(f"| {name} | {sc.frames} | {sc.perfect} | {pct:.2f} | {sc.wrong} | {sc.guesses} | {delta} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line; prints the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--seed", type=int, required=True, help="first seed rendered")
    ap.add_argument("--count", type=int, default=1000, help="seeds rendered (about 38%% have a hand over the board)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=PATH[+PATH...]",
                    help="hand nets to compare with the committed pair (repeatable)")
    ap.add_argument("--jsonl", type=Path, default=None, help="append one line per hand frame here")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes, each reading a contiguous part of the seeds on one core (default 1)")
    args = ap.parse_args(argv)
    if args.count < 1:
        ap.error("--count must be at least 1")
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    variants: dict[str, tuple[Path, ...]] = {BASE: tuple(square_cnn.HAND_CNN_PATHS)}
    for text in args.variant:
        try:
            name, paths = parse_variant(text)
        except ValueError as exc:
            ap.error(str(exc))
        variants[name] = paths
    print(table(compare_parallel(variants, args.seed, args.count, args.workers, args.jsonl)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
