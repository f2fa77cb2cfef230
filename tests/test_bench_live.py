"""The soak (hands waving over a static board with tiles: not one event) and ``bench live``'s
scoring of a served video, shortened for the suite."""

from __future__ import annotations

import argparse

import pytest

from companion_api.cli.common import CliError
from lab.bench.live import _one_turn, add_arguments, soak
from lab.render.soak import SoakSpec, soak_frames


def test_a_minute_of_hands_over_a_static_board_is_no_event() -> None:
    spec = SoakSpec(seconds=60.0, seed=3, size=(640, 360), poses=12)
    frames = soak_frames(spec)
    assert len(frames) == 600
    hands = sum(1 for i in range(len(frames)) if frames.has_hand(i))
    assert hands > 150  # hands really are over the table much of the time
    assert len(frames.opening_events()) >= 4
    result = soak(spec, "oracle")
    assert result["events"] == 0, result["problems"][:5]
    assert result["watch_differs"] == 0, result["problems"][:5]
    assert result["rests"] >= 5  # the board was looked at between the hands


def test_an_attempt_is_one_turn_at_most_T_P1() -> None:
    assert _one_turn(["H8", "H9", "H10"]) and _one_turn(["C3"])
    assert not _one_turn(["H8", "H9", "H10", "H11"]) and not _one_turn(["H8", "I9"])


def test_bad_options_are_one_clear_error() -> None:
    from lab.bench.live import run

    p = argparse.ArgumentParser()
    add_arguments(p)
    with pytest.raises(CliError, match="--difficulty"):
        run(p.parse_args(["--difficulty", "impossible"]))
    with pytest.raises(CliError, match="--observer"):
        run(p.parse_args(["--observer", "psychic"]))
