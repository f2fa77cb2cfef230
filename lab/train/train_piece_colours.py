"""Train the shared piece-colour model (``vision.read.piece_colours``: empty / blue / yellow / red /
green / purple / orange per cell, for Trigon, classic Blokus and Blokus Duo); dev-time only (torch).
Run-time inference is numpy.

The committed ``vision/models/piece_colours.npz`` was made with (one process, one thread, ``nice -n 10``,
on a 2-core machine shared with other work)::

    python3 -m lab.train.train_piece_colours data --source project --game trigon --start 0 --count 120 \
        --out /tmp/piece_colours/p_trigon.npz
    python3 -m lab.train.train_piece_colours data --source project --game blokus --start 0 --count 80 \
        --out /tmp/piece_colours/p_blokus.npz
    python3 -m lab.train.train_piece_colours data --source project --game blokus_duo --start 0 --count 80 \
        --out /tmp/piece_colours/p_duo.npz
    python3 -m lab.render.povray.blokus --games trigon,blokus,blokus_duo --first 1000000 --count 19 \
        --cache /work/cache/i53col/b
    python3 -m lab.render.povray.blokus --games trigon --first 1000019 --count 1 --cache /work/cache/i53col/b
    python3 -m lab.train.train_piece_colours data --source povray --cache /work/cache/i53col/b \
        --out /tmp/piece_colours/b_all.npz
    python3 -m lab.train.train_piece_colours train /tmp/piece_colours/p_trigon.npz \
        /tmp/piece_colours/p_blokus.npz /tmp/piece_colours/p_duo.npz /tmp/piece_colours/b_all.npz --epochs 15

Project frames: 120 Trigon (536 s), 80 classic, 80 Duo (~450 s each); renderer B: 20 Trigon, 19 classic
and 19 Duo tables at 1280 × 960, normal quality (30–190 s each beside the other work). Training:
~650,000 cell rows (two views, each with two more gain copies), 15 epochs: 32 s of training after about
a minute turning samples into features, on one core.
Check on the benchmark's renderer-B frames, colour alone at the true geometry:
``python3 -m lab.train.train_piece_colours evaluate --cache /work/cache/i53b/b``.

Data (``data``): per frame, every cell's samples cut at the TRUE geometry from the labels (so the
model learns colours, not the locator's errors), through the readers' own straight-on views (Trigon:
``trigon.colours.net_view``'s fine view; squares: ``blokus.colours.board_view``), stored raw
(``train`` turns each view's samples into ``piece_colours.features``); a second copy through the
geometry moved by up to 0.12 cell and with random per-channel gains (a located board is off by about
that much; cameras balance colours differently). ``--source project``: the project renderers
(``lab.render.trigon`` at its difficulties easy, normal, normal, hard by seed; ``lab.render.blokus``
normal and every third frame hard), seeds from ``TRAIN_SEED_BASE`` (3,000,000) + ``--start`` (the
benchmarks use seeds below 2,000,000). ``--source povray``: every renderer-B frame in ``--cache``
whose seed is at least 1,000,000 (the benchmark's frames are seeds below that). Cells under a hand
(project Trigon) are trained towards empty at a low weight; cells outside the picture are left out.

Training (``train``): an MLP (``HIDDEN`` units, two hidden layers) on all files' cells, classes
balanced (each class weighs the same in the loss, empty included), one frame in ``VALID_EVERY``
held back for validation; Adam, ``--epochs`` full passes in mini-batches. Needs ``pip install
'.[train]'`` (torch); nothing at run time does.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.read.piece_colours import CLASSES, MODEL_PATH, N_FEATURES, features, model_from_arrays

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

TRAIN_SEED_BASE = 3_000_000
#: renderer-B frames from this seed up are training frames (the benchmark uses the seeds below)
POVRAY_TRAIN_SEED = 1_000_000
DIFFICULTIES = ("easy", "normal", "normal", "hard")
HIDDEN = 64
VALID_EVERY = 8
#: weight of a cell under a hand (trained towards empty)
HAND_WEIGHT = 0.2
MOVE_CELLS = 0.12
GAME_IDS = ("trigon", "blokus", "blokus_duo")


# ----------------------------------------------------------------------------------------------
# samples at a geometry


def trigon_raw(image: U8, h: F64) -> tuple[U8, NDArray[np.bool_]]:
    """Samples (cells of ``cell_table(9)`` × K × 3) and which cells lie in the picture, for the board
    homography ``h`` (board units → picture), as the Trigon reader cuts them."""
    from vision.read.trigon.colours import trigon_samples

    return trigon_samples(image, h)


def square_raw(image: U8, corners: F64, n: int) -> U8:
    """Samples (n² squares, rows from the top × K × 3) of a square board with playing-area corners
    ``corners`` (TL, TR, BR, BL in the reading frame), as the square reader cuts them."""
    from vision.read.blokus.colours import square_samples

    unit_sq = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    h = np.asarray(cv2.getPerspectiveTransform(unit_sq, np.asarray(corners, np.float32)), np.float64)
    return square_samples(image, h, n)


def _gain(raw: U8, rng: np.random.Generator, channel: float = 0.08, overall: float = 0.15) -> U8:
    g = np.exp(rng.normal(0, channel, 3) + rng.normal(0, overall)).astype(np.float32)
    return np.asarray(np.clip(raw.astype(np.float32) * g + 0.5, 0, 255), np.uint8)


def _moved_corners(corners: F64, n: int, rng: np.random.Generator) -> F64:
    """Square-board corners moved by up to ``MOVE_CELLS`` of a square, each on its own."""
    cell = float(np.linalg.norm(corners[1] - corners[0])) / n
    return np.asarray(corners + rng.uniform(-MOVE_CELLS, MOVE_CELLS, (4, 2)) * cell, np.float64)


# ----------------------------------------------------------------------------------------------
# labelled frames → feature rows


class Rows:
    """Accumulates labelled views: every cell's raw samples (triangles and squares apart: their
    sample counts differ), label, weight and inside flag, with the view's game, source and frame."""

    def __init__(self) -> None:
        self.raw: dict[int, list[U8]] = {}
        self.cells: list[NDArray[Any]] = []  # per view: label, weight, inside
        self.views: list[tuple[int, int, int, int, int]] = []  # game, source, frame, K, cells
        self.frames = 0

    def add(self, raw: U8, label: NDArray[np.int8], weight: F32, inside: NDArray[np.bool_], game: str,
            source: int) -> None:
        self.raw.setdefault(raw.shape[1], []).append(raw)
        self.cells.append(np.stack([label.astype(np.float32), weight, inside.astype(np.float32)], axis=1))
        self.views.append((GAME_IDS.index(game), source, self.frames, raw.shape[1], raw.shape[0]))

    def next_frame(self) -> None:
        self.frames += 1

    def save(self, out: Path) -> None:
        out.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, NDArray[Any]] = {f"raw{k}": np.concatenate(v) for k, v in self.raw.items()}
        arrays["cells"] = np.concatenate(self.cells)
        arrays["views"] = np.array(self.views, np.int32)
        np.savez_compressed(out, **arrays)  # type: ignore[arg-type]


