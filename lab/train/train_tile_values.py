"""Train the corner-value net for Triominos / Trio Domino tiles (dev-time only: torch).

    python3 -m lab.train.train_tile_values data --start 0 --count 300 --out /tmp/tv/v_0.npz
    python3 -m lab.train.train_tile_values train /tmp/tv/v_*.npz --epochs 10 --threads 2

The committed weights (124,482 training crops, half of them cut from the finder's outlines;
97.5 % of the 6,021 validation crops right, the earlier net trained on true outlines only 92.4 %; 37 minutes on two
threads beside other work):

    python3 -m lab.train.train_tile_values data --start 310000 --count 400 --out /tmp/tv2/v_0.npz
    python3 -m lab.train.train_tile_values data --start 310400 --count 400 --out /tmp/tv2/v_1.npz
    python3 -m lab.train.train_tile_values data --start 311000 --count 400 --out /tmp/tv2/v_2.npz
    python3 -m lab.train.train_tile_values data --start 390000 --count 60 --out /tmp/tv2/v_9.npz
    python3 -m lab.train.train_tile_values train /tmp/tv2/v_0.npz /tmp/tv2/v_1.npz /tmp/tv2/v_2.npz \
        /tmp/tv2/v_9.npz --epochs 12 --threads 2

``data --from-b DIR`` cuts the same crops from renderer B's cached pictures (``DIR`` as
``lab.render.povray.tiles`` fills it; seeds ``start …`` of both games, training typefaces only, never
the benchmark's seeds from ``data_train_cli.B_BENCH_SEED``). The committed weights are the net above
fine-tuned on the mix, at a third of the learning rate (docs/READER_TILES.md, "Learning from renderer
B's pictures", has the figures: renderer B's corner values 24.7 → 34.9 % (Trio Domino) and 64.9 →
76.6 % (Triominos), the real photographs 46.0 → 54.1 %, the project's Trio Domino row 89.69 → 89.52 %)::

    python3 -m lab.train.train_tile_values data --from-b DIR --start 0 --count 40 --out /tmp/tv/b_0.npz
    python3 -m lab.train.train_tile_values data --from-b DIR --start 40 --count 10 --out /tmp/tv/bv.npz
    python3 -m lab.train.train_tile_values data --start 310000 --count 80 --out /tmp/tv/p_0.npz
    python3 -m lab.train.train_tile_values data --start 310080 --count 80 --out /tmp/tv/p_1.npz
    python3 -m lab.train.train_tile_values data --start 310160 --count 240 --out /tmp/tv/p_2.npz
    python3 -m lab.train.train_tile_values data --start 310400 --count 400 --out /tmp/tv/p_3.npz
    python3 -m lab.train.train_tile_values train /tmp/tv/p_0.npz /tmp/tv/p_1.npz /tmp/tv/p_2.npz \
        /tmp/tv/p_3.npz /tmp/tv/b_0.npz /tmp/tv/b_0.npz /tmp/tv/bv.npz --epochs 2 \
        --init vision/models/tile_values.npz --out vision/models/tile_values.npz

(97,029 training crops, 14,892 of them renderer B's given twice; validation on ``bv`` 0.730, the
net before 0.559; ``--init`` is the net of commit ``75e715d``.)

``data`` renders frames of both games (seeds ``data_train_cli.TRAIN_SEED_BASE + start …``, difficulties easy,
normal and hard in turn) and cuts, for every tile at least ``MIN_VISIBLE`` in view, the window of
each corner as the reader sees it (``vision.read.tritiles.values.corner_crop``: the tile turned upright
with that corner on top), from the true outline moved by the finder's typical error (each corner
shifted by up to ``JITTER`` of a side), labelled with the corner's value 0–5 (numerals and pips
alike). With ``FINDER_CROPS`` each frame also goes through the tile finder the reader uses
(``vision.read.tritiles.reader.locate_tiles``) and the corners of every found tile that matches a true
one (centre within ``MATCH`` of a side) are cut from the *found* outline, labelled with the value
of the nearest true corner: the net then learns the outlines it is given at run time, whose corners
are off by 7 % of a side at the median and 15 % at the 90th percentile (twice ``JITTER``).
``train`` fits the square-CNN architecture of the Triolet reader (``vision.read.triolet.cnn``:
shrink, three conv blocks, a hidden layer) with six outputs and writes
``vision/models/tile_values.npz``. The benchmark's frames use seeds below 1,000,000.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lab.train.data_train_cli import b_frames, run_cli, tile_frames
from vision.read.tritiles.finder import mean_side
from vision.read.tritiles.values import CORNER_CROP, VALUES_PATH, clockwise, corner_crop

MIN_VISIBLE = 0.85
#: corner shift, as a share of the tile's side (standard deviation per axis)
JITTER = 0.035
IN_SIZE = 28
#: also cut the corners of the tiles the finder finds (see the module docstring)
FINDER_CROPS = True
#: a found tile matches a true one when their centres lie within this share of a side
MATCH = 0.35


def frame_crops(f: Any, rng: np.random.Generator) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """Corner crops (n, CORNER_CROP, CORNER_CROP, 3) and their values of one rendered frame."""
    crops, ys = [], []
    for t in f.labels["tiles"]:
        if float(t.get("visible", 1.0)) < MIN_VISIBLE:
            continue
        true = np.array([c["px"] for c in t["corners"]], np.float64)
        side = mean_side(true)
        moved = true + rng.normal(0, JITTER * side, true.shape)
        cw = clockwise(moved)
        for i in range(3):
            k = int(np.argmin(np.linalg.norm(true - cw[i], axis=1)))
            crops.append(corner_crop(f.image, cw, i))
            ys.append(int(t["corners"][k]["value"]))
    if FINDER_CROPS:
        fc, fy = finder_crops(f)
        crops.extend(fc)
        ys.extend(fy)
    if not crops:
        return np.zeros((0, CORNER_CROP, CORNER_CROP, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(crops), np.array(ys, np.int64)


def finder_crops(f: Any) -> tuple[list[NDArray[np.uint8]], list[int]]:
    """Corner crops cut from the outlines the reader's tile finder gives, for found tiles matching a
    true tile at least ``MIN_VISIBLE`` in view, labelled with the nearest true corner's value."""
    from vision.read.tritiles.reader import _finder_net, locate_tiles

    truth = [t for t in f.labels["tiles"] if float(t.get("visible", 1.0)) >= MIN_VISIBLE]
    if not truth:
        return [], []
    true = [np.array([c["px"] for c in t["corners"]], np.float64) for t in truth]
    centres = np.array([t.mean(axis=0) for t in true])
    crops: list[NDArray[np.uint8]] = []
    ys: list[int] = []
    for ft in locate_tiles(f.image, _finder_net()):
        cw = clockwise(ft.corners)
        d = np.linalg.norm(centres - cw.mean(axis=0), axis=1)
        k = int(np.argmin(d))
        side = mean_side(true[k])
        if d[k] > MATCH * side:
            continue
        for i in range(3):
            j = int(np.argmin(np.linalg.norm(true[k] - cw[i], axis=1)))
            crops.append(corner_crop(f.image, cw, i))
            ys.append(int(truth[k]["corners"][j]["value"]))
    return crops, ys


