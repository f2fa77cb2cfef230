"""``companion bench read --game trigon|blokus|blokus_duo --renderer povray`` — the Blokus readers on
renderer B's pictures (``lab/render/povray/blokus.py``: ray-traced translucent pieces, worn boards,
cups and spare pieces, daylight to warm lamps; docs/RENDERER_B.md), and ``--game blokus|blokus_duo``
on the project's renderer (``lab/render/blokus.py``, rows ``normal`` and ``hard``).

Rows: frames, boards located (%), cells right (% of the cells of located boards, of all
boards, and of the boards registered right: colour apart from registration), perfect boards (%:
every cell of the board right, empty ones included), wrong cells, median / p95 ms per read
(OpenCV on one thread; rendering not counted). Then the boards by cause (not located;
registered off: a found corner half a cell or more from the true one; colours: cells wrong on a
board located right), the wrong cells by cause (on boards located right: a piece's cell read
empty, an empty cell read as a colour, one colour read as another) and the frames by look
(board plastic, light warmth, camera tilt) with their perfect share. Frame ``i`` uses seed
``--seed + i``; ``--cache DIR`` keeps the renders.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from typing import Any

import numpy as np

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table

BLOKUS_GAMES = ("trigon", "blokus", "blokus_duo")
#: a board whose found corner lies this many cells or more from the true one is registered off
REGISTERED_OFF = 0.5


def score_cells(truth: dict[str, str], got: dict[str, str], names: list[str]) -> dict[str, Any]:
    """Compare a reading (cell → colour, covered cells only) with the truth over the board's cells
    ``names``: cells right, and the wrong ones as ``(cell, true colour or None, read colour or None)``."""
    wrong = [(n, truth.get(n), got.get(n)) for n in names if truth.get(n) != got.get(n)]
    return {"n": len(names), "ok": len(names) - len(wrong), "wrong": wrong}


def cause_of(true: str | None, read: str | None) -> str:
    """The error table's name for one wrong cell."""
    if read is None:
        return f"{true} read empty"
    if true is None:
        return f"empty read {read}"
    return f"{true} read {read}"


def read_frame(game: str, image: Any, labels: dict[str, Any]) -> dict[str, Any]:
    """Read one labelled picture of ``game`` and score it (``located``, ``n``, ``ok``, ``wrong``, ``ms``)."""
    from vision.locate import BoardNotLocatedError

    t0 = time.perf_counter()
    if game == "trigon":
        from vision.read.trigon import read_trigon
        from vision.read.trigon.geometry import board_cells, cell_name

        side = int(labels["board"]["side"])
        names = [cell_name(c, side) for c in board_cells(side)]
        truth = {str(c["cell"]): str(c["colour"]) for c in labels["read"]["cells"]}
        try:
            r = read_trigon(image, variant=str(labels["variant"]))
        except BoardNotLocatedError:
            return {"located": False, "n": len(names), "ok": 0, "wrong": [], "ms": (time.perf_counter() - t0) * 1e3}
        got = {c.cell: c.colour for c in r.cells}
        true_corners = np.array(labels["board"]["hexagon_px"], np.float64)
        corners = np.array(r.corners_px, np.float64)
        cell_px = float(np.linalg.norm(true_corners - np.roll(true_corners, 1, axis=0), axis=1).mean()) / side
    else:
        from vision.read.blokus import read_blokus
        from vision.read.blokus.geometry import square_name

        rows = labels["truth"]
        n = len(rows)
        names = [square_name(c, r, n) for r in range(n) for c in range(n)]
        truth = {square_name(c, r, n): v for r, line in enumerate(rows) for c, v in enumerate(line) if v is not None}
        try:
            rb = read_blokus(image, game=game)
        except BoardNotLocatedError:
            return {"located": False, "n": len(names), "ok": 0, "wrong": [], "ms": (time.perf_counter() - t0) * 1e3}
        got = {c.cell: c.colour for c in rb.cells}
        true_corners = np.array(labels["board"]["corners_px"], np.float64)
        corners = np.array(rb.corners_px, np.float64)
        cell_px = float(np.linalg.norm(true_corners - np.roll(true_corners, 1, axis=0), axis=1).mean()) / n
    ms = (time.perf_counter() - t0) * 1e3
    return {"located": True, "ms": ms, "corner_cells": corner_error(corners, true_corners) / cell_px,
            **score_cells(truth, got, names)}


def corner_error(found: Any, true: Any) -> float:
    """The largest distance (px) from a found board corner to the nearest true one."""
    f, t = np.asarray(found, np.float64), np.asarray(true, np.float64)
    return float(max(np.linalg.norm(t - c, axis=1).min() for c in f))


def board_cause(r: dict[str, Any]) -> str:
    """Why a board is not read perfectly: not located, registered off (a corner half a cell or more
    from the true one), colours (cells wrong on a board located right), or ``perfect``."""
    if not r["located"]:
        return "not located"
    if r.get("corner_cells", 0.0) >= REGISTERED_OFF:
        return "registered off"
    return "perfect" if r["ok"] == r["n"] else "colours"


