"""Evaluate the Trigon cell classifier (``vision.read.trigon.colours``): the old rule against the net, on
rendered frames never trained on, with the TRUE board geometry (and, as a check of tolerance,
with the geometry moved by up to ~0.2 cell). Dev-time only; needs no torch.

Usage::

    python3 -m lab.train.eval_trigon_cells --frames 150 --cache /tmp/trigon_cells_eval

renders ``--frames`` frames per difficulty (easy from seed 2,500,000, normal from 2,510,000, hard
from 2,520,000; the benchmarks' seeds are below 2,000,000 and training uses 3,000,000 up), runs the
rule and keeps what the net needs (its view of the board, true and moved) in ``--cache``, so that
``--weights other.npz`` re-evaluates another net from the cache in seconds. It prints, per
difficulty, board style and light, the per-cell accuracy and the share of boards with every cell
right, for all cells and for cells clear of hands. Cells counted: the variant's playing cells
whose centre is in the picture (what the truth labels name); for the three-player board the 384
inner cells.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.styles import LIGHTS
from lab.render.trigon import TRIGON_BOARDS
from vision.read.trigon.board_geometry import parse_cell
from vision.read.trigon.colours import (
    CLASSES,
    NET_SIZE,
    CellNet,
    cell_means,
    classify_cells_rule,
    load_cell_net,
    net_affine,
    net_input,
    net_view,
)
from vision.read.trigon.geometry import board_cells, cell_name, cell_table, hexagon_corners
from vision.read.trigon.locate import apply_h, orient

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

#: first evaluation seed of each difficulty
EVAL_SEEDS = {"easy": 2_500_000, "normal": 2_510_000, "hard": 2_520_000}
#: the light(s) the committed net was trained without
HELD_OUT_LIGHTS = ("fluorescent",)
#: a cell counts as under a hand when this share of its centre part is covered
HAND_SHARE = 0.1
#: how far the "moved" geometry is off: a shift up to this many cell edges, and a small turn/scale
MOVE_CELLS = 0.2


def true_homography(frame: Any) -> F64:
    """Board units (side-9 frame) → image, from the labelled hexagon corners (the variant's hexagon:
    for ``trigon_3`` the side-8 one, concentric with the side-9 one), turned so the labels' cell
    names fit (``orient``'s choice of top edge, unless the labelled pieces say otherwise: where two
    edges are about equally high the labels' ``view_rotation`` may pick the other one)."""
    return _true_homography(frame)[0]


def _rotation(sixths: int) -> F64:
    a = sixths * math.pi / 3
    return np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])


def _true_homography(frame: Any) -> tuple[F64, bool]:
    """``(homography, whether orient's turn is the one the labels use)``."""
    side = int(frame.labels["board"]["side"])
    hx = np.array(frame.labels["board"]["hexagon_px"], np.float64)
    h0, _ = cv2.findHomography(hexagon_corners(side), hx)
    h = orient(np.asarray(h0, np.float64))
    cells = frame.labels["cells"]
    if not cells:
        return h, True
    index9 = {c: i for i, c in enumerate(cell_table(9)[0])}
    cents = cell_table(9)[2]
    named = []
    for c in cells:
        x, y = parse_cell(c["cell_view"], side)
        named.append(cents[index9[(x + 2, y + 1) if side == 8 else (x, y)]])
    seen = np.array([c["center_px"] for c in cells], np.float64)
    pts = np.array(named)
    best = min(range(6), key=lambda k: float(np.linalg.norm(apply_h(h @ _rotation(k), pts) - seen, axis=1).mean()))
    hb = h @ _rotation(best)
    return np.asarray(hb / hb[2, 2], np.float64), best == 0


