"""The corner-value net's training data (lab/train/train_tile_values.py): crops cut from the
finder's own outlines carry the values printed there."""

from __future__ import annotations

import numpy as np

from lab.train.train_tile_values import finder_crops, frame_crops


def test_finder_crops_are_labelled_with_the_values_they_show() -> None:
    """On an easy Trio Domino table the committed corner-value net agrees with the labels of the
    crops cut from the finder's outlines (a label taken from the wrong corner would agree about one
    time in six; the earlier net, trained on true outlines only, read 40 of these 45 right), and the
    frame's crops hold those of the jittered true outlines too."""
    from lab.render.triangles import random_triangles_frame
    from vision.read.tritiles.values import VALUES_PATH

    frame = random_triangles_frame("trio_domino", 3, "easy")
    crops, ys = finder_crops(frame)
    assert len(crops) >= 3 * 10 and len(crops) % 3 == 0
    assert set(ys) <= set(range(6))
    from vision.read.triolet.cnn import load_cnn

    pred = load_cnn(str(VALUES_PATH)).proba(np.stack(crops)).argmax(axis=1)
    assert float(np.mean(pred == np.array(ys))) >= 0.95
    all_crops, all_ys = frame_crops(frame, np.random.default_rng(0))
    assert len(all_crops) == len(all_ys) > len(crops)