def _tilt_band(t: float) -> str:
    return "tilt 0–15°" if t < 15 else ("tilt 15–30°" if t < 30 else "tilt 30–45°")


def _warm_band(w: float) -> str:
    return "daylight" if w < 0.6 else ("warm" if w < 1.3 else "lamp")


def run_blokus_games(args: argparse.Namespace, size: tuple[int, int]) -> int:
    """Read ``--frames`` pictures of ``args.game`` from ``--renderer`` and print the tables."""
    import cv2

    cv2.setNumThreads(1)
    game = str(args.game)
    renderer = str(getattr(args, "renderer", "project"))
    if args.frames < 1:
        raise CliError("--frames must be at least 1")
    if game == "trigon" and renderer != "povray":
        raise CliError("internal: the project renderer's Trigon rows are lab.bench.read_others")
    if renderer == "povray":
        from lab.render.povray import PovrayMissing
        from lab.render.povray.blokus import povray_blokus_frame

        rows_spec: list[tuple[str, str | None]] = [("povray", None)]
    else:
        rows_spec = [(d, d) for d in str(getattr(args, "difficulties", "normal,hard")).split(",")
                     if d in ("normal", "hard")] or [("normal", "normal"), ("hard", "hard")]
    table: list[list[Any]] = []
    causes: Counter[str] = Counter()
    boards: Counter[str] = Counter()
    looks: dict[str, list[int]] = {}
    render_s: list[float] = []
    for row, diff in rows_spec:
        res = []
        for i in range(args.frames):
            seed = int(args.seed) + i
            t0 = time.perf_counter()
            if diff is None:
                try:
                    fr = povray_blokus_frame(seed, game, size, cache=args.cache)
                except PovrayMissing as exc:
                    raise CliError(str(exc)) from None
                image, labels = fr.image, fr.labels
            else:
                from lab.render.blokus import render_blokus

                br = render_blokus(seed, game, hard=diff == "hard")
                image = br.image
                labels = {"truth": br.truth, "style": {}, "camera": {},
                          "board": {"corners_px": np.asarray(br.corners_px, np.float64).tolist()}}
            render_s.append(time.perf_counter() - t0)
            r = read_frame(game, image, labels)
            res.append(r)
            boards[board_cause(r)] += 1
            if board_cause(r) == "registered off":
                causes["cells on boards registered off"] += len(r["wrong"])
            for cell, t, g in r["wrong"] if board_cause(r) != "registered off" else []:
                causes[cause_of(t, g)] += 1
                if getattr(args, "errors", False):
                    print(f"seed {seed}: {cell} is {t or 'empty'}, read {g or 'empty'}", file=sys.stderr)
            perfect = r["located"] and r["ok"] == r["n"]
            style, cam = labels.get("style", {}), labels.get("camera", {})
            keys = []
            if "board" in style:
                keys = [f"board {style['board']}", _warm_band(float(style["warmth"])),
                        _tilt_band(float(cam["tilt_deg"])), f"table {style['table']}"]
            for k in keys:
                looks.setdefault(k, [0, 0, 0])
                looks[k][0] += 1
                looks[k][1] += int(r["located"])
                looks[k][2] += int(perfect)
            r["perfect"] = perfect
        located = [r for r in res if r["located"]]
        registered = [r for r in located if board_cause(r) != "registered off"]
        ms = np.array([r["ms"] for r in (located or res)])  # no board located: the time to give up
        table.append([row, len(res),
                      100.0 * len(located) / len(res),
                      100.0 * sum(r["ok"] for r in located) / max(1, sum(r["n"] for r in located)),
                      100.0 * sum(r["ok"] for r in res) / max(1, sum(r["n"] for r in res)),
                      100.0 * sum(r["ok"] for r in registered) / max(1, sum(r["n"] for r in registered)),
                      100.0 * sum(r["perfect"] for r in res) / len(res),
                      sum(len(r["wrong"]) for r in res),
                      float(np.median(ms)), float(np.percentile(ms, 95))])
    unit = "cells" if game == "trigon" else "squares"
    print(format_table(["row", "frames", "located %", f"{unit} right % (located)", f"{unit} right % (all)",
                        f"{unit} right % (registered)", "perfect %", f"wrong {unit}", "median ms", "p95 ms"], table,
                       title=f"companion bench read --game {game} --renderer {renderer} "
                             + (f"({size[0]}x{size[1]}, " if renderer == "povray" else "(")
                             + f"seed {args.seed}), OpenCV on 1 thread"))
    print()
    print(format_table(["board", "count"], [[k, v] for k, v in boards.most_common()],
                       title=f"{game}: boards by cause (registered off: a corner ≥ {REGISTERED_OFF} cell from the "
                             "true one)"))
    if causes:
        print()
        print(format_table(["cause", "cells"], [[k, v] for k, v in causes.most_common()],
                           title=f"{game}: wrong cells by cause"))
    if looks:
        print()
        print(format_table(["look", "frames", "located", "perfect"], [[k, *v] for k, v in sorted(looks.items())],
                           title=f"{game}: frames by look"))
    if render_s and renderer == "povray":
        print(f"\nrender or cache load: median {float(np.median(render_s)):.2f} s per frame")
    return 0
