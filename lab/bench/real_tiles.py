"""The triangle-tile reader on hand-labelled photographs (measurement only: never training data).

    python3 -m lab.bench.real_tiles --dir ../shared/real/tridomino
    python3 -m lab.bench.real_tiles --dir ../shared/real/tridomino --calibrate

``DIR`` holds ``NAME.jpg`` pictures with ``NAME.json`` labels (``{"game": G, "tiles": [{"corners":
[{"px": [x, y], "value": v}, ...]}]}``, INTERFACES §3 without cells and fields). Per picture: tiles,
tiles found, tiles invented, corner values right, whether the picture is read perfectly (every
tile found with its three values, none invented); totals below.

``--calibrate``: each picture is read with a profile taught (``calibrate tiles``) by another
picture of its group (names ``Pict_G_K``: same ``G``, the next ``K``): the way a player calibrates
once on their own set, then plays. A group of one picture is read without.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion_api.cli.text_table import format_table


def score(tiles: list[Any], truth: list[dict[str, Any]]) -> dict[str, int]:
    """Match read tiles (``TileReading``) to labelled ones by centre (within 0.35 of a side) and
    compare each labelled corner's value with the read corner nearest it."""
    tc = np.array([np.mean([c["px"] for c in t["corners"]], axis=0) for t in truth])
    side = float(np.median([np.linalg.norm(np.subtract(t["corners"][0]["px"], t["corners"][1]["px"]))
                            for t in truth]))
    matched: dict[int, int] = {}
    for j, t in enumerate(tiles):
        d = np.linalg.norm(tc - np.array(t.center_px), axis=1)
        i = int(np.argmin(d))
        if d[i] < 0.35 * side and i not in matched:
            matched[i] = j
    values = whole = 0
    for i, j in matched.items():
        mc = np.array([c.px for c in tiles[j].corners])
        right = sum(tiles[j].corners[int(np.argmin(np.linalg.norm(mc - np.array(c["px"]), axis=1)))].value
                    == c["value"] for c in truth[i]["corners"])
        values += right
        whole += right == 3
    return {"tiles": len(truth), "found": len(matched), "invented": len(tiles) - len(matched),
            "values": values, "corners": 3 * len(truth), "whole": whole}


def _teacher(pic: Path, pictures: list[Path]) -> Path | None:
    """Another picture of ``pic``'s group (``NAME_G_K``: same ``G``), the next one round."""
    stem = pic.stem.rsplit("_", 1)[0]
    group = [p for p in pictures if p.stem.rsplit("_", 1)[0] == stem]
    if len(group) < 2:
        return None
    return group[(group.index(pic) + 1) % len(group)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("--calibrate", action="store_true", help="read each picture with a profile taught by another")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    from calibration.profile import Profile
    from vision.locate import BoardNotLocatedError
    from vision.read import TileLessonError, reader_for, tile_learner_for

    pictures = sorted(p for p in args.dir.glob("*.jpg") if p.with_suffix(".json").exists())
    if not pictures:
        print(f"{args.dir}: no labelled pictures (NAME.jpg + NAME.json)", file=sys.stderr)
        return 2
    rows: list[list[Any]] = []
    total = {"tiles": 0, "found": 0, "invented": 0, "values": 0, "corners": 0, "whole": 0, "perfect": 0}
    for pic in pictures:
        truth = json.loads(pic.with_suffix(".json").read_text(encoding="utf-8"))
        game = str(truth.get("game", "trio_domino"))
        image = np.asarray(cv2.imread(str(pic)), np.uint8)
        profile = None
        taught = "-"
        if args.calibrate:
            teacher = _teacher(pic, pictures)
            if teacher is not None:
                try:
                    lesson = np.asarray(cv2.imread(str(teacher)), np.uint8)
                    profile = Profile().with_tiles(tile_learner_for(game).learn(lesson))
                    taught = teacher.stem
                except (TileLessonError, ValueError) as exc:
                    taught = f"failed: {exc}"
        t0 = time.perf_counter()
        try:
            tiles = list(reader_for(game).read(image, profile).tiles)  # type: ignore[attr-defined]
        except BoardNotLocatedError:
            tiles = []
        ms = (time.perf_counter() - t0) * 1e3
        s = score(tiles, truth["tiles"])
        perfect = s["whole"] == s["tiles"] and s["found"] == s["tiles"] and s["invented"] == 0
        for k in s:
            total[k] += s[k]
        total["perfect"] += perfect
        rows.append([pic.stem, taught, s["tiles"], s["found"], s["invented"], 100.0 * s["values"] / s["corners"],
                     "yes" if perfect else "no", ms])
    rows.append(["all", "", total["tiles"], total["found"], total["invented"],
                 100.0 * total["values"] / max(1, total["corners"]), f"{total['perfect']}/{len(pictures)}", ""])
    print(format_table(["picture", "calibrated on", "tiles", "found", "invented", "corner values %", "perfect",
                        "ms"], rows, title=f"triangle tiles on labelled photographs ({args.dir})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
