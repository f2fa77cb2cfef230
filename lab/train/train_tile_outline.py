"""Train the tile outline net (``vision/read/tritiles/outline.py``) on both renderers (dev-time only:
torch).

    python3 -m lab.train.train_tile_outline data --start 0 --count 240 --out /tmp/to/p.npz
    python3 -m lab.train.train_tile_outline data --from-b /work/cache/i54ren /work/cache/i54kp --out /tmp/to/b.npz
    python3 -m lab.train.train_tile_outline train /tmp/to/p.npz /tmp/to/b.npz /tmp/to/b.npz --epochs 30 \\
        --minutes 20 --out vision/models/tile_outline.npz
    python3 -m lab.train.train_tile_outline eval --from-b /work/cache/i54ren/bench
    python3 -m lab.train.train_tile_outline eval --seed 730000 --count 20

(The committed ``tile_outline.npz``, 57 kB: 240 project pictures → 12,020 examples (9,849 tiles) in
6 minutes; renderer B's 97 cached training pictures (seeds 0–47 of both games in ``/work/cache/i54ren``,
seed 100,000 in ``/work/cache/i54kp``) → 7,029 examples (4,637 tiles), given twice; 25 epochs in the
20-minute budget on one thread beside other work; validation corner error 0.065 of a side,
tile / no tile right 97.5 %.)

``data`` takes pictures (the project renderer's, seeds ``data_train_cli.TRAIN_SEED_BASE + 700000 +
start …``, both games, difficulties in turn, every ``LOOSE_EVERY``-th a table of loose tiles, half of
those wooden with coloured pips on a printed oilcloth; or with ``--from-b DIR …`` renderer B's
cached pictures, training typefaces and seeds below ``data_train_cli.B_BENCH_SEED`` only), runs the
tile finder on each as the reader does (``find_tiles_net(refine=False)``: the candidates with the
jitter the finder really makes) and cuts a crop per candidate (``outline.crop``):

- a candidate whose centre lies within 0.35 of a side of a true tile's is that tile: its targets are
  the true top-face corners (offsets in the canonical frame), tile score 1; plus ``JITTERED`` copies
  with its corners moved at random (``JITTER`` of a side), so the second pass learns small moves;
- any other candidate is an invented tile (an oilcloth pattern, pips, two half tiles): score 0;
- each true tile the finder missed, seen through its corners jittered: score 1;
- ``NEGATIVES`` made-up candidates per picture: tile-sized triangles away from the tiles, small ones
  on a tile's face (pips taken for a tile), and tiles moved half a side: score 0.

Each candidate starts at a random corner (the net sees every rotation).

``train`` fits the net (the convolutions of ``outline.LAYERS``, Adam, one thread) with a
smooth-L1 loss on the offsets of tiles and binary cross-entropy on the score, crops mirrored at
random (left–right: corners 1 and 2 swap), and writes ``--out`` (float16).

``eval`` prints, on pictures it does not learn from (renderer B's benchmark cache, or the project's
frames from seed ``--seed``), the mean top-face corner error (share of a side) of the finder's
corners alone, of the edge search (``detect.refine_corners``), and of the outline net, and the share
of true and of invented candidates the net keeps.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.train.data_train_cli import B_BENCH_SEED, GAMES, TRAIN_SEED_BASE
from vision.read.tritiles.outline import CANON, CROP, LAYERS, OUTLINE_PATH, OUTPUTS, SIDE, clockwise, crop

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]
#: project-renderer seeds: an offset over the finder's and value net's training seeds
SEED_OFFSET = 700_000
LOOSE_EVERY = 3
JITTERED = 2
JITTER = 0.06
NEGATIVES = 6
#: a true tile must show this much of its top face to be learnt from
MIN_VISIBLE = 0.9


def _side(tri: F64) -> float:
    return float(np.mean(np.linalg.norm(np.roll(tri, -1, axis=0) - tri, axis=1)))


def truth_tiles(labels: dict[str, Any]) -> list[F64]:
    """The true top faces (3×2 px, clockwise) of the tiles mostly in view."""
    return [clockwise(np.array([c["px"] for c in t["corners"]], np.float64)) for t in labels["tiles"]
            if float(t.get("visible", 1.0)) >= MIN_VISIBLE]


def align(cand: F64, truth: F64) -> F64:
    """``truth``'s corners in the order that best matches ``cand``'s (both clockwise)."""
    shifts = [np.roll(truth, -k, axis=0) for k in range(3)]
    return min(shifts, key=lambda t: float(np.linalg.norm(t - cand, axis=1).sum()))


def match(cands: list[F64], truth: list[F64]) -> list[int]:
    """Per candidate, the index of the true tile it is (-1: invented)."""
    if not truth:
        return [-1] * len(cands)
    tc = np.array([t.mean(axis=0) for t in truth])
    sides = np.array([_side(t) for t in truth])
    out = []
    for c in cands:
        d = np.linalg.norm(tc - c.mean(axis=0), axis=1)
        i = int(np.argmin(d))
        out.append(i if d[i] < 0.35 * sides[i] else -1)
    return out


def sample(image: U8, cand: F64, truth: F64 | None, rng: np.random.Generator) -> tuple[U8, NDArray[np.float32], int]:
    """One example: the crop of ``cand`` (started at a random corner), offsets to ``truth`` (zeros for
    a non-tile) and the tile label."""
    k = int(rng.integers(3))
    cand = np.roll(clockwise(cand), -k, axis=0)
    im, m = crop(image, cand)
    if truth is None:
        return im, np.zeros(6, np.float32), 0
    t = align(cand, truth)
    tc = t @ m[:, :2].T + m[:, 2]
    return im, ((tc - CANON) / SIDE).astype(np.float32).ravel(), 1


def jitter(tri: F64, rng: np.random.Generator, amount: float) -> F64:
    """``tri`` with each corner moved by a normal ``amount`` of a side, and the whole by as much again."""
    s = _side(tri)
    return np.asarray(tri + rng.normal(0, amount * s, (3, 2)) + rng.normal(0, amount * s, 2), np.float64)


def made_up_negatives(image: U8, truth: list[F64], rng: np.random.Generator, n: int) -> list[F64]:
    """Candidates that are no tile: tile-sized triangles away from the tiles, small ones on a tile's
    face, and tiles moved half a side."""
    h, w = image.shape[:2]
    side = float(np.median([_side(t) for t in truth])) if truth else 60.0
    tc = np.array([t.mean(axis=0) for t in truth]) if truth else np.zeros((0, 2))
    out: list[F64] = []
    unit = np.array([[0.0, -1.0], [0.866, 0.5], [-0.866, 0.5]]) / np.sqrt(3.0)
    for k in range(n * 4):
        if len(out) >= n:
            break
        kind = k % 3
        ang = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        if kind == 0 or not truth:
            s, c = side * rng.uniform(0.7, 1.3), rng.uniform([0, 0], [w, h])
            if len(tc) and float(np.linalg.norm(tc - c, axis=1).min()) < 0.6 * side:
                continue
        elif kind == 1:
            t = truth[int(rng.integers(len(truth)))]
            s, c = side * rng.uniform(0.25, 0.5), t.mean(axis=0) + rng.normal(0, 0.12 * side, 2)
        else:
            t = truth[int(rng.integers(len(truth)))]
            s, c = _side(t) * rng.uniform(0.85, 1.15), t.mean(axis=0) + rot[0] * side * rng.uniform(0.5, 0.7)
            if float(np.linalg.norm(tc - c, axis=1).min()) < 0.45 * side:
                continue
        out.append(c + (unit * s) @ rot.T)
    return out


def picture_examples(image: U8, labels: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """Every example of one picture (see the module's docstring) and the finder candidates' errors."""
    from vision.read.tritiles.finder import find_tiles_net

    truth = truth_tiles(labels)
    all_truth = [clockwise(np.array([c["px"] for c in t["corners"]], np.float64)) for t in labels["tiles"]]
    cands = [c for c, _cov, _h in find_tiles_net(image, refine=False)]
    idx = match(cands, all_truth)
    ims, offs, ys, real = [], [], [], []
    seen = set()
    for c, i in zip(cands, idx, strict=True):
        if i >= 0 and float(labels["tiles"][i].get("visible", 1.0)) < MIN_VISIBLE:
            continue  # a tile half out of the picture: neither taught as one nor as none
        t = all_truth[i] if i >= 0 else None
        seen.add(i)
        for j in range(1 + (JITTERED if t is not None else 0)):
            im, o, y = sample(image, c if j == 0 else jitter(c, rng, JITTER), t, rng)
            ims.append(im)
            offs.append(o)
            ys.append(y)
            real.append(j == 0)
    for i, t in enumerate(all_truth):
        if i not in seen and float(labels["tiles"][i].get("visible", 1.0)) >= MIN_VISIBLE:
            im, o, y = sample(image, jitter(t, rng, 1.5 * JITTER), t, rng)
            ims.append(im)
            offs.append(o)
            ys.append(y)
            real.append(False)
    for c in made_up_negatives(image, truth, rng, NEGATIVES):
        im, o, y = sample(image, c, None, rng)
        ims.append(im)
        offs.append(o)
        ys.append(y)
        real.append(False)
    return {"images": ims, "offsets": offs, "labels": ys, "real": real}


def project_pictures(start: int, count: int) -> Iterator[tuple[U8, dict[str, Any]]]:
    """The project renderer's training pictures (see the module's docstring)."""
    from lab.train.train_tile_finder import mixed_frame

    rng = np.random.default_rng(start)
    for i in range(start, start + count):
        f = mixed_frame(i, TRAIN_SEED_BASE + SEED_OFFSET + i, rng, loose_every=LOOSE_EVERY)
        yield f.image, f.labels


def b_pictures(folders: list[Path], bench: bool = False) -> Iterator[tuple[U8, dict[str, Any]]]:
    """Renderer B's cached pictures: training typefaces and seeds only, or (``bench``) the benchmark's."""
    from lab.render.povray.tiles import cached_frames

    for folder in folders:
        for img_path, lab_path in cached_frames(folder):
            labels = json.loads(lab_path.read_text(encoding="utf-8"))
            is_bench = int(labels["seed"]) >= B_BENCH_SEED
            if is_bench != bench:
                continue
            if not bench and labels.get("style", {}).get("typeface_group", "-") not in ("-", "train"):
                continue
            img = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
            if img is not None:
                yield np.asarray(img, np.uint8), labels


def make_data(pictures: Iterator[tuple[U8, dict[str, Any]]], out: Path, seed: int) -> int:
    """Examples of every picture into ``out`` (crops uint8, offsets, labels, real-candidate flags)."""
    rng = np.random.default_rng(seed)
    acc: dict[str, list[Any]] = {"images": [], "offsets": [], "labels": [], "real": []}
    t0 = time.time()
    n = 0
    for image, labels in pictures:
        ex = picture_examples(image, labels, rng)
        for k in acc:
            acc[k] += ex[k]
        n += 1
        if n % 10 == 0:
            print(f"data: {n} pictures, {len(acc['labels'])} examples ({(time.time() - t0) / n:.2f} s each)",
                  file=sys.stderr, flush=True)
    np.savez_compressed(out, images=np.stack(acc["images"]), offsets=np.stack(acc["offsets"]),
                        labels=np.array(acc["labels"], np.uint8), real=np.array(acc["real"], bool))
    print(f"{out}: {n} pictures, {len(acc['labels'])} examples, {int(np.sum(acc['labels']))} tiles")
    return 0


def _torch_net() -> Any:
    import torch
    from torch import nn

    layers: list[Any] = []
    for cin, cout, stride in LAYERS:
        layers += [nn.Conv2d(cin, cout, 3, stride, 1), nn.ReLU()]
    size = CROP
    for _c, _o, s in LAYERS:
        size = (size - 1) // s + 1

    class Net(nn.Module):  # type: ignore[misc,unused-ignore]
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(*layers)
            self.dense = nn.Linear(size * size * LAYERS[-1][1], OUTPUTS)

        def forward(self, x: Any) -> Any:
            f = self.body(x).permute(0, 2, 3, 1).reshape(len(x), -1)  # NHWC order, as outline.OutlineNet
            return self.dense(f)

    torch.manual_seed(0)
    return Net()


def export(net: Any, out: Path) -> None:
    """Write the torch net's weights in ``outline.outline_from_arrays``' layout (float16)."""
    convs = [m for m in net.body if hasattr(m, "weight")]
    d: dict[str, NDArray[np.float16]] = {}
    for i, m in enumerate(convs):
        d[f"w{i}"] = m.weight.detach().numpy().transpose(2, 3, 1, 0).astype(np.float16)
        d[f"b{i}"] = m.bias.detach().numpy().astype(np.float16)
    d["wd"] = net.dense.weight.detach().numpy().T.astype(np.float16)
    d["bd"] = net.dense.bias.detach().numpy().astype(np.float16)
    np.savez_compressed(out, **d)  # type: ignore[arg-type]


def train(files: list[Path], epochs: int, out: Path, minutes: float) -> int:
    """Fit the net on the examples of ``files`` (a tenth held back for validation) and write ``out``."""
    import torch

    torch.set_num_threads(1)
    parts = [np.load(f) for f in files]
    ims = np.concatenate([p["images"] for p in parts])
    offs = np.concatenate([p["offsets"] for p in parts]).astype(np.float32)
    ys = np.concatenate([p["labels"] for p in parts]).astype(np.float32)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(ys))
    nval = max(1, len(ys) // 10)
    val, tr = order[:nval], order[nval:]
    x_all = torch.from_numpy(ims).permute(0, 3, 1, 2).contiguous()
    off_t, y_t = torch.from_numpy(offs), torch.from_numpy(ys)
    net = _torch_net()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    print(f"train: {len(tr)} examples ({int(ys[tr].sum())} tiles), validation {nval}", flush=True)

    def batch(idx: NDArray[np.int64], augment: bool) -> tuple[Any, Any, Any]:
        x = x_all[idx].float() / 255.0
        o, y = off_t[idx].clone(), y_t[idx]
        if augment:
            n = len(idx)
            gain = torch.from_numpy(rng.uniform(0.7, 1.3, (n, 1, 1, 1)).astype(np.float32))
            bias = torch.from_numpy(rng.uniform(-0.12, 0.12, (n, 3, 1, 1)).astype(np.float32))
            x = ((x - 0.5) * gain + 0.5 + bias).clamp(0, 1)
            flip = torch.from_numpy(rng.random(n) < 0.5)
            if bool(flip.any()):
                x[flip] = x[flip].flip(3)
                f = o[flip].view(-1, 3, 2)
                f = f[:, [0, 2, 1]]
                f[:, :, 0] = -f[:, :, 0]
                o[flip] = f.reshape(-1, 6)
        return (x - 0.5) / 0.25, o, y

    def loss_of(pred: Any, o: Any, y: Any) -> tuple[Any, Any]:
        pos = y > 0.5
        reg = (torch.nn.functional.smooth_l1_loss(pred[pos, :6], o[pos], beta=0.02, reduction="sum")
               / max(1, int(pos.sum())) if bool(pos.any()) else pred.sum() * 0)
        cls = torch.nn.functional.binary_cross_entropy_with_logits(pred[:, 6], y)
        return 10.0 * reg + cls, reg

    t0 = time.time()
    for ep in range(epochs):
        net.train()
        perm = rng.permutation(tr)
        tot = 0.0
        for k in range(0, len(perm), 128):
            x, o, y = batch(perm[k:k + 128], True)
            loss, _ = loss_of(net(x), o, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss) * len(x)
        sched.step()
        net.eval()
        with torch.no_grad():
            x, o, y = batch(val, False)
            p = net(x)
            vl, _vr = loss_of(p, o, y)
            pos = y > 0.5
            err = (p[pos, :6] - o[pos]).view(-1, 3, 2).norm(dim=2).mean()
            acc = ((p[:, 6] > 0) == pos).float().mean()
        print(f"epoch {ep + 1}: train {tot / len(tr):.4f}, validation {float(vl):.4f} (corner error "
              f"{float(err):.3f} of a side, tile/not {float(acc):.3f}), {time.time() - t0:.0f} s", flush=True)
        export(net, out)
        if time.time() - t0 > minutes * 60:
            print("train: out of time", flush=True)
            break
    print(f"wrote {out} ({out.stat().st_size} bytes)")
    return 0


def evaluate(pictures: Iterator[tuple[U8, dict[str, Any]]], weights: str | None) -> int:
    """Corner errors (share of a side) of the finder alone, of the edge search and of the outline
    net on true candidates, and the share of true and invented candidates the net keeps."""
    from vision.read.tritiles.finder import find_tiles_net
    from vision.read.tritiles.outline import TILE_MIN, load_outline, outline_tiles

    net = load_outline(weights)
    errs: dict[str, list[float]] = {"finder": [], "edges": [], "net": []}
    kept = {"true": [0, 0], "invented": [0, 0]}
    n = 0
    for image, labels in pictures:
        truth = [clockwise(np.array([c["px"] for c in t["corners"]], np.float64)) for t in labels["tiles"]]
        raw = [c for c, _cov, _h in find_tiles_net(image, refine=False)]
        edged = [c for c, _cov, _h in find_tiles_net(image, refine=True)]
        outl = outline_tiles(image, raw, net)
        for name, tris in (("finder", raw), ("edges", edged), ("net", [t for t, _s in outl])):
            for c, i in zip(tris, match(tris, truth), strict=True):
                if i >= 0:
                    t = align(clockwise(c), truth[i])
                    errs[name].append(float(np.linalg.norm(clockwise(c) - t, axis=1).mean()) / _side(truth[i]))
        for (_t, s), i in zip(outl, match(raw, truth), strict=True):
            k = kept["true" if i >= 0 else "invented"]
            k[0] += 1
            k[1] += int(s >= TILE_MIN)
        n += 1
    print(f"{n} pictures; mean top-face corner error (share of a side) on tiles found:")
    for name, e in errs.items():
        if e:
            print(f"  {name:7s} {np.mean(e):.3f} (median {np.median(e):.3f}, p90 {np.percentile(e, 90):.3f}, "
                  f"{len(e)} tiles)")
    for name, (tot, keep) in kept.items():
        print(f"  {name} candidates kept by the tile score: {keep}/{tot}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    ap = argparse.ArgumentParser(prog="python3 -m lab.train.train_tile_outline", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data")
    d.add_argument("--start", type=int, default=0)
    d.add_argument("--count", type=int, default=100)
    d.add_argument("--from-b", nargs="+", type=Path, default=None)
    d.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train")
    t.add_argument("files", nargs="+", type=Path)
    t.add_argument("--epochs", type=int, default=30)
    t.add_argument("--minutes", type=float, default=20.0)
    t.add_argument("--out", type=Path, default=OUTLINE_PATH)
    e = sub.add_parser("eval")
    e.add_argument("--from-b", nargs="+", type=Path, default=None)
    e.add_argument("--seed", type=int, default=730000)
    e.add_argument("--count", type=int, default=20)
    e.add_argument("--weights", default=None)
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if a.cmd == "data":
        pics = b_pictures(a.from_b) if a.from_b else project_pictures(a.start, a.count)
        return make_data(pics, a.out, a.start)
    if a.cmd == "train":
        return train(a.files, a.epochs, a.out, a.minutes)
    if a.from_b:
        return evaluate(b_pictures(a.from_b, bench=True), a.weights)

    def project_bench() -> Iterator[tuple[U8, dict[str, Any]]]:
        from lab.render.triangles import random_triangles_frame
        for i in range(a.count):
            f = random_triangles_frame(GAMES[i % 2], a.seed + i, "normal")
            yield f.image, f.labels
    return evaluate(project_bench(), a.weights)


if __name__ == "__main__":
    raise SystemExit(main())
