"""Tiles with light ink on a dark face (``vision/read/triolet/dark_faces.py``): whether a square
holds a tile does not depend on the tile being lighter than the board, and a value read from an
inverted face is flagged as unsure."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

import vision.read.triolet.reader as reader
from engine.triolet.board import INDEX
from lab.render import random_frame
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.dark_faces import (
    EMPTY_DOUBT,
    INVERTED_CONFIDENCE,
    doubt_empties,
    read_inverted,
    structured,
    unsure_values,
)
from vision.read.triolet.reader import ReaderOptions, read_triolet


def _dark_tiles(seed: int) -> tuple[np.ndarray, set[str]]:
    """A project-renderer picture whose tile tops are turned light-on-dark (their pixels inverted:
    black faces, white numerals), and the squares that hold tiles."""
    fr = random_frame("triolet", seed, "normal", size=(1280, 720))
    img = fr.image.copy()
    mask = np.zeros(img.shape[:2], np.uint8)
    for c in fr.labels["cells"]:
        cv2.fillConvexPoly(mask, np.round(np.asarray(c["corners_px"])).astype(np.int32), 255)
    img[mask > 0] = 255 - img[mask > 0]
    return img, {str(c["square"]) for c in fr.labels["read"]["cells"]}


def test_black_tiles_with_white_ink_are_tiles_their_values_flagged_unsure(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nets trained on light faces may call black tiles with white ink empty. That premise is forced
    (after the closer look every tile's square reads empty), so the test does not depend on which net
    weights are committed: the light-on-dark pass alone must find the tiles, and flag their values."""
    image, truth = _dark_tiles(7)
    first_look = reader.closer_look

    def nets_call_them_empty(rect: np.ndarray, probs: np.ndarray, *args: Any, **kwargs: Any) -> None:
        first_look(rect, probs, *args, **kwargs)
        rows = [INDEX[sq] for sq in truth]
        probs[rows] = 0.0
        probs[rows, EMPTY] = 1.0

    monkeypatch.setattr(reader, "closer_look", nets_call_them_empty)
    reading = read_triolet(image)
    found = {c.square for c in reading.cells}
    assert len(found & truth) >= 0.6 * len(truth)
    assert not found - truth  # no phantom tile from reading plain squares inverted
    assert all(c.confidence <= INVERTED_CONFIDENCE + 1e-6 for c in reading.cells)
    blind = read_triolet(image, options=replace(ReaderOptions(), light_on_dark=0.0))
    assert len({c.square for c in blind.cells} & truth) <= 0.1 * len(truth)  # the (forced) nets alone call them empty


def test_structure_gate_flags_inked_squares_among_plain_ones() -> None:
    rng = np.random.default_rng(0)
    structure = rng.uniform(1.0, 3.0, 225).astype(np.float32)
    structure[[10, 100, 200]] = 25.0
    flagged = structured(structure, 2.0)
    assert set(np.flatnonzero(flagged)) == {10, 100, 200}


def test_inverted_reading_keeps_occupancy_and_caps_the_value() -> None:
    sure = np.zeros((2, EMPTY + 1), np.float32)
    sure[0, 7], sure[0, EMPTY] = 0.995, 0.005
    sure[1, EMPTY] = 1.0
    out = unsure_values(sure)
    assert np.allclose(out.sum(axis=1), 1.0, atol=1e-5)
    assert out[0].argmax() == 7 and out[0, 7] <= INVERTED_CONFIDENCE + (1 - INVERTED_CONFIDENCE) / EMPTY
    assert out[0, EMPTY] < 0.01 and out[1, EMPTY] == 1.0

    def net(crops: np.ndarray) -> np.ndarray:
        """A stub net: sure of a 3 on crops whose mean is dark (an inverted light face), else empty."""
        p = np.zeros((len(crops), EMPTY + 1), np.float32)
        dark = crops.reshape(len(crops), -1).mean(axis=1) < 128
        p[dark, 3], p[~dark, EMPTY] = 1.0, 1.0
        return p

    def turns(fn, crops, first):  # type: ignore[no-untyped-def]
        return fn(crops)

    probs = np.zeros((3, EMPTY + 1), np.float32)
    probs[:, EMPTY] = 1.0
    crops = np.stack([np.full((56, 56, 3), v, np.uint8) for v in (250, 20, 240)])
    taken = read_inverted(probs, crops, net, np.array([0, 1, 2], np.intp), turns, 0.01)
    assert list(taken) == [0, 2]  # light crops turn dark inverted: the stub sees a tile
    assert probs[1, EMPTY] == 1.0 and probs[0].argmax() == 3


def test_doubted_empties_keep_their_reading_and_lose_their_sureness() -> None:
    probs = np.zeros((3, EMPTY + 1), np.float32)
    probs[:, EMPTY] = [0.999, 0.5, 0.999]
    probs[1, 4] = 0.5
    probs[[0, 2], 4] = 0.001
    doubt_empties(probs, np.array([0, 1], np.intp))
    assert probs[0, EMPTY] == np.float32(EMPTY_DOUBT) and probs[0].argmax() == EMPTY
    assert probs[1, EMPTY] == np.float32(0.5)  # already unsure: unchanged
    assert probs[2, EMPTY] == np.float32(0.999)  # not asked: unchanged
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
