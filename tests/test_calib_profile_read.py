"""A board profile made from one picture replaces the board search on later pictures from the same
camera, and is re-validated on each picture: a nudged board is searched for again (INTERFACES §3,
§4b: ``companion read --calibration``)."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from lab.bench.read import ProfileGroup, profile_from_picture, profile_group, truth_profile
from lab.evaluate.triolet import score_frame
from vision.read.triolet.reader import read_triolet

SEED = 1  # a normal-difficulty scene group: fixed camera, board and style; other light and hands


@cache
def _group() -> tuple[ProfileGroup, Any]:
    group = profile_group(SEED, 2, (1280, 720))
    return group, profile_from_picture(group.setup.image)


def test_calib_profile_from_empty_board_skips_the_search_and_reads_as_well() -> None:
    group, profile = _group()
    assert profile.camera is None and profile.board is not None  # what `calibrate board` writes
    for frame in group.later:
        searched = read_triolet(frame.image)
        stored = read_triolet(frame.image, profile)
        assert searched.located_by == "search"
        assert stored.located_by == "profile", stored.fit_reason
        # no search: locating is the cheap re-validation plus building the mapping
        assert stored.timings_ms["locate"] < searched.timings_ms["locate"]
        occ = frame.masks.get("occluders")
        s_score = score_frame(searched, frame.labels, occ)
        p_score = score_frame(stored, frame.labels, occ)
        assert p_score.located and p_score.corner_err_px < 2.0
        assert p_score.correct >= s_score.correct
        assert p_score.correct >= 0.97 * p_score.squares
        # INTERFACES §3: the reading's JSON is unchanged by where the corners came from
        assert set(stored.to_json()) == {"game", "board", "cells"}


def test_calib_profile_nudged_board_falls_back_to_the_search() -> None:
    group, profile = _group()
    reading = read_triolet(group.nudged.image, profile)
    assert reading.located_by == "search"
    assert "match" in reading.fit_reason or "edge" in reading.fit_reason
    score = score_frame(reading, group.nudged.labels, group.nudged.masks.get("occluders"))
    assert score.located and score.correct >= 0.97 * score.squares
    # the stored corners are now off the board: the profile itself would misplace it
    stored = np.asarray(profile.board.corners_px)
    truth = np.asarray(group.nudged.labels["board"]["corners_px_view"])
    assert float(np.max(np.hypot(*(stored - truth).T))) > 5.0


def test_calib_profile_with_corners_only_is_trusted() -> None:
    """Nothing to re-validate (no colour or edge references): the stored corners are used."""
    group, _profile = _group()
    frame = group.later[0]
    reading = read_triolet(frame.image, truth_profile(frame.labels))
    assert reading.located_by == "profile"
    assert score_frame(reading, frame.labels, frame.masks.get("occluders")).located


def test_calib_profile_with_misplaced_corners_is_not_trusted() -> None:
    """A calibration that put the grid a square and a half off (its special squares then look like the
    base colour) is never used: the reader searches, and still finds the board."""
    from calibration.board_colours import colour_warnings, sample_board_colours
    from calibration.profile import Profile

    group, profile = _group()
    c = np.asarray(profile.board.corners_px)
    off = c + 1.5 * (c[1] - c[0]) / 15.0 + 1.5 * (c[3] - c[0]) / 15.0
    bad = Profile().with_board(sample_board_colours("triolet", group.setup.image, off))
    assert bad.board is not None and colour_warnings(bad.board)
    frame = group.later[0]
    reading = read_triolet(frame.image, bad)
    assert reading.located_by == "search" and "looks wrong" in reading.fit_reason
    assert score_frame(reading, frame.labels, frame.masks.get("occluders")).located
