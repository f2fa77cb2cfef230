"""Triolet follower: tiles seen vs the committed board → place / illegal / undo (T-P1–T-P7, T-S7).

The legal reading is preferred: when the most probable reading of the new tiles makes an
illegal placement, the cells are read again more closely, then the next joint readings are
tried in order of probability (T-B3/T-P7 counts included, by the engine's own check) before an
illegal attempt is reported. A wild read without a value gets the value the runs fix (T-P4,
``engine.triolet.wilds``), or is marked pending with the values it could have.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.core.events import Correct, Event, EventMeta, Undo
from engine.core.session import Session
from engine.core.verdict import Verdict
from engine.triolet import Place, PlacedTile, TrioletState, wild_candidates
from vision.track.base import CellCheck
from vision.track.candidates import Combo, joint_readings
from vision.track.follower import Decision, Reread
from vision.track.layout import TRIOLET_LAYOUT, GridLayout
from vision.track.observer import EMPTY, WILD, CellRead, merge_reads

#: Values a reader confuses when a tile lies turned by 180° (T-B3: the count digit tells them apart).
TWINS = {"6", "9"}


@dataclass
class Built:
    """A placement built from one joint reading."""

    event: Place
    verdict: Verdict
    prob: float
    combo: Combo
    extra: dict[str, Any]
    #: taken over a much likelier illegal reading only thanks to the 6 ↔ 9 leniency
    lenient: bool = False


class TrioletFollower:
    """Follows a Triolet game (see the module docstring)."""

    layout: GridLayout = TRIOLET_LAYOUT

    def __init__(self, min_ratio: float = 0.25, max_readings: int = 120, swap_confidence: float = 0.8,
                 gone_confidence: float = 0.7, correct_floor: float = 0.1,
                 twin_ratio: float = 0.1, went_on_ratio: float = 0.005, doubt_seconds: float = 1.5,
                 agree_floor: float = 0.05, hold_over: float = 0.5, sure: float = 0.9) -> None:
        #: a less probable legal reading is taken only if its probability is at least this
        #: fraction of the best reading's
        self.min_ratio = min_ratio
        self.max_readings = max_readings
        #: ... or this fraction when it differs only by 6 ↔ 9 (a tile turned half round: T-B3's
        #: count digit is all that tells them apart)
        self.twin_ratio = twin_ratio
        #: ... or this fraction for an attempt reported illegal that the players then built on
        self.went_on_ratio = went_on_ratio
        #: a placement legal only as a 6 ↔ 9 flip of a much likelier illegal reading is committed
        #: once it has lain this long (seconds) or the game went on: players lay a wrong tile and
        #: take it back within moments, and a real move stays
        self.doubt_seconds = doubt_seconds
        #: a legal reading taken over an illegal one read at least this surely is held like a 6 ↔ 9
        #: flip (``doubt_seconds``): a wrong tile really laid is taken back within moments
        self.hold_over = hold_over
        #: a placement is committed only when every tile of it is read this surely (its value or wild
        #: with at least this probability, on a closer look too); otherwise it is held, never
        #: committed: the board shows its cells as differing from the record and the players settle
        #: them on the phone (a tap, "accept")
        self.sure = sure
        #: the doubtful placement waiting (its reading, cells, first seen), and when to look again
        self.doubt: tuple[frozenset[tuple[str, str]], tuple[str, ...], float] | None = None
        self.recheck_at: float | None = None
        #: a committed tile of the last placement read as another value this surely was replaced
        self.swap_confidence = swap_confidence
        #: a committed tile counts as taken back once the square reads empty this surely
        self.gone_confidence = gone_confidence
        #: an earlier tile is corrected only to a value read at least this likely
        self.correct_floor = correct_floor
        #: the illegal attempt on the board now (reported once), as its (cell, token) set
        self.pending_illegal: frozenset[tuple[str, str]] | None = None
        self.pending_cells: tuple[str, ...] = ()
        #: a committed tile seen as another value is still taken as the record's while the reader
        #: gives the record's value at least this probability
        self.agree_floor = agree_floor
        #: cells the players settled by hand (a correction, an accepted reading, an undo) while the
        #: camera saw something else there: cell -> the token then seen; the record is taken as
        #: right there for as long as the camera keeps seeing that same token
        self.vouched: dict[str, str] = {}

    # -- the committed position --------------------------------------------------------------
    @staticmethod
    def _state(session: Session) -> TrioletState:
        state = session.state
        assert isinstance(state, TrioletState)
        return state

    def committed_cells(self, session: Session) -> dict[str, str]:
        return {t.square: (WILD if t.wild else str(t.value)) for t in self._state(session).board_tiles()}

    def _placements(self, session: Session) -> list[tuple[int, Place]]:
        """The committed placements (legal, not undone) in play order, with their seqs."""
        return [(seq, ev) for seq, ev in session.effective_events()
                if isinstance(ev, Place) and session.entries[seq - 1].verdict.legal]

    def watch_cells(self, session: Session, seen: dict[str, CellRead]) -> list[str]:
        committed = self.committed_cells(session)
        cells = [c for c, r in seen.items() if r.occupied and c not in committed]
        placed = self._placements(session)
        if placed:
            cells.extend(t.square for t in placed[-1][1].tiles if t.square not in cells)
        cells.extend(c for c in self._disagreeing(committed, seen) if c not in cells)
        return sorted(cells, key=_board_order)

    # -- the board against the record ----------------------------------------------------------
    def _agrees(self, cell: str, record: str, seen: dict[str, CellRead]) -> bool:
        """Whether what is seen on ``cell`` is what the record has there (``EMPTY``: nothing)."""
        read = seen.get(cell)
        if read is None:
            return True  # never looked at: nothing says otherwise
        token = seen_token(read)
        if cell in self.vouched and self.vouched[cell] == token:
            return True
        if token == record:
            return True
        return record != EMPTY and read.occupied and read.prob(record) >= self.agree_floor

    def _disagreeing(self, committed: dict[str, str], seen: dict[str, CellRead]) -> list[str]:
        """Committed tiles seen gone or as another value."""
        return [c for c, tok in committed.items() if not self._agrees(c, tok, seen)]

    def board_check(self, session: Session, seen: dict[str, CellRead]) -> list[CellCheck]:
        """Every cell where the board seen is not the record's board, but for a placement being held
        while it is decided (``doubt``)."""
        committed = self.committed_cells(session)
        held = set(self.doubt[1]) if self.doubt is not None else set()
        cells = set(committed) | {c for c, r in seen.items() if r.occupied}
        out = []
        for c in sorted(cells - held, key=_board_order):
            record = committed.get(c, EMPTY)
            if not self._agrees(c, record, seen):
                out.append(CellCheck(c, tile_json(record), tile_json(seen_token(seen[c]))))
        return out

    def on_manual(self, session: Session, event: Event, seen: dict[str, CellRead]) -> bool:
        """The players changed the record by hand (already in ``session``): the cells the event
        names are taken as the record says while the camera keeps seeing them as now, and an
        attempt on the board is judged afresh against the new record. Whether the record's board
        may have changed."""
        squares: list[str] = []
        if isinstance(event, Place):
            squares = [t.square for t in event.tiles]
        elif isinstance(event, Correct | Undo):
            if isinstance(event, Correct) and isinstance(event.event, Place):
                squares = [t.square for t in event.event.tiles]
            if 1 <= event.seq <= len(session.entries):
                old = session.entries[event.seq - 1].event
                if isinstance(old, Place):
                    squares += [t.square for t in old.tiles]
        else:
            return False
        committed = self.committed_cells(session)
        for c in squares:
            read = seen.get(c)
            token = EMPTY if read is None else seen_token(read)
            if read is not None and token != committed.get(c, EMPTY):
                self.vouched[c] = token
            else:
                self.vouched.pop(c, None)
        self.pending_illegal = None  # judged again; its cells stay the attempt waiting on the board
        self._clear_doubt()
        return True

    def trust_record(self, session: Session, cells: Sequence[str], seen: dict[str, CellRead]) -> bool:
        """The players say the record is right on ``cells`` and the camera wrong (a tile misread, a
        mark taken for a tile): taken so while the camera keeps seeing them as now. Whether any
        cell was taken."""
        committed = self.committed_cells(session)
        taken = False
        for c in cells:
            read = seen.get(c)
            if read is not None and seen_token(read) != committed.get(c, EMPTY):
                self.vouched[c] = seen_token(read)
                taken = True
        if taken:
            self.pending_illegal = None
            self._clear_doubt()
        return taken

    def _forget_vouches(self, session: Session, seen: dict[str, CellRead]) -> None:
        """Drop the players' word on cells whose tile changed since, or that now agree anyway."""
        committed = self.committed_cells(session)
        for c, token in list(self.vouched.items()):
            now = seen_token(seen[c]) if c in seen else EMPTY
            if now != token or now == committed.get(c, EMPTY):
                del self.vouched[c]

    @staticmethod
    def one_turn(cells: Sequence[str]) -> bool:
        """Whether ``cells`` could be one placement (T-P1: 1–3 tiles in one row or one column)."""
        if not 1 <= len(cells) <= 3:
            return False
        return len({c[1:] for c in cells}) == 1 or len({c[0] for c in cells}) == 1

    # -- deciding ----------------------------------------------------------------------------
    def decide(self, session: Session, seen: dict[str, CellRead], reread: Reread, meta: EventMeta
               ) -> list[Decision]:
        out: list[Decision] = []
        self._forget_vouches(session, seen)
        vouched = set(self.vouched)
        occupied = {c for c, r in seen.items() if r.occupied}
        committed = self.committed_cells(session)
        removed = set(committed) - occupied - vouched
        removed |= self._swapped(session, seen, reread)
        if removed:
            out.extend(self._take_backs(session, removed, seen, reread, meta))
            occupied = {c for c, r in seen.items() if r.occupied}
            committed = self.committed_cells(session)
        added = sorted(occupied - set(committed) - vouched, key=_board_order)
        if self.pending_illegal is None and not set(self.pending_cells) & set(added):
            self.pending_cells = ()
        if self._changed_under(session, seen, reread):
            # tiles changed under committed ones: nothing new is judged until board and record agree
            self._clear_doubt()
            return out
        if not added:
            self._clear_doubt()
            if self.pending_illegal is not None:
                out.append(Decision("cleared", None, None, None, self.pending_cells))
                self.pending_illegal = None
                self.pending_cells = ()
            return out
        out.extend(self._placement(session, added, seen, reread, meta))
        return out

    def _changed_under(self, session: Session, seen: dict[str, CellRead], reread: Reread) -> list[str]:
        """Committed tiles seen gone or as another value, still so on a closer look."""
        committed = self.committed_cells(session)
        odd = self._disagreeing(committed, seen)
        if not odd:
            return []
        for c, r in reread(odd).items():
            seen[c] = merge_reads(seen[c], r) if c in seen else r
        return self._disagreeing(committed, seen)

    def _swapped(self, session: Session, seen: dict[str, CellRead], reread: Reread) -> set[str]:
        """Tiles of the last placement now clearly showing another value: taken back and replaced."""
        placed = self._placements(session)
        if not placed:
            return set()
        suspects = [t.square for t in placed[-1][1].tiles
                    if t.square in seen and seen[t.square].occupied and t.square not in self.vouched
                    and seen[t.square].best != (WILD if t.wild else str(t.value))
                    and seen[t.square].confidence >= self.swap_confidence]
        if not suspects:
            return set()
        again = reread(suspects)
        for c, r in again.items():
            seen[c] = merge_reads(seen[c], r)
        committed = self.committed_cells(session)
        return {c for c in suspects if seen[c].best != committed[c] and seen[c].confidence >= self.swap_confidence
                and seen[c].prob(committed[c]) < 0.05}

    def _take_backs(self, session: Session, removed: set[str], seen: dict[str, CellRead], reread: Reread,
                    meta: EventMeta) -> list[Decision]:
        """Committed tiles gone (or replaced): undo the placements they belong to, latest first.

        The last placement is undone if any of its tiles is gone (the rest, if still there, is
        then a new placement); an earlier one only after every later one was wholly taken back.
        A vanished tile that no such placement explains changes nothing (the engine's board is
        trusted over one odd read).
        """
        again = reread(sorted(removed))
        for c, r in again.items():
            seen[c] = merge_reads(seen[c], r) if c in seen else r
        committed = self.committed_cells(session)
        removed = {c for c in removed if seen[c].prob(EMPTY) >= self.gone_confidence or seen[c].best != committed[c]}
        out: list[Decision] = []
        for seq, ev in reversed(self._placements(session)):
            squares = {t.square for t in ev.tiles}
            if not squares & removed:
                break
            undo = Undo(player=None, seq=seq, meta=meta)
            entry = session.submit(undo)
            out.append(Decision("undo", undo, entry.verdict, entry, tuple(t.square for t in ev.tiles),
                                extra={"undone": ev.to_json()}))
            if not squares <= removed:
                break
            removed -= squares
        return out

    def _placement(self, session: Session, added: list[str], seen: dict[str, CellRead], reread: Reread,
                   meta: EventMeta) -> list[Decision]:
        if self.doubt is not None and set(self.doubt[1]) < set(added):  # more tiles beside a doubt
            went_on = self._went_on_then(session, added, seen, reread, meta)
            if went_on:
                return went_on
        if not self.one_turn(added):
            # more than one turn can hold: the attempt waiting on the board and the next one beside
            # it are split (``_went_on_then``); anything else is never an attempt
            waiting = [c for c in self.pending_cells if c in added]
            rest = [c for c in added if c not in waiting]
            if not (waiting and rest and self.one_turn(waiting) and self.one_turn(rest)):
                return []
            if self.pending_illegal is not None:
                return self._went_on_then(session, added, seen, reread, meta)
            # the players changed the record since the attempt was reported: judge it again alone
            first = self._placement(session, waiting, seen, reread, meta)
            if first and first[-1].kind == "place":
                return first + self._placement(session, rest, seen, reread, meta)
            return first
        state = self._state(session)
        top = next(iter(joint_readings([seen[c] for c in added], 1)), None)
        if top is not None and frozenset(top[0]) == self.pending_illegal:
            return []  # the attempt already reported, unchanged
        built = None if top is None else self._build(state, top[0], top[1])
        if built is None or not built.verdict.legal:
            # the most probable reading is illegal: look again, then try the next readings
            again = reread(added)
            for c, r in again.items():
                seen[c] = merge_reads(seen[c], r)
            added = [c for c in added if seen[c].occupied]
            if not added:
                return []
        built = self._best(state, [seen[c] for c in added])
        if built is None:
            return []
        key = frozenset(built.combo)
        event = replace(built.event, meta=replace(meta, confidence=round(built.prob, 4)))
        if built.verdict.legal and self.unsure_tiles(state, built.combo, seen):
            self._clear_doubt()  # held for the players, not for a while: shown as differing
            return []
        if built.verdict.legal and built.lenient and not self._doubt_settled(key, tuple(added), meta):
            return []
        self._clear_doubt()
        if built.verdict.legal:
            entry = session.submit(event)
            self.pending_illegal = None
            self.pending_cells = ()
            return [Decision("place", event, entry.verdict, entry, tuple(added), built.prob, built.extra)]
        went_on = self._went_on_then(session, added, seen, reread, meta)
        if went_on:
            return went_on
        fixed = self._correct_earlier(session, built, added, seen, reread, meta)
        if fixed:
            self.pending_illegal = None
            self.pending_cells = ()
            return fixed
        if key == self.pending_illegal:
            return []
        self.pending_illegal = key
        self.pending_cells = tuple(added)
        entry = session.submit(event)
        return [Decision("illegal", event, entry.verdict, entry, tuple(added), built.prob, built.extra)]

    def unsure_tiles(self, state: TrioletState, combo: Combo, seen: dict[str, CellRead]) -> list[str]:
        """The cells of a legal reading ``combo`` whose tile is not sure: the probability that a tile
        lies there (the reader's) times the share, among the legal joint readings of these cells
        (``joint_readings``, weighted by probability), of those giving it this value or wild,
        below ``sure``. The rules settle what they can (a 9 that breaks a trio where a 6 makes one
        is a sure 6); what they leave open is the phone's to say. Cells the players vouched for
        are sure."""
        cells = [c for c, _t in combo]
        chosen = dict(combo)
        legal = 0.0
        agree = dict.fromkeys(cells, 0.0)
        for other, p in joint_readings([seen[c] for c in cells], self.max_readings):
            if not self._build(state, other, p).verdict.legal:
                continue
            legal += p
            for c, tok in other:
                if tok == chosen[c]:
                    agree[c] += p
        return [c for c in cells if c not in self.vouched
                and (1.0 - seen[c].prob(EMPTY)) * (agree[c] / legal if legal > 0 else 0.0) < self.sure]

    def _went_on_then(self, session: Session, added: list[str], seen: dict[str, CellRead], reread: Reread,
                      meta: EventMeta) -> list[Decision]:
        """The waiting placement committed as the game going on made it (``_game_went_on``), then
        the other new tiles judged as the next placement; ``[]`` if the waiting one stays illegal."""
        went_on = self._game_went_on(session, added, seen, meta)
        if not went_on:
            return []
        rest = [c for c in added if c not in went_on[0].cells]
        self.pending_illegal = None
        self.pending_cells = ()
        self._clear_doubt()
        return went_on + self._placement(session, rest, seen, reread, meta)

    def _doubt_settled(self, key: frozenset[tuple[str, str]], cells: tuple[str, ...], meta: EventMeta) -> bool:
        """Whether a doubtful placement has lain long enough; starts its wait when it is new."""
        now = meta.ts or 0.0
        if self.doubt is not None and self.doubt[0] == key:
            return now - self.doubt[2] >= self.doubt_seconds - 1e-6
        self.doubt = (key, cells, now)
        self.recheck_at = now + self.doubt_seconds
        return False

    def _clear_doubt(self) -> None:
        self.doubt = None
        self.recheck_at = None

    def _game_went_on(self, session: Session, added: list[str], seen: dict[str, CellRead], meta: EventMeta
                      ) -> list[Decision]:
        """An attempt reported illegal was left on the table and the next tiles came beside it: the
        players took it as legal, so it was most likely misread. Its most probable legal reading
        within ``went_on_ratio`` of the best one is committed (the phone can still correct it)."""
        waiting = self.pending_cells if self.pending_illegal is not None else self.doubt[1] if self.doubt else ()
        if not waiting:
            return []
        pend = [c for c in waiting if c in added]
        if len(pend) != len(waiting) or len(pend) == len(added):
            return []
        built = self._best(self._state(session), [seen[c] for c in pend], self.went_on_ratio, self.went_on_ratio)
        if built is None or not built.verdict.legal or self.unsure_tiles(self._state(session), built.combo, seen):
            return []
        event = replace(built.event, meta=replace(meta, confidence=round(built.prob, 4)))
        entry = session.submit(event)
        extra = {**built.extra, "accepted": "the game went on after it"}
        return [Decision("place", event, entry.verdict, entry, tuple(pend), built.prob, extra)]

    def _correct_earlier(self, session: Session, built: Built, added: list[str], seen: dict[str, CellRead],
                         reread: Reread, meta: EventMeta) -> list[Decision]:
        """An illegal placement may be the fault of an earlier misread: look again at the committed
        tiles its reasons name; if another reading of them (each new value at least
        ``correct_floor`` likely) keeps their placement legal and makes this one legal, correct
        the earlier placement (a ``correct`` event) and commit this one."""
        committed = self.committed_cells(session)
        involved = sorted({c for r in built.verdict.reasons for c in r.cells
                           if isinstance(c, str) and c in committed and c not in added}, key=_board_order)
        if not involved or len(involved) > 3:
            return []
        again = reread(involved)
        for c, r in again.items():
            seen[c] = merge_reads(seen[c], r) if c in seen else r
        owners: dict[str, tuple[int, Place]] = {}
        for seq, ev in self._placements(session):
            for t in ev.tiles:
                owners[t.square] = (seq, ev)
        for combo, _p in joint_readings([seen[c] for c in involved], self.max_readings):
            changes = {c: tok for c, tok in combo if tok != committed[c]}
            if not changes or any(tok == WILD or committed[c] == WILD or seen[c].prob(tok) < self.correct_floor
                                  for c, tok in changes.items()):
                continue
            trial = copy.deepcopy(session)
            corrections = []
            ok = True
            for seq in sorted({owners[c][0] for c in changes}):
                ev = next(e for s_, e in self._placements(trial) if s_ == seq)
                tiles = tuple(replace(t, value=int(changes[t.square])) if t.square in changes else t
                              for t in ev.tiles)
                tiles = _rewild(_state_before(trial, seq), tiles)
                fix = Correct(player=None, seq=seq, event=replace(ev, tiles=tiles, meta=ev.meta), meta=meta)
                entry = trial.submit(fix)
                if not entry.verdict.legal or entry.rejudged or not trial.entries[seq - 1].verdict.legal:
                    ok = False
                    break
                corrections.append(fix)
            if not ok:
                continue
            state = self._state(trial)
            new = self._best(state, [seen[c] for c in added])
            if new is None or not new.verdict.legal or self.unsure_tiles(state, new.combo, seen):
                continue
            out: list[Decision] = []
            for fix in corrections:
                entry = session.submit(fix)
                assert fix.event is not None
                out.append(Decision("correct", fix, entry.verdict, entry,
                                    tuple(t.square for t in getattr(fix.event, "tiles", ())),
                                    extra={"corrected_cells": sorted(changes, key=_board_order)}))
            event = replace(new.event, meta=replace(meta, confidence=round(new.prob, 4)))
            entry = session.submit(event)
            out.append(Decision("place", event, entry.verdict, entry, tuple(added), new.prob, new.extra))
            return out
        return []

    def _best(self, state: TrioletState, reads: Sequence[CellRead], min_ratio: float | None = None,
              twin_ratio: float | None = None) -> Built | None:
        """The most probable legal reading (within ``min_ratio`` of the best), else the best one."""
        min_ratio = self.min_ratio if min_ratio is None else min_ratio
        twin_ratio = self.twin_ratio if twin_ratio is None else twin_ratio
        first: Built | None = None
        for combo, prob in joint_readings(reads, self.max_readings):
            if first is not None and prob < min_ratio * first.prob:
                twins = all(a == b or {a, b} == TWINS for (_c, a), (_d, b) in zip(combo, first.combo, strict=True))
                if not twins or prob < twin_ratio * first.prob:
                    continue
            b = self._build(state, combo, prob)
            if b.verdict.legal:
                if first is None or (prob >= min_ratio * first.prob and first.prob < self.hold_over):
                    return b
                return replace(b, lenient=True)
            if first is None:
                first = b
        return first

    def _build(self, state: TrioletState, combo: Combo, prob: float) -> Built:
        player = state.player
        wild_cells = [c for c, tok in combo if tok == WILD]
        extra: dict[str, Any] = {}
        values: dict[str, int] = {}
        if len(wild_cells) == 1:
            spec: list[tuple[str, int | None, bool]] = [(c, None if tok == WILD else int(tok), tok == WILD)
                                                         for c, tok in combo]
            options = wild_candidates(state, spec)
            if len(options) == 1:
                values[wild_cells[0]] = options[0]
            elif options:
                values[wild_cells[0]] = options[0]
                extra = {"wild_pending": True, "wild_square": wild_cells[0], "wild_candidates": options}
        tiles = tuple(PlacedTile(c, values.get(c, 0) if tok == WILD else int(tok), tok == WILD) for c, tok in combo)
        event = Place(player=player, tiles=tiles)
        return Built(event, state.check(event), prob, combo, extra)


