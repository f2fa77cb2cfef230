"""Renderer-B training crops carry the right labels, and the cross-renderer table reads with each net set."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion_api.cli import main
from lab.bench.read_cross import NET_FILES, TESTS, net_sets, using_nets
from lab.render.povray.render import random_scene, render_scene
from lab.render.povray.scene import PovTile, TileSet
from lab.train.data_triolet_povray import POVRAY_TRAIN_SEED_BASE, frame_crops, make_data
from vision.nets import MODELS_DIR
from vision.read.triolet import classifier, cnn
from vision.read.triolet.classifier import EMPTY, WILD

needs_povray = pytest.mark.skipif(shutil.which("povray") is None,
                                  reason="POV-Ray is not installed (.ci/run installs it)")

COLUMNS = "ABCDEFGHIJKLMNO"


def _blueness(crop: np.ndarray) -> float:
    """Blue minus red over the crop's central part (BGR)."""
    core = crop[20:36, 20:36].astype(np.float64)
    return float((core[..., 0] - core[..., 2]).mean())


@needs_povray
def test_crops_are_cut_at_the_true_squares_with_their_values() -> None:
    """Blue tiles (a 6 turned upside down, a 9, a 12, a wild) on a cream board: each tile's crop is
    blue in the middle and labelled with its true value, every other square is an empty crop."""
    sc = random_scene(11, "train", (640, 480))
    tiles = (PovTile("H8", 6, False, 2, 3.0, (0.0, 0.0)), PovTile("C3", 9, False, 1, -4.0, (0.02, 0.0)),
             PovTile("M12", 0, True, 3, 0.0, (0.0, 0.0)), PovTile("E11", 12, False, 0, 2.0, (0.0, 0.03)))
    sc = replace(sc, tiles=tiles, tile_set=TileSet((0.1, 0.2, 0.9), (0.05, 0.05, 0.05), "printed", True, 0.3, 0.06),
                 edition=replace(sc.edition, base=(0.92, 0.89, 0.78), premium="fill", wood=False,
                                 double=(0.9, 0.5, 0.4), triple=(0.85, 0.25, 0.2), replay=(0.35, 0.65, 0.35),
                                 centre=(0.9, 0.7, 0.2)),
                 table="laminate")
    fr = render_scene(sc, 11, quality="fast")
    crops, y, names = frame_crops(fr.image, fr.labels)
    assert crops.shape == (225, 56, 56, 3) and len(names) == 225 and len(set(names)) == 225
    by_view = {c["square_view"]: c for c in fr.labels["cells"]}
    want = {sq: (WILD if c["wild"] else c["value"]) for sq, c in by_view.items()}
    assert sorted(want.values()) == sorted([6, 9, 12, WILD])
    for crop, label, name in zip(crops, y, names, strict=True):
        if name in want:
            assert label == want[name], name
            assert _blueness(crop) > 40, name
        else:
            assert label == EMPTY, name
            assert _blueness(crop) < 20, name


@needs_povray
def test_data_file_draws_training_faces_only_from_its_own_seeds(tmp_path: Path) -> None:
    n = make_data(0, 1, tmp_path / "b.npz", tmp_path, size=(320, 240), empties=5)
    with np.load(tmp_path / "b.npz") as d:
        crops, y, seeds, squares = d["crops"], d["y"], d["seed"], d["square"]
    assert len(y) == n == len(crops) == len(squares) and set(seeds.tolist()) == {POVRAY_TRAIN_SEED_BASE}
    import json

    labels = json.loads(next(tmp_path.glob("*.json")).read_text(encoding="utf-8"))
    assert labels["seed"] == POVRAY_TRAIN_SEED_BASE and labels["style"]["typeface_group"] == "train"
    read = {c["square"]: (WILD if c["wild"] else c["value"]) for c in labels["read"]["cells"]}
    assert int((y == EMPTY).sum()) == 5 and int((y != EMPTY).sum()) == len(read)
    for label, sq in zip(y, squares, strict=True):
        assert label == read.get(str(sq), EMPTY)


