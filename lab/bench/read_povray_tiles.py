"""``companion bench read --game triominos|trio_domino --renderer povray`` — the tile reader on renderer
B's pictures (``lab/render/povray/tiles.py``: ray-traced 3D tiles in five editions, fields and loose
tiles, five tablecloths, flash and lamp light; docs/RENDERER_B.md).

One row per tile edition and typeface group (``--faces``: the numerals' typefaces; pip editions
have none), and an ``all`` row per group: tiles found, tiles invented (read where no tile lies),
corner values right (of every true corner: a missed tile counts its three wrong), cells right
(up to each field's lattice isometry), perfect tables (every tile found with its three values and
its cell, none invented). Then the same counts by tablecloth, by tile size in the picture and for
loose against field tiles. Frame ``i`` is seed ``--seed + i``; ``--cache DIR`` keeps the renders.
A reading is matched to the truth by ``lab.bench.read_others.compare_tiles``: a read tile is a true
one when its centre lies within 0.35 of a side of that tile's centre, and each true corner's value is
compared with the read corner nearest it.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table, machine_line

HEADS = ["row", "frames", "tiles", "tiles found %", "tiles invented", "corner values right %", "cells right %",
         "perfect tables %"]
SIZE_BANDS = ((0.0, 60.0, "< 60 px"), (60.0, 120.0, "60–120 px"), (120.0, 1e9, "≥ 120 px"))


def score_reading(reading: Any, labels: dict[str, Any]) -> dict[str, Any]:
    """One picture's counts: ``tiles``, ``found``, ``extra`` (invented), ``corners``, ``values_ok``,
    ``cells_ok``, ``perfect``, and the true tiles found (``found_idx``). ``reading`` ``None`` means
    nothing was found. ``perfect``: every tile found with its three values (and its cell, when the
    truth names cells), none invented."""
    from lab.bench.read_others import compare_tiles

    truth = labels["tiles"]
    if reading is None or not truth:
        extra = len(reading.tiles) if reading is not None else 0
        return {"tiles": len(truth), "found": 0, "extra": extra, "corners": 3 * len(truth), "values_ok": 0,
                "cells_ok": 0, "perfect": not truth and extra == 0, "found_idx": set()}
    c = compare_tiles(reading, labels)
    cells_known = all("cell" in t for t in truth)  # hand-labelled photographs give corners and values only
    perfect = (c["values_ok"] == c["corners"] and (c["cells_ok"] == c["tiles"] or not cells_known)
               and c["extra"] == 0)
    return {**c, "perfect": perfect, "found_idx": c["found_idx"]}


def _row(name: str, res: list[dict[str, Any]]) -> list[Any]:
    tiles = sum(r["tiles"] for r in res)
    corners = sum(r["corners"] for r in res)
    return [name, len(res), tiles, 100.0 * sum(r["found"] for r in res) / max(1, tiles), sum(r["extra"] for r in res),
            100.0 * sum(r["values_ok"] for r in res) / max(1, corners),
            100.0 * sum(r["cells_ok"] for r in res) / max(1, tiles),
            100.0 * sum(bool(r["perfect"]) for r in res) / max(1, len(res))]


def run_povray_tiles(args: argparse.Namespace) -> int:
    """Read ``--frames`` renderer-B tile pictures per typeface group and print the tables."""
    import cv2

    from lab.bench.read_povray import face_groups
    from lab.render.povray import PovrayMissing
    from lab.render.povray.tiles import EDITIONS, tiles_frame
    from vision.locate import BoardNotLocatedError
    from vision.read.tritiles import read_triangles

    cv2.setNumThreads(1)
    groups = face_groups(args)
    game = args.game
    by_row: dict[tuple[str, str], list[dict[str, Any]]] = {}
    by_cloth: dict[str, list[dict[str, Any]]] = {}
    bands: dict[str, list[int]] = {b[2]: [0, 0] for b in SIZE_BANDS}  # tiles, found
    kinds: dict[str, list[int]] = {"field tiles": [0, 0], "loose tiles": [0, 0]}
    walls: list[float] = []
    render_s: list[float] = []
    crashed: list[int] = []
    for group in groups:
        for i in range(args.frames):
            seed = args.seed + i
            t0 = time.perf_counter()
            try:
                fr = tiles_frame(seed, game, group, cache=args.cache)
            except PovrayMissing as exc:
                raise CliError(str(exc)) from None
            render_s.append(time.perf_counter() - t0)
            t1 = time.perf_counter()
            try:
                reading = read_triangles(fr.image, game)
            except BoardNotLocatedError:
                reading = None
            except Exception as exc:  # a reader bug: counted as nothing found, the run goes on
                reading = None
                crashed.append(seed)
                print(f"povray {group} seed {seed}: the reader failed ({type(exc).__name__}: {exc}); "
                      "counted as nothing found", file=sys.stderr)
            walls.append((time.perf_counter() - t1) * 1e3)
            res = score_reading(reading, fr.labels)
            style = fr.labels["style"]
            by_row.setdefault((group, str(style["edition"])), []).append(res)
            by_row.setdefault((group, "all"), []).append(res)
            by_cloth.setdefault(str(style["cloth"]), []).append(res)
            for k, t in enumerate(fr.labels["tiles"]):
                side = float(np.mean([np.linalg.norm(np.subtract(t["corners"][j]["px"], t["corners"][j - 1]["px"]))
                                      for j in range(3)]))
                band = next(b[2] for b in SIZE_BANDS if b[0] <= side < b[1])
                hit = int(k in res["found_idx"])
                bands[band][0] += 1
                bands[band][1] += hit
                kind = kinds["loose tiles" if t.get("loose") else "field tiles"]
                kind[0] += 1
                kind[1] += hit
    order = [e.name for e in EDITIONS] + ["all"]
    rows = [_row(f"povray {g} {e}", res) for (g, e), res in sorted(by_row.items(), key=lambda kv: (
        groups.index(kv[0][0]), order.index(kv[0][1])))]
    print(format_table(HEADS, rows, title=f"companion bench read --game {game} --renderer povray: the tile reader on "
                       f"renderer B's pictures (seeds {args.seed}–{args.seed + args.frames - 1}, one core)"))
    print()
    print(format_table(["cloth", *HEADS[1:]], [_row(c, r) for c, r in sorted(by_cloth.items())],
                       title="by tablecloth (all rows)"))
    print()
    extra_rows = [[name, n, 100.0 * hit / max(1, n)] for name, (n, hit) in [*bands.items(), *kinds.items()]]
    print(format_table(["tiles", "count", "found %"], extra_rows,
                       title="tiles found by size in the picture (mean side) and by kind"))
    print(f"reader: median {float(np.median(walls)):.0f} ms, p95 {float(np.percentile(walls, 95)):.0f} ms; "
          f"render: median {float(np.median(render_s)):.2f} s/frame over {len(render_s)} frames "
          f"(cache hits included; --cache {args.cache or '-'})")
    print(machine_line())
    if crashed:
        print(f"the reader failed on {len(crashed)} frame(s), counted as nothing found (a bug): seeds "
              f"{', '.join(map(str, crashed))}")
        return 1
    return 0
