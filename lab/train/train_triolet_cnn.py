"""Train the Triolet square CNN (tile value 0–15, wild, empty) on crop files; dev-time only (torch).

The committed ``vision/models/triolet_cnn.npz`` was made with (2-core shared VM, two threads)::

    python3 -m lab.train.train_triolet_cnn \
        /tmp/tri_more/c_*.npz /tmp/tri_hands/h_0.npz /tmp/tri_hands/h_1.npz \
        /tmp/tri_empty/e_0.npz /tmp/tri_empty/e_1.npz \
        $(for i in 1 2 3; do for k in 0 1 2 3 4 5; do echo /tmp/tri_htiles/t_$k.npz; done; done) \
        --epochs 18 --threads 2

(defaults: ``--in-size 40 --seed 7``; 73 minutes, 18 epochs of ~200 s; 308,087 training crops;
validation accuracy 0.990 over the held-back crops in all four quarter turns, 6s 0.959 and 9s
0.974; 433 kB. The model before (3,300 frames of the first 18 typefaces, 1,708 hand-covered
tiles, one thread, 71 minutes): 0.987, 6s 0.948, 9s 0.953 on its validation files, which
lacked the new faces.)

The second net ``vision/models/triolet_cnn_b.npz`` (the reader averages the two where the first
is unsure: ``ReaderOptions.second_opinion``) was trained apart, on the same files plus ``t_6`` and
``t_7``, with another seed and fewer epochs::

    python3 -m lab.train.train_triolet_cnn \
        /tmp/tri_more/c_*.npz /tmp/tri_hands/h_0.npz /tmp/tri_hands/h_1.npz \
        /tmp/tri_empty/e_0.npz /tmp/tri_empty/e_1.npz \
        $(for i in 1 2 3; do for k in 0 1 2 3 4 5 6 7; do echo /tmp/tri_htiles/t_$k.npz; done; done) \
        --epochs 14 --threads 2 --seed 11 --out vision/models/triolet_cnn_b.npz

(63 minutes; 315,941 training crops, 46,848 of them hand crops; validation 0.988, 6s 0.957, 9s
0.971.) ``t_6`` and ``t_7`` (2,618 tiles partly under hands, all 24 typefaces): ``data
--hand-tiles`` seeds 1,057,400–1,058,799 and 1,058,800–1,060,199; the frames of the last 200
(1,060,000–1,060,199) are those of ``c_60000``–``c_60180`` (other squares: tiles under hands are
not in the ``c_`` files).

Both nets were then fine-tuned (``--init``, three epochs, peak rate 5e-4) on the files above plus
new frames and the crops the previous net A got wrong or read below 0.9 (hard-example mining,
``lab/train/mine_triolet_hard.py``, run with net A as committed at ``ceed092``)::

    python3 -m lab.train.train_triolet_digits data --start 82000 --count 600 --out /tmp/s14/c_82000.npz
    python3 -m lab.train.train_triolet_digits data --start 86000 --count 900 --out /tmp/s14/c_86000.npz
    python3 -m lab.train.train_triolet_digits data --hand-tiles --min-marks 0.5 \
        --start 84000 --count 900 --out /tmp/s14/t_84000.npz
    python3 -m lab.train.train_triolet_digits data --hand-tiles --min-marks 0.5 \
        --start 88000 --count 1500 --out /tmp/s14/t_88000.npz
    python3 -m lab.train.mine_triolet_hard /tmp/s14/hard_a.npz /tmp/s14/c_82000.npz /tmp/s14/t_84000.npz
    python3 -m lab.train.mine_triolet_hard /tmp/s14/hard_b.npz /tmp/s14/c_86000.npz
    python3 -m lab.train.mine_triolet_hard /tmp/s14/hard_c.npz /tmp/s14/t_88000.npz
    NEW="/tmp/s14/t_84000.npz /tmp/s14/t_88000.npz /tmp/s14/hard_a.npz /tmp/s14/hard_b.npz /tmp/s14/hard_c.npz"
    python3 -m lab.train.train_triolet_cnn \
        /tmp/tri_more/c_*.npz /tmp/s14/c_82000.npz /tmp/s14/c_86000.npz \
        /tmp/tri_hands/h_0.npz /tmp/tri_hands/h_1.npz /tmp/tri_empty/e_0.npz /tmp/tri_empty/e_1.npz \
        $(for i in 1 2 3; do for k in 0 1 2 3 4 5; do echo /tmp/tri_htiles/t_$k.npz; done; done) \
        $NEW $NEW $NEW \
        --epochs 3 --threads 2 --init vision/models/triolet_cnn.npz --lr 5e-4 --seed 13 \
        --out vision/models/triolet_cnn.npz

(net B: the same with ``t_6``/``t_7`` among the ``t_`` files, ``--init`` its own weights,
``--seed 17``.) New frames: 1,500 (104,882 crops) and 2,400 frames' hand tiles with at least
half their marks in view (2,093 crops); 5,485 hard crops (read wrong: 1,016 of the 104,882, 323
of the 2,093 hand tiles); 376,437 training crops for A (384,291 for B); 17 and 22 minutes.
That run (code of ``9639a6d``) split validation files by their position among the sorted
*paths*, so ``/tmp/s14/c_86000.npz`` sorted first and was held back (its 2,870 hard crops were
trained on, through ``hard_b``, but not its other crops), and the old files' split moved by two: its validation figures
(A 0.98822 → 0.99050, B 0.98737 → 0.98995) are not clean. The split now goes by file name. Clean
figures, on 700 frames rendered afterwards (``data --start 90000 --count 700``: 49,002 crops,
four turns averaged): A 645 → 572 crops wrong, B 646 → 571; on 1,008 hand tiles with half their
marks in view (``--hand-tiles --min-marks 0.5 --start 92000 --count 1300``): A 83.0 → 83.9 %
right, B 83.1 → 83.2 %.

Crop files come from ``python3 -m lab.train.train_triolet_digits data`` (``c_*``: the 2,280
frames of ``MORE``, seeds 1,010,000–1,011,139 and 1,020,000–1,021,139, plus 1,020 frames of
seeds 1,060,000–1,061,019, 30 per file: ``--start 60000 --count 30 --out c_60000.npz`` …
``c_60990``; these 3,300 frames were rendered before the six serif/mono/oblique typefaces
existed; plus 1,200 frames of only those six faces, ``--typefaces ttf_dejavu_serif_bold,…``
``--start 70000 --count 30 --out c_70000.npz`` … ``c_71170``), ``data --hands-only`` (``h_*``:
empty squares under hands, seeds 1,030,000–1,030,799), ``data --empty-board`` (``e_*``: boards
before the first move, seeds 1,040,000–1,040,599) and ``data --hand-tiles`` (``t_*``: tiles
partly under a hand, labelled with their values; ``t_0`` seeds 1,050,000–1,050,699, ``t_1``
1,051,000–1,052,399, ``t_2`` 1,052,400–1,053,999, ``t_3`` 1,054,000–1,055,599, and with the six
new faces only ``t_4`` 1,056,000–1,056,699, ``t_5`` 1,056,700–1,057,399; 5,991 crops, given three
times so that they weigh), training styles only. Every 19th ``c_*`` file (8 of 150) forms the
validation set (``is_validation``).

The hand nets (``vision/models/triolet_cnn_hand.npz`` and ``triolet_cnn_hand_b.npz``;
``vision/read/triolet/hand_net.py``) are the two nets above fine-tuned on 7,000 pictures that all have a
hand over the board (training seeds 1,600,000–1,606,999; 2-core VM, two threads, 21 and 15
minutes beside other work)::

    for s in $(seq 600000 500 606500); do
        python3 -m lab.train.data_triolet_hand_scenes --start $s --count 500 --out /tmp/hands; done
    T=$(ls /tmp/hands/ts_h*.npz)
    python3 -m lab.train.train_triolet_cnn $(ls /tmp/hands/c_h*.npz | head -8) $T $T \
        --epochs 5 --threads 2 --init vision/models/triolet_cnn.npz --lr 5e-4 --seed 21 \
        --out vision/models/triolet_cnn_hand.npz
    python3 -m lab.train.train_triolet_cnn /tmp/hands/c_h600500.npz $(ls /tmp/hands/c_h*.npz | tail -7) \
        $T $T --epochs 5 --threads 2 --init vision/models/triolet_cnn_b.npz --lr 5e-4 --seed 23 \
        --out vision/models/triolet_cnn_hand_b.npz

(13,322 tiles under hands, 19,981 empty squares under hands, 204,262 training crops for the first;
the committed nets' ``ts_h`` files were drawn by an earlier version of the data script, the same
rule with another draw of the empty squares kept.) On the tiles a hand touches in 4,000 normal dev
frames (seeds 10,800,000–10,803,999; 2,707 scored tiles) the first reads 2,629 right where the
reader read 2,623, and 56 of the 61 empty squares there empty against 41.

``--widths`` and ``--hidden`` set the conv blocks' channels and the hidden units of a net trained
afresh (``--init`` takes the shape of the weights it starts from). A wider hand net was trained,
``--widths 32,64,128 --hidden 256``, from scratch on 8 ``c_h`` and 12 ``ts_h`` files (training seeds
1,620,000–1,625,999; 4 epochs, 44 minutes beside other work, validation 0.998 on clear crops,
1.7 MB); on the reader it read the covered tiles worse than the committed pair (see
``docs/CHANGELOG.md``) and is not committed. The committed pair fine-tuned again on those
files, each from itself (``--init vision/models/triolet_cnn_hand.npz`` and ``_hand_b.npz``,
``--lr 5e-4 --epochs 2 --threads 1``, seeds 41 and 43; 11 minutes each): +20 −11 boards in about
5,500 hand frames, +2 −2 in 2,000 fresh normal frames: not committed either.

All four nets fine-tuned (the square pair and the hand pair, each ``--init`` from itself,
``--lr 5e-4 --epochs 2 --threads 1``, seeds 51/53/55/57) on far boards: the hand-scene data with
``--board-fill 0.45,0.65 --size 1280x720`` (training seeds 1,700,000–1,701,999, four runs of 500;
77k clear crops, 9.3k under hands; squares of 17–27 px), with the wider net's files mixed in. On 742
fresh frames whose squares are under 25 px: +4 −2 boards (95.55 → 95.82 %): chance, not committed.

Renderer B (``docs/RENDERER_B.md``): the cross-renderer nets of ``companion bench read --cross``
(docs/READER_TRAINING.md, "Two renderers") are made from crops of the project renderer (A) and of renderer B's
**train** typefaces (held-out faces never)::

    D=/tmp/triolet_mix        # any work folder
    for s in $(seq 95000 40 95280); do python3 -m lab.train.train_triolet_digits data \
        --start $s --count 40 --out $D/a/c_$s.npz; done                       # A: seeds 1,095,000–1,095,319
    for k in $(seq 0 20 80); do python3 -m lab.train.data_triolet_povray data --start $k --count 20 \
        --cache $D/frames --out $D/b/c_pb_$(printf %04d $k).npz; done       # B: seeds 3,000,000–3,000,099
    A=$(ls $D/a/c_*.npz); B=$(ls $D/b/c_pb_*.npz)
    # A+B: the nets trained on A alone (those of commit 75e715d) fine-tuned, B given twice
    python3 -m lab.train.train_triolet_digits train $A $B $B --init vision/models/triolet_squares.npz \
        --lr 5e-4 --epochs 4 --cache $D/feat --out $D/nets/A+B/triolet_squares.npz
    python3 -m lab.train.train_triolet_cnn $A $B $B --init vision/models/triolet_cnn.npz --lr 5e-4 \
        --epochs 4 --seed 61 --out $D/nets/A+B/triolet_cnn.npz
    python3 -m lab.train.train_triolet_cnn $A $B $B --init vision/models/triolet_cnn_b.npz --lr 5e-4 \
        --epochs 4 --seed 63 --out $D/nets/A+B/triolet_cnn_b.npz
    # B only: a short training afresh on B's crops alone
    python3 -m lab.train.train_triolet_digits train $B --epochs 16 --cache $D/feat \
        --out $D/nets/B-only/triolet_squares.npz
    python3 -m lab.train.train_triolet_cnn $B --epochs 4 --seed 65 --out $D/nets/B-only/triolet_cnn.npz
    cp $D/nets/B-only/triolet_cnn.npz $D/nets/B-only/triolet_cnn_b.npz       # one net, as both
    # A only: copies of the committed vision/models/ files in $D/nets/A-only

(100 B pictures rendered at 1280×720, 8,079 crops, 3,579 of them tiles; 8 A files, 23,029 crops;
fine-tunes of 4 epochs, about 27 minutes each beside other work; validation on the A file
``c_95040``: net A 0.9496 → 0.9453, net B 0.9485 → 0.9459.) The A+B weights are the committed
``triolet_squares.npz``, ``triolet_cnn.npz`` and ``triolet_cnn_b.npz``: on renderer B they read 5 more
boards of 40 on held-out faces and 3 more on training faces; on the project renderer's ``hard`` and
``steep`` rows one board fewer of 40 each (docs/READER_TRAINING.md, "Two renderers", has the tables) — where
the two renderers disagree, the independent one is believed. The B-only CNN of 4 epochs reached
validation 0.59 (64 optimiser steps); one of 12 epochs (``--epochs 12``, ``B-only-12``) 0.77.

Training augments each batch: a random quarter turn (a tile may lie either way: the label is the
true value, so a 6 stays a 6 however it is turned), a small rotation/scale/shift, per-channel
gain, contrast, brightness, blur and noise. The net (``Net``): the crop shrunk to ``IN_SIZE`` px
by area averaging and standardised per crop, three 3×3 conv + batch norm + ReLU + 2×2 max pool
blocks, a ReLU hidden layer, 18 outputs. The export folds batch norm into the convolutions and
stores float16 weights; run-time inference is numpy (``vision.read.triolet.cnn``).
Needs ``pip install '.[train]'`` (torch); nothing at run time does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import NDArray
from torch import nn

from vision.read.triolet.classifier import EMPTY, N_CLASSES
from vision.read.triolet.cnn import CNN_PATH, NORM_EPS, area_matrix

IN_SIZE = 40
WIDTHS = (16, 32, 64)
HIDDEN = 128
CROP = 56
#: share of the (abundant) empty squares drawn each epoch; hand-covered empties always drawn
EMPTY_SHARE = 0.35


class Net(nn.Module):  # type: ignore[misc,unused-ignore]
    """Area shrink → per-crop standardisation → conv blocks → hidden layer → 18 logits."""

    def __init__(self, in_size: int = IN_SIZE, widths: tuple[int, ...] = WIDTHS, hidden: int = HIDDEN,
                 crop: int = CROP, classes: int = N_CLASSES) -> None:
        super().__init__()
        self.in_size = in_size
        self.register_buffer("shrink", torch.from_numpy(area_matrix(crop, in_size)))
        blocks: list[nn.Module] = []
        c = 3
        for w in widths:
            blocks += [nn.Conv2d(c, w, 3, padding=1, bias=False), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2)]
            c = w
        self.features = nn.Sequential(*blocks)
        side = in_size
        for _ in widths:
            side //= 2
        self.side = side
        self.fc0 = nn.Linear(c * side * side, hidden)
        self.drop = nn.Dropout(0.2)
        self.fc1 = nn.Linear(hidden, classes)

    def prepare(self, x: torch.Tensor) -> torch.Tensor:
        """(n, 3, 56, 56) intensities 0–1 → shrunk and standardised (n, 3, s, s)."""
        r: Any = self.shrink
        x = torch.matmul(torch.matmul(r, x), r.T)
        mu = x.mean(dim=(1, 2, 3), keepdim=True)
        sd = x.std(dim=(1, 2, 3), keepdim=True, unbiased=False)
        return (x - mu) / (sd + NORM_EPS)

    def forward(self, x: torch.Tensor) -> Any:
        h = self.features(self.prepare(x)).flatten(1)
        return self.fc1(self.drop(F.relu(self.fc0(self.drop(h)))))


def export_arrays(net: Net) -> dict[str, NDArray[Any]]:
    """Weights for ``vision.read.triolet.cnn`` (NHWC, batch norm folded, float16 weights)."""
    out: dict[str, NDArray[Any]] = {"in_size": np.array(net.in_size, np.int32)}
    mods: list[Any] = list(net.features)
    for k, i in enumerate(range(0, len(mods), 4)):
        conv, bn = mods[i], mods[i + 1]
        s = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach()
        w = conv.weight.detach() * s[:, None, None, None]
        b = (bn.bias - bn.running_mean * s).detach()
        cout, cin = w.shape[:2]
        out[f"conv{k}_w"] = w.permute(2, 3, 1, 0).reshape(9 * cin, cout).numpy().astype(np.float16)
        out[f"conv{k}_b"] = b.numpy().astype(np.float32)
    c = mods[-3].num_features
    w0 = net.fc0.weight.detach().reshape(-1, c, net.side, net.side).permute(2, 3, 1, 0)
    out["fc0_w"] = w0.reshape(-1, w0.shape[-1]).numpy().astype(np.float16)
    out["fc0_b"] = net.fc0.bias.detach().numpy().astype(np.float32)
    out["fc1_w"] = net.fc1.weight.detach().T.numpy().astype(np.float16)
    out["fc1_b"] = net.fc1.bias.detach().numpy().astype(np.float32)
    return out


def net_for_arrays(arrays: dict[str, NDArray[Any]]) -> Net:
    """A ``Net`` of the shape of exported weights (input side, conv widths, hidden units)."""
    widths: list[int] = []
    while f"conv{len(widths)}_b" in arrays:
        widths.append(int(arrays[f"conv{len(widths)}_b"].shape[0]))
    return Net(int(arrays["in_size"]), tuple(widths), int(arrays["fc0_b"].shape[0]))


def load_arrays(net: Net, arrays: dict[str, NDArray[Any]]) -> None:
    """Set ``net`` to exported weights (the inverse of ``export_arrays``): each batch norm becomes the
    identity scale plus the folded bias, to be kept in eval mode while fine-tuning."""
    mods: list[Any] = list(net.features)
    with torch.no_grad():
        for k, i in enumerate(range(0, len(mods), 4)):
            conv, bn = mods[i], mods[i + 1]
            w2 = torch.from_numpy(arrays[f"conv{k}_w"].astype(np.float32))
            cin = w2.shape[0] // 9
            conv.weight.copy_(w2.reshape(3, 3, cin, -1).permute(3, 2, 0, 1))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(arrays[f"conv{k}_b"]))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        c = mods[-3].num_features
        w0 = torch.from_numpy(arrays["fc0_w"].astype(np.float32))
        net.fc0.weight.copy_(w0.reshape(net.side, net.side, c, -1).permute(3, 2, 0, 1).reshape(w0.shape[1], -1))
        net.fc0.bias.copy_(torch.from_numpy(arrays["fc0_b"]))
        net.fc1.weight.copy_(torch.from_numpy(arrays["fc1_w"].astype(np.float32)).T)
        net.fc1.bias.copy_(torch.from_numpy(arrays["fc1_b"]))


def torch_logits(arrays: dict[str, NDArray[Any]], crops: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Reference inference of exported weights with torch ops (for checking the numpy inference)."""
    x = torch.from_numpy(crops.astype(np.float32) / 255.0).permute(0, 3, 1, 2)
    s = int(arrays["in_size"])
    r = torch.from_numpy(area_matrix(crops.shape[1], s))
    x = torch.einsum("ih,nchw,jw->ncij", r, x, r)
    mu = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mu) / (x.std(dim=(1, 2, 3), keepdim=True, unbiased=False) + NORM_EPS)
    k = 0
    while f"conv{k}_w" in arrays:
        w2 = torch.from_numpy(arrays[f"conv{k}_w"].astype(np.float32))
        cin = w2.shape[0] // 9
        w = w2.reshape(3, 3, cin, -1).permute(3, 2, 0, 1)
        x = F.max_pool2d(F.relu(F.conv2d(x, w, torch.from_numpy(arrays[f"conv{k}_b"]), padding=1)), 2)
        k += 1
    h = x.permute(0, 2, 3, 1).flatten(1)
    h = F.relu(h @ torch.from_numpy(arrays["fc0_w"].astype(np.float32)) + torch.from_numpy(arrays["fc0_b"]))
    lg = h @ torch.from_numpy(arrays["fc1_w"].astype(np.float32)) + torch.from_numpy(arrays["fc1_b"])
    return np.asarray(lg.detach().numpy(), np.float32)


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Random quarter turn, small affine, colour, blur and noise; ``x`` (n, 3, 56, 56) in 0–1."""
    n = x.shape[0]

    def u(*shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=gen)

    turns = torch.randint(0, 4, (n,), generator=gen)
    x = x.clone()
    for k in range(1, 4):
        sel = turns == k
        if sel.any():
            x[sel] = torch.rot90(x[sel], k, dims=(2, 3))
    ang = (u(n) - 0.5) * 2 * np.radians(7.0)
    sc = 1.0 + (u(n) - 0.5) * 0.16
    tx, ty = (u(n) - 0.5) * 0.24, (u(n) - 0.5) * 0.24
    cos, sin = torch.cos(ang) / sc, torch.sin(ang) / sc
    theta = torch.stack([torch.stack([cos, -sin, tx], 1), torch.stack([sin, cos, ty], 1)], 1)
    keep = u(n) < 0.2  # some crops untouched by the affine
    theta[keep] = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    blur = u(n) < 0.3
    if blur.any():
        sigma = 0.5 + 1.0 * float(u(1))
        t = torch.arange(-2, 3, dtype=torch.float32)
        g = torch.exp(-t * t / (2 * sigma * sigma))
        g = g / g.sum()
        xb = x[blur]
        xb = F.conv2d(F.pad(xb, (2, 2, 0, 0), mode="replicate"), g.view(1, 1, 1, 5).repeat(3, 1, 1, 1), groups=3)
        xb = F.conv2d(F.pad(xb, (0, 0, 2, 2), mode="replicate"), g.view(1, 1, 5, 1).repeat(3, 1, 1, 1), groups=3)
        x[blur] = xb
    gain = 1.0 + (u(n, 3, 1, 1) - 0.5) * 0.3
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 0.7 + 0.6 * u(n, 1, 1, 1)
    bright = (u(n, 1, 1, 1) - 0.5) * 0.2
    x = (x - mean) * contrast + mean + bright
    x = x * gain
    x = x + torch.randn(x.shape, generator=gen) * (0.03 * u(n, 1, 1, 1))
    return x.clamp(0.0, 1.0)


def is_validation(k: int, name: str) -> bool:
    """Every 19th ``c_*`` file (from the second) is for validation; hand files never."""
    return name.startswith("c_") and k % 19 == 1


def load(paths: list[Path]) -> tuple[NDArray[np.uint8], NDArray[np.int64], NDArray[np.uint8], NDArray[np.int64],
                                      NDArray[np.bool_]]:
    """Training crops and labels, validation crops and labels, and which training crops are hand crops."""
    xt, yt, xv, yv, hand = [], [], [], [], []
    # by file name, not path: files from another folder must not shift which ones are held back
    c_files = sorted((p for p in paths if p.name.startswith("c_")), key=lambda p: (p.name, str(p)))
    others = sorted(p for p in paths if not p.name.startswith("c_"))
    for k, p in enumerate(c_files + others):
        with np.load(p) as d:
            crops, y = np.asarray(d["crops"], np.uint8), np.asarray(d["y"], np.int64)
        if is_validation(k, p.name):
            xv.append(crops)
            yv.append(y)
        else:
            xt.append(crops)
            yt.append(y)
            hand.append(np.full(len(y), not p.name.startswith("c_")))
    return np.concatenate(xt), np.concatenate(yt), np.concatenate(xv), np.concatenate(yv), np.concatenate(hand)


def to_tensor(crops: NDArray[np.uint8]) -> torch.Tensor:
    return torch.from_numpy(crops).permute(0, 3, 1, 2).float().div_(255.0)


def evaluate(net: Net, xv: NDArray[np.uint8], yv: NDArray[np.int64]) -> tuple[float, NDArray[np.int64]]:
    """Accuracy over the validation crops in all four quarter turns, and the predictions."""
    net.eval()
    preds = []
    with torch.no_grad():
        for k in range(4):
            for s in range(0, len(xv), 1024):
                xb = torch.rot90(to_tensor(xv[s:s + 1024]), k, dims=(2, 3))
                preds.append(net(xb).argmax(1).numpy())
    pred = np.concatenate(preds)
    y4 = np.tile(yv, 4)
    return float((pred == y4).mean()), pred


def train(paths: list[Path], epochs: int, out: Path, seed: int = 7, batch: int = 256, lr: float = 3e-3,
          in_size: int = IN_SIZE, threads: int = 1, init: Path | None = None,
          widths: tuple[int, ...] = WIDTHS, hidden: int = HIDDEN) -> None:
    """Train (or, from ``init``'s exported weights, fine-tune with frozen batch norms) and export."""
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    t0 = time.time()
    xt, yt, xv, yv, hand = load(paths)
    print(f"{len(yt)} training crops ({int(hand.sum())} under hands), {len(yv)} validation; "
          f"loaded in {time.time() - t0:.0f}s", file=sys.stderr)
    counts = np.bincount(yt, minlength=N_CLASSES).astype(np.float64)
    counts[EMPTY] *= EMPTY_SHARE
    cw = torch.tensor((counts.sum() / (N_CLASSES * np.maximum(counts, 1))) ** 0.5, dtype=torch.float32)
    if init is None:
        net = Net(in_size, widths, hidden)
    else:
        with np.load(init) as d:
            arrays = {k: d[k] for k in d.files}
        net = net_for_arrays(arrays)
        load_arrays(net, arrays)
        acc0, _ = evaluate(net, xv, yv)
        print(f"from {init}: val acc {acc0:.5f}", file=sys.stderr, flush=True)
    tiles = np.where(yt != EMPTY)[0]
    empties = np.where((yt == EMPTY) & ~hand)[0]
    hands = np.where(hand)[0]
    per_epoch = len(tiles) + int(EMPTY_SHARE * len(empties)) + len(hands)
    steps = epochs * ((per_epoch + batch - 1) // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    for ep in range(epochs):
        net.train()
        if init is not None:  # the folded statistics stay as they are
            for m in net.features:
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        te = time.time()
        idx = np.concatenate([tiles, rng.choice(empties, int(EMPTY_SHARE * len(empties)), replace=False), hands])
        idx = rng.permutation(idx)
        total = 0.0
        for s in range(0, len(idx), batch):
            bi = np.sort(idx[s:s + batch])
            xb = augment(to_tensor(xt[bi]), gen)
            yb = torch.from_numpy(yt[bi])
            loss = F.cross_entropy(net(xb), yb, weight=cw)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(bi)
        acc, _ = evaluate(net, xv, yv)
        print(f"epoch {ep + 1}/{epochs} loss {total / len(idx):.4f} val acc {acc:.5f} "
              f"({time.time() - te:.0f}s)", file=sys.stderr, flush=True)
    acc, pred = evaluate(net, xv, yv)
    y4 = np.tile(yv, 4)
    for k in range(N_CLASSES):
        sel = y4 == k
        if sel.any():
            wrong = np.bincount(pred[sel], minlength=N_CLASSES)
            wrong[k] = 0
            top = ", ".join(f"{j}:{wrong[j]}" for j in np.argsort(-wrong)[:3] if wrong[j])
            print(f"class {k}: {int(sel.sum())} val, acc {(pred[sel] == k).mean():.5f}  confused with {top}",
                  file=sys.stderr)
    net.eval()
    arrays = export_arrays(net)
    np.savez_compressed(out, **arrays)  # type: ignore[arg-type]
    with torch.no_grad():
        ref = net(to_tensor(xv[:256])).numpy()
    from vision.read.triolet.cnn import cnn_from_arrays

    diff = float(np.abs(cnn_from_arrays(arrays).logits(xv[:256]) - ref).max())
    print(f"wrote {out} ({out.stat().st_size / 1e3:.0f} kB); numpy vs torch max logit diff {diff:.4f}; "
          f"{time.time() - t0:.0f}s in all", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path, nargs="+", help="crop files (train_triolet_digits data)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--out", type=Path, default=CNN_PATH)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--in-size", type=int, default=IN_SIZE, help="side of the shrunk crop the net sees, px")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 keeps runs repeatable bit for bit)")
    ap.add_argument("--init", type=Path, default=None, metavar="NPZ",
                    help="fine-tune these exported weights instead of starting afresh")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--widths", default=",".join(map(str, WIDTHS)),
                    help="channels of the conv blocks, comma-separated (ignored with --init)")
    ap.add_argument("--hidden", type=int, default=HIDDEN, help="units of the hidden layer (ignored with --init)")
    a = ap.parse_args(argv)
    try:
        widths = tuple(int(w) for w in a.widths.split(","))
    except ValueError:
        ap.error(f"--widths: expected comma-separated integers, got {a.widths!r}")
    if not widths or min(widths) < 1 or a.hidden < 1:
        ap.error("--widths and --hidden must be positive")
    train(a.data, a.epochs, a.out, a.seed, lr=a.lr, in_size=a.in_size, threads=max(1, a.threads), init=a.init,
          widths=widths, hidden=a.hidden)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
