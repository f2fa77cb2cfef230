"""Pip thresholds swept on renderer B's pip tiles (``lab/render/povray/tiles.py``): the pip detector's
and the lesson's colour thresholds (``vision/read/tritiles/pips.py``, ``tile_lesson.py``) are set from
this table, never from real photographs.

``python3 -m lab.bench.pip_sweep render DIR --count 30`` renders pip pictures into ``DIR``: from seed
300000 on, the first ``count`` seeds per edition whose table is of that pip edition (coloured pips on
wood and black pips for Trio Domino, black pips for Triominos; pictures over 4 MP are passed by to keep
the renders short). ``python3 -m lab.bench.pip_sweep sweep DIR`` reads every cached pip picture's tiles
at their true corners (the tile finder is not under test here) and prints, per setting of each
threshold, the corner values right by pip count alone, the blobs invented and missed, and the lesson's
verdict (colour follows count) on coloured and on single-colour sets.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lab.render.povray.tiles import GAMES, SIZE_WEIGHTS, SIZES, random_look, tiles_frame

F64 = NDArray[np.float64]

#: (game, edition) pairs rendered for the sweep
PICKS = (("trio_domino", "coloured pips on wood"), ("trio_domino", "black pips"), ("triominos", "black pips"))
FIRST_SEED = 300_000
MAX_MP = 4.0


def pip_seeds(game: str, edition: str, count: int, first: int = FIRST_SEED) -> Iterator[int]:
    """Seeds from ``first`` on whose ``game`` table is drawn in ``edition`` (at most ``MAX_MP``):
    the same first draws as ``random_tiles_scene`` makes."""
    found, seed = 0, first
    while found < count and seed < first + 100_000:
        rng = np.random.default_rng([seed, GAMES.index(game), 0x7E1E])
        w, h = SIZES[int(rng.choice(len(SIZES), p=np.array(SIZE_WEIGHTS)))]
        math.exp(rng.uniform(math.log(40), math.log(200)))
        look = random_look(rng, game, "train")
        if look.edition == edition and w * h / 1e6 <= MAX_MP:
            found += 1
            yield seed
        seed += 1


def render(folder: str, count: int) -> int:
    """Render the sweep's pictures into ``folder``, interleaving the editions."""
    import time

    import cv2

    cv2.setNumThreads(1)
    lists = [list(pip_seeds(g, e, count)) for g, e in PICKS]
    for i in range(count):
        for (game, edition), seeds in zip(PICKS, lists, strict=True):
            t0 = time.perf_counter()
            f = tiles_frame(seeds[i], game, "train", cache=folder)
            st = f.labels["style"]
            assert st["edition"] == edition, (seeds[i], st["edition"])
            print(f"{game} {seeds[i]}: {st['edition']}, {st['cloth']}, {len(f.labels['tiles'])} tiles, "
                  f"{st['tile_px']} px, {st['megapixels']} MP, {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


@dataclass
class SweepTile:
    """One fully visible pip tile: its picture, edition, side (px), canonical patch and corner values."""

    frame: str
    edition: str
    side: float
    patch: NDArray[np.uint8]
    values: tuple[int, int, int]


def load_tiles(folders: list[str], marking: str = "pips", limit: int = 0) -> list[SweepTile]:
    """Every fully visible tile of the cached pictures of ``marking`` in ``folders``, warped upright
    (``pips.canonical``) at its true corners."""
    import cv2

    from lab.render.povray.tiles import cached_frames
    from vision.read.tritiles.pips import canonical

    out: list[SweepTile] = []
    frames = 0
    for folder in folders:
        for jpg, js in cached_frames(folder):
            labels = json.loads(js.read_text())
            st = labels["style"]
            if st["marking"] != marking:
                continue
            if limit and frames >= limit:
                break
            frames += 1
            read = cv2.imread(str(jpg))
            if read is None:
                continue
            image: NDArray[np.uint8] = np.asarray(read, np.uint8)
            for t in labels["tiles"]:
                if t["visible"] < 0.999:
                    continue
                c = np.array([k["px"] for k in t["corners"]], np.float64)
                side = float(np.mean([np.linalg.norm(c[i] - c[i - 1]) for i in range(3)]))
                vals = tuple(int(k["value"]) for k in t["corners"])
                out.append(SweepTile(jpg.stem, st["edition"], side, canonical(image, c), (vals[0], vals[1], vals[2])))
    return out


@contextmanager
def setting(module: Any, name: str, value: float) -> Iterator[None]:
    """``module.name`` set to ``value`` for the block (masks cached from it made again)."""
    old = getattr(module, name)
    setattr(module, name, value)
    _clear(module)
    try:
        yield
    finally:
        setattr(module, name, old)
        _clear(module)


def _clear(module: Any) -> None:
    inner = getattr(module, "_inner", None)
    if inner is not None and hasattr(inner, "cache_clear"):
        inner.cache_clear()


def _blobs(tiles: list[SweepTile], colours: F64 | None = None) -> list[list[Any]]:
    from vision.read.tritiles import pips

    return [pips.tile_blobs(t.patch, pips.CANON, colours) for t in tiles]


def count_row(tiles: list[SweepTile], numeral_tiles: list[SweepTile]) -> list[Any]:
    """Corners whose pip count is right (all, tiles of ``BIG`` px and more, coloured, black), pips
    invented and missed per 100 corners, pictures voted pips, numeral pictures voted pips."""
    from vision.read.tritiles import pips

    blobs = _blobs(tiles)
    right: list[bool] = []
    extra = missed = 0
    for t, bs in zip(tiles, blobs, strict=True):
        counts = pips.corner_counts(bs)
        for k in range(3):
            right.append(counts[k] == t.values[k])
            extra += max(0, counts[k] - t.values[k])
            missed += max(0, t.values[k] - counts[k])
    ok = np.array(right).reshape(-1, 3)
    big = np.array([t.side >= BIG for t in tiles])
    col = np.array([t.edition.startswith("coloured") for t in tiles])
    black = np.array([t.edition == "black pips" for t in tiles])
    n = max(1, ok.size)

    def pct(m: NDArray[np.bool_]) -> float:
        return 100 * float(ok[m].mean()) if m.any() else float("nan")
    return [100 * float(ok.mean()), pct(big), pct(col), pct(black), 100 * extra / n, 100 * missed / n,
            100 * _vote(tiles, blobs), 100 * _vote(numeral_tiles, _blobs(numeral_tiles))]


def _vote(tiles: list[SweepTile], blobs: list[list[Any]]) -> float:
    """Share of pictures whose tiles ``pips.looks_like_pips`` takes for pip tiles."""
    from vision.read.tritiles import pips

    by: dict[str, list[list[Any]]] = {}
    for t, bs in zip(tiles, blobs, strict=True):
        by.setdefault(t.frame, []).append(bs)
    return float(np.mean([pips.looks_like_pips(v) for v in by.values()])) if by else float("nan")


def lesson_row(tiles: list[SweepTile]) -> list[Any]:
    """The lesson on each picture's even tiles, read on its odd ones: pictures whose verdict
    (colour follows count) is right, coloured and single-colour; corner values right on coloured
    pictures by count alone and with the lesson's colours (``pips.pip_scores``); all pictures with
    the lesson."""
    from vision.read.tritiles import pips, tile_lesson

    by: dict[str, list[SweepTile]] = {}
    for t in tiles:
        by.setdefault(t.frame, []).append(t)
    verdict_col: list[bool] = []
    verdict_one: list[bool] = []
    plain_ok: list[bool] = []
    lesson_ok: list[bool] = []
    all_ok: list[bool] = []
    for frame_tiles in by.values():
        learn, test = frame_tiles[0::2], frame_tiles[1::2]
        if len(learn) < tile_lesson.MIN_TILES or not test:
            continue
        coloured = frame_tiles[0].edition.startswith("coloured")
        colours, follows = tile_lesson.pip_colours(_blobs(learn))
        (verdict_col if coloured else verdict_one).append(follows == coloured)
        learned = {"colour_follows_count": follows, "pip_colours": {str(k): v for k, v in colours.items()}}
        for t in test:
            with_l = pips.pip_scores(t.patch, [pips.CANON], learned)[0]
            alone = pips.pip_scores(t.patch, [pips.CANON], None)[0]
            for k in range(3):
                good = int(np.argmax(with_l[k])) == t.values[k]
                all_ok.append(good)
                if coloured:
                    lesson_ok.append(good)
                    plain_ok.append(int(np.argmax(alone[k])) == t.values[k])

    def pct(x: list[bool]) -> float:
        return 100 * float(np.mean(x)) if x else float("nan")
    return [pct(verdict_col), pct(verdict_one), pct(plain_ok), pct(lesson_ok), pct(all_ok)]


#: tiles this large (px a side) and more are where the reader weighs the pip count in
#: (``reader.PIP_SIDES``: from 70 px, fully from 120 px)
BIG = 70.0
#: what is swept: module, constant, values
COUNT_SWEEP: tuple[tuple[str, str, tuple[float, ...]], ...] = (
    ("pips", "MIN_RESPONSE", (4.0, 6.0, 8.0, 10.0, 12.0, 15.0)),
    ("pips", "RESPONSE_OVER_MEDIAN", (2.0, 2.5, 3.0, 3.5, 4.0)),
    ("pips", "LIGHTNESS_WEIGHT", (0.3, 0.45, 0.6, 0.8, 1.0)),
    ("pips", "ALIKE", (0.3, 0.4, 0.5, 0.6, 0.7)),
    ("pips", "INNER", (0.8, 0.84, 0.88, 0.92)),
    ("pips", "PEAK_GAP", (1.6, 1.9, 2.2, 2.5, 2.8, 3.1)),
    ("pips", "PIP_SHARE", (0.55, 0.62, 0.7, 0.75, 0.8, 0.85)),
)
LESSON_SWEEP: tuple[tuple[str, str, tuple[float, ...]], ...] = (
    ("tile_lesson", "APART", (6.0, 9.0, 12.0, 15.0, 20.0, 25.0)),
    ("tile_lesson", "AGREE", (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)),
    ("pips", "KNOWN_COLOUR", (8.0, 12.0, 15.0, 20.0, 25.0)),
    ("pips", "KNOWN_COLOUR_SHARE", (0.4, 0.5, 0.6, 0.8, 1.0)),
)
COUNT_HEADS = ["setting", "corners right %", f"≥ {BIG:g} px %", "coloured %", "black %", "pips invented /100",
               "pips missed /100", "pip pictures voted pips %", "numeral pictures voted pips %"]
LESSON_HEADS = ["setting", "coloured: verdict right %", "one colour: verdict right %", "coloured: by count %",
                "coloured: with lesson %", "all: with lesson %"]


def sweep(folders: list[str], numerals: list[str], only: str = "") -> int:
    """Print the sweep's tables (one row per setting of each constant, the others as they are)."""
    import cv2

    from companion_api.cli.text_table import format_table
    from vision.read.tritiles import pips, tile_lesson

    cv2.setNumThreads(1)
    modules = {"pips": pips, "tile_lesson": tile_lesson}
    tiles = load_tiles(folders)
    numeral_tiles = load_tiles(numerals, "numerals", limit=40) if numerals else []
    eds: dict[str, int] = {}
    for t in tiles:
        eds[t.edition] = eds.get(t.edition, 0) + 1
    print(f"{len({t.frame for t in tiles})} pip pictures, {len(tiles)} whole tiles "
          f"({', '.join(f'{k}: {v}' for k, v in sorted(eds.items()))}; {sum(t.side >= BIG for t in tiles)} "
          f"of ≥ {BIG:g} px); {len({t.frame for t in numeral_tiles})} numeral pictures", flush=True)
    def counts() -> list[Any]:
        return count_row(tiles, numeral_tiles)

    def lessons() -> list[Any]:
        return lesson_row(tiles)
    for group, heads, row in ((COUNT_SWEEP, COUNT_HEADS, counts), (LESSON_SWEEP, LESSON_HEADS, lessons)):
        for mod, name, values in group:
            if only and name not in only.split(","):
                continue
            rows = []
            now = getattr(modules[mod], name)
            for v in values:
                with setting(modules[mod], name, v):
                    rows.append([f"{name} = {v:g}{' (now)' if v == now else ''}", *row()])
            print(format_table(heads, rows, title=f"{mod}.{name}"), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``render DIR --count N`` or ``sweep DIR [DIR …] [--numerals DIR]``."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("mode", choices=("render", "sweep"))
    ap.add_argument("folder", nargs="+")
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--numerals", action="append", default=[], help="folder of numeral pictures (the vote)")
    ap.add_argument("--only", default="", help="comma list of constants to sweep (default all)")
    a = ap.parse_args(argv)
    if a.mode == "render":
        return render(a.folder[0], a.count)
    return sweep(a.folder, a.numerals, a.only)


if __name__ == "__main__":
    sys.exit(main())
