"""Training data from renderer B's cached tile pictures (lab/train/data_train_cli.py ``b_frames``):
the finder's patches and the corner-value net's crops carry the labels of the frame they come from,
and the benchmark's pictures are never taken."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from lab.render.povray.tiles import tiles_frame
from lab.train import train_tile_finder, train_tile_values
from lab.train.data_train_cli import B_BENCH_SEED, b_frames
from vision.read.tritiles.finder import STRIDE

needs_povray = pytest.mark.skipif(shutil.which("povray") is None,
                                  reason="POV-Ray is not installed (.ci/run installs it)")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding one tiny Trio Domino picture (seed 4), plus copies of it posing as a
    benchmark picture and as one of held-out typefaces."""
    d = tmp_path_factory.mktemp("b_cache")
    tiles_frame(4, "trio_domino", size=(480, 360), cache=d, quality="fast")
    (j,) = sorted(d.glob("tiles_b_*.json"))
    labels = json.loads(j.read_text(encoding="utf-8"))
    for name, change in (("bench", {"seed": B_BENCH_SEED + 4}),
                         ("held", {"style": {**labels["style"], "typeface_group": "held-out"}})):
        stem = f"tiles_b_trio_domino_{name}"
        shutil.copy(j.with_suffix(".jpg"), d / f"{stem}.jpg")
        (d / f"{stem}.json").write_text(json.dumps({**labels, **change}), encoding="utf-8")
    return d


@needs_povray
def test_only_training_pictures_are_taken(cache: Path) -> None:
    frames = [f for f, _ in b_frames(cache, 0, 10)]
    assert len(frames) == 1
    f = frames[0]
    assert f.labels["seed"] == 4 and f.image.shape == (360, 480, 3)
    assert not list(b_frames(cache, 5, 10)), "seed 4 lies outside 5 … 14"
    if f.labels["style"]["typeface_group"] == "-":  # pips: the held-out copy is still refused by its group
        assert len(list(b_frames(cache, 0, 10))) == 1
    with pytest.raises(ValueError):
        list(b_frames(cache, B_BENCH_SEED - 5, 10))


@needs_povray
def test_finder_targets_mark_the_labelled_tile_centres(cache: Path) -> None:
    """The centre map peaks on every labelled tile (at least ``CENTRE_MIN_VISIBLE`` in view) and
    nowhere else; the patches cut from the picture carry such maps."""
    ((f, rng),) = list(b_frames(cache, 0, 10))
    scale = 0.5
    h, w = round(f.image.shape[0] * scale), round(f.image.shape[1] * scale)
    maps = train_tile_finder.targets(f.labels, None, scale, (h, w))
    centres = [np.mean([c["px"] for c in t["corners"]], axis=0) * scale / STRIDE
               for t in f.labels["tiles"] if t["visible"] >= train_tile_finder.CENTRE_MIN_VISIBLE]
    assert len(centres) >= 3
    peaks = np.argwhere(maps[0] > 0.6)[:, ::-1]  # (x, y) cells
    assert len(peaks)
    for c in centres:
        assert np.min(np.linalg.norm(peaks - c, axis=1)) <= 1.0, "a labelled tile without a centre peak"
    for p in peaks:
        assert min(float(np.linalg.norm(p - c)) for c in centres) <= 1.5, "a centre peak off every tile"
    ims, tgs = train_tile_finder.frame_patches(f, rng)
    assert ims.shape[1:] == (train_tile_finder.PATCH,) * 2 + (3,)
    assert tgs.shape == (len(ims), 3, train_tile_finder.PATCH // STRIDE, train_tile_finder.PATCH // STRIDE)
    assert float(tgs[:, 0].max()) > 0.5 and float(tgs[:, 2].mean()) > 0.0


@needs_povray
def test_value_crops_carry_each_tiles_values(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three crops per tile well in view, labelled with that tile's three values."""
    monkeypatch.setattr(train_tile_values, "FINDER_CROPS", False)
    ((f, rng),) = list(b_frames(cache, 0, 10))
    crops, ys = train_tile_values.frame_crops(f, rng)
    tiles = [t for t in f.labels["tiles"] if t["visible"] >= train_tile_values.MIN_VISIBLE]
    assert len(tiles) >= 3 and len(crops) == len(ys) == 3 * len(tiles)
    for k, t in enumerate(tiles):
        assert sorted(ys[3 * k:3 * k + 3].tolist()) == sorted(t["values"])
    assert len({tuple(sorted(t["values"])) for t in tiles}) > 1, "labels differ from tile to tile"