def load_rows(paths: list[Path], augment: int = 0, seed: int = 0
              ) -> tuple[F32, NDArray[np.int64], F32, NDArray[np.int32]]:
    """Feature rows of every counted cell (weight > 0) of the data files: ``(x, y, w, meta)``,
    ``meta`` per row: game, source, frame (numbered across the files). ``augment``: that many more
    copies of every view under random per-channel and overall gains (a light's or a camera's
    colour: the reference's tint and level vary, the colours relative to it hardly)."""
    rng = np.random.default_rng(seed)
    xs, ys, ws, ms = [], [], [], []
    base = 0
    for p in paths:
        with np.load(p) as d:
            raws = {int(k[3:]): d[k] for k in d.files if k.startswith("raw")}
            cells, views = d["cells"], d["views"]
        at = dict.fromkeys(raws, 0)
        c0 = 0
        for game, source, frame, k, n in views.tolist():
            raw = raws[k][at[k]:at[k] + n]
            at[k] += n
            c = cells[c0:c0 + n]
            c0 += n
            keep = c[:, 1] > 0
            for a in range(1 + augment):
                f, _ = features(_gain(raw, rng, 0.15, 0.3) if a else raw, c[:, 2] > 0.5)
                xs.append(f[keep])
                ys.append(c[keep, 0].astype(np.int64))
                ws.append(c[keep, 1])
                m = np.zeros((int(keep.sum()), 3), np.int32)
                m[:, 0], m[:, 1], m[:, 2] = game, source, base + frame
                ms.append(m)
        base += int(views[:, 2].max()) + 1 if len(views) else 0
    return (np.concatenate(xs), np.concatenate(ys), np.concatenate(ws).astype(np.float32), np.concatenate(ms))


