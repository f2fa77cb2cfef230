"""The Trigon cell net's renderer-B data source (``lab.train.train_trigon_cells data --from-b``): views
cut at the labelled hexagon corners, labels in the side-9 frame, benchmark seeds never taken. Built on
a small synthetic picture with its label file (no renderer needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from lab.train.train_trigon_cells import B_TRAIN_SEED_BASE, b_frames, frame_record
from vision.read.trigon.colours import CLASSES, NET_SIZE, net_affine
from vision.read.trigon.geometry import cell_name, cell_table, hexagon_corners
from vision.read.trigon.locate import apply_h

REPO = Path(__file__).resolve().parents[1]
#: board units → picture: 22 px a unit, a little perspective, the board's top edge on top
H = np.array([[22.0, 1.5, 330.0], [-1.0, 20.0, 250.0], [0.00015, 0.0002, 1.0]])
#: painted cells (index into ``cell_table(9)``) and their colours (BGR in the picture)
PAINTED = {40: ("blue", (200, 60, 20)), 41: ("blue", (200, 60, 20)), 250: ("red", (30, 30, 210)),
           300: ("yellow", (40, 210, 230)), 460: ("green", (60, 160, 40))}


def _picture(seed: int, folder: Path) -> tuple[np.ndarray[Any, Any], dict[str, Any]]:
    """A grey board on a dark table with ``PAINTED`` filled in; its label file next to it."""
    cells, verts, cents = cell_table(9)
    img = np.full((500, 660, 3), 40, np.uint8)
    hexa = apply_h(H, hexagon_corners(9))
    cv2.fillConvexPoly(img, np.round(hexa).astype(np.int32), (150, 150, 150))
    placed = []
    for i, (colour, bgr) in PAINTED.items():
        tri = apply_h(H, verts[i])
        cv2.fillConvexPoly(img, np.round(tri).astype(np.int32), bgr)
        name = cell_name(cells[i], 9)
        placed.append({"cell": name, "colour": colour, "piece": 0, "center_px": apply_h(H, cents[i:i + 1])[0].tolist(),
                       "cell_view": name})
    labels = {"game": "trigon", "variant": "trigon", "renderer": "povray", "seed": seed,
              "image_size": [660, 500], "style": {"board": "mid grey", "warmth": 0.5},
              "board": {"hexagon_px": hexa.tolist(), "view_rotation": 0, "side": 9},
              "cells": placed, "read": {"game": "trigon", "cells": [{"cell": c["cell"], "colour": c["colour"]}
                                                                   for c in placed]}}
    stem = folder / f"trigon_b_{seed}_0123456789ab"
    cv2.imwrite(str(stem.with_suffix(".jpg")), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
    stem.with_suffix(".json").write_text(json.dumps(labels), encoding="utf-8")
    return img, labels


def test_b_frames_take_training_seeds_only(tmp_path: Path) -> None:
    _picture(7, tmp_path)  # a benchmark seed
    _picture(B_TRAIN_SEED_BASE + 3, tmp_path)
    _picture(B_TRAIN_SEED_BASE + 12, tmp_path)
    got = [int(f.labels["seed"]) for f in b_frames([tmp_path], 0, 10)]
    assert got == [B_TRAIN_SEED_BASE + 3]
    assert [int(f.labels["seed"]) for f in b_frames([tmp_path], 0, 100)] == [B_TRAIN_SEED_BASE + 3,
                                                                             B_TRAIN_SEED_BASE + 12]


def test_view_and_labels_cut_at_the_true_corners(tmp_path: Path) -> None:
    seed = B_TRAIN_SEED_BASE + 1
    _picture(seed, tmp_path)
    (f,) = b_frames([tmp_path], 0, 5)
    rec = frame_record(f, seed)
    n = len(cell_table(9)[0])
    assert rec["view"].shape == (2, NET_SIZE, NET_SIZE, 3) and rec["valid"].shape == (2, NET_SIZE, NET_SIZE)
    want = np.zeros(n, np.int8)
    for i, (colour, _bgr) in PAINTED.items():
        want[i] = CLASSES.index(colour)
    assert np.array_equal(rec["label"], want)
    assert rec["play"].all() and rec["inimg"].all() and float(rec["occ"].max()) == 0.0
    assert rec["geom_err"] < 0.01
    # the true view shows each painted colour at its cell's centre, the board's grey elsewhere
    cents = cell_table(9)[2]
    px = np.round(apply_h(net_affine(), cents)).astype(int)
    view = rec["view"][0].astype(int)
    for i, (_colour, bgr) in PAINTED.items():
        assert np.abs(view[px[i, 1], px[i, 0]] - np.array(bgr)).max() < 25, i
    grey = [j for j in range(n) if j not in PAINTED][::37]
    for j in grey:
        assert np.abs(view[px[j, 1], px[j, 0]] - 150).max() < 25, j


def test_data_from_b_writes_a_file_and_refuses_a_missing_folder(tmp_path: Path) -> None:
    _picture(B_TRAIN_SEED_BASE + 2, tmp_path)
    out = tmp_path / "b.npz"
    cmd = [sys.executable, "-m", "lab.train.train_trigon_cells", "data", "--from-b", str(tmp_path),
           "--start", "0", "--count", "5", "--out", str(out)]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with np.load(out) as d:
        assert d["view"].shape == (1, 2, NET_SIZE, NET_SIZE, 3)
        assert int(d["seed"][0]) == B_TRAIN_SEED_BASE + 2 and (d["label"][0] > 0).sum() == len(PAINTED)
    r = subprocess.run([*cmd[:5], str(tmp_path / "nowhere"), *cmd[6:]], cwd=REPO, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "no such folder" in r.stderr


def test_no_pictures_in_range_is_an_error(tmp_path: Path) -> None:
    _picture(B_TRAIN_SEED_BASE + 2, tmp_path)
    r = subprocess.run([sys.executable, "-m", "lab.train.train_trigon_cells", "data", "--from-b", str(tmp_path),
                        "--start", "200", "--out", str(tmp_path / "x.npz")], cwd=REPO, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "no renderer-B Trigon pictures" in r.stderr
