"""Train the Triolet square classifier (tile value 0–15, wild, empty) on rendered frames.

    python3 -m lab.train.train_triolet_digits recipe --work /tmp/tri   # the committed model, end to end
    python3 -m lab.train.train_triolet_digits data --start 0 --count 300 --out /tmp/tri_a.npz
    python3 -m lab.train.train_triolet_digits train /tmp/tri_a.npz [/tmp/tri_b.npz …] [--cache /tmp/feat]

``data`` renders frames with seeds ``TRAIN_SEED_BASE + start …`` from the training style pool
(held-out styles excluded, ``lab.render.holdout``), runs the reader's own locator and
rectification (frames it misplaces by more than a third of a square are skipped), and stores
the square crops of every visible tile and of a sample of empty squares. ``train`` computes the
features of each crop in its four quarter turns and fits a one-hidden-layer MLP with Adam in numpy and writes
``vision/models/triolet_squares.npz`` (float16 weights, well under 1 MB).

``recipe`` renders the seed ranges of ``RECIPE`` (one data file each, existing files kept) and
trains with the default settings (192 hidden units, 16 epochs): that is how the committed model
was made (650 frames, 41,691 crops). ``recipe --more`` adds ``MORE`` (2,280 frames; 2,930
frames and 182,415 crops in all) and trains 12 epochs: a larger MLP, better on the benchmark
but not committed (the CNN of ``train_triolet_cnn.py``, trained on the ``MORE`` files, re-reads
the squares that may hold a tile and does better). ``data --hands-only``, ``data
--hand-tiles`` and ``data --empty-board`` make the CNN's extra files; ``data --typefaces A,B``
draws only the named typefaces (to add frames of new faces; held-out faces are refused). Frames
whose rendering or reading takes over 60 s are skipped, so a very loaded machine can drop a frame
or two. A seed's frame depends on the style lists: ``RECIPE`` and ``MORE`` were rendered with the
18 typefaces before the six serif/mono/oblique ones were added (commit ``983905d``), so they are
reproduced exactly only from that commit.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.bench.read import render_with_timeout
from lab.render import RenderedFrame, random_frame
from lab.render.holdout import HELD_OUT, TRAIN_SEED_BASE, training_pool
from lab.render.styles import TYPEFACES
from vision.locate import BoardNotLocatedError, locate_board
from vision.read.triolet.classifier import EMPTY, MODEL_PATH, N_CLASSES, WILD, Mlp
from vision.read.triolet.features import CROP, features, square_crops
from vision.read.triolet.geometry import MARGIN, PITCH, rectified_board, rectify_maps

COLUMNS = "ABCDEFGHIJKLMNO"
#: (start, count) frame ranges of the committed model, in training order (seeds TRAIN_SEED_BASE + start …)
RECIPE: tuple[tuple[int, int], ...] = ((2400, 200), (3000, 150), (3150, 150), (3300, 150))
#: the candidate's extra ranges (rendered in 30-frame chunks on two cores: same crops, same order)
MORE: tuple[tuple[int, int], ...] = ((10000, 1140), (20000, 1140))
DIFFS = ("easy", "normal", "normal", "hard", "hard")
#: frames for the ``--hands-only`` and ``--empty-board`` files (the difficulties with hands)
HAND_DIFFS = ("normal", "hard")


def rectified_with_occluders(fr: RenderedFrame) -> tuple[NDArray[np.uint8], NDArray[np.uint8]] | None:
    """A rendered frame's board as the reader rectifies it, and its occluder mask rectified alike;
    ``None`` when the locator misses the board (or places it a third of a square off)."""
    try:
        loc = locate_board(fr.image)
    except BoardNotLocatedError:
        return None
    truth = np.asarray(fr.labels["board"]["corners_px_view"], np.float64)
    side = float(np.mean(np.hypot(*(np.roll(truth, -1, axis=0) - truth).T))) / 15.0
    if np.max(np.hypot(*(np.asarray(loc.corners_px) - truth).T)) > side / 3:
        return None
    mx, my = rectify_maps(loc, (fr.image.shape[1], fr.image.shape[0]))
    occ = np.asarray(cv2.remap(fr.masks["occluders"], mx, my, cv2.INTER_NEAREST), np.uint8)
    return rectified_board(fr.image, loc), occ


def frame_samples(seed: int, diff: str, mode: str = "all", typefaces: tuple[str, ...] | None = None,
                  min_marks: float = 0.0) -> tuple[NDArray[np.uint8], NDArray[np.int64]] | None:
    """Square crops and labels of one rendered frame (``None`` if the locator misses the board).

    ``mode``: ``"all"`` (every visible tile and 45 empty squares), ``"hands"`` (only the empty
    squares a hand or arm partly covers, labelled empty: a forearm over an empty square is not a
    tile), ``"hand-tiles"`` (only the tiles a hand partly covers, at least 40 % of the tile in view,
    labelled with their value: a tile half under a finger is still a tile), ``"empty-board"`` (a
    board before the first move: the centre square H8, which games cover at once, and 24 other
    empty squares). ``typefaces`` narrows the training pool's typefaces (held-out ones stay out).
    ``min_marks``: in ``"hand-tiles"``, only tiles with at least this share of their printed marks in
    view (the renderer's ``marks_visible``; the benchmark scores a tile from 0.5)."""
    pool = replace(training_pool(), typefaces=typefaces)
    if mode == "empty-board":
        fr = random_frame("triolet", seed, diff, pool=pool, tiles=())
    else:
        fr = random_frame("triolet", seed, diff, pool=pool)
    found = rectified_with_occluders(fr)
    if found is None:
        return None
    rect, occ = found
    labels: dict[tuple[int, int], int] = {}
    for c in fr.labels["read"]["cells"]:
        sq = c["square"]
        labels[(COLUMNS.index(sq[0]), int(sq[1:]) - 1)] = WILD if c["wild"] else int(c["value"])
    rng = np.random.default_rng(seed)
    squares: list[tuple[int, int]] = []
    ys: list[int] = []
    empties = [(c, r) for r in range(15) for c in range(15) if (c, r) not in labels]
    rng.shuffle(empties)
    def covered(c: int, r: int) -> float:
        x0, y0 = round((MARGIN + c) * PITCH), round((MARGIN + r) * PITCH)
        return float(occ[y0:y0 + PITCH, x0:x0 + PITCH].mean()) / 255.0

    if mode == "hands":
        picked = [((c, r), EMPTY) for c, r in empties if covered(c, r) > 0.05]
    elif mode == "hand-tiles":
        visible = {c["square_view"]: float(c.get("visible", 1.0)) for c in fr.labels["cells"]}
        marks = {c["square_view"]: float(c.get("marks_visible", 1.0)) for c in fr.labels["cells"]}

        def readable(sq: tuple[int, int]) -> bool:
            name = f"{COLUMNS[sq[0]]}{sq[1] + 1}"
            return visible.get(name, 1.0) >= 0.4 and marks.get(name, 1.0) >= min_marks

        picked = [(sq, y) for sq, y in labels.items() if covered(*sq) > 0.15 and readable(sq)]
    elif mode == "empty-board":
        centre = (7, 7)
        chosen = [(centre, EMPTY), *[(e, EMPTY) for e in empties if e != centre][:24]]
        picked = [(sq, y) for sq, y in chosen if covered(*sq) <= 0.15]
    else:  # a tile under a hand is not a lesson (its value may not show)
        chosen = list(labels.items()) + [(e, EMPTY) for e in empties[:45]]
        picked = [(sq, y) for sq, y in chosen if covered(*sq) <= 0.15]
    for sq, y in picked:
        squares.append(sq)
        ys.append(y)
    if not squares:
        return None
    return square_crops(rect, squares), np.array(ys, np.int64)


def make_data(start: int, count: int, out: Path, mode: str = "all", typefaces: tuple[str, ...] | None = None,
              min_marks: float = 0.0) -> None:
    xs, ys = [], []
    t0 = time.time()
    skipped = 0
    for i in range(start, start + count):
        try:
            res = render_with_timeout(60.0, frame_samples, TRAIN_SEED_BASE + i,
                                      DIFFS[i % len(DIFFS)] if mode == "all" else HAND_DIFFS[i % 2], mode, typefaces,
                                      min_marks)
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


def turned_features(path: Path, k: int, cache: Path | None = None) -> NDArray[np.float32]:
    """Features of every crop of one data file turned ``k`` quarter turns (optionally cached in
    ``cache``, keyed by the file's name, size and modification time: clear the folder after
    changing ``features.py``)."""
    if cache is not None:
        st = path.stat()
        hit = cache / f"{path.stem}_{st.st_size}_{int(st.st_mtime)}_k{k}.npy"
        if hit.exists():
            return np.asarray(np.load(hit), np.float32)
    crops = np.load(path)["crops"]
    x = _features_chunked(np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2))))
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.save(hit, x)
    return x