def _square_labels(truth: list[list[str | None]]) -> NDArray[np.int8]:
    return np.array([CLASSES.index(v) for row in truth for v in row], np.int8)


def add_square_frame(rows: Rows, image: U8, corners: F64, truth: list[list[str | None]], game: str, source: int,
                     rng: np.random.Generator) -> None:
    n = len(truth)
    label = _square_labels(truth)
    weight = np.ones(n * n, np.float32)
    inside = np.ones(n * n, bool)
    rows.add(square_raw(image, corners, n), label, weight, inside, game, source)
    rows.add(_gain(square_raw(image, _moved_corners(corners, n, rng), n), rng), label, weight, inside, game, source)
    rows.next_frame()


def add_trigon_frame(rows: Rows, frame: Any, source: int, rng: np.random.Generator) -> None:
    from lab.train.eval_trigon_cells import moved, true_homography
    from vision.read.trigon.geometry import board_cells, cell_name, cell_table

    side = int(frame.labels["board"]["side"])
    truth = {str(c["cell"]): str(c["colour"]) for c in frame.labels["read"]["cells"]}
    cells9 = cell_table(9)[0]
    inner = set(board_cells(side))
    label = np.zeros(len(cells9), np.int8)
    play = np.zeros(len(cells9), bool)
    for i, (x, y) in enumerate(cells9):
        c = (x - 2, y - 1) if side == 8 else (x, y)
        if c in inner:
            play[i] = True
            label[i] = CLASSES.index(truth.get(cell_name(c, side)))
    h = true_homography(frame)
    occ = _trigon_occlusion(frame, h)
    for k, hh in enumerate((h, moved(h, rng, MOVE_CELLS))):
        raw, inside = trigon_raw(frame.image, hh)
        weight = np.where(play & inside, 1.0, 0.0).astype(np.float32)
        lab = label.copy()
        if occ is not None:
            hidden = occ >= 0.3
            lab[hidden] = 0
            weight[hidden & (weight > 0)] = HAND_WEIGHT
        rows.add(_gain(raw, rng) if k else raw, lab, weight, inside, "trigon", source)
    rows.next_frame()


def _trigon_occlusion(frame: Any, h: F64) -> F32 | None:
    """Share of each ``cell_table(9)`` cell's centre part under a hand (``None`` without a hand mask)."""
    masks = getattr(frame, "masks", None) or {}
    if "occluders" not in masks:
        return None
    from vision.read.trigon.colours import NET_SIZE, cell_means, net_affine

    hv = net_affine() @ np.linalg.inv(h)
    occ_view = cv2.warpPerspective(masks["occluders"], hv, (NET_SIZE, NET_SIZE), flags=cv2.INTER_LINEAR)
    return np.asarray(cell_means(occ_view.reshape(-1, 1).astype(np.float32) / 255.0)[:, 0], np.float32)