def geometry_error(frame: Any, h: F64) -> float:
    """Largest distance (cell edges) between a covered cell's true image centre and where ``h``
    puts the nearest cell centre (lens distortion bends the grid away from any homography)."""
    cells = frame.labels["cells"]
    if not cells:
        return 0.0
    pts = np.array([c["center_px"] for c in cells], np.float64)
    back = apply_h(np.asarray(np.linalg.inv(h), np.float64), pts)
    cents = cell_table(9)[2]
    d = np.min(np.linalg.norm(back[:, None, :] - cents[None, :, :], axis=2), axis=1)
    return float(d.max())


def frame_truth(frame: Any, h: F64) -> dict[str, NDArray[Any]]:
    """Per ``cell_table(9)`` cell: ``label`` (index into ``CLASSES``), ``play`` (a cell of the
    variant's board), ``inimg`` (centre in the picture), ``occ`` (share of its centre part under a hand)."""
    side = int(frame.labels["board"]["side"])
    truth = {c["cell"]: c["colour"] for c in frame.labels["read"]["cells"]}
    cells9, _verts, cents = cell_table(9)
    inner = set(board_cells(side))
    n = len(cells9)
    label = np.zeros(n, np.int8)
    play = np.zeros(n, bool)
    for i, (x, y) in enumerate(cells9):
        c = (x - 2, y - 1) if side == 8 else (x, y)
        if c not in inner:
            continue
        play[i] = True
        colour = truth.get(cell_name(c, side))
        label[i] = CLASSES.index(colour)
    pc = apply_h(h, cents)
    hgt, wid = frame.image.shape[:2]
    inimg = (pc[:, 0] >= 0) & (pc[:, 1] >= 0) & (pc[:, 0] < wid) & (pc[:, 1] < hgt)
    occ_img = frame.masks["occluders"]
    hv = net_affine() @ np.linalg.inv(h)
    occ_view = cv2.warpPerspective(occ_img, hv, (NET_SIZE, NET_SIZE), flags=cv2.INTER_LINEAR)
    occ = cell_means(occ_view.reshape(-1, 1).astype(np.float32) / 255.0)[:, 0]
    return {"label": label, "play": play, "inimg": inimg, "occ": occ.astype(np.float16)}


def moved(h: F64, rng: np.random.Generator, cells: float = MOVE_CELLS) -> F64:
    """``h`` composed with a small board-frame error: a shift up to ``cells``, a turn and scale of
    about ±1 %, a little perspective (a located board's typical error)."""
    r = cells * math.sqrt(rng.uniform(0, 1))
    a = rng.uniform(0, 2 * math.pi)
    t = rng.normal(0, 0.006)
    s = 1 + rng.normal(0, 0.006)
    p = np.array([[s * math.cos(t), -s * math.sin(t), r * math.cos(a)],
                  [s * math.sin(t), s * math.cos(t), r * math.sin(a)],
                  [rng.normal(0, 0.0008), rng.normal(0, 0.0008), 1.0]])
    return np.asarray(h @ p, np.float64)


def plate_radius(frame: Any) -> float:
    """The true plate radius (centre to plate corner) in board units."""
    sc = frame.labels["scene"]
    return float((9 * sc["cell_mm"] + sc["rim_mm"] * 2 / math.sqrt(3)) / sc["cell_mm"])


