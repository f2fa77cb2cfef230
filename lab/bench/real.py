"""``companion bench real --game blokus|blokus_duo --dir DIR``: the square Blokus reader on labelled
photographs, and on the project's own renders.

``DIR`` holds ``NAME.txt`` truths (one line per board row from the top, one letter per square:
``R`` red, ``G`` green, ``B`` blue, ``Y`` yellow, ``P`` purple, ``O`` orange, ``W`` or ``.``
empty) and the pictures of each board as ``NAME.KIND.jpg`` (``raw``: the photo as taken;
``cropped``: the board straightened by hand) or ``NAME.jpg``. The truth is the board as seen
with the picture upright (EXIF orientation applied), so it is compared as-is: the reader names
squares from the board edge nearest the top of the picture (INTERFACES §3).

One row per picture (located, squares right, wrong squares, ms), totals per kind, and rows on
``--renders`` pictures from ``lab.render.blokus`` (seeded), normal and hard. Exit 2 if ``DIR`` holds no
labelled picture and no renders were asked for. ``--game triominos|trio_domino``: the tile reader on
hand-labelled tile photographs (``lab/bench/real_tiles.py``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import cv2

from companion_api.cli.common import CliError, seed_number
from companion_api.cli.text_table import format_table, machine_line

LETTERS: dict[str, str | None] = {"R": "red", "G": "green", "B": "blue", "Y": "yellow", "P": "purple",
                                  "O": "orange", "W": None, ".": None}
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=("blokus", "blokus_duo", "triominos", "trio_domino"), default="blokus")
    p.add_argument("--dir", metavar="DIR", help="labelled photographs (Blokus: NAME.txt + NAME[.KIND].jpg; "
                   "tile games: NAME.json + NAME.jpg, lab/bench/real_tiles.py)")
    p.add_argument("--renders", type=int, default=10,
                   help="rendered boards to read as well, normal and hard each (0: none)")
    p.add_argument("--seed", type=seed_number, default=0, help="first render seed")
    p.add_argument("--calibrate", action="store_true",
                   help="tile games: read each photo with a profile taught (calibrate tiles) by another photo "
                   "of its group (NAME_G_K: same G)")


def read_truth(path: Path) -> list[list[str | None]]:
    """A truth file as rows of colours (``None`` empty); ``CliError`` naming a bad letter or shape."""
    rows = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    n = len(rows)
    if n == 0 or any(len(r) != n for r in rows):
        raise CliError(f"{path}: expected {n} lines of {n} letters (a square board)")
    bad = {ch for r in rows for ch in r.upper() if ch not in LETTERS}
    if bad:
        raise CliError(f"{path}: unknown square letters {''.join(sorted(bad))} (use R G B Y P O, W for empty)")
    return [[LETTERS[ch] for ch in r.upper()] for r in rows]


def labelled_pictures(folder: Path) -> list[tuple[str, str, Path, Path]]:
    """``(name, kind, picture, truth)`` for every picture with a truth file beside it."""
    out = []
    for truth in sorted(folder.glob("*.txt")):
        stem = truth.name[:-4]
        for pic in sorted(folder.iterdir()):
            if pic.suffix.lower() not in IMAGE_SUFFIXES or not pic.name.startswith(stem + "."):
                continue
            middle = pic.name[len(stem) + 1: -len(pic.suffix)]
            if middle and "." in middle:
                continue
            out.append((stem, middle or "photo", pic, truth))
    return out


def score(image: Any, truth: list[list[str | None]], game: str) -> dict[str, Any]:
    """Read one picture and compare it with its truth."""
    from vision.read.blokus import BoardNotLocatedError, read_blokus

    n = len(truth)
    t0 = time.perf_counter()
    try:
        reading = read_blokus(image, game=game)
    except BoardNotLocatedError:
        return {"located": False, "ok": 0, "n": n * n, "ms": (time.perf_counter() - t0) * 1e3, "wrong": []}
    ms = (time.perf_counter() - t0) * 1e3
    got = reading.grid(n)
    wrong = [(r, c) for r in range(n) for c in range(n) if got[r][c] != truth[r][c]]
    return {"located": True, "ok": n * n - len(wrong), "n": n * n, "ms": ms, "wrong": wrong}


def _row(label: str, results: list[dict[str, Any]]) -> list[Any]:
    pics = len(results)
    located = sum(r["located"] for r in results)
    ok = sum(r["ok"] for r in results)
    n = sum(r["n"] for r in results)
    perfect = sum(r["located"] and not r["wrong"] for r in results)
    ms = sorted(r["ms"] for r in results)
    return [label, pics, f"{located}/{pics}", 100.0 * ok / max(1, n), f"{perfect}/{pics}",
            ms[len(ms) // 2] if ms else 0.0]


def run(args: argparse.Namespace) -> int:
    if args.game in ("triominos", "trio_domino"):  # the tile reader: lab/bench/real_tiles.py
        from lab.bench.real_tiles import run as run_tiles

        return run_tiles(args)
    from lab.render.blokus import render_blokus
    from vision.read.blokus.geometry import board_size, square_name
    from vision.sources import SourceError, read_image_file

    cv2.setNumThreads(1)
    size = board_size(args.game)
    pictures = []
    if args.dir:
        folder = Path(args.dir)
        if not folder.is_dir():
            raise CliError(f"--dir {args.dir}: no such folder")
        pictures = labelled_pictures(folder)
    if not pictures and args.renders <= 0:
        raise CliError(f"--dir {args.dir}: no labelled pictures (NAME.txt beside NAME[.KIND].jpg)")
    if args.renders < 0:
        raise CliError("--renders: a count of 0 or more")
    rows: list[list[Any]] = []
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for name, kind, pic, truth_path in pictures:
        truth = read_truth(truth_path)
        try:
            image = read_image_file(pic)
        except SourceError as exc:
            raise CliError(str(exc)) from None
        if len(truth) != size:
            raise CliError(f"{truth_path}: a {len(truth)}×{len(truth)} board, not {args.game}'s {size}×{size}")
        res = score(image, truth, args.game)
        by_kind.setdefault(kind, []).append(res)
        row = _row(f"{name} {kind} ({image.shape[1]}×{image.shape[0]})", [res])
        wrong = [square_name(c, r, size) for r, c in res["wrong"]]
        row.append(" ".join(wrong[:8]) + (" …" if len(wrong) > 8 else "") if res["located"] else "not located")
        rows.append(row)
    for kind, results in by_kind.items():
        rows.append([*_row(f"all {kind}", results), ""])
    for hard in (False, True) if args.renders > 0 else ():
        rendered = []
        for seed in range(args.seed, args.seed + args.renders):
            f = render_blokus(seed, args.game, hard=hard)
            rendered.append(score(f.image, f.truth, args.game))
        label = f"{'hard ' if hard else ''}renders (seeds {args.seed}–{args.seed + args.renders - 1})"
        rows.append([*_row(label, rendered), ""])
    heads = ["pictures", "n", "located", "squares right %", "perfect boards", "median ms", "wrong squares"]
    print(format_table(heads, rows, title=f"companion bench real --game {args.game}: square Blokus reader "
                       "vs labelled pictures (OpenCV on 1 thread)"))
    print(machine_line())
    return 0
