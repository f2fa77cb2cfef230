"""Train the tile finder for Triominos / Trio Domino pictures (dev-time only: torch).

    python3 -m lab.train.train_tile_finder data --start 0 --count 200 --out /tmp/tf/d_0.npz
    python3 -m lab.train.train_tile_finder data --start 200 --count 200 --out /tmp/tf/d_1.npz
    python3 -m lab.train.train_tile_finder data --start 900 --count 30 --out /tmp/tf/v_9.npz
    python3 -m lab.train.train_tile_finder train /tmp/tf/d_0.npz /tmp/tf/d_1.npz /tmp/tf/v_9.npz --epochs 3 \
        --init vision/models/tile_finder.npz --out vision/models/tile_finder_large.npz

(``tile_finder_large.npz``, which reads the reader's coarser pyramid levels: three epochs from the
weights of ``tile_finder.npz``, 2,123 patches, validation loss 0.143 → 0.135, 8 minutes on one
thread beside other work. ``tile_finder.npz`` itself, which reads the finest level, was trained
by this script as it stood at commit 40c6401, before frames were scaled: 920 frames shrunk to
``WORK_SIZE``, 6 patches each, 12 epochs; docs/READER_TILES.md has its commands.)

``data`` renders frames of both games with seeds ``data_train_cli.TRAIN_SEED_BASE + start …`` (difficulties
easy, normal and hard in turn; ``FRAME_SIZE``; every ``LOOSE_EVERY``-th frame a table of loose tiles,
``lab.render.triangles.random_loose_frame``, half of them wooden tiles with coloured pips on printed
oilcloth or paper), scales each so that its tiles' median side is drawn between ``SIDE_RANGE``
working pixels (log-uniform: the net learns tiles of every size it is asked to find, and the reader's
short pyramid of scales brings any tile into that range) and cuts ``PATCHES`` patches of ``PATCH`` px,
most of them around tiles, with three target maps at a quarter of the patch's resolution:

- the centre of every tile at least ``CENTRE_MIN_VISIBLE`` in view (a small Gaussian),
- every tile corner a hand does not cover (a small Gaussian),
- the tiles' visible top faces (share of the quarter-pixel covered).

``train`` fits the net of ``vision.read.tritiles.finder`` (strided and dilated 3×3 convolutions, three
sigmoid maps) with binary cross-entropy, positives of the two point maps weighted up, and writes
``--out`` (default ``vision/models/tile_finder.npz``; float16, 59 kB). The benchmark's frames use seeds
below 1,000,000: the two never meet.

``data --from-b DIR`` cuts the same patches from renderer B's cached pictures instead (``DIR`` as
``lab.render.povray.tiles`` fills it; seeds ``start …`` of both games, training typefaces only,
never the benchmark's seeds from ``data_train_cli.B_BENCH_SEED``). Fine-tuning
``tile_finder_large.npz`` on those mixed with the project's patches (three epochs, 1,044 project
and 2 × 469 renderer-B patches) found the same renderer-B tiles and fewer on the real photos, so
the committed finder is not trained on them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.train.data_train_cli import DIFFICULTIES, GAMES, TRAIN_SEED_BASE, b_frames, run_cli
from vision.read.tritiles.finder import FINDER_PATH, STRIDE

PATCH = 256
PATCHES = 8
#: working-pixel range of the tiles' median side in the training patches
SIDE_RANGE = (18.0, 110.0)
#: every this many frames, a table of loose tiles
LOOSE_EVERY = 2
#: rendered frame size (small: the patches are rescaled anyway)
FRAME_SIZE = (640, 480)
#: tiles at least this much in view get a centre target
CENTRE_MIN_VISIBLE = 0.6
#: Gaussian spread of the point targets, in output cells (a quarter of a working pixel each way)
SIGMA = 1.0

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]


def _gauss(shape: tuple[int, int], points: NDArray[np.float64]) -> F32:
    """A map of ``shape`` holding the maximum of unit Gaussians (``SIGMA`` cells) at ``points`` (x, y)."""
    out = np.zeros(shape, np.float32)
    h, w = shape
    r = int(np.ceil(3 * SIGMA))
    for x, y in points:
        cx, cy = round(x), round(y)
        x0, x1, y0, y1 = max(0, cx - r), min(w, cx + r + 1), max(0, cy - r), min(h, cy + r + 1)
        if x0 >= x1 or y0 >= y1:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1]
        g = np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * SIGMA ** 2)).astype(np.float32)
        out[y0:y1, x0:x1] = np.maximum(out[y0:y1, x0:x1], g)
    return out


def targets(labels: dict[str, Any], occluders: U8 | None, scale: float, shape: tuple[int, int]) -> F32:
    """(3, H/STRIDE, W/STRIDE) target maps (centres, corners, faces) of a frame shrunk by ``scale``
    to ``shape`` (h, w)."""
    h, w = shape
    oh, ow = h // STRIDE, w // STRIDE
    q = scale / STRIDE
    face = np.zeros((h, w), np.uint8)
    centres, corners = [], []
    occ = None
    if occluders is not None and occluders.any():
        occ = cv2.resize(occluders, (w, h), interpolation=cv2.INTER_NEAREST) > 0
    for t in labels["tiles"]:
        pts = np.array([c["px"] for c in t["corners"]], np.float64)
        vis = float(t.get("visible", 1.0))
        cv2.fillPoly(face, [np.round(pts * scale * 8).astype(np.int32)], 255, shift=3)
        if vis >= CENTRE_MIN_VISIBLE:
            centres.append(pts.mean(axis=0) * q)
        if vis >= 0.3:
            for p in pts * scale:
                xi, yi = round(p[0]), round(p[1])
                if occ is not None and 0 <= xi < w and 0 <= yi < h and occ[yi, xi]:
                    continue
                corners.append(p / STRIDE)
    if occ is not None:
        face[occ] = 0
    # output cell (i, j) is centred on working pixel (STRIDE·j, STRIDE·i): padded stride-2 convolutions
    c_map = _gauss((oh, ow), np.array(centres).reshape(-1, 2))
    k_map = _gauss((oh, ow), np.array(corners).reshape(-1, 2))
    f_map = cv2.resize(face.astype(np.float32) / 255.0, (ow, oh), interpolation=cv2.INTER_AREA)
    return np.stack([c_map, k_map, f_map]).astype(np.float32)


def frame_patches(f: Any, rng: np.random.Generator) -> tuple[U8, F32]:
    """Up to ``PATCHES`` (image, target) patches of one rendered frame, scaled as the module says:
    (n, PATCH, PATCH, 3) BGR and (n, 3, PATCH/STRIDE, PATCH/STRIDE)."""
    sides = [float(np.linalg.norm(np.subtract(t["corners"][0]["px"], t["corners"][1]["px"])))
             for t in f.labels["tiles"]]
    side = float(np.median(sides)) if sides else 40.0
    scale = float(np.exp(rng.uniform(np.log(SIDE_RANGE[0]), np.log(SIDE_RANGE[1])))) / max(side, 1.0)
    interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    work = np.asarray(cv2.resize(f.image, None, fx=scale, fy=scale, interpolation=interp), np.uint8)
    wh, ww = work.shape[:2]
    tmap = targets(f.labels, f.masks.get("occluders"), scale, (wh, ww))
    centres = np.array([np.mean([c["px"] for c in t["corners"]], axis=0) for t in f.labels["tiles"]]) * scale
    ims, tgs = [], []
    n = int(np.clip(round(ww * wh / PATCH ** 2 * 1.5), 1, PATCHES))  # a small picture gives fewer patches
    for _ in range(n):
        if len(centres) and rng.random() < 0.8:
            cx, cy = centres[rng.integers(len(centres))] + rng.normal(0, PATCH / 5, 2)
        else:
            cx, cy = rng.uniform(0, ww), rng.uniform(0, wh)
        # a picture smaller than a patch lies anywhere in it (the rest black)
        x0 = int(np.clip(cx - PATCH / 2, min(0, ww - PATCH), max(0, ww - PATCH))) // STRIDE * STRIDE
        y0 = int(np.clip(cy - PATCH / 2, min(0, wh - PATCH), max(0, wh - PATCH))) // STRIDE * STRIDE
        im = np.zeros((PATCH, PATCH, 3), np.uint8)
        tg = np.zeros((3, PATCH // STRIDE, PATCH // STRIDE), np.float32)
        sx, sy = max(0, x0), max(0, y0)
        part = work[sy:y0 + PATCH, sx:x0 + PATCH]
        im[sy - y0:sy - y0 + part.shape[0], sx - x0:sx - x0 + part.shape[1]] = part
        tp = tmap[:, sy // STRIDE:(y0 + PATCH) // STRIDE, sx // STRIDE:(x0 + PATCH) // STRIDE]
        oy, ox = (sy - y0) // STRIDE, (sx - x0) // STRIDE
        tg[:, oy:oy + tp.shape[1], ox:ox + tp.shape[2]] = tp
        ims.append(im)
        tgs.append(tg)
    return np.stack(ims), np.stack(tgs)


def training_frames(start: int, count: int) -> Any:
    """``count`` frames of ``FRAME_SIZE`` from seed ``TRAIN_SEED_BASE + start`` (games and
    difficulties in turn as ``tile_frames``), every ``LOOSE_EVERY``-th a table of loose tiles, half
    of those wooden tiles on printed oilcloth or paper; each with the generator that picks patches."""
    rng = np.random.default_rng(start)
    t0 = time.time()
    for i in range(count):
        yield mixed_frame(i, TRAIN_SEED_BASE + start + i, rng, FRAME_SIZE), rng
        if (i + 1) % 20 == 0:
            print(f"data: {i + 1}/{count} frames ({(time.time() - t0) / (i + 1):.2f} s each)", file=sys.stderr,
                  flush=True)



def mixed_frame(i: int, seed: int, rng: np.random.Generator, size: tuple[int, int] | None = None,
                loose_every: int = LOOSE_EVERY) -> Any:
    """The ``i``-th picture of a training mix: a field of tiles, or every ``loose_every``-th a table of
    loose tiles, half of those wooden tiles on printed oilcloth or paper."""
    from lab.render.triangles import random_loose_frame, random_triangles_frame

    game, diff = GAMES[i % 2], DIFFICULTIES[seed % len(DIFFICULTIES)]
    if i % loose_every == loose_every - 1:
        wooden = rng.random() < 0.5
        face = ("walnut_colour_pips", "oak_colour_pips", "walnut_black_pips")[i % 3] if wooden else None
        table = ("oilcloth_fruit", "oilcloth_leaves", "paper_plain")[(i // 3) % 3] if wooden else None
        return random_loose_frame(game, seed, diff, face, table, size)
    return random_triangles_frame(game, seed, diff, size=size)

def make_data(start: int, count: int, out: Path) -> int:
    """Render ``count`` frames (``training_frames``) into ``out``."""
    return write_patches(training_frames(start, count), out)


def make_data_b(cache: Path, start: int, count: int, out: Path) -> int:
    """Cut patches from renderer B's cached pictures with seeds ``start …`` (``b_frames``) into ``out``."""
    return write_patches(b_frames(cache, start, count), out)


