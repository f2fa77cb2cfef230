"""Train the Triolet square classifier (tile value 0–15, wild, empty) on rendered frames.

    python3 -m vision.models.train_triolet_digits data --start 0 --count 300 --out /tmp/tri_a.npz
    python3 -m vision.models.train_triolet_digits train /tmp/tri_a.npz [/tmp/tri_b.npz …]

``data`` renders frames with seeds ``TRAIN_SEED_BASE + start …`` from the training style pool
(held-out styles excluded, ``vision.triolet.holdout``), runs the reader's own locator and
rectification (frames it misplaces by more than a third of a square are skipped), and stores
the square crops of every visible tile and of a sample of empty squares. ``train`` computes the
features of each crop in its four quarter turns and fits a one-hidden-layer MLP with Adam in numpy and writes
``vision/models/triolet_squares.npz`` (float16 weights, well under 1 MB).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion_api.bench.read import render_with_timeout
from vision.locate import BoardNotLocatedError, locate_board
from vision.render import random_frame
from vision.triolet.classifier import EMPTY, MODEL_PATH, N_CLASSES, WILD, Mlp
from vision.triolet.features import CROP, features, square_crops
from vision.triolet.geometry import MARGIN, PITCH, rectified_board, rectify_maps
from vision.triolet.holdout import TRAIN_SEED_BASE, training_pool

COLUMNS = "ABCDEFGHIJKLMNO"
DIFFS = ("easy", "normal", "normal", "hard", "hard")


def frame_samples(seed: int, diff: str) -> tuple[NDArray[np.uint8], NDArray[np.int64]] | None:
    """Square crops and labels of one rendered frame (``None`` if the locator misses the board)."""
    fr = random_frame("triolet", seed, diff, pool=training_pool())
    img = fr.image
    try:
        loc = locate_board(img)
    except BoardNotLocatedError:
        return None
    truth = np.asarray(fr.labels["board"]["corners_px_view"], np.float64)
    side = float(np.mean(np.hypot(*(np.roll(truth, -1, axis=0) - truth).T))) / 15.0
    if np.max(np.hypot(*(np.asarray(loc.corners_px) - truth).T)) > side / 3:
        return None
    rect = rectified_board(img, loc)
    h, w = img.shape[:2]
    mx, my = rectify_maps(loc, (w, h))
    occ = cv2.remap(fr.masks["occluders"], mx, my, cv2.INTER_NEAREST)
    labels: dict[tuple[int, int], int] = {}
    for c in fr.labels["read"]["cells"]:
        sq = c["square"]
        labels[(COLUMNS.index(sq[0]), int(sq[1:]) - 1)] = WILD if c["wild"] else int(c["value"])
    rng = np.random.default_rng(seed)
    squares: list[tuple[int, int]] = []
    ys: list[int] = []
    empties = [(c, r) for r in range(15) for c in range(15) if (c, r) not in labels]
    rng.shuffle(empties)
    for (c, r), y in list(labels.items()) + [(e, EMPTY) for e in empties[:45]]:
        x0, y0 = round((MARGIN + c) * PITCH), round((MARGIN + r) * PITCH)
        if occ[y0:y0 + PITCH, x0:x0 + PITCH].mean() > 255 * 0.15:
            continue  # under a hand: not a lesson
        squares.append((c, r))
        ys.append(y)
    if not squares:
        return None
    return square_crops(rect, squares), np.array(ys, np.int64)


def make_data(start: int, count: int, out: Path) -> None:
    xs, ys = [], []
    t0 = time.time()
    skipped = 0
    for i in range(start, start + count):
        try:
            res = render_with_timeout(60.0, frame_samples, TRAIN_SEED_BASE + i, DIFFS[i % len(DIFFS)])
        except Exception as exc:  # a locator bug must not cost the whole batch
            print(f"frame {i}: {type(exc).__name__}: {exc}", file=sys.stderr)
            res = None
        if res is None:
            skipped += 1
            continue
        xs.append(res[0])
        ys.append(res[1])
        if (i - start) % 25 == 0:
            print(f"frame {i - start}/{count} {time.time() - t0:.0f}s skipped {skipped}", file=sys.stderr)
    np.savez(out, crops=np.concatenate(xs), y=np.concatenate(ys))
    print(f"{out}: {sum(len(y) for y in ys)} samples, {skipped} frames skipped", file=sys.stderr)


def _features_chunked(crops: NDArray[np.uint8], chunk: int = 2048) -> NDArray[np.float32]:
    return np.concatenate([features(crops[i:i + chunk]) for i in range(0, len(crops), chunk)])


def train(paths: list[Path], hidden: int = 160, epochs: int = 30, seed: int = 7, out: Path = MODEL_PATH) -> None:
    data = [np.load(p) for p in paths]
    crops = np.concatenate([d["crops"] for d in data])
    y0 = np.concatenate([d["y"] for d in data])
    # the four quarter turns of every crop: a value reads the same however the tile lies
    x = np.concatenate([_features_chunked(np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2)))) for k in range(4)])
    y = np.tile(y0, 4)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(y))
    x, y = x[idx], y[idx]
    n_val = max(1, len(y) // 20)
    xv, yv, xt, yt = x[:n_val], y[:n_val], x[n_val:], y[n_val:]
    mean = xt.mean(axis=0)
    scale = xt.std(axis=0) + 1e-3
    zt = (xt - mean) / scale
    d = x.shape[1]
    w1 = (rng.normal(0, np.sqrt(2.0 / d), (d, hidden))).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = (rng.normal(0, np.sqrt(1.0 / hidden), (hidden, N_CLASSES))).astype(np.float32)
    b2 = np.zeros(N_CLASSES, np.float32)
    params = [w1, b1, w2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    # class weights: rare values (14, 15, wild) count as much as common ones
    counts = np.bincount(yt, minlength=N_CLASSES).astype(np.float32)
    cw = (counts.sum() / (N_CLASSES * np.maximum(counts, 1))) ** 0.5
    step, batch, lr0, wd = 0, 256, 2e-3, 1e-4
    for ep in range(epochs):
        lr = lr0 * 0.5 * (1 + np.cos(np.pi * ep / epochs))
        order = rng.permutation(len(yt))
        for s in range(0, len(order), batch):
            bi = order[s:s + batch]
            xb = zt[bi] + rng.normal(0, 0.05, (len(bi), d)).astype(np.float32)
            yb = yt[bi]
            h_pre = xb @ w1 + b1
            h = np.maximum(h_pre, 0)
            lg = h @ w2 + b2
            lg -= lg.max(axis=1, keepdims=True)
            p = np.exp(lg)
            p /= p.sum(axis=1, keepdims=True)
            g = p.copy()
            g[np.arange(len(bi)), yb] -= 1
            g *= cw[yb][:, None] / len(bi)
            gw2 = h.T @ g + wd * w2
            gb2 = g.sum(axis=0)
            gh = (g @ w2.T) * (h_pre > 0)
            gw1 = xb.T @ gh + wd * w1
            gb1 = gh.sum(axis=0)
            step += 1
            for k, gr in enumerate((gw1, gb1, gw2, gb2)):
                m[k] = 0.9 * m[k] + 0.1 * gr
                v[k] = 0.999 * v[k] + 0.001 * gr * gr
                mh = m[k] / (1 - 0.9 ** step)
                vh = v[k] / (1 - 0.999 ** step)
                params[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        model = Mlp(mean.astype(np.float32), scale.astype(np.float32), *params)
        acc = float((model.logits(xv).argmax(axis=1) == yv).mean())
        print(f"epoch {ep + 1}/{epochs} lr {lr:.5f} val acc {acc:.4f}", file=sys.stderr)
    model = Mlp(mean.astype(np.float32), scale.astype(np.float32), *params)
    model.save(out)
    pred = model.logits(xv).argmax(axis=1)
    for k in range(N_CLASSES):
        sel = yv == k
        if sel.any():
            print(f"class {k}: {int(sel.sum())} val, acc {(pred[sel] == k).mean():.4f}", file=sys.stderr)
    print(f"wrote {out} ({out.stat().st_size / 1e3:.0f} kB), {len(yt)} training samples, crop {CROP}px",
          file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data")
    d.add_argument("--start", type=int, default=0)
    d.add_argument("--count", type=int, default=300)
    d.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--epochs", type=int, default=30)
    t.add_argument("--hidden", type=int, default=160)
    t.add_argument("--out", type=Path, default=MODEL_PATH)
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if a.cmd == "data":
        make_data(a.start, a.count, a.out)
    else:
        train(a.data, a.hidden, a.epochs, out=a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
