"""A game as an append-only log of events, with corrections and undos replayed from the start.

This is what ``companion check``, the tracker and the server share: events go in, each gets a
verdict, and a ``correct``/``undo`` line rebuilds the position as if the log had been right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import Correct, Event, Undo
from .header import Header
from .registry import get_game
from .state import GameState, Outcome, Turn
from .verdict import Reason, Verdict

#: Rule id cited for problems with corrections (INTERFACES §1 defines them).
CORRECTION_RULE = "I-1"


@dataclass
class Entry:
    """One logged event with its verdict and the totals/turn right after it."""

    seq: int
    event: Event
    verdict: Verdict
    totals: list[int]
    turn: Turn
    status: dict[str, Any] = field(default_factory=dict)
    #: for corrections/undos: the seqs whose verdict changed from legal to illegal or back
    rejudged: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The check line of INTERFACES §2 (extended with ``type``)."""
        v = self.verdict
        out: dict[str, Any] = {"seq": self.seq, "type": self.event.type, "legal": v.legal, "player": v.player}
        colour = getattr(self.event, "colour", None)
        if colour is not None:
            out["colour"] = colour
        out["score"] = v.score
        if v.legal:
            out["totals"] = list(self.totals)
            out["breakdown"] = [i.to_json() for i in v.breakdown]
            out["next"] = self.turn.to_json()
            out.update(self.status)
        else:
            out["reasons"] = [r.to_json() for r in v.reasons]
        if isinstance(self.event, Correct | Undo):
            out["target"] = self.event.seq
            if self.rejudged:
                out["rejudged"] = list(self.rejudged)
        return out


class Session:
    """Judge and keep a stream of events for one game."""

    def __init__(self, header: Header) -> None:
        self.header = header
        self.game = get_game(header.game)
        self.state: GameState = self.game.new(header)
        self.entries: list[Entry] = []

    # -- the log ----------------------------------------------------------------------------
    def submit(self, event: Event) -> Entry:
        """Judge ``event``, apply it if legal, and log it (illegal events are logged, not applied)."""
        seq = len(self.entries) + 1
        if isinstance(event, Correct | Undo):
            return self._amend(seq, event)
        verdict = self.state.check(event)
        if verdict.legal:
            self.state.apply(event)
        entry = self._entry(seq, event, verdict)
        self.entries.append(entry)
        return entry

    def check(self, event: Event) -> Verdict:
        """Judge ``event`` against the current position without logging it."""
        return self.state.check(event)

    def _entry(self, seq: int, event: Event, verdict: Verdict) -> Entry:
        return Entry(seq=seq, event=event, verdict=verdict, totals=self.state.totals(),
                     turn=self.state.to_move(), status=self.state.status_json())

    def _amend(self, seq: int, event: Correct | Undo) -> Entry:
        problem = self._amend_problem(event)
        if problem is not None:
            entry = Entry(seq=seq, event=event, verdict=Verdict.illegal(event.player, problem),
                          totals=self.state.totals(), turn=self.state.to_move(), status=self.state.status_json())
            self.entries.append(entry)
            return entry
        placeholder = Entry(seq=seq, event=event, verdict=Verdict(legal=True, player=event.player),
                            totals=[], turn=self.state.to_move())
        self.entries.append(placeholder)
        before = {e.seq: e.verdict.legal for e in self.entries}
        self._replay()
        placeholder.rejudged = [e.seq for e in self.entries if e.seq in before and before[e.seq] != e.verdict.legal
                                and not isinstance(e.event, Correct | Undo)]
        placeholder.totals = self.state.totals()
        placeholder.turn = self.state.to_move()
        placeholder.status = self.state.status_json()
        return placeholder

    def _amend_problem(self, event: Correct | Undo) -> Reason | None:
        target = event.seq
        if not 1 <= target <= len(self.entries):
            return Reason(CORRECTION_RULE, "unknown_seq", f"there is no event {target} to amend")
        tgt = self.entries[target - 1]
        if isinstance(tgt.event, Correct | Undo):
            return Reason(CORRECTION_RULE, "amends_amendment",
                          f"event {target} is itself a {tgt.event.type}; amend the original event instead")
        if target in self.undone_seqs():
            return Reason(CORRECTION_RULE, "already_undone", f"event {target} was already taken back")
        if isinstance(event, Correct) and isinstance(event.event, Correct | Undo):
            return Reason(CORRECTION_RULE, "nested_amendment", "a correction must hold a game event")
        return None

    def undone_seqs(self) -> set[int]:
        return {e.event.seq for e in self.entries if isinstance(e.event, Undo) and e.verdict.legal}

    def effective_events(self) -> list[tuple[int, Event]]:
        """The game's events with every legal correction and undo applied, in play order."""
        current: dict[int, Event | None] = {}
        for e in self.entries:
            if isinstance(e.event, Correct) and e.verdict.legal and e.event.event is not None:
                current[e.event.seq] = e.event.event
            elif isinstance(e.event, Undo) and e.verdict.legal:
                current[e.event.seq] = None
            elif not isinstance(e.event, Correct | Undo):
                current.setdefault(e.seq, e.event)
        return [(s, ev) for s, ev in sorted(current.items()) if ev is not None]

    def _replay(self) -> None:
        """Rebuild the position from the effective events, re-judging each game event."""
        effective = dict(self.effective_events())
        self.state = self.game.new(self.header)
        for entry in self.entries:
            if isinstance(entry.event, Correct | Undo):
                continue
            ev = effective.get(entry.seq)
            if ev is None:  # undone
                continue
            verdict = self.state.check(ev)
            if verdict.legal:
                self.state.apply(ev)
            entry.verdict = verdict
            entry.totals = self.state.totals()
            entry.turn = self.state.to_move()
            entry.status = self.state.status_json()

    # -- results -----------------------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        return self.state.outcome()

    def summary_json(self) -> dict[str, Any]:
        """The summary line of INTERFACES §2."""
        outcome = self.state.outcome()
        out: dict[str, Any] = {"summary": True, "totals": self.state.totals()}
        if outcome is None:
            out.update({"winner": [], "ended": False, "end_rule": None})
        else:
            out.update({"winner": list(outcome.winners), "ended": True, "end_rule": outcome.end_rule})
        out.update(self.state.summary_json())
        return out
