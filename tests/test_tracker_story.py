"""The tracker over one rendered scripted game (``tracker_helpers.story``) with the oracle observer:
hands, the stability window, illegal attempts and take-backs, undo, wilds, light and a bumped camera."""

from __future__ import annotations

import numpy as np
import pytest
from tracker_helpers import STORY_KINDS, Run, Script, run_tracker, story, tiles_of, view

from vision.track import Misread, TrackerOptions


@pytest.fixture(scope="module")
def script() -> Script:
    return story()


@pytest.fixture(scope="module")
def run(script: Script) -> Run:
    return run_tracker(script)


def test_story_events_in_order(run: Run) -> None:
    assert run.kinds() == STORY_KINDS


def test_nothing_is_read_while_a_hand_covers_the_board(script: Script, run: Run) -> None:
    """The hand hovering still over C3 (no tile) and over H8 (after laying): no read meanwhile."""
    hand_frames = [i for i, (_img, lab) in enumerate(script.frames) if lab["scene"]["hands"]]
    assert len(hand_frames) > 50
    assert not set(run.reads_at[1:]) & set(hand_frames)  # read 0 is the first full read
    assert run.tracker.stats.covered_frames > 0
    first = run.outputs[0]
    assert first.frame >= script.left_at[1]  # only after the hand left the opening tiles


def test_opening_placement_scored(script: Script, run: Run) -> None:
    first = run.outputs[0]
    assert tiles_of(first) == {view(script, "H8"): (11, False), view(script, "I8"): (3, False)}
    line = first.to_json()
    assert line["score"] == 25 and line["totals"] == [25, 0] and line["player"] == 0
    assert line["frame"] == first.frame and line["ts"] == pytest.approx(first.t, abs=1e-3)


def test_event_waits_for_the_stability_window(script: Script, run: Run) -> None:
    slow = run_tracker(script, options=TrackerOptions(stable_seconds=1.0))
    assert slow.kinds() == STORY_KINDS
    delays = [b.t - a.t for a, b in zip(run.outputs, slow.outputs, strict=True)]
    assert all(d == pytest.approx(0.5, abs=0.11) for d in delays), delays


def test_illegal_attempt_reported_not_committed_then_cleared_T_P4(run: Run) -> None:
    illegal, cleared, after = run.outputs[1], run.outputs[2], run.outputs[3]
    line = illegal.to_json()
    assert line["type"] == "illegal" and line["player"] == 1
    assert {r["code"] for r in line["reasons"]} == {"pair_over_15"}
    assert {r["rule"] for r in line["reasons"]} == {"T-P4"}
    assert "score" not in line and "totals" not in line
    assert cleared.kind == "cleared" and cleared.event is None
    # the same player (B) then plays, and the totals never counted the attempt
    assert after.event is not None and after.event.player == 1
    assert after.entry is not None and after.entry.totals == [25, 27]


def test_evidence_crops_before_and_after(run: Run) -> None:
    for out in run.outputs:
        if out.kind == "cleared":
            continue
        assert out.before is not None and out.after is not None
        assert out.before.shape == out.after.shape
        assert out.after_png is not None and out.after_png[:8] == b"\x89PNG\r\n\x1a\n"
    place = run.outputs[0]
    assert place.after is not None and place.before is not None
    diff = np.abs(place.after.astype(np.int16) - place.before.astype(np.int16)).max(axis=2)
    assert (diff > 40).mean() > 0.02  # the tiles appeared (numerals on the board's colour)


def test_wild_fixed_by_the_trio_T_P6(script: Script, run: Run) -> None:
    wild = run.outputs[4]
    assert tiles_of(wild) == {view(script, "J8"): (1, True)}
    assert "wild_pending" not in wild.to_json()


def test_taking_back_a_committed_move_is_an_undo(run: Run) -> None:
    placed, undo = run.outputs[5], run.outputs[6]
    line = undo.to_json()
    assert line["type"] == "undo" and line["seq"] == placed.seq
    assert line["totals"] == run.outputs[4].entry.totals  # type: ignore[union-attr]
    assert line["next"] == {"player": 1, "replay": False}


def test_light_change_and_bumped_camera_make_no_false_events(run: Run) -> None:
    assert run.tracker.stats.relocations >= 1
    last = run.outputs[7]
    assert last.kind == "place" and last.event is not None and last.event.player == 1


def test_wild_in_a_pair_is_pending_T_P6(script: Script, run: Run) -> None:
    line = run.outputs[7].to_json()
    assert line["wild_pending"] is True
    assert line["wild_square"] == view(script, "G10")
    assert line["wild_candidates"] == list(range(8))  # 8 + w <= 15


def test_misread_making_an_illegal_pair_is_read_again_T_P4(script: Script) -> None:
    """H9 (4) misread as 14: 11 + 14 > 15, so the next candidate 4 is taken; no illegal report."""
    r = run_tracker(script, misreads=(Misread("H9", "14", 0.6, persistent=True),))
    assert r.kinds() == STORY_KINDS
    assert tiles_of(r.outputs[3])[view(script, "H9")] == (4, False)


def test_misread_fixed_by_a_closer_look(script: Script) -> None:
    r = run_tracker(script, misreads=(Misread("G9", "13", 0.97, persistent=False),))
    assert r.kinds() == STORY_KINDS
    assert tiles_of(r.outputs[3])[view(script, "G9")] == (8, False)


def test_a_sure_misread_is_reported_not_guessed(script: Script) -> None:
    """Control: with no plausible second candidate, the misread stays an illegal attempt."""
    r = run_tracker(script, misreads=(Misread("H9", "14", 0.98, persistent=True),))
    assert r.kinds()[:4] == ["place", "illegal", "cleared", "illegal"]