def make_data(start: int, count: int, out: Path) -> int:
    """Render ``count`` frames (``tile_frames``) into ``out``."""
    return write_crops(tile_frames(start, count), out)


def make_data_b(cache: Path, start: int, count: int, out: Path) -> int:
    """Cut corners from renderer B's cached pictures with seeds ``start …`` (``b_frames``) into ``out``."""
    return write_crops(b_frames(cache, start, count), out)


def write_crops(frames: Iterator[tuple[Any, np.random.Generator]], out: Path) -> int:
    """Cut ``frame_crops`` from every frame into ``out`` (crops, values)."""
    xs, ys = [], []
    for f, rng in frames:
        x, y = frame_crops(f, rng)
        xs.append(x)
        ys.append(y)
    np.savez_compressed(out, crops=np.concatenate(xs), y=np.concatenate(ys))
    return 0


def train(files: list[Path], epochs: int, threads: int, seed: int, out: Path, init: Path | None = None) -> int:
    """Fit the corner-value net on ``files`` (the last held back for validation), from scratch or
    from the exported weights ``init``."""
    import torch
    import torch.nn.functional as tnf

    from lab.train.train_triolet_cnn import Net, export_arrays, load_arrays

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    data = [np.load(f) for f in files]
    val_x, val_y = data[-1]["crops"], data[-1]["y"]
    tr = data[:-1] or data
    x_all = np.concatenate([d["crops"] for d in tr])
    y_all = np.concatenate([d["y"] for d in tr])
    print(f"train: {len(x_all)} crops, validation {len(val_x)}", file=sys.stderr)
    net = Net(in_size=IN_SIZE, crop=CORNER_CROP, classes=6)
    if init is not None:
        with np.load(init) as arrays:
            load_arrays(net, {k: arrays[k] for k in arrays.files})
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    batch = 128
    steps = epochs * (len(x_all) // batch)
    # fine-tuning keeps to a third of the learning rate: what the net reads already stays read
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3 if init else 3e-3, total_steps=steps, pct_start=0.2)

    def batch_of(a: NDArray[np.uint8], augment: bool) -> torch.Tensor:
        t = torch.from_numpy(np.ascontiguousarray(a)).permute(0, 3, 1, 2).float() / 255.0
        if augment:
            n = len(t)
            gain = torch.from_numpy(rng.uniform(0.7, 1.3, (n, 3, 1, 1)).astype(np.float32))
            bright = torch.from_numpy(rng.uniform(-0.15, 0.15, (n, 1, 1, 1)).astype(np.float32))
            t = (t * gain + bright).clamp(0, 1)
            noise = torch.from_numpy(rng.uniform(0, 0.04, (n, 1, 1, 1)).astype(np.float32))
            t = (t + torch.randn_like(t) * noise).clamp(0, 1)
        return t

    t0 = time.time()
    for ep in range(epochs):
        net.train()
        if init is not None:  # folded batch norms stay fixed while fine-tuning
            for m in net.features:
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.eval()
        order = rng.permutation(len(x_all))
        for k in range(len(x_all) // batch):
            idx = order[k * batch:(k + 1) * batch]
            loss = tnf.cross_entropy(net(batch_of(x_all[idx], True)), torch.from_numpy(y_all[idx]))
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            pred = np.concatenate([net(batch_of(val_x[k:k + 512], False)).argmax(1).numpy()
                                   for k in range(0, len(val_x), 512)])
        print(f"epoch {ep + 1}/{epochs}: validation {float((pred == val_y).mean()):.4f} "
              f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        np.savez_compressed(out, **export_arrays(net))  # type: ignore[arg-type]
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_cli(argv, "python3 -m lab.train.train_tile_values", __doc__ or "", make_data, train, VALUES_PATH,
                   epochs=10, seed=3, make_data_b=make_data_b)


if __name__ == "__main__":
    sys.exit(main())