def train(paths: list[Path], hidden: int = 192, epochs: int = 16, seed: int = 7, out: Path = MODEL_PATH,
          cache: Path | None = None, init: Path | None = None, lr0: float = 2e-3) -> None:
    """Fit the MLP on crop files and write it to ``out``; from ``init``'s weights (its feature
    standardisation kept) when given, i.e. a fine-tune at peak rate ``lr0``."""
    y0 = np.concatenate([np.load(p)["y"] for p in paths])
    # the four quarter turns of every crop: a value reads the same however the tile lies
    x = np.concatenate([turned_features(p, k, cache) for k in range(4) for p in paths])
    y = np.tile(y0, 4)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(y))
    x, y = x[idx], y[idx]
    n_val = max(1, len(y) // 20)
    xv, yv, xt, yt = x[:n_val], y[:n_val], x[n_val:], y[n_val:]
    d = x.shape[1]
    if init is None:
        mean = xt.mean(axis=0)
        scale = xt.std(axis=0) + 1e-3
        w1 = (rng.normal(0, np.sqrt(2.0 / d), (d, hidden))).astype(np.float32)
        b1 = np.zeros(hidden, np.float32)
        w2 = (rng.normal(0, np.sqrt(1.0 / hidden), (hidden, N_CLASSES))).astype(np.float32)
        b2 = np.zeros(N_CLASSES, np.float32)
    else:
        with np.load(init) as f:
            mean, scale, w1, b1, w2, b2 = (np.asarray(f[k], np.float32)
                                           for k in ("mean", "scale", "w1", "b1", "w2", "b2"))
        start = Mlp(mean, scale, w1, b1, w2, b2)
        print(f"from {init}: val acc {float((start.logits(xv).argmax(axis=1) == yv).mean()):.4f}", file=sys.stderr)
    zt = (xt - mean) / scale
    params = [w1, b1, w2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    # class weights: rare values (14, 15, wild) count as much as common ones
    counts = np.bincount(yt, minlength=N_CLASSES).astype(np.float32)
    cw = (counts.sum() / (N_CLASSES * np.maximum(counts, 1))) ** 0.5
    step, batch, wd = 0, 256, 1e-4
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


def _typefaces(ap: argparse.ArgumentParser, text: str | None) -> tuple[str, ...] | None:
    """The ``--typefaces`` names, checked (unknown or held-out names end the run with a message)."""
    if text is None:
        return None
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in TYPEFACES]
    if unknown or not names:
        ap.error(f"unknown typeface(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(TYPEFACES)}")
    held = [n for n in names if n in HELD_OUT["typefaces"]]
    if held:
        ap.error(f"{', '.join(held)} is held out of training (lab/render/holdout.py)")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data")
    d.add_argument("--start", type=int, default=0)
    d.add_argument("--count", type=int, default=300)
    d.add_argument("--out", type=Path, required=True)
    kind = d.add_mutually_exclusive_group()
    kind.add_argument("--hands-only", dest="mode", action="store_const", const="hands",
                      help="only empty squares under a hand, labelled empty")
    kind.add_argument("--empty-board", dest="mode", action="store_const", const="empty-board",
                      help="boards before the first move: H8 and other empties")
    kind.add_argument("--hand-tiles", dest="mode", action="store_const", const="hand-tiles",
                      help="only tiles partly under a hand, labelled with their value")
    d.set_defaults(mode="all")
    d.add_argument("--typefaces", default=None, metavar="NAME,NAME",
                   help="draw only these typefaces (comma-separated names; held-out ones are refused)")
    d.add_argument("--min-marks", type=float, default=0.0, metavar="SHARE",
                   help="--hand-tiles: only tiles with at least this share of their printed marks in view")
    t = sub.add_parser("train")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--epochs", type=int, default=16)
    t.add_argument("--hidden", type=int, default=192)
    t.add_argument("--out", type=Path, default=MODEL_PATH)
    t.add_argument("--cache", type=Path, default=None, help="folder for cached features (e.g. under /tmp)")
    t.add_argument("--init", type=Path, default=None, metavar="NPZ",
                   help="fine-tune these weights (their feature standardisation kept) instead of starting afresh")
    t.add_argument("--lr", type=float, default=2e-3, help="peak learning rate")
    r = sub.add_parser("recipe")
    r.add_argument("--work", type=Path, required=True, help="folder for the data files (e.g. under /tmp)")
    r.add_argument("--out", type=Path, default=MODEL_PATH)
    r.add_argument("--more", action="store_true", help="the larger candidate (RECIPE + MORE, 12 epochs)")
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if a.cmd == "data":
        make_data(a.start, a.count, a.out, a.mode, _typefaces(d, a.typefaces), a.min_marks)
    elif a.cmd == "recipe":
        a.work.mkdir(parents=True, exist_ok=True)
        ranges = RECIPE + MORE if a.more else RECIPE
        paths = [a.work / f"frames_{start}_{count}.npz" for start, count in ranges]
        for (start, count), path in zip(ranges, paths, strict=True):
            if not path.exists():
                make_data(start, count, path)
        train(paths, epochs=12 if a.more else 16, out=a.out, cache=a.work / "features")
    else:
        train(a.data, a.hidden, a.epochs, out=a.out, cache=a.cache, init=a.init, lr0=a.lr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