def write_patches(frames: Iterator[tuple[Any, np.random.Generator]], out: Path) -> int:
    """Cut ``frame_patches`` from every frame into ``out`` (images, targets as uint8)."""
    ims, tgs = [], []
    for f, rng in frames:
        im, tg = frame_patches(f, rng)
        ims.append(im)
        tgs.append((tg * 255).round().astype(np.uint8))
    np.savez_compressed(out, images=np.concatenate(ims), targets=np.concatenate(tgs))
    return 0


def _torch_net() -> Any:
    """The finder net in torch, with batch norms (folded at export)."""
    import torch
    from torch import nn

    from vision.read.tritiles.finder import LAYERS, MAPS

    layers: list[Any] = []
    for cin, cout, stride, dil in LAYERS:
        layers += [nn.Conv2d(cin, cout, 3, stride=stride, padding=dil, dilation=dil), nn.BatchNorm2d(cout), nn.ReLU()]
    layers.append(nn.Conv2d(LAYERS[-1][1], len(MAPS), 1))
    torch.manual_seed(0)
    return nn.Sequential(*layers)


def export(net: Any, out: Path) -> None:
    """Fold the batch norms into the convolutions and write the weights (float16)."""
    from torch import nn

    arrays: dict[str, NDArray[np.float16]] = {}
    mods = list(net)
    i = 0
    for k, m in enumerate(mods):
        if isinstance(m, nn.Conv2d) and k + 1 < len(mods) and isinstance(mods[k + 1], nn.BatchNorm2d):
            bn = mods[k + 1]
            scale = (bn.weight / (bn.running_var + bn.eps).sqrt()).detach().numpy()
            w = m.weight.detach().numpy() * scale[:, None, None, None]
            bias = m.bias.detach().numpy() if m.bias is not None else 0.0
            b = (bias - bn.running_mean.detach().numpy()) * scale + bn.bias.detach().numpy()
            arrays[f"w{i}"], arrays[f"b{i}"] = w.astype(np.float16), b.astype(np.float16)
            i += 1
    head = mods[-1]
    arrays["wh"] = head.weight.detach().numpy().astype(np.float16)
    arrays["bh"] = head.bias.detach().numpy().astype(np.float16)
    np.savez_compressed(out, **arrays)  # type: ignore[arg-type]