def make_project(game: str, start: int, count: int, out: Path) -> int:
    """Frames of the project renderer from seed ``TRAIN_SEED_BASE + start``."""
    cv2.setNumThreads(1)
    rows = Rows()
    t0 = time.time()
    for i in range(count):
        seed = TRAIN_SEED_BASE + start + i
        rng = np.random.default_rng([seed, 0xC0102])
        if game == "trigon":
            from lab.render.styles import StylePool
            from lab.render.trigon import random_trigon_frame

            add_trigon_frame(rows, random_trigon_frame(seed, DIFFICULTIES[seed % 4], StylePool()), 0, rng)
        else:
            from lab.render.blokus import render_blokus

            br = render_blokus(seed, game, hard=seed % 3 == 0)
            add_square_frame(rows, br.image, np.asarray(br.corners_px, np.float64), br.truth, game, 0, rng)
        if (i + 1) % 20 == 0:
            print(f"data: {i + 1}/{count} {game} frames ({(time.time() - t0) / (i + 1):.2f} s each)",
                  file=sys.stderr, flush=True)
    rows.save(out)
    print(f"data: wrote {rows.frames} frames to {out} in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


def make_povray(cache: Path, out: Path) -> int:
    """Every renderer-B frame of seed ``POVRAY_TRAIN_SEED`` or more in ``cache``."""
    import json

    cv2.setNumThreads(1)
    rows = Rows()
    t0 = time.time()
    for js in sorted(cache.glob("*_b_*.json")):
        m = re.match(r"(trigon|blokus|blokus_duo)_b_(\d+)_", js.name)
        jpg = js.with_suffix(".jpg")
        if m is None or int(m.group(2)) < POVRAY_TRAIN_SEED or not jpg.exists():
            continue
        game, seed = m.group(1), int(m.group(2))
        labels = json.loads(js.read_text(encoding="utf-8"))
        image = np.asarray(cv2.imread(str(jpg), cv2.IMREAD_COLOR), np.uint8)
        rng = np.random.default_rng([seed, 0xC0103])
        if game == "trigon":
            add_trigon_frame(rows, SimpleNamespace(image=image, labels=labels, masks={}), 1, rng)
        else:
            add_square_frame(rows, image, np.array(labels["board"]["corners_px"], np.float64), labels["truth"],
                             game, 1, rng)
    rows.save(out)
    print(f"data: wrote {rows.frames} renderer-B frames to {out} in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------------------------
# evaluation at the true geometry


def _b_frames(cache: Path, first: int, last: int) -> list[tuple[str, int, Path]]:
    out = []
    for js in sorted(cache.glob("*_b_*.json")):
        m = re.match(r"(trigon|blokus|blokus_duo)_b_(\d+)_", js.name)
        if m is not None and first <= int(m.group(2)) <= last and js.with_suffix(".jpg").exists():
            out.append((m.group(1), int(m.group(2)), js))
    return sorted(out, key=lambda t: (GAME_IDS.index(t[0]), t[1]))


def evaluate(cache: Path, first: int, last: int) -> int:
    """Cells right and boards perfect at the TRUE geometry, on renderer-B frames of seeds
    ``first … last`` in ``cache``: the shared model against each board's earlier method (Trigon:
    the cell net; squares: the rule). Colour alone: no locator error."""
    import json

    from lab.train.eval_trigon_cells import true_homography
    from vision.read.blokus.colours import square_verdicts
    from vision.read.blokus.geometry import GAME_COLOURS
    from vision.read.trigon.colours import classify_cells
    from vision.read.trigon.geometry import board_cells, cell_name, cell_table

    cv2.setNumThreads(1)
    tally: dict[tuple[str, str], list[int]] = {}
    for game, _seed, js in _b_frames(cache, first, last):
        labels = json.loads(js.read_text(encoding="utf-8"))
        image = np.asarray(cv2.imread(str(js.with_suffix(".jpg")), cv2.IMREAD_COLOR), np.uint8)
        results: dict[str, list[bool]] = {}
        if game == "trigon":
            side = int(labels["board"]["side"])
            truth = {str(c["cell"]): str(c["colour"]) for c in labels["read"]["cells"]}
            h = true_homography(SimpleNamespace(image=image, labels=labels))
            cells9 = cell_table(9)[0]
            index9 = {c: i for i, c in enumerate(cells9)}
            for method, old in (("shared", "shared"), ("net", "earlier")):
                verdicts, _ = classify_cells(image, h, 10.0, method=method)
                results[old] = [verdicts[index9[(c[0] + 2, c[1] + 1) if side == 8 else c]].colour
                                == truth.get(cell_name(c, side)) for c in board_cells(side)]
        else:
            n = len(labels["truth"])
            unit_sq = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
            h = np.asarray(cv2.getPerspectiveTransform(unit_sq, np.array(labels["board"]["corners_px"], np.float32)),
                           np.float64)
            for method, old in (("shared", "shared"), ("rule", "earlier")):
                got = square_verdicts(image, h, n, GAME_COLOURS[game], method)
                results[old] = [got[r][c].colour == labels["truth"][r][c] for r in range(n) for c in range(n)]
        for k, ok in results.items():
            t = tally.setdefault((game, k), [0, 0, 0, 0])
            t[0] += 1
            t[1] += int(all(ok))
            t[2] += sum(ok)
            t[3] += len(ok)
    from companion_api.cli.text_table import format_table

    rows = [[g, k, t[0], 100.0 * t[2] / max(1, t[3]), 100.0 * t[1] / max(1, t[0]), t[3] - t[2]]
            for (g, k), t in tally.items()]
    print(format_table(["game", "method", "frames", "cells right %", "perfect %", "wrong cells"], rows,
                       title=f"piece colours at the true geometry, renderer B seeds {first}–{last} ({cache})"))
    return 0


# ----------------------------------------------------------------------------------------------
# training


def train(paths: list[Path], epochs: int, seed: int, out: Path, lr: float, batch: int, augment: int) -> int:
    import torch
    from torch import nn

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    x, y, w, meta = load_rows(paths, augment, seed)
    assert x.shape[1] == N_FEATURES, x.shape
    valid = meta[:, 2] % VALID_EVERY == VALID_EVERY - 1
    tr = ~valid
    counts = np.bincount(y[tr], minlength=len(CLASSES)).astype(np.float64)
    cw = np.where(counts > 0, counts.sum() / np.maximum(counts, 1) / (counts > 0).sum(), 0.0)
    print(f"train: {int(tr.sum())} cells, validation {int(valid.sum())}; per class {counts.astype(int).tolist()}",
          file=sys.stderr)
    mean = x[tr].mean(axis=0)
    std = x[tr].std(axis=0) + 1e-3
    net = nn.Sequential(nn.Linear(N_FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                        nn.Linear(HIDDEN, len(CLASSES)))
    xt = torch.from_numpy(((x[tr] - mean) / std).astype(np.float32))
    yt = torch.from_numpy(y[tr])
    wt = torch.from_numpy((w[tr] * cw[y[tr]]).astype(np.float32))
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=1e-5)
    steps = epochs * math.ceil(len(yt) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    t0 = time.time()
    for ep in range(epochs):
        perm = torch.randperm(len(yt))
        tot = 0.0
        for b0 in range(0, len(yt), batch):
            idx = perm[b0:b0 + batch]
            ce = nn.functional.cross_entropy(net(xt[idx]), yt[idx], reduction="none")
            loss = (ce * wt[idx]).sum() / wt[idx].sum()
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
        arrays = export(net, mean, std)
        if (ep + 1) % 5 == 0 or ep == epochs - 1:
            val = report(arrays, x[valid], y[valid], meta[valid])
            print(f"epoch {ep + 1}/{epochs}: loss {tot / len(yt):.4f}  {val}  ({time.time() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)  # type: ignore[arg-type]
    print(f"train: wrote {out} ({out.stat().st_size} bytes) in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


def export(net: Any, mean: NDArray[Any], std: NDArray[Any]) -> dict[str, NDArray[Any]]:
    """Weights for ``piece_colours.PieceColourModel`` (float32)."""
    out: dict[str, NDArray[Any]] = {"mean": mean.astype(np.float32), "std": std.astype(np.float32)}
    lins = [m for m in net if hasattr(m, "weight")]
    for i, lin in enumerate(lins):
        out[f"w{i}"] = lin.weight.detach().T.numpy().astype(np.float32)
        out[f"b{i}"] = lin.bias.detach().numpy().astype(np.float32)
    return out


def report(arrays: dict[str, NDArray[Any]], x: F32, y: NDArray[np.int64], meta: NDArray[np.int32]) -> str:
    """Validation: cells right per (source, game), with each game's colours only."""
    from vision.read.blokus.geometry import GAME_COLOURS

    model = model_from_arrays(arrays)
    parts = []
    for src, sname in ((0, "project"), (1, "B")):
        for gi, game in enumerate(GAME_IDS):
            sel = (meta[:, 0] == gi) & (meta[:, 1] == src)
            if not sel.any():
                continue
            cols = ("blue", "yellow", "red", "green") if game == "trigon" else GAME_COLOURS[game]
            names: list[str | None] = [None, *cols]
            pred = model.probs(x[sel], cols).argmax(axis=1)
            got = np.array([CLASSES.index(names[k]) for k in pred])
            parts.append(f"{sname} {game} {float((got == y[sel]).mean()):.4f}")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m lab.train.train_piece_colours",
                                 description=(__doc__ or "").splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="cut labelled cells from rendered frames and save their features")
    d.add_argument("--source", choices=("project", "povray"), required=True)
    d.add_argument("--game", choices=GAME_IDS, default="trigon", help="--source project: which board")
    d.add_argument("--start", type=int, default=0, help="--source project: first seed, after TRAIN_SEED_BASE")
    d.add_argument("--count", type=int, default=100, help="--source project: frames")
    d.add_argument("--cache", type=Path, help="--source povray: renderer-B cache folder")
    d.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train", help="train on data files")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--epochs", type=int, default=40)
    t.add_argument("--seed", type=int, default=5)
    t.add_argument("--batch", type=int, default=512)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--augment", type=int, default=2, help="extra copies of each view under random gains")
    t.add_argument("--out", type=Path, default=MODEL_PATH)
    e = sub.add_parser("evaluate", help="colours at the true geometry on renderer-B frames: shared vs earlier")
    e.add_argument("--cache", type=Path, required=True)
    e.add_argument("--first", type=int, default=0)
    e.add_argument("--last", type=int, default=POVRAY_TRAIN_SEED - 1)
    a = ap.parse_args(argv)
    if a.cmd == "evaluate":
        return evaluate(a.cache, a.first, a.last)
    if a.cmd == "data":
        if str(a.out.resolve()).startswith(str(Path(__file__).resolve().parents[2])):
            ap.error("write data under /tmp, not into the repository")
        if a.source == "povray":
            if a.cache is None or not a.cache.is_dir():
                ap.error("--source povray needs --cache DIR (a renderer-B cache folder)")
            return make_povray(a.cache, a.out)
        return make_project(a.game, a.start, a.count, a.out)
    missing = [str(p) for p in a.data if not p.exists()]
    if missing:
        ap.error(f"no such data file: {', '.join(missing)}")
    return train(a.data, a.epochs, a.seed, a.out, a.lr, a.batch, a.augment)


if __name__ == "__main__":
    raise SystemExit(main())
