"""The board seen against the record's board (Triolet): an attempt is at most one turn (T-P1),
anything larger or inconsistent is held as "differs" and never committed, the record's board stays
the baseline, and one correction by the players puts the game back on track."""

from __future__ import annotations

import numpy as np
from test_tracker_follower import Table, opening
from tracker_helpers import HEADER, STORY_KINDS, run_tracker, story

from engine.core.events import Correct, EventMeta
from engine.triolet import Place, PlacedTile
from vision.track import MoveTracker, OracleObserver
from vision.track.base import BoardCheck
from vision.track.triolet_follower import TrioletFollower

MANUAL = EventMeta(source="manual")


def check(t: Table) -> list[tuple[str, object, object]]:
    return [(c.cell, c.record, c.seen) for c in t.follower.board_check(t.session, t.seen)]


def test_more_tiles_than_one_turn_are_never_an_event_and_clear_when_taken_back_T_P1() -> None:
    t = opening(Table())
    for cell, tok in (("H9", "4"), ("H10", "2"), ("H11", "9"), ("H12", "1")):
        t.tile(cell, tok)
    assert t.decide() == []  # four tiles: no placement, no illegal report
    assert len(t.session.entries) == 1
    assert [c[0] for c in check(t)] == ["H9", "H10", "H11", "H12"]
    assert check(t)[0] == ("H9", None, {"value": 4, "wild": False})
    for cell in ("H10", "H11", "H12"):
        t.empty(cell)
    [d] = t.decide()  # what is left is one turn again: judged as usual
    assert d.kind == "place" and check(t) == []


def test_tiles_in_two_lines_are_not_one_attempt_T_P1() -> None:
    t = opening(Table())
    t.tile("H9", "4").tile("I9", "2").tile("G7", "1")
    assert t.decide() == [] and len(check(t)) == 3
    assert TrioletFollower.one_turn(["H9", "H10", "H11"]) and not TrioletFollower.one_turn(["H9", "I10"])


def test_a_tile_changed_under_a_committed_one_holds_the_next_move_until_reread() -> None:
    t = opening(Table())
    t.tile("G9", "8").tile("H9", "4")
    [d] = t.decide()
    assert d.kind == "place"
    t.tile("H8", "5")  # the first move's 11 now reads 5, surely, also on a closer look
    t.tile("J8", "1")
    assert t.decide() == []  # nothing committed while a committed tile is seen otherwise
    assert ("H8", {"value": 11, "wild": False}, {"value": 5, "wild": False}) in check(t)
    t.tile("H8", "11")  # read right again
    [d] = t.decide()
    assert d.kind == "place" and check(t) == []


def test_a_vanished_old_tile_is_shown_as_differing_and_changes_nothing() -> None:
    t = opening(Table())
    t.tile("G9", "8").tile("H9", "4")
    t.decide()
    t.empty("H8")
    assert t.decide() == []
    assert check(t) == [("H8", {"value": 11, "wild": False}, None)]
    t.tile("H8", "11")
    assert t.decide() == [] and check(t) == []


def test_a_wild_misread_no_longer_derails_the_game_one_correction_does_T_P6() -> None:
    """The opening's 11 is read as a wild (every time); the wild's declared value makes the next
    move illegal and the game goes on beside it: nothing larger than a turn is ever reported, and
    one correction of the misread tile (the phone's tap) brings every later move back."""
    t = Table()
    t.tile("H8", "wild").tile("I8", "3")
    [d] = t.decide()
    assert d.kind == "place" and d.event is not None
    wild = next(x for x in d.event.tiles if x.wild)  # type: ignore[attr-defined]
    assert wild.value != 11  # the runs allow many values: not the 11 that lies there
    t.tile("G8", "1")  # B: 1 + 11 + 3 = 15 in truth, illegal with the declared wild
    assert [x.kind for x in t.decide()] == ["illegal"]
    t.tile("I9", "4").tile("I10", "8")  # A goes on elsewhere: the attempt and A's tiles
    assert t.decide() == []  # never a 3-tile attempt, never a placement of both
    assert {c[0] for c in check(t)} == {"G8", "I9", "I10"}
    illegal_before = sum(1 for e in t.session.entries if not e.verdict.legal)
    # the players correct the first move: H8 is an 11, not a wild
    fix = Correct(player=None, seq=1, event=Place(player=0, tiles=(PlacedTile("H8", 11), PlacedTile("I8", 3))),
                  meta=MANUAL)
    assert t.session.submit(fix).verdict.legal
    assert t.follower.on_manual(t.session, fix, t.seen)
    # the engine judges B's attempt again on the corrected board: legal now
    assert t.follower.committed_cells(t.session)["G8"] == "1"
    [d] = t.decide()
    assert d.kind == "place" and d.event is not None and d.event.player == 0
    assert sorted(x.square for x in d.event.tiles) == ["I10", "I9"]  # type: ignore[attr-defined]
    assert check(t) == []  # the wild read on H8 is taken as the players' 11 while it lies there
    t.tile("J9", "9")  # B's next move: judged on the corrected board
    [d] = t.decide()
    assert d.kind == "place" and d.event is not None and d.event.player == 1
    assert sum(1 for e in t.session.entries if not e.verdict.legal) == illegal_before - 1