def load_exported(net: Any, path: Path) -> None:
    """Set ``net`` to exported weights: each convolution takes the folded kernel and bias, its batch
    norm becomes the identity (the inverse of ``export`` up to float16 rounding)."""
    import torch
    from torch import nn

    with np.load(path) as d:
        arrays = {k: d[k].astype(np.float32) for k in d.files}
    mods = list(net)
    i = 0
    with torch.no_grad():
        for k, m in enumerate(mods):
            if isinstance(m, nn.Conv2d) and k + 1 < len(mods) and isinstance(mods[k + 1], nn.BatchNorm2d):
                bn = mods[k + 1]
                m.weight.copy_(torch.from_numpy(arrays[f"w{i}"]))
                if m.bias is not None:
                    m.bias.zero_()
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(arrays[f"b{i}"]))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
                i += 1
        mods[-1].weight.copy_(torch.from_numpy(arrays["wh"]))
        mods[-1].bias.copy_(torch.from_numpy(arrays["bh"]))


def _augment(x: Any, rng: np.random.Generator) -> Any:
    """Per-patch colour changes: gain per channel, contrast, brightness, blur or noise."""
    import torch

    n = x.shape[0]
    gain = torch.from_numpy(rng.uniform(0.75, 1.25, (n, 3, 1, 1)).astype(np.float32))
    contrast = torch.from_numpy(rng.uniform(0.7, 1.3, (n, 1, 1, 1)).astype(np.float32))
    bright = torch.from_numpy(rng.uniform(-0.15, 0.15, (n, 1, 1, 1)).astype(np.float32))
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = ((x * gain - mean) * contrast + mean + bright).clamp(0, 1)
    noise = torch.from_numpy(rng.uniform(0, 0.04, (n, 1, 1, 1)).astype(np.float32))
    return (x + torch.randn_like(x) * noise).clamp(0, 1)


