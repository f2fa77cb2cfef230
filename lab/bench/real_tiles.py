"""``companion bench real --game triominos|trio_domino --dir DIR``: the tile reader on hand-labelled
photographs.

``DIR`` holds ``NAME.json`` truths (``{"game": G, "tiles": [{"center_px": [x, y], "corners":
[{"px": [x, y], "value": v}, ×3]}]}``: each tile's top-face corners and their values) beside
``NAME.jpg`` (or ``.jpeg``, ``.png``). One row per picture and a total: tiles found, tiles invented,
corner values right, perfect pictures (every tile found with its three values, none invented),
matched as ``companion bench read --renderer povray`` matches them (``read_povray_tiles.score_reading``:
a read tile whose centre lies within 0.35 of a side of a true tile's is that tile; each true
corner's value is compared with the nearest read corner's).

``--calibrate``: each picture is read with a profile taught (``calibrate tiles``) by another
picture of its group (names ``NAME_G_K``: same ``G``, the next ``K`` round): the way a player
calibrates once on their own set, then plays. A picture alone in its group is read without one.
This measures; nothing is kept from the photographs.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import cv2

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table, machine_line

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def labelled_tile_pictures(folder: Path, game: str) -> list[tuple[str, Path, dict[str, Any]]]:
    """``(name, picture, truth)`` for every ``NAME.json`` with a picture beside it; ``CliError`` for a
    truth that is not JSON, names another game or lacks tiles."""
    import json

    out = []
    for truth in sorted(folder.glob("*.json")):
        pic = next((p for p in (truth.with_suffix(s) for s in IMAGE_SUFFIXES) if p.exists()), None)
        if pic is None:
            continue
        try:
            labels = json.loads(truth.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CliError(f"{truth}: not a JSON truth file ({exc})") from None
        if not isinstance(labels, dict) or not isinstance(labels.get("tiles"), list):
            raise CliError(f"{truth}: expected {{\"game\": ..., \"tiles\": [...]}}")
        if labels.get("game", game) != game:
            raise CliError(f"{truth}: a {labels.get('game')} picture, not {game}")
        out.append((truth.stem, pic, labels))
    return out


def teacher_of(name: str, names: list[str]) -> str | None:
    """Another picture of ``name``'s group (``NAME_G_K``: same ``NAME_G``), the next one round."""
    stem = name.rsplit("_", 1)[0]
    group = [n for n in names if n.rsplit("_", 1)[0] == stem]
    if len(group) < 2:
        return None
    return group[(group.index(name) + 1) % len(group)]


def run(args: argparse.Namespace) -> int:
    """The tile reader on labelled photographs of ``args.game``: a row per picture and a total."""
    from calibration.profile import Profile
    from lab.bench.read_povray_tiles import score_reading
    from vision.locate import BoardNotLocatedError
    from vision.read import TileLessonError, reader_for, tile_learner_for
    from vision.sources import SourceError, read_image_file

    cv2.setNumThreads(1)
    if not args.dir:
        raise CliError(f"--dir: a folder of labelled {args.game} photographs (NAME.json beside NAME.jpg)")
    folder = Path(args.dir)
    if not folder.is_dir():
        raise CliError(f"--dir {args.dir}: no such folder")
    pictures = labelled_tile_pictures(folder, args.game)
    if not pictures:
        raise CliError(f"--dir {args.dir}: no labelled pictures (NAME.json beside NAME.jpg)")
    rows: list[list[Any]] = []
    total: list[dict[str, Any]] = []
    names = [name for name, _pic, _labels in pictures]
    by_name = {name: pic for name, pic, _labels in pictures}
    calibrate = bool(getattr(args, "calibrate", False))
    for name, pic, labels in pictures:
        try:
            image = read_image_file(pic)
        except SourceError as exc:
            raise CliError(str(exc)) from None
        profile, taught = None, "-"
        teacher = teacher_of(name, names) if calibrate else None
        if teacher is not None:
            try:
                lesson = read_image_file(by_name[teacher])
                profile = Profile().with_tiles(tile_learner_for(args.game).learn(lesson))
                taught = teacher
            except (SourceError, TileLessonError, ValueError) as exc:
                taught = f"refused: {exc}"
        t0 = time.perf_counter()
        try:
            reading = reader_for(args.game).read(image, profile)
        except BoardNotLocatedError:
            reading = None
        ms = (time.perf_counter() - t0) * 1e3
        res = score_reading(reading, labels)
        res["ms"] = ms
        total.append(res)
        rows.append(_tiles_row(f"{name} ({image.shape[1]}×{image.shape[0]})", [res], taught))
    rows.append(_tiles_row("all", total, ""))
    heads = ["pictures", "calibrated on", "n", "tiles", "tiles found %", "tiles invented", "corner values right %",
             "perfect", "median ms"]
    print(format_table(heads, rows, title=f"companion bench real --game {args.game}: the tile reader vs "
                       "hand-labelled photographs (OpenCV on 1 thread)"))
    print(machine_line())
    return 0


def _tiles_row(label: str, res: list[dict[str, Any]], taught: str) -> list[Any]:
    tiles = sum(r["tiles"] for r in res)
    ms = sorted(r["ms"] for r in res)
    return [label, taught, len(res), tiles, 100.0 * sum(r["found"] for r in res) / max(1, tiles),
            sum(r["extra"] for r in res), 100.0 * sum(r["values_ok"] for r in res) / max(1, 3 * tiles),
            f"{sum(bool(r['perfect']) for r in res)}/{len(res)}", ms[len(ms) // 2]]