def render_cache(frames: int, out: Path) -> None:
    """Render the evaluation frames, run the rule, keep the net's views (true and moved geometry)."""
    from lab.render.trigon import random_trigon_frame

    out.mkdir(parents=True, exist_ok=True)
    for diff, base in EVAL_SEEDS.items():
        path = out / f"{diff}_{base}_{frames}.npz"
        if path.exists():
            continue
        rec: dict[str, list[Any]] = {k: [] for k in ("view", "valid", "mview", "mvalid", "label", "play", "inimg",
                                                     "occ", "rule", "mrule", "seed", "style", "light", "side",
                                                     "orient_ok", "geom_err")}
        t0 = time.time()
        for i in range(frames):
            seed = base + i
            f = random_trigon_frame(seed, diff)
            h, orient_ok = _true_homography(f)
            truth = frame_truth(f, h)
            rec["orient_ok"].append(orient_ok)
            rec["geom_err"].append(geometry_error(f, h))
            hm = moved(h, np.random.default_rng(seed))
            for key, hh in (("", h), ("m", hm)):
                view, valid, _ = net_view(f.image, hh)
                rule, _ = classify_cells_rule(f.image, hh, plate_radius(f))
                rec[key + "view"].append(view)
                rec[key + "valid"].append(valid.astype(bool))
                rec[key + "rule"].append(np.array([CLASSES.index(v.colour) for v in rule], np.int8))
            for k, v in truth.items():
                rec[k].append(v)
            rec["seed"].append(seed)
            rec["style"].append(f.labels["style"]["board_style"])
            rec["light"].append(f.labels["style"]["light"])
            rec["side"].append(int(f.labels["board"]["side"]))
            if (i + 1) % 25 == 0:
                print(f"eval {diff}: {i + 1}/{frames} ({(time.time() - t0) / (i + 1):.2f} s each)",
                      file=sys.stderr, flush=True)
        np.savez_compressed(path, **{k: np.array(v) for k, v in rec.items()})  # type: ignore[arg-type]


def load_cache(frames: int, cache: Path) -> dict[str, dict[str, NDArray[Any]]]:
    out = {}
    for diff, base in EVAL_SEEDS.items():
        with np.load(cache / f"{diff}_{base}_{frames}.npz") as d:
            out[diff] = {k: d[k] for k in d.files}
    return out


def net_predictions(net: CellNet, views: U8, valids: NDArray[np.bool_]) -> tuple[NDArray[np.int8], F32]:
    """The net's class and probability of that class, per frame and cell."""
    preds, confs = [], []
    for v, ok in zip(views, valids, strict=True):
        p = net.cell_probs(net_input(v, ok.astype(np.uint8)))
        preds.append(p.argmax(axis=1).astype(np.int8))
        confs.append(p.max(axis=1))
    return np.array(preds), np.array(confs)


def _row(name: str, sel: NDArray[np.bool_], d: dict[str, NDArray[Any]], pred: dict[str, NDArray[Any]]) -> str:
    if not sel.any():
        return f"{name:<22} {0:>5}"
    counted = d["play"][sel] & d["inimg"][sel]
    free = counted & (d["occ"][sel].astype(np.float32) < HAND_SHARE)
    lab = d["label"][sel]
    cols = [f"{name:<22} {int(sel.sum()):>5} {int(counted.sum()):>7}"]
    accs, boards = [], []
    for method in ("rule", "net"):
        ok = pred[method][sel] == lab
        accs.append(f"{100 * ok[counted].mean():6.2f} {100 * ok[free].mean():6.2f}")
        all_ok = np.all(ok | ~counted, axis=1)
        free_ok = np.all(ok | ~free, axis=1)
        boards.append(f"{100 * all_ok.mean():5.1f} {100 * free_ok.mean():5.1f}")
    return " ".join(cols + accs + boards)


HEADER = (f"{'':<22} {'frames':>5} {'cells':>7} {'rule%':>6} {'rule%':>6} {'net%':>6} {'net%':>6} "
          f"{'rule':>5} {'rule':>5} {'net':>5} {'net':>5}\n"
          f"{'':<22} {'':>5} {'':>7} {'all':>6} {'nohand':>6} {'all':>6} {'nohand':>6} "
          f"{'brd%':>5} {'brd-h':>5} {'brd%':>5} {'brd-h':>5}")


