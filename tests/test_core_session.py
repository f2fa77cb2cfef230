"""The engine core: sessions, corrections, undo, verdict JSON, and that illegal events change nothing."""

from __future__ import annotations

import json

import pytest
from core_helpers import Add, CounterGame, header

from engine.core import Correct, IllegalEventError, Session, Undo


def test_illegal_event_changes_nothing() -> None:
    state = CounterGame.new(header())
    state.apply(Add(player=0, value=5))
    before = (state.totals(), state.to_move())
    with pytest.raises(IllegalEventError) as err:
        state.apply(Add(player=1, value=0))
    assert "0 is not 1-9" in str(err.value)
    assert (state.totals(), state.to_move()) == before


def test_check_line_shape_for_legal_and_illegal_events() -> None:
    s = Session(header())
    ok = s.submit(Add(player=0, value=7)).to_json()
    assert ok == {"seq": 1, "type": "place", "legal": True, "player": 0, "score": 7, "totals": [7, 0],
                  "breakdown": [{"kind": "add", "cells": [], "points": 7, "rule": "X-2"}],
                  "next": {"player": 1, "replay": False}, "left": 23}
    bad = s.submit(Add(player=0, value=3)).to_json()
    assert bad["legal"] is False and bad["score"] == 0
    assert bad["reasons"] == [{"rule": "X-1", "code": "not_your_turn", "cells": [], "message": "not your turn"}]
    assert "totals" not in bad


def test_correction_replays_from_the_start_and_rejudges_later_events() -> None:
    s = Session(header())
    s.submit(Add(player=0, value=9))
    s.submit(Add(player=1, value=9))
    s.submit(Add(player=0, value=9))
    assert s.state.totals() == [18, 9]
    entry = s.submit(Correct(player=None, seq=2, event=Add(player=1, value=4)))
    assert entry.verdict.legal and entry.totals == [18, 4]
    assert entry.to_json()["target"] == 2
    # Correcting event 1 to a different player makes event 1 legal only if it is that player's turn.
    entry = s.submit(Correct(player=None, seq=1, event=Add(player=1, value=1)))
    # Player 0 opens the game, so the corrected events 1 and 2 are now out of turn; 3 still stands.
    assert entry.rejudged == [1, 2]
    assert [e.verdict.legal for e in s.entries[:3]] == [False, False, True]
    assert entry.totals == [9, 0]


def test_undo_takes_an_event_back_and_cannot_be_repeated() -> None:
    s = Session(header())
    s.submit(Add(player=0, value=5))
    s.submit(Add(player=1, value=6))
    undo = s.submit(Undo(player=None, seq=2))
    assert undo.verdict.legal and s.state.totals() == [5, 0] and s.state.to_move().player == 1
    again = s.submit(Undo(player=None, seq=2))
    assert not again.verdict.legal and again.verdict.reasons[0].code == "already_undone"
    missing = s.submit(Undo(player=None, seq=99))
    assert missing.verdict.reasons[0].code == "unknown_seq"
    meta = s.submit(Undo(player=None, seq=3))
    assert meta.verdict.reasons[0].code == "amends_amendment"


def test_summary_line_reports_the_outcome() -> None:
    s = Session(header())
    for i in range(7):
        s.submit(Add(player=i % 2, value=9))
    summary = s.summary_json()
    assert summary["ended"] is True and summary["winner"] == [0] and summary["end_rule"] == "X-3"
    assert json.loads(json.dumps(summary)) == summary


def test_points_by_player_credits_other_seats() -> None:
    from engine.core import ScoreItem, Verdict

    v = Verdict(True, 0, breakdown=(ScoreItem("remaining", 12, "T-E3", player=0),
                                    ScoreItem("remaining", -12, "T-E3", player=1)))
    assert v.points_by_player(2) == [12, -12]
    assert v.score == 12