def test_a_take_back_merged_with_the_next_move_is_undo_and_held() -> None:
    t = opening(Table())
    t.tile("G9", "8").tile("H9", "4")
    t.decide()
    # B's tiles taken back and, before any rest, B's new move and A's next move laid
    t.empty("G9").empty("H9")
    t.tile("J8", "1").tile("J9", "2").tile("F8", "2").tile("F9", "3")
    out = t.decide()
    assert [d.kind for d in out] == ["undo"]
    assert {c[0] for c in check(t)} == {"F8", "F9", "J8", "J9"}
    t.empty("F8").empty("F9")  # A waits: the rest is one turn again
    [d] = t.decide()
    assert d.kind == "place" and d.event is not None and d.event.player == 1


def test_a_tracker_is_waiting_until_its_first_rest_and_ends_the_story_agreeing() -> None:
    run = run_tracker(story())
    assert run.kinds() == STORY_KINDS
    assert run.tracker.board_check.status == "ok" and run.tracker.board_check.cells == ()
    assert BoardCheck().status == "waiting"


def test_skipped_frames_never_make_a_rest_of_one_thin_frame() -> None:
    """A starved loop looks at a frame now and then: what it commits is still what lies there."""
    s = story()
    rng = np.random.default_rng(5)
    keep = [i for i in range(len(s.frames)) if i < 5 or rng.random() < 0.35]
    tracker = MoveTracker(HEADER, OracleObserver(s.labels_of))
    outs = []
    for i in keep:
        outs.extend(tracker.feed(i, s.t(i), s.frames[i][0]))
    placed = [o for o in outs if o.kind == "place"]
    assert len(placed) >= 2
    truth = [o for o in run_tracker(s).outputs if o.kind == "place"]
    # late, never wrong: every committed placement is one of the truth's, in order
    got = [sorted((t.square, t.value) for t in o.event.tiles) for o in placed]  # type: ignore[union-attr]
    want = [sorted((t.square, t.value) for t in o.event.tiles) for o in truth]  # type: ignore[union-attr]
    it = iter(want)
    assert all(any(g == w for w in it) for g in got), (got, want)


def test_a_mark_the_camera_takes_for_a_tile_is_set_aside_by_the_players_word() -> None:
    """A phantom tile read at the board's edge would join every move; once the players say the
    record is right there, moves are judged without it again."""
    t = Table()
    t.tile("N14", "10").tile("H8", "11").tile("I8", "3")
    assert t.decide() == []  # two lines: never one attempt
    assert [c[0] for c in check(t)] == ["H8", "I8", "N14"]
    assert t.follower.trust_record(t.session, ["N14"], t.seen)
    [d] = t.decide()
    assert d.kind == "place" and sorted(x.square for x in d.event.tiles) == ["H8", "I8"]  # type: ignore[union-attr]
    assert check(t) == []
    t.empty("N14")  # the mark taken away: the record (empty) and the board agree anyway
    assert t.decide() == [] and check(t) == [] and "N14" not in t.follower.vouched
    t.tile("N14", "10")  # seen again later: a difference again, shown
    t.decide()
    assert [c[0] for c in check(t)] == ["N14"]