def _bad_mlp(path: Path) -> None:
    """The committed MLP made to call every square a 5."""
    with np.load(MODELS_DIR / "triolet_squares.npz") as d:
        arrays = {k: d[k] for k in d.files}
    arrays["w2"] = np.zeros_like(arrays["w2"])
    b2 = np.zeros_like(arrays["b2"])
    b2[5] = 10.0
    arrays["b2"] = b2
    np.savez(path, **arrays)


def test_net_sets_are_folders_and_swap_the_readers_nets(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "empty").mkdir()
    _bad_mlp(tmp_path / "bad" / "triolet_squares.npz")
    sets = net_sets(str(tmp_path))
    assert [name for name, _ in sets] == ["bad"]  # a folder without weight files is no set
    files = sets[0][1]
    assert files["triolet_squares.npz"] == tmp_path / "bad" / "triolet_squares.npz"
    assert files["triolet_cnn.npz"] == MODELS_DIR / "triolet_cnn.npz"  # what a set lacks is the committed one
    assert net_sets(str(tmp_path / "bad"))[0][0] == "bad"
    crops = np.full((2, 56, 56, 3), 128, np.uint8)
    before = classifier.load_model().proba(np.zeros((2, classifier.load_model().mean.shape[0]), np.float32))
    with using_nets(files):
        inside = classifier.load_model()
        assert inside.proba(np.zeros((2, inside.mean.shape[0]), np.float32)).argmax(1).tolist() == [5, 5]
        assert cnn.load_cnn().proba(crops).shape == (2, 18)
    after = classifier.load_model().proba(np.zeros((2, classifier.load_model().mean.shape[0]), np.float32))
    assert np.allclose(before, after) and classifier.MODEL_PATH == MODELS_DIR / "triolet_squares.npz"
    assert set(files) == set(NET_FILES)


def test_cross_table_names_a_missing_models_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "read", "--game", "triolet", "--cross", "--frames", "1", "--models", str(tmp_path / "no")])
    assert code == 2 and "not a folder" in capsys.readouterr().err
    code = main(["bench", "read", "--game", "triolet", "--frames", "1", "--models", str(tmp_path)])
    assert code == 2 and "--cross" in capsys.readouterr().err


@needs_povray
def test_cross_table_prints_a_row_per_net_set_and_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models = tmp_path / "models"
    (models / "bad").mkdir(parents=True)
    _bad_mlp(models / "bad" / "triolet_squares.npz")
    (models / "committed").mkdir()
    for f in NET_FILES:
        shutil.copy(MODELS_DIR / f, models / "committed" / f)
    code = main(["bench", "read", "--game", "triolet", "--cross", "--frames", "1", "--size", "320x240",
                 "--cache", str(tmp_path / "cache"), "--models", str(models)])
    out = capsys.readouterr().out
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith(("bad ", "committed "))]
    got = [(r.split()[0], t) for r in rows for t in TESTS if f" {t} " in r]
    assert got == [(s, t) for s in ("bad", "committed") for t in TESTS]
    assert all(r.split()[len(r.split()) - 7] == "1" for r in rows)  # frames


def test_mlp_fine_tune_starts_from_the_given_weights(tmp_path: Path) -> None:
    """``train_triolet_digits train --init`` keeps the feature standardisation and moves the weights."""
    from lab.train.train_triolet_digits import main as digits_main

    rng = np.random.default_rng(3)
    np.savez(tmp_path / "c.npz", crops=rng.integers(0, 255, (24, 56, 56, 3), dtype=np.uint8),
             y=np.array([5, EMPTY] * 12, np.int64))
    out = tmp_path / "mlp.npz"
    init = MODELS_DIR / "triolet_squares.npz"
    assert digits_main(["train", str(tmp_path / "c.npz"), "--init", str(init), "--lr", "1e-3", "--epochs", "1",
                        "--out", str(out)]) == 0
    with np.load(init) as a, np.load(out) as b:
        assert np.array_equal(a["mean"], b["mean"]) and np.array_equal(a["scale"], b["scale"])
        assert a["w1"].shape == b["w1"].shape and not np.array_equal(a["w2"], b["w2"])
