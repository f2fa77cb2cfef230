"""``companion bench read --game triolet --renderer povray --faces held-out --calibrate-tiles`` —
the reader on the held-out typefaces with and without one calibration photo (``calibrate tiles``).

Per held-out typeface, one tile edition (``lab.render.povray.calibration.held_out_editions``:
that face, one of the six tile sets, its marking and proportions). For each edition: two
calibration pictures (the 17 tiles in rows on the bare table, and on a board; seed
``CALIBRATION_SEED + i``) are learnt (``TrioletTileLearner``), then ``--frames`` tables of that
edition (seeds ``--seed`` …) are read three times: without calibration, with the profile learnt on
the table, with the profile learnt on the board (where a picture teaches nothing — the learner
refuses it — its boards are read without a profile, as the players would). Rows: located,
squares, tiles, perfect; then by typeface; then the reliability table.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table, machine_line
from lab.bench.reliability import HEADERS as REL_HEADERS
from lab.bench.reliability import TITLE as REL_TITLE
from lab.bench.reliability import reliability_rows

#: Seed of edition i's calibration pictures: ``CALIBRATION_SEED + i``.
CALIBRATION_SEED = 7000
ROWS = ("held-out, no calibration", "held-out, one calibration photo (table)",
        "held-out, one calibration photo (board)")


def run_povray_calibrated(args: argparse.Namespace, size: tuple[int, int]) -> int:
    """Learn each held-out edition from one picture and read its tables with and without it."""
    import cv2

    from lab.evaluate.triolet import score_frame
    from lab.render.povray import PovrayMissing
    from lab.render.povray.calibration import calibration_frame, edition_frame, held_out_editions
    from vision.locate import BoardNotLocatedError
    from vision.read import TileLessonError
    from vision.read.triolet.classifier import EMPTY
    from vision.read.triolet.edition import EditionHead, from_reference
    from vision.read.triolet.reader import read_triolet
    from vision.read.triolet.tile_lesson import TrioletTileLearner

    cv2.setNumThreads(1)
    if args.faces != "held-out":
        raise CliError("--calibrate-tiles measures the held-out typefaces: use --faces held-out")
    if args.frames < 1:
        raise CliError("--frames must be at least 1")
    learner = TrioletTileLearner()
    stats = {r: [0, 0, 0, 0, 0, 0, 0] for r in ROWS}  # frames, located, squares, right, tiles, tiles ok, perfect
    by_face: dict[tuple[str, str], list[int]] = {}
    readings: dict[str, list[tuple[float, bool]]] = {r: [] for r in ROWS}
    lessons: list[list[Any]] = []
    try:
        for i, ed in enumerate(held_out_editions()):
            editions: dict[str, EditionHead | None] = {ROWS[0]: None}
            for row, on_board in ((ROWS[1], False), (ROWS[2], True)):
                cal = calibration_frame(CALIBRATION_SEED + i, ed, on_board, size, cache=args.cache)
                try:
                    ref = learner.learn(cal.image)
                except TileLessonError as exc:
                    lessons.append([ed.face.name, "board" if on_board else "table", f"failed: {exc}", "-", "-"])
                    editions[row] = None  # no profile: the players read without one
                    continue
                s = ref.summary
                lessons.append([ed.face.name, str(s["laid"]), s["typeface_match"], s["mean_true_prob"],
                                s["learnt_match"]])
                editions[row] = from_reference(ref)
            for k in range(args.frames):
                seed = args.seed + k
                fr = edition_frame(seed, ed, size, cache=args.cache)
                n_tiles = len(fr.labels["read"]["cells"])
                for row, edition in editions.items():
                    try:
                        reading = read_triolet(fr.image, edition=edition)
                    except BoardNotLocatedError:
                        reading = None
                    fs = score_frame(reading, fr.labels)
                    bad = sum(1 for _, t, _, _ in fs.errors if t != EMPTY)
                    st = stats[row]
                    st[0] += 1
                    st[1] += int(fs.located)
                    st[2] += fs.squares
                    st[3] += fs.correct
                    st[4] += n_tiles if fs.located else 0
                    st[5] += (n_tiles - bad) if fs.located else 0
                    st[6] += int(fs.perfect)
                    readings[row] += fs.readings
                    f = by_face.setdefault((ed.face.name, row), [0, 0, 0, 0, 0])
                    f[0] += 1
                    f[1] += int(fs.located)
                    f[2] += int(fs.perfect)
                    f[3] += n_tiles if fs.located else 0
                    f[4] += (n_tiles - bad) if fs.located else 0
                    if args.errors:
                        for sq, t, g, conf in fs.errors:
                            print(f"{row} {ed.face.name} seed {seed} {sq}: truth {t} read {g} conf {conf:.2f}",
                                  file=sys.stderr)
    except PovrayMissing as exc:
        raise CliError(str(exc)) from None
    print(format_table(["typeface", "laid", "typeface match", "mean true prob", "learnt match"], lessons,
                       title="calibration pictures learnt (companion calibrate tiles --game triolet)"))
    print()
    table = [[r, st[0], 100.0 * st[1] / max(1, st[0]), 100.0 * st[3] / max(1, st[2]),
              100.0 * st[5] / max(1, st[4]), 100.0 * st[6] / max(1, st[0]),
              100.0 * st[6] / max(1, st[1])] for r, st in stats.items() if st[0]]
    print(format_table(["row", "frames", "located %", "per square %", "per tile %", "perfect %",
                        "perfect % of located"], table,
                       title="companion bench read --game triolet --renderer povray --faces held-out "
                             f"--calibrate-tiles ({size[0]}x{size[1]})"))
    print()
    face_rows = [[face, row, n, 100.0 * lo / n, 100.0 * tok / t if t else "-", 100.0 * pe / n,
                  100.0 * pe / lo if lo else "-"]
                 for (face, row), (n, lo, pe, t, tok) in sorted(by_face.items(),
                                                                key=lambda kv: (kv[0][0], ROWS.index(kv[0][1])))]
    print(format_table(["typeface", "row", "frames", "located %", "per tile %", "perfect %", "perfect % of located"],
                       face_rows,
                       title="by held-out typeface (one edition each: lab/render/povray/calibration.py)"))
    print()
    rel: list[list[Any]] = []
    for r in ROWS:
        if readings[r]:
            rel += reliability_rows(r, readings[r])
    print(format_table(REL_HEADERS, rel, title=REL_TITLE))
    print(f"boards: {args.frames} per typeface (seeds {args.seed}–{args.seed + args.frames - 1}); "
          f"--cache {args.cache or '-'}")
    print(machine_line())
    return 0