def report(data: dict[str, dict[str, NDArray[Any]]], net: CellNet, lines: list[str] | None = None) -> list[str]:
    """The evaluation table (also returned as lines)."""
    out = lines if lines is not None else []
    merged: dict[str, NDArray[Any]] = {}
    preds: dict[str, NDArray[Any]] = {}
    diffs: list[str] = []
    t0 = time.perf_counter()
    n_frames = 0
    for diff, d in data.items():
        p, _ = net_predictions(net, d["view"], d["valid"])
        pm, _ = net_predictions(net, d["mview"], d["mvalid"])
        n_frames += 2 * len(p)
        for k, v in d.items():
            merged[k] = np.concatenate([merged[k], v]) if k in merged else v
        for k, v in (("net", p), ("mnet", pm), ("rule", d["rule"]), ("mrule", d["mrule"])):
            preds[k] = np.concatenate([preds[k], v]) if k in preds else v
        diffs += [diff] * len(p)
    ms = (time.perf_counter() - t0) * 1e3 / max(n_frames, 1)
    dd = np.array(diffs)
    out.append(HEADER)
    out.append("by difficulty (true geometry)")
    for diff in data:
        out.append(_row(diff, dd == diff, merged, preds))
    out.append(_row("all", np.ones(len(dd), bool), merged, preds))
    out.append("by difficulty (geometry moved up to 0.2 cell)")
    moved_preds = {"rule": preds["mrule"], "net": preds["mnet"]}
    for diff in data:
        out.append(_row(diff, dd == diff, merged, moved_preds))
    out.append("by board style (true geometry, all difficulties)")
    for s in TRIGON_BOARDS:
        out.append(_row(s, merged["style"] == s, merged, preds))
    out.append("by light (true geometry, all difficulties; * = held out of training)")
    for lt in LIGHTS:
        name = lt + (" *" if lt in HELD_OUT_LIGHTS else "")
        out.append(_row(name, merged["light"] == lt, merged, preds))
    out.append("by light, normal only")
    for lt in LIGHTS:
        name = lt + (" *" if lt in HELD_OUT_LIGHTS else "")
        out.append(_row(name, (merged["light"] == lt) & (dd == "normal"), merged, preds))
    ge = merged["geom_err"]
    out.append(f"geometry: labels' top edge differs from orient's in {int((~merged['orient_ok']).sum())} of {len(dd)} "
               f"frames (turned to the labels); covered cells' offset from the true homography (cell edges): "
               f"median {np.median(ge):.3f}, 99th percentile {np.percentile(ge, 99):.3f}, max {ge.max():.3f}")
    out.append(f"net inference (input + net, from the cached view): {ms:.1f} ms per frame")
    return out


def confidence_summary(data: dict[str, dict[str, NDArray[Any]]], net: CellNet) -> list[str]:
    """How sure the net is on cells clear of hands (right / wrong) and on cells at least half under a
    hand (and how often it calls those empty)."""
    lines = []
    for diff, d in data.items():
        p, conf = net_predictions(net, d["view"], d["valid"])
        counted = d["play"] & d["inimg"]
        occ = d["occ"].astype(np.float32)
        clear, hand = occ < HAND_SHARE, occ >= 0.5
        ok = p == d["label"]
        parts = [f"{diff:<7}"]
        for name, m in (("clear right", counted & clear & ok), ("clear wrong", counted & clear & ~ok),
                        ("half+ under hand", counted & hand)):
            if m.any():
                parts.append(f"{name}: n={int(m.sum())} median conf {float(np.median(conf[m])):.2f}")
        if (counted & hand).any():
            parts.append(f"said empty {100 * float((p[counted & hand] == 0).mean()):.0f}%")
        lines.append("  ".join(parts))
    return lines


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--frames", type=int, default=150, help="frames per difficulty")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/trigon_cells_eval"))
    ap.add_argument("--weights", type=str, default=None, help="net weights (default: the committed ones)")
    a = ap.parse_args(list(argv) if argv is not None else None)
    cv2.setNumThreads(1)
    render_cache(a.frames, a.cache)
    data = load_cache(a.frames, a.cache)
    net = load_cell_net(a.weights)
    for line in report(data, net):
        print(line)
    for line in confidence_summary(data, net):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
