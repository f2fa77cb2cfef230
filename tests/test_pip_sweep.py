"""The pip sweep (lab/bench/pip_sweep.py): it picks renderer B seeds of the asked pip edition, and it
scores pip counts against the truth."""

from __future__ import annotations

import cv2
import numpy as np

from lab.bench.pip_sweep import SweepTile, count_row, pip_seeds, setting
from lab.render.povray.tiles import random_tiles_scene
from vision.read.tritiles import pips


def test_pip_seeds_are_of_the_asked_edition() -> None:
    seeds = list(pip_seeds("trio_domino", "coloured pips on wood", 2))
    assert len(seeds) == 2 and seeds == sorted(seeds) and seeds[0] >= 300_000
    assert all(random_tiles_scene("trio_domino", s).look.edition == "coloured pips on wood" for s in seeds)


def _tile(values: tuple[int, int, int], colour: tuple[int, int, int]) -> SweepTile:
    """A light tile warped upright with ``values`` (0–2) pips at its corners, in a row across each."""
    patch = np.full((pips.SIZE, pips.SIZE, 3), 60, np.uint8)
    cv2.fillPoly(patch, [np.round(pips.CANON).astype(np.int32)], (215, 220, 225))
    r = pips.PIP_RADIUS * pips.SIDE
    for k, v in enumerate(values):
        at = pips.CANON[k] + (pips.CENTROID - pips.CANON[k]) * 0.45
        across = np.array([-(pips.CENTROID - pips.CANON[k])[1], (pips.CENTROID - pips.CANON[k])[0]])
        across /= np.linalg.norm(across)
        for i in range(v):
            q = at + across * (i - (v - 1) / 2) * 3.2 * r
            cv2.circle(patch, (round(q[0]), round(q[1])), round(r), colour, -1, cv2.LINE_AA)
    return SweepTile("t", "black pips", 100.0, patch, values)


def test_count_row_scores_counts_and_a_threshold_change_moves_it() -> None:
    tiles = [_tile((0, 1, 2), (20, 20, 20)), _tile((2, 1, 0), (20, 20, 20)), _tile((2, 2, 1), (20, 20, 20))]
    row = count_row(tiles, [])
    assert row[0] == 100.0 and row[4] == 0.0 and row[5] == 0.0  # every corner right, nothing invented or missed
    with setting(pips, "MIN_RESPONSE", 1e6):  # nothing reaches it: every pip missed
        row = count_row(tiles, [])
    assert row[0] < 50.0 and row[5] > 0.0
    assert pips.MIN_RESPONSE < 1e6  # the setting is put back