def _state_before(session: Session, seq: int) -> TrioletState:
    """The position before event ``seq`` (the effective events before it replayed)."""
    effective = dict(session.effective_events())
    state = session.game.new(session.header)
    for entry in session.entries:
        if entry.seq >= seq:
            break
        ev = effective.get(entry.seq)
        if ev is None or isinstance(ev, Correct | Undo):
            continue
        if state.check(ev).legal:
            state.apply(ev)
    assert isinstance(state, TrioletState)
    return state


def _rewild(state: TrioletState, tiles: tuple[PlacedTile, ...]) -> tuple[PlacedTile, ...]:
    """``tiles`` with a wild's value declared again for its corrected neighbours (T-P6): the first
    value the runs allow, unchanged if none does."""
    wilds = [k for k, t in enumerate(tiles) if t.wild]
    if len(wilds) != 1:
        return tiles
    spec = [(t.square, None if t.wild else t.value, t.wild) for t in tiles]
    options = wild_candidates(state, spec)
    if not options or tiles[wilds[0]].value in options:
        return tiles
    return tuple(replace(t, value=options[0]) if t.wild else t for t in tiles)


def seen_token(read: CellRead) -> str:
    """What a read says lies on its cell: ``EMPTY``, or the likeliest tile token."""
    if not read.occupied:
        return EMPTY
    return next((tok for tok, _p in read.candidates if tok != EMPTY), WILD)


def tile_json(token: str) -> dict[str, Any] | None:
    """A Triolet cell's content for the watch state: ``{"value": 11, "wild": false}``, a wild as
    ``{"value": null, "wild": true}``, nothing as ``None``."""
    if token == EMPTY:
        return None
    if token == WILD:
        return {"value": None, "wild": True}
    return {"value": int(token), "wild": False}


def _board_order(name: str) -> tuple[int, int]:
    return int(name[1:]), ord(name[0])


def event_json(event: Event) -> dict[str, Any]:
    """The record form of an event (INTERFACES §1)."""
    return event.to_json()
