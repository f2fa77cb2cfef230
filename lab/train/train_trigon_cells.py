"""Train the Trigon cell net (empty / blue / yellow / red / green per triangle) on rendered frames;
dev-time only (torch). Run-time inference is numpy (``vision.read.trigon.colours``).

The committed ``vision/models/trigon_cells.npz`` was made with (2-core shared VM, one process,
one thread; ``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1`` set)::

    python3 -m lab.train.train_trigon_cells data --start 0 --count 300 --out /tmp/trigon_cells/d_0000.npz
    for s in 300 450 600 750 900 1050 1200 1350 1500 1650; do
        python3 -m lab.train.train_trigon_cells data --start $s --count 150 \
            --out /tmp/trigon_cells/d_$(printf %04d $s).npz
    done
    python3 -m lab.train.train_trigon_cells data --start 100000 --count 120 --out /tmp/trigon_cells/v_100000.npz
    python3 -m lab.train.train_trigon_cells train /tmp/trigon_cells/d_*.npz /tmp/trigon_cells/v_100000.npz \
        --epochs 10

(defaults: ``--seed 5 --batch 16 --lr 3e-3 --threads 1``, lights without ``fluorescent``.)

A fine-tune on both renderers (NOT committed: it reads skin under a hand as red or yellow on an
empty board, ``tests/test_trigon_cells.py``, and loses normal boards on the project renderer) was
made from renderer B's cached training pictures, seeds 1,000,000–1,000,019 and 1,000,100–1,000,137
(``python3 -m lab.render.povray.blokus --games trigon --first 1000000 --count 20 --cache
/work/cache/i53col/b`` and ``--first 1000100 --count 40 --cache /work/cache/i53cell/b``, stopped
after 38), their file given twice (weighed double)::

    python3 -m lab.train.train_trigon_cells data --from-b /work/cache/i53col/b /work/cache/i53cell/b \
        --start 0 --count 140 --out /tmp/i53cell/b_train.npz
    python3 -m lab.train.train_trigon_cells data --start 1800 --count 100 --out /tmp/i53cell/d_1800.npz
    python3 -m lab.train.train_trigon_cells data --start 100120 --count 20 --out /tmp/i53cell/v_100120.npz
    python3 -m lab.train.train_trigon_cells train /tmp/i53cell/d_1800.npz /tmp/i53cell/b_train.npz \
        /tmp/i53cell/b_train.npz /tmp/i53cell/v_100120.npz --init vision/models/trigon_cells.npz \
        --epochs 12 --lr 1e-3 --out /tmp/i53cell/trigon_cells_b.npz

(58 renderer-B frames in 6 s, 120 project frames in 110 s, 12 epochs of 432 views in 218 s.)
Renderer B's Trigon bench: perfect 41.27 → 68.25 %, cells right on registered boards 98.46 →
99.39 %; project renderer (``--frames 60 --seed 0``) normal perfect 45 → 30 %, hard cells right
97.65 → 96.20 %. Next: several hundred project frames (with hands) beside renderer B's.

The committed net's data:
1,920 frames (seeds 3,000,000–3,001,799 for training, 3,100,000–3,100,119 for validation) in
1,782 s (0.93 s a frame); training 1,415 s (10 epochs of ~140 s over 3,600 views). Validation
(the 120 held-back frames, their cells in the picture): true geometry 0.9843 of cells right, 0.9989
of cells clear of hands, 72 of 120 boards entirely right; geometry moved up to 0.2 cell 0.9811,
0.9959, 48 of 120. 34,378 bytes. The data were rendered before ``true_homography`` learned to
follow the labels' turn where it differs from ``orient``'s: 2 of the 1,800 training frames (hard;
seeds 3,000,367 and 3,001,723) carry their labels turned by 60°; they were left in.
Evaluation on fresh seeds (``python3 -m lab.train.eval_trigon_cells``: 150 frames per
difficulty, true geometry, cells in the picture), rule → net: per-cell accuracy easy 99.94 → 100.00 %,
normal 95.94 → 99.17 % (cells clear of hands 98.66 → 99.97 %), hard 89.65 → 96.74 % (95.70 →
99.52 %); boards with every cell clear of hands right: easy 84.7 → 98.7 %, normal 57.3 → 89.3 %,
hard 38.0 → 64.0 %. Held-out light ``fluorescent`` (54 frames): clear cells 97.94 → 99.91 %, as
the trained lights (99.73–99.96 %). With the geometry moved up to 0.2 cell: normal clear cells
97.93 → 99.73 %, boards 29.3 → 60.0 %.

Data (``data``): frames of ``lab.render.trigon.random_trigon_frame`` from seed
``TRAIN_SEED_BASE + start`` (3,000,000 up; the evaluation uses 2,500,000–2,600,000 and the tests
2,600,000 up, the benchmarks stay below 2,000,000), difficulty ``DIFFICULTIES[seed % 4]`` (easy,
normal, normal, hard), every light but ``--exclude-lights`` (default ``fluorescent``, held out to
measure how the net does under a light it has not seen). Per frame: the net's view of the board
(``colours.net_view``) through the TRUE geometry (the labelled hexagon corners,
``eval_trigon_cells.true_homography``) and through that geometry moved by up to 0.2 cell
(``eval_trigon_cells.moved``: a located board is off by about that much), each cell's label in the
side-9 frame (the three-player board's outer ring: empty), its share under a hand and in the view.

Renderer B (``data --from-b DIR …``): its cached Trigon pictures (``trigon_b_<seed>_<digest>.jpg``
and ``.json``, labels in the project renderer's format) of seeds ``B_TRAIN_SEED_BASE + start`` up
(1,000,000 up; its benchmark uses seeds 0–62), cut the same way at the labelled hexagon corners
(renderer B draws no hands: no cell is hidden).

Training (``train``): both views of every frame of every file but the last (held back for
validation), flipped left-right and/or top-bottom at random (the triangle grid maps onto itself;
labels follow), with random per-channel and overall gains before the input is made. Cells mostly
under a hand or outside the picture get a soft target (empty ``UNKNOWN[0]``, each colour
``UNKNOWN[1]``): the net answers "empty" there with low confidence rather than guessing a colour.
Loss: soft cross-entropy; Adam with a one-cycle learning rate. The export keeps float16 weights.
Needs ``pip install '.[train]'`` (torch); nothing at run time does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.train.eval_trigon_cells import frame_truth, geometry_error, moved, true_homography
from vision.read.trigon.colours import (
    CELLS_NET_PATH,
    CLASSES,
    NET_LAYERS,
    NET_SIZE,
    NET_STRIDE,
    cell_means,
    net_from_arrays,
    net_input,
    net_view,
    pool_table,
)
from vision.read.trigon.geometry import cell_table

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

#: training frames use seeds from here up (evaluation 2,500,000–2,699,999; benchmarks below 2,000,000)
TRAIN_SEED_BASE = 3_000_000
#: frame ``seed`` is rendered at ``DIFFICULTIES[seed % 4]``
DIFFICULTIES = ("easy", "normal", "normal", "hard")
#: renderer-B training pictures use seeds from here up (its benchmark uses seeds below 1,000,000)
B_TRAIN_SEED_BASE = 1_000_000
#: soft target of cells one cannot see (mostly under a hand or outside the picture): empty, each colour
UNKNOWN = (0.52, 0.12)
#: share of a cell's centre part that must be under a hand / in the picture for its label to count
HIDDEN_SHARE = 0.5


# ----------------------------------------------------------------------------------------------
# data


def make_data(start: int, count: int, out: Path, exclude_lights: tuple[str, ...]) -> int:
    """Render ``count`` frames from seed ``TRAIN_SEED_BASE + start`` and save the net's views and labels."""
    from lab.render.styles import StylePool
    from lab.render.trigon import random_trigon_frame

    cv2.setNumThreads(1)
    pool = StylePool(exclude=frozenset(exclude_lights))
    keys = ("view", "valid", "vfrac", "label", "play", "inimg", "occ", "seed", "difficulty", "style", "light", "side",
            "geom_err")
    rec: dict[str, list[Any]] = {k: [] for k in keys}
    t0 = time.time()
    for i in range(count):
        seed = TRAIN_SEED_BASE + start + i
        diff = DIFFICULTIES[seed % len(DIFFICULTIES)]
        f = random_trigon_frame(seed, diff, pool)
        for k, v in frame_record(f, seed).items():
            rec[k].append(v)
        rec["difficulty"].append(diff)
        rec["style"].append(f.labels["style"]["board_style"])
        rec["light"].append(f.labels["style"]["light"])
        if (i + 1) % 20 == 0:
            print(f"data: {i + 1}/{count} frames ({(time.time() - t0) / (i + 1):.2f} s each)", file=sys.stderr,
                  flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **{k: np.array(v) for k, v in rec.items()})  # type: ignore[arg-type]
    print(f"data: wrote {count} frames to {out} in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


def b_frames(folders: list[Path], start: int, count: int) -> list[Any]:
    """Renderer B's cached Trigon pictures of seeds ``B_TRAIN_SEED_BASE + start`` … ``+ count − 1``
    in ``folders`` (``trigon_b_<seed>_<digest>.jpg`` with its labels' ``.json``), as frames with
    ``image`` (BGR), ``labels`` and an empty ``masks["occluders"]`` (renderer B draws no hands);
    benchmark seeds (below ``B_TRAIN_SEED_BASE``) are never taken."""
    lo, hi = B_TRAIN_SEED_BASE + start, B_TRAIN_SEED_BASE + start + count
    found: dict[int, tuple[Path, Path]] = {}
    for folder in folders:
        for lab in sorted(folder.glob("trigon_b_*.json")):
            seed = int(lab.name.split("_")[2])
            img = lab.with_suffix(".jpg")
            if lo <= seed < hi and img.exists():
                found.setdefault(seed, (img, lab))
    frames = []
    for seed in sorted(found):
        img_path, lab_path = found[seed]
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        frames.append(b_frame(np.asarray(image, np.uint8), json.loads(lab_path.read_text(encoding="utf-8"))))
    return frames


def b_frame(image: U8, labels: dict[str, Any]) -> Any:
    """A renderer-B picture and its labels as a frame ``frame_truth`` / ``true_homography`` take."""
    occ = np.zeros(image.shape[:2], np.uint8)
    return SimpleNamespace(image=image, labels=labels, masks={"occluders": occ})


def frame_record(f: Any, seed: int) -> dict[str, Any]:
    """One frame's stored data: the net's views through the TRUE geometry (the labelled hexagon
    corners) and through it moved by up to 0.2 cell, with each cell's label, share under a hand
    and share in the view."""
    h = true_homography(f)
    rec: dict[str, Any] = dict(frame_truth(f, h))
    views, valids, fracs = [], [], []
    for hh in (h, moved(h, np.random.default_rng(seed))):
        view, valid, _ = net_view(f.image, hh)
        views.append(view)
        valids.append(valid.astype(bool))
        fracs.append(cell_means(valid.reshape(-1, 1).astype(np.float32))[:, 0].astype(np.float16))
    rec["view"], rec["valid"], rec["vfrac"] = np.stack(views), np.stack(valids), np.stack(fracs)
    rec["geom_err"] = geometry_error(f, h)
    rec["side"] = int(f.labels["board"]["side"])
    rec["seed"] = seed
    return rec


def make_data_b(folders: list[Path], start: int, count: int, out: Path) -> int:
    """The net's views and labels of renderer B's cached pictures (``b_frames``) into ``out``."""
    cv2.setNumThreads(1)
    frames = b_frames(folders, start, count)
    if not frames:
        print(f"data: no renderer-B Trigon pictures of seeds {B_TRAIN_SEED_BASE + start}–"
              f"{B_TRAIN_SEED_BASE + start + count - 1} in {', '.join(map(str, folders))}", file=sys.stderr)
        return 2
    keys = ("view", "valid", "vfrac", "label", "play", "inimg", "occ", "seed", "difficulty", "style", "light", "side",
            "geom_err")
    rec: dict[str, list[Any]] = {k: [] for k in keys}
    t0 = time.time()
    for f in frames:
        r = frame_record(f, int(f.labels["seed"]))
        r["difficulty"] = "povray"
        r["style"] = str(f.labels["style"].get("board", "-"))
        r["light"] = f"warmth {float(f.labels['style'].get('warmth', 0)):.2f}"
        for k in keys:
            rec[k].append(r[k])
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **{k: np.array(v) for k, v in rec.items()})  # type: ignore[arg-type]
    print(f"data: wrote {len(frames)} renderer-B frames to {out} in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------------------------------
# training


def flip_permutation(axis: int) -> NDArray[np.int64]:
    """Cell ``perm[j]`` lands on cell ``j`` when the view is mirrored (``axis`` 0: x → −x, 1: y → −y)."""
    _c, _v, cents = cell_table(9)
    m = cents.copy()
    m[:, axis] *= -1
    d = np.linalg.norm(cents[:, None, :] - m[None, :, :], axis=2)
    perm = d.argmin(axis=1)
    assert np.allclose(d.min(axis=1), 0, atol=1e-6) and len(set(perm.tolist())) == len(perm)
    return np.asarray(perm, np.int64)


def load_files(paths: list[Path]) -> dict[str, NDArray[Any]]:
    out: dict[str, list[NDArray[Any]]] = {}
    for p in paths:
        with np.load(p) as d:
            for k in d.files:
                out.setdefault(k, []).append(d[k])
    return {k: np.concatenate(v) for k, v in out.items()}


def targets(d: dict[str, NDArray[Any]], frame: int, which: int) -> tuple[F32, F32]:
    """Soft targets (cells × classes) and weights (cells) of one stored view."""
    n = d["label"].shape[1]
    t = np.zeros((n, len(CLASSES)), np.float32)
    t[np.arange(n), d["label"][frame].astype(np.int64)] = 1.0
    hidden = (d["occ"][frame].astype(np.float32) >= HIDDEN_SHARE) | (d["vfrac"][frame, which].astype(np.float32)
                                                                     < HIDDEN_SHARE)
    t[hidden] = UNKNOWN[1]
    t[hidden, 0] = UNKNOWN[0]
    w = np.ones(n, np.float32)
    return t, w


def augment(view: U8, rng: np.random.Generator) -> U8:
    """Random per-channel and overall gains."""
    g = np.exp(rng.normal(0, 0.08, 3) + rng.normal(0, 0.2)).astype(np.float32)
    return np.asarray(np.clip(view.astype(np.float32) * g + 0.5, 0, 255), np.uint8)


def train(paths: list[Path], epochs: int, threads: int, seed: int, out: Path, init: Path | None,
          batch: int, lr: float) -> int:
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.set_num_threads(threads)
    cv2.setNumThreads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tr = load_files(paths[:-1]) if len(paths) > 1 else load_files(paths)
    va = load_files(paths[-1:])
    n_tr = len(tr["seed"])
    print(f"train: {n_tr} frames ({2 * n_tr} views), validation {len(va['seed'])} frames", file=sys.stderr)
    perms = (flip_permutation(0), flip_permutation(1))
    idx, wts = pool_table()
    m = NET_SIZE // NET_STRIDE
    pool = np.zeros((idx.shape[0], m * m), np.float32)
    np.add.at(pool, (np.repeat(np.arange(idx.shape[0]), idx.shape[1]), idx.ravel()), wts.ravel())

    class Net(nn.Module):  # type: ignore[misc,unused-ignore]
        def __init__(self) -> None:
            super().__init__()
            self.convs = nn.ModuleList([nn.Conv2d(ci, co, 3, stride=s, padding=dl, dilation=dl)
                                        for ci, co, s, dl in NET_LAYERS])
            c = NET_LAYERS[-1][1]
            self.ctx = nn.Linear(NET_LAYERS[-2][1], c)
            self.head = nn.Conv2d(c, len(CLASSES), 1)
            self.register_buffer("pool", torch.from_numpy(pool))

        def forward(self, x: Any) -> Any:
            h = x
            last = len(self.convs) - 1
            for i, conv in enumerate(self.convs):
                z = conv(h)
                if i == last:
                    z = z + self.ctx(h.mean(dim=(2, 3)))[:, :, None, None]
                h = F.relu(z)
            lg = self.head(h).flatten(2)  # (B, classes, m*m)
            pool_m: Any = self.pool
            return torch.matmul(lg, pool_m.T).permute(0, 2, 1)  # (B, cells, classes)

    net = Net()
    if init is not None:
        with np.load(init) as d:
            _load(net, {k: d[k] for k in d.files})
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=1e-5)
    steps = epochs * ((2 * n_tr + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    t0 = time.time()
    for ep in range(epochs):
        net.train()
        order = rng.permutation(2 * n_tr)
        tot, cnt = 0.0, 0
        for b0 in range(0, len(order), batch):
            xs, ts, ws = [], [], []
            for k in order[b0:b0 + batch]:
                fi, which = divmod(int(k), 2)
                view = augment(tr["view"][fi, which], rng)
                x = net_input(view, tr["valid"][fi, which].astype(np.uint8))
                t, w = targets(tr, fi, which)
                if rng.random() < 0.5:
                    x, t, w = x[:, ::-1], t[perms[0]], w[perms[0]]
                if rng.random() < 0.5:
                    x, t, w = x[::-1], t[perms[1]], w[perms[1]]
                xs.append(np.ascontiguousarray(x.transpose(2, 0, 1)))
                ts.append(t)
                ws.append(w)
            xb = torch.from_numpy(np.stack(xs))
            tb, wb = torch.from_numpy(np.stack(ts)), torch.from_numpy(np.stack(ws))
            logits = net(xb)
            loss = (-(tb * F.log_softmax(logits, dim=2)).sum(dim=2) * wb).sum() / wb.sum()
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(xs)
            cnt += len(xs)
        arrays = export_arrays(net)
        acc = validate(arrays, va)
        print(f"epoch {ep + 1}/{epochs}: loss {tot / cnt:.4f}  validation {acc}  ({time.time() - t0:.0f} s)",
              file=sys.stderr, flush=True)
    arrays = export_arrays(net)
    _check_export(net, arrays, va)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)  # type: ignore[arg-type]
    print(f"train: wrote {out} ({out.stat().st_size} bytes) in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0


def export_arrays(net: Any) -> dict[str, NDArray[Any]]:
    """Weights for ``colours.CellNet``: 3×3 kernels as (3, 3, in, out), float16; biases float32."""
    out: dict[str, NDArray[Any]] = {}
    for i, conv in enumerate(net.convs):
        out[f"w{i}"] = conv.weight.detach().permute(2, 3, 1, 0).numpy().astype(np.float16)
        out[f"b{i}"] = conv.bias.detach().numpy().astype(np.float32)
    out["wg"] = net.ctx.weight.detach().T.numpy().astype(np.float16)
    out["bg"] = net.ctx.bias.detach().numpy().astype(np.float32)
    out["wh"] = net.head.weight.detach()[:, :, 0, 0].T.numpy().astype(np.float16)
    out["bh"] = net.head.bias.detach().numpy().astype(np.float32)
    return out


def _load(net: Any, arrays: dict[str, NDArray[Any]]) -> None:
    import torch

    with torch.no_grad():
        for i, conv in enumerate(net.convs):
            conv.weight.copy_(torch.from_numpy(arrays[f"w{i}"].astype(np.float32)).permute(3, 2, 0, 1))
            conv.bias.copy_(torch.from_numpy(arrays[f"b{i}"]))
        net.ctx.weight.copy_(torch.from_numpy(arrays["wg"].astype(np.float32)).T)
        net.ctx.bias.copy_(torch.from_numpy(arrays["bg"]))
        net.head.weight.copy_(torch.from_numpy(arrays["wh"].astype(np.float32)).T[:, :, None, None])
        net.head.bias.copy_(torch.from_numpy(arrays["bh"]))


def _check_export(net: Any, arrays: dict[str, NDArray[Any]], va: dict[str, NDArray[Any]]) -> None:
    """The numpy inference of the exported (float16) weights agrees with torch's on a validation view."""
    import torch

    cn = net_from_arrays(arrays)
    x = net_input(va["view"][0, 0], va["valid"][0, 0].astype(np.uint8))
    p_np = cn.cell_probs(x)
    probe = type(net)()
    _load(probe, arrays)
    with torch.no_grad():
        p_t = torch.softmax(probe(torch.from_numpy(np.ascontiguousarray(x.transpose(2, 0, 1))[None])), dim=2)[0]
    gap = float(np.abs(p_np - p_t.numpy()).max())
    print(f"export check: numpy vs torch probabilities differ by at most {gap:.2e}", file=sys.stderr)
    assert gap < 1e-3, gap


def validate(arrays: dict[str, NDArray[Any]], va: dict[str, NDArray[Any]]) -> str:
    """Validation figures of exported weights on the true-geometry views: per-cell accuracy (all
    counted cells / clear of hands), boards all right, and the same through the moved geometry."""
    cn = net_from_arrays(arrays)
    parts = []
    for which, name in ((0, "true"), (1, "moved")):
        ok_all = ok_free = n_all = n_free = boards = 0
        for fi in range(len(va["seed"])):
            p = cn.cell_probs(net_input(va["view"][fi, which], va["valid"][fi, which].astype(np.uint8))).argmax(1)
            counted = va["play"][fi] & va["inimg"][fi]
            free = counted & (va["occ"][fi].astype(np.float32) < 0.1)
            ok = p == va["label"][fi]
            ok_all += int(ok[counted].sum())
            n_all += int(counted.sum())
            ok_free += int(ok[free].sum())
            n_free += int(free.sum())
            boards += int(ok[counted].all())
        parts.append(f"{name}: {ok_all / n_all:.4f} clear {ok_free / n_free:.4f} boards {boards}/{len(va['seed'])}")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m lab.train.train_trigon_cells",
                                 description=(__doc__ or "").splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="render frames and save the net's views and labels")
    d.add_argument("--start", type=int, default=0, help="first seed, after TRAIN_SEED_BASE")
    d.add_argument("--count", type=int, default=100, help="frames to render")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--exclude-lights", default="fluorescent", help="comma-separated lights left out ('' for none)")
    d.add_argument("--from-b", type=Path, nargs="+", default=None, metavar="DIR",
                   help="cut the views from renderer B's cached Trigon pictures in these folders instead "
                        "(seeds B_TRAIN_SEED_BASE + start …)")
    t = sub.add_parser("train", help="train on data files (the last one is held back for validation)")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--epochs", type=int, default=12)
    t.add_argument("--threads", type=int, default=1, help="torch threads")
    t.add_argument("--seed", type=int, default=5)
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--out", type=Path, default=CELLS_NET_PATH)
    t.add_argument("--init", type=Path, default=None, metavar="NPZ", help="start from these exported weights")
    a = ap.parse_args(argv)
    if a.cmd == "data":
        if str(a.out.resolve()).startswith(str(Path(__file__).resolve().parents[2])):
            ap.error("write data under /tmp, not into the repository")
        if a.from_b is not None:
            missing_dirs = [str(p) for p in a.from_b if not p.is_dir()]
            if missing_dirs:
                ap.error(f"no such folder: {', '.join(missing_dirs)}")
            return make_data_b(a.from_b, a.start, a.count, a.out)
        return make_data(a.start, a.count, a.out, tuple(x for x in a.exclude_lights.split(",") if x))
    missing = [str(p) for p in a.data if not p.exists()]
    if missing:
        ap.error(f"no such data file: {', '.join(missing)}")
    return train(a.data, a.epochs, a.threads, a.seed, a.out, a.init, a.batch, a.lr)


if __name__ == "__main__":
    raise SystemExit(main())
