"""The piece-colour model shared by Trigon, classic Blokus and Blokus Duo (vision.read.piece_colours)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.read import piece_colours
from vision.read.piece_colours import CLASSES, MODEL_PATH, classify, features, square_points, triangle_points

#: test renders use seeds from here (training 3,000,000 up, benchmarks below 2,000,000)
TEST_SEED = 2_600_000


def board_samples(rng: np.random.Generator, cells: int, k: int, grey: tuple[float, float, float]) -> np.ndarray:
    """Samples of ``cells`` empty cells of a board of colour ``grey`` (BGR) with sensor noise."""
    return np.clip(np.array(grey)[None, None, :] + rng.normal(0, 3, (cells, k, 3)), 0, 255).astype(np.uint8)


def test_model_small_and_loads() -> None:
    """The committed weights are small and give the seven classes."""
    assert MODEL_PATH.stat().st_size < 60_000
    model = piece_colours.load_model()
    assert model.layers[-1][0].shape[1] == len(CLASSES) == 7


def test_duo_colours_never_answer_blue() -> None:
    """Restricted to Duo's colours, even clearly blue cells come out purple, orange or empty, and
    the probabilities have three columns that sum to one."""
    rng = np.random.default_rng(1)
    raw = board_samples(rng, 60, 49, (185, 185, 185))
    raw[:20] = np.clip(np.array([175, 75, 25])[None, None, :] + rng.normal(0, 4, (20, 49, 3)), 0, 255)  # blue
    four, _ = classify(raw, ("blue", "yellow", "red", "green"))
    assert [v.colour for v in four[:20]] == ["blue"] * 20  # the model sees them as blue …
    duo, p = classify(raw, ("purple", "orange"))
    assert p.shape == (60, 3)
    assert np.allclose(p.sum(axis=1), 1, atol=1e-5)
    assert all(v.colour in (None, "purple", "orange") for v in duo)  # … but Duo never answers blue


def test_unknown_colour_refused() -> None:
    with pytest.raises(ValueError, match="unknown piece colour"):
        classify(np.zeros((4, 9, 3), np.uint8), ("blue", "pink"))


def test_glare_does_not_turn_a_piece_empty() -> None:
    """A red piece cell with a highlight forced over 70 % of its samples (blown white) still reads
    red; the glare samples are left out of its features."""
    rng = np.random.default_rng(2)
    raw = board_samples(rng, 80, 49, (170, 175, 180))
    red = np.clip(np.array([45, 40, 175])[None, :] + rng.normal(0, 4, (49, 3)), 0, 255).astype(np.uint8)
    raw[:10] = red
    glared = raw.copy()
    spot = rng.permutation(49)[:34]
    glared[:10, spot] = 255
    plain, _ = classify(raw, ("blue", "yellow", "red", "green"))
    shiny, _ = classify(glared, ("blue", "yellow", "red", "green"))
    assert [v.colour for v in plain[:10]] == ["red"] * 10
    assert [v.colour for v in shiny[:10]] == ["red"] * 10
    assert all(v.colour is None for v in shiny[10:])
    f_plain, _ = features(raw)
    f_shiny, _ = features(glared)
    assert np.allclose(f_shiny[:10, :9], f_plain[:10, :9], atol=0.6)  # colour statistics barely move
    assert (f_shiny[:10, 11] > 0.6).all() and (f_plain[:10, 11] == 0).all()  # the glare share


def test_sample_points_stay_inside_their_cells() -> None:
    sq = square_points(3, 32.0)
    assert sq.shape == (9, 49, 2)
    assert sq[4].min() > 32 and sq[4].max() < 63  # the centre square's inner part
    tri = triangle_points(np.array([[[0.0, 0.0], [10.0, 0.0], [5.0, 8.0]]]))
    assert tri.shape == (1, 28, 2)
    assert tri[0, :, 1].min() > 0 and tri[0, :, 0].min() > 0 and tri[0, :, 0].max() < 10


@pytest.mark.parametrize("game", ["blokus", "blokus_duo"])
def test_rendered_square_board_reads_right(game: str) -> None:
    """A project render of a square board, cut at its true corners, reads right square for square."""
    import cv2

    from lab.render.blokus import render_blokus
    from vision.read.blokus.colours import square_verdicts
    from vision.read.blokus.geometry import GAME_COLOURS

    f = render_blokus(TEST_SEED + (0 if game == "blokus" else 1), game)
    n = len(f.truth)
    unit = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    h = np.asarray(cv2.getPerspectiveTransform(unit, f.corners_px.astype(np.float32)), np.float64)
    got = square_verdicts(f.image, h, n, GAME_COLOURS[game])
    wrong = [(r, c) for r in range(n) for c in range(n) if got[r][c].colour != f.truth[r][c]]
    assert sum(v is not None for row in f.truth for v in row) > 20
    assert wrong == []


def test_rendered_trigon_board_reads_right() -> None:
    """A project render of a Trigon board, cut at its true hexagon, reads right triangle for triangle."""
    from lab.render.trigon import random_trigon_frame
    from lab.train.eval_trigon_cells import frame_truth, true_homography
    from vision.read.trigon.colours import classify_cells_shared

    f = random_trigon_frame(TEST_SEED + 2, "easy")
    h = true_homography(f)
    truth = frame_truth(f, h)
    verdicts, _view = classify_cells_shared(f.image, h)
    got = np.array([CLASSES.index(v.colour) for v in verdicts])
    counted = truth["play"] & truth["inimg"] & (truth["occ"].astype(np.float32) < 0.1)
    assert (truth["label"][counted] > 0).sum() > 20
    assert (got[counted] == truth["label"][counted]).all()
