"""The CNN's training crops say what the square holds: a tile partly under a hand is labelled
with its value (it is still a tile), an empty square under a hand is labelled empty."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lab.render import random_frame
from lab.render.holdout import training_pool
from lab.train.train_triolet_digits import frame_samples, main
from vision.read.triolet.classifier import EMPTY, WILD

SEED = 900_107  # a normal frame with a hand over a few tiles (outside the training seeds)


def test_reader_training_hand_tiles_are_labelled_with_their_values() -> None:
    got = frame_samples(SEED, "normal", "hand-tiles")
    assert got is not None
    crops, labels = got
    assert len(crops) == len(labels) > 0
    assert crops.shape[1:] == (56, 56, 3)
    assert EMPTY not in labels
    fr = random_frame("triolet", SEED, "normal", pool=training_pool())
    truth = sorted(WILD if c["wild"] else int(c["value"]) for c in fr.labels["read"]["cells"])
    # every label is the value of a tile on this board, no more often than the board holds it
    for v in set(labels.tolist()):
        assert labels.tolist().count(v) <= truth.count(v)
    # the plain mode leaves these tiles out ("a tile under a hand is not a lesson" there)
    plain = frame_samples(SEED, "normal", "all")
    assert plain is not None
    tiles_plain = int(np.sum(plain[1] != EMPTY))
    assert tiles_plain + len(labels) <= len(truth)


def test_reader_training_hand_tiles_can_ask_for_their_marks_in_view() -> None:
    """``min_marks`` keeps only the hand-covered tiles with that share of their printed marks in
    view (the renderer's ``marks_visible``, the benchmark's rule for scoring a tile)."""
    fr = random_frame("triolet", SEED, "normal", pool=training_pool())
    marks = sorted(float(c["marks_visible"]) for c in fr.labels["cells"] if c["visible"] < 1.0)
    counts = []
    for least in (0.0, 0.5, 0.55, 0.99):
        got = frame_samples(SEED, "normal", "hand-tiles", min_marks=least)
        counts.append(0 if got is None else len(got[1]))
        assert counts[-1] <= sum(m >= least for m in marks)
    assert counts[0] > counts[1] > counts[2] > counts[3] == 0


def test_reader_training_hands_mode_gives_only_empty_squares() -> None:
    got = frame_samples(SEED, "normal", "hands")
    assert got is not None
    assert set(got[1].tolist()) == {EMPTY}


def test_reader_training_data_refuses_held_out_and_unknown_typefaces(capsys: pytest.CaptureFixture[str],
                                                                      tmp_path: Path) -> None:
    """A held-out typeface never reaches training data, and a typo is named, not rendered."""
    for names, said in (("ttf_liberation_serif_bold", "held out"), ("ttf_dejavu_serif,nosuchface", "nosuchface")):
        with pytest.raises(SystemExit) as exc:
            main(["data", "--typefaces", names, "--count", "1", "--out", str(tmp_path / "x.npz")])
        assert exc.value.code == 2
        assert said in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()
