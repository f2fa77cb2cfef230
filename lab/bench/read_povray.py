"""``companion bench read --game triolet --renderer povray`` — the reader on renderer B's pictures
(``lab/render/povray``: ray-traced 3D tiles, other editions, lights and typefaces; docs/RENDERER_B.md).

One row per typeface group asked for (``--faces train``, ``held-out`` or ``all``; ``train`` is the
faces a reader may be trained on, ``held-out`` the faces kept out of training), the same columns
as the project renderer's rows, then the rows by typeface and the reliability table. Frame ``i``
of a row uses seed ``--seed + i``; ``--cache DIR`` keeps the renders (keyed by seed and settings).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from typing import Any

import numpy as np

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table, machine_line
from lab.bench.reliability import HEADERS as REL_HEADERS
from lab.bench.reliability import TITLE as REL_TITLE
from lab.bench.reliability import reliability_rows


def _name(cls: int, wild: int, empty: int) -> str:
    return "wild" if cls == wild else ("empty" if cls == empty else str(cls))


def face_groups(args: argparse.Namespace) -> list[str]:
    """The typeface groups of ``--faces`` (``CliError`` naming an unknown or empty one, or ``--frames`` < 1)."""
    from lab.render.povray import GROUPS, faces

    groups = [g.strip() for g in args.faces.split(",") if g.strip()]
    for g in groups:
        if g not in GROUPS:
            raise CliError(f"--faces: unknown typeface group {g!r} (choose from {', '.join(GROUPS)})")
        try:
            faces(g)
        except ValueError as exc:
            raise CliError(f"--faces {g}: {exc}") from None
    if args.frames < 1:
        raise CliError("--frames must be at least 1")
    return groups


def run_povray(args: argparse.Namespace, size: tuple[int, int]) -> int:
    """Read ``--frames`` renderer-B pictures per typeface group and print the tables."""
    import cv2

    from lab.evaluate.triolet import CAUSES, score_frame
    from lab.render.povray import PovrayMissing, povray_frame
    from lab.render.povray.render import frame_style
    from vision.locate import BoardNotLocatedError
    from vision.read.triolet.classifier import EMPTY, WILD
    from vision.read.triolet.reader import read_triolet

    cv2.setNumThreads(1)
    groups = face_groups(args)
    if args.calibration or args.against is not None:
        raise CliError("--renderer povray measures the searching reader: it does not combine with "
                       "--calibration or --against")
    table: list[list[Any]] = []
    why: list[list[Any]] = []
    by_face: dict[tuple[str, str], list[Any]] = {}
    by_look: dict[tuple[str, str], list[int]] = {}  # (edition, tile set) → frames, located, perfect
    rel: list[list[Any]] = []
    render_s: list[float] = []
    crashed: list[int] = []
    for group in groups:
        row = f"povray {group}"
        n = located = squares = correct = perfect = tiles = tiles_ok = phantoms = 0
        causes: Counter[str] = Counter()
        walls: list[float] = []
        corner_errs: list[float] = []
        readings: list[tuple[float, bool]] = []
        for i in range(args.frames):
            seed = args.seed + i
            t0 = time.perf_counter()
            try:
                fr = povray_frame(seed, group, size, cache=args.cache)
            except PovrayMissing as exc:
                raise CliError(str(exc)) from None
            render_s.append(time.perf_counter() - t0)
            n += 1
            t1 = time.perf_counter()
            try:
                reading = read_triolet(fr.image)
            except BoardNotLocatedError:
                reading = None
            except Exception as exc:  # a reader bug: counted as not located, the run goes on
                reading = None
                crashed.append(seed)
                print(f"{row} seed {seed}: the reader failed ({type(exc).__name__}: {exc}); counted as not located",
                      file=sys.stderr)
            walls.append((time.perf_counter() - t1) * 1e3)
            fs = score_frame(reading, fr.labels)
            n_tiles = len(fr.labels["read"]["cells"])
            bad_tiles = sum(1 for _, t, g, _ in fs.errors if t != EMPTY)
            if fs.located:
                located += 1
                corner_errs.append(fs.corner_err_px)
                tiles += n_tiles
                tiles_ok += n_tiles - bad_tiles
                phantoms += sum(1 for _, t, _, _ in fs.errors if t == EMPTY)
            squares += fs.squares
            correct += fs.correct
            perfect += int(fs.perfect)
            readings += fs.readings
            if fs.cause:
                causes[fs.cause] += 1
            face = str(fr.labels["style"]["typeface"])
            style = frame_style(fr.labels)
            st = by_face.setdefault((group, face), [0, 0, 0, 0, style["typeface_style"], 0])
            st[0] += 1
            st[1] += int(fs.perfect)
            st[2] += n_tiles if fs.located else 0
            st[3] += (n_tiles - bad_tiles) if fs.located else 0
            st[5] += int(fs.located)
            look = by_look.setdefault((str(style["edition"]), str(style.get("tiles", "-"))), [0, 0, 0])
            look[0] += 1
            look[1] += int(fs.located)
            look[2] += int(fs.perfect)
            if args.errors:
                for sq, t, g, conf in fs.errors:
                    print(f"{row} seed {seed} {sq} ({face}): truth {_name(t, WILD, EMPTY)} read "
                          f"{_name(g, WILD, EMPTY)} conf {conf:.2f}",
                          file=sys.stderr)
                if not fs.located:
                    print(f"{row} seed {seed}: board not located", file=sys.stderr)
        table.append([row, n, 100.0 * located / n, float(np.median(corner_errs)) if corner_errs else float("nan"),
                      100.0 * correct / max(1, squares), 100.0 * tiles_ok / max(1, tiles), phantoms,
                      100.0 * perfect / n, float(np.median(walls)), float(np.percentile(walls, 95))])
        why.append([row, n - perfect, *(causes[c] for c in CAUSES)])
        rel += reliability_rows(row, readings)
    print(format_table(
        ["row", "frames", "located %", "corner err px", "per square %", "per tile %", "phantom tiles", "perfect %",
         "median ms", "p95 ms"], table,
        title=f"companion bench read --game triolet --renderer povray ({size[0]}x{size[1]}, one core)"))
    print()
    print(format_table(["row", "imperfect", *CAUSES], why,
                       title="boards not read perfectly, by first cause (lab/evaluate/triolet.py CAUSES)"))
    print()
    face_rows = [[g, f, st[4], st[0], 100.0 * st[5] / st[0], 100.0 * st[1] / st[0],
                  100.0 * st[3] / st[2] if st[2] else "-"] for (g, f), st in sorted(by_face.items())]
    print(format_table(["group", "typeface", "style", "frames", "located %", "perfect %", "per tile % (located)"],
                       face_rows, title="renderer B by typeface (lab/render/povray/faces.py)"))
    print()
    look_rows = [[e, t, n, 100.0 * lo / n, 100.0 * pe / n] for (e, t), (n, lo, pe) in sorted(by_look.items())]
    print(format_table(["edition", "tiles", "frames", "located %", "perfect %"], look_rows,
                       title="renderer B by board edition and tile set (all rows; lab/render/povray/scene.py)"))
    print()
    print(format_table(REL_HEADERS, rel, title=REL_TITLE))
    print(f"render: median {float(np.median(render_s)):.2f} s/frame over {len(render_s)} frames "
          f"(cache hits included; --cache {args.cache or '-'})")
    print(machine_line())
    if crashed:
        print(f"the reader failed on {len(crashed)} frame(s), counted as not located (a bug): seeds "
              f"{', '.join(map(str, crashed))}")
        return 1
    return 0