def train(files: list[Path], epochs: int, threads: int, seed: int, out: Path, init: Path | None = None) -> int:
    """Fit the finder on the patches of ``files`` (the last one held back for validation), from
    scratch or from the exported weights ``init`` (each batch norm restarting as the identity)."""
    import torch
    from torch.nn import functional as tnf

    from vision.read.tritiles.finder import MEAN, SPREAD

    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    ims, tgs = [], []
    for f in files:
        with np.load(f) as d:
            ims.append(d["images"])
            tgs.append(d["targets"])
    val_x, val_y = ims.pop(), tgs.pop()
    if not ims:
        ims, tgs = [val_x], [val_y]
    x_all, y_all = np.concatenate(ims), np.concatenate(tgs)
    print(f"train: {len(x_all)} patches, validation {len(val_x)}", file=sys.stderr)
    net = _torch_net()
    if init is not None:
        load_exported(net, init)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    batch = 16
    steps = epochs * (len(x_all) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3 if init else 3e-3, total_steps=steps, pct_start=0.15)
    pos_weight = torch.tensor([20.0, 8.0, 1.0]).view(1, 3, 1, 1)

    def to_input(a: NDArray[np.uint8], augment: bool) -> Any:
        t = torch.from_numpy(a).permute(0, 3, 1, 2).float() / 255.0  # BGR, as the reader gives it
        if augment:
            t = _augment(t, rng)
        return (t - MEAN) / SPREAD

    def loss_of(logits: Any, y: Any) -> Any:
        w = 1.0 + (pos_weight - 1.0) * y
        return tnf.binary_cross_entropy_with_logits(logits, y, weight=w)

    t0 = time.time()
    for ep in range(epochs):
        net.train()
        if init is not None:  # folded batch norms stay fixed (identity scale, folded bias) while fine-tuning
            for m in net:
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.eval()
        order = rng.permutation(len(x_all))
        total = 0.0
        for k in range(len(x_all) // batch):
            idx = order[k * batch:(k + 1) * batch]
            xb = x_all[idx]
            yb = y_all[idx].astype(np.float32) / 255.0
            # random quarter turns and mirror (the maps turn with the picture)
            rot = int(rng.integers(4))
            xb = np.rot90(xb, rot, axes=(1, 2))
            yb = np.rot90(yb, rot, axes=(2, 3))
            if rng.random() < 0.5:
                xb, yb = xb[:, :, ::-1], yb[:, :, :, ::-1]
            logits = net(to_input(np.ascontiguousarray(xb), True))
            loss = loss_of(logits, torch.from_numpy(np.ascontiguousarray(yb)))
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
            opt.step()
            sched.step()
            total += float(loss.item())
        net.eval()
        with torch.no_grad():
            vl = 0.0
            for k in range(0, len(val_x), 32):
                yv = torch.from_numpy(val_y[k:k + 32].astype(np.float32) / 255.0)
                vl += float(loss_of(net(to_input(val_x[k:k + 32], False)), yv)) * len(yv)
        print(f"epoch {ep + 1}/{epochs}: train {total / max(1, len(x_all) // batch):.4f} "
              f"validation {vl / len(val_x):.4f} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
        export(net, out)
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_cli(argv, "python3 -m lab.train.train_tile_finder", __doc__ or "", make_data, train, FINDER_PATH,
                   epochs=14, seed=5, make_data_b=make_data_b)


if __name__ == "__main__":
    sys.exit(main())
