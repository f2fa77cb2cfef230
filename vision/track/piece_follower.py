"""Followers of the games of one piece per turn read whole (Blokus Trigon, Classic and Duo): a
reading of the whole board → place, illegal, cleared and undo events.

The cells seen covered that the committed position leaves free are grouped by colour and by
shared sides. The group of the colour to move (the engine says which, B-L4 / K-L4; the largest
if the reader saw several) is that colour's placement; the engine names the piece and judges it
(B-L1…B-L6, K-L1…K-L4) and a legal one is committed. A group the engine refuses, or one of a
colour whose turn it is not, is reported as an illegal attempt once it has been seen the same at
two rests in a row (a misread cell rarely repeats), and ``cleared`` when it is taken away. When the
mover's largest group is refused, its next largest legal group of three cells or more is its
placement (pieces laid while the board was not seen are caught up with, one turn after another). One or
two cells of a colour not to move, beside that colour's latest piece, are that piece seen whole at
last: the piece is corrected when every event keeps its verdict.
A committed piece whose cells are all gone at two rests in a row is undone (only the last one:
earlier pieces are under the later ones' contact rules). A reading that does not show 80 % of the
cells already laid in their colours (a grid placed a row off) is not used at all.

An attempt is at most one piece: a refused group larger than the game's largest piece
(``MAX_PIECE`` cells), or one beside another new group of two cells or more that is no stray, is
never reported nor committed; the board then differs from the record. After every look
:meth:`PieceFollower.board_check` lists the cells where the reading and the record's board disagree
(a committed cell seen gone or in another colour, a new cell where the picture changed), leaving out
what is being looked at again before it is decided and colour bled beside a piece.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.core.events import Correct, Event, EventMeta
from engine.core.session import Session
from vision.track.base import CellCheck
from vision.track.follower import Decision, Fresh, SeenTwice, committed_places, corrected_trial, undo_decision
from vision.track.observer import Frame

#: seconds after an unconfirmed attempt or a vanished piece at which to look again
RECHECK_AFTER = 0.3
#: a lone cell the engine refuses is reported only when read at least this sure
STRAY_CONFIDENCE = 0.9
#: at most this many stray cells (coloured by the reader beside a piece) are left out of a group
MAX_STRAY = 2
#: with this many cells laid, a reading must show this share of them in their colours to be used
TRUST_AFTER, TRUST_SHARE = 6, 0.8


class PieceFollower:
    """Turns whole-board readings of a game of one piece per turn into events (see the module
    docstring). A game's follower says how a reading names its cells (:meth:`_seen`), how to
    write a placement (:meth:`_place`) and where a cell lies in the picture (:meth:`_geometry`)."""

    #: the game's place event class
    PLACE: type[Any] = Event
    #: cells of the game's largest piece: a larger refused group is more than one turn
    MAX_PIECE = 6

    def __init__(self) -> None:
        self.recheck_at: float | None = None
        self._reported: tuple[str, frozenset[str]] | None = None  # the illegal attempt on the board
        self._suspect = SeenTwice()  # an attempt the engine refuses, seen once
        self._gone = SeenTwice()  # the last piece seen gone
        self._board: tuple[dict[str, NDArray[np.float64]], NDArray[np.float64]] | None = None
        #: cells being looked at again before they are decided (no difference yet)
        self._held: frozenset[str] = frozenset()

    def decide(self, session: Session, reading: Any, frame: Frame, meta: EventMeta,
               fresh: Fresh | None = None) -> list[Decision]:
        self.recheck_at = None
        self._held = frozenset()
        if reading is None:
            return []
        state: Any = session.state  # a polyform game's state (``pos``, ``legal_placements``)
        board = state.pos.table.board
        committed = {c["cell"]: c["colour"] for c in state.board_json()["cells"]}
        seen, confidence = self._seen(session, reading)
        last = _last_place(session, self.PLACE)
        if not _trusted(committed, seen, last):
            # the board as read does not show the pieces laid before the last one (a grid placed a
            # row off, a misread board): nothing it says can be trusted; look again later
            self.recheck_at = frame.t + RECHECK_AFTER
            return []
        self._remember_pixels(reading)
        out: list[Decision] = []
        undo = self._undo(session, last, committed, seen, frame, meta)
        if undo is not None:
            return [undo]
        new = {c: col for c, col in seen.items() if c not in committed}
        # a new piece lies where the picture changed (colour the reader sees where nothing moved,
        # a shadow or a bled edge, is no move)
        groups = [g for g in _groups(board, new) if self._fresh(g[1], fresh)]
        turn = state.to_move()
        mine = [g for g in groups if g[0] == turn.colour]
        fixed = self._completed_piece(session, [g for g in groups if g[0] != turn.colour], meta)
        if fixed is not None:
            return [fixed, *self.decide(session, reading, frame, meta, fresh)]
        attempt: tuple[str, frozenset[str]] | None = None
        if mine:
            attempt = max(mine, key=lambda g: len(g[1]))
        elif groups:
            big = max(groups, key=lambda g: len(g[1]))
            if len(big[1]) >= 2:
                attempt = big
        if attempt is None:
            self._suspect.reset()
            if self._reported is not None:
                out.append(self._cleared())
            return out
        colour, cells = attempt
        event = self._place(state, colour, sorted(cells), meta)
        verdict = session.check(event)
        if not verdict.legal and colour == turn.colour:
            inner = _largest_legal_within(state, set(cells), confidence)
            if inner is not None:
                event = self._place(state, colour, sorted(inner), meta)
                verdict = session.check(event)
        if not verdict.legal and colour == turn.colour:
            # pieces laid while the board was not seen: the mover's largest piece may rest on one of
            # its own not committed yet, while another of its new pieces is its next legal one
            for g in sorted(mine, key=lambda g: (-len(g[1]), sorted(g[1]))):
                if g == attempt or len(g[1]) <= MAX_STRAY:
                    continue
                other = self._place(state, colour, sorted(g[1]), meta)
                other_verdict = session.check(other)
                if other_verdict.legal:
                    event, verdict = other, other_verdict
                    break
        if verdict.legal:
            entry = session.submit(event)
            self._suspect.reset()
            done = Decision("place", event, entry.verdict, entry, event.cells, region_px=self._region(event.cells))
            # several pieces laid while the camera could not see (a hand stayed): the next colour's too
            return [done, *self.decide(session, reading, frame, meta, fresh)]
        if attempt == self._reported or self._stray(state, attempt, committed, confidence):
            return []
        others = [g for g in groups if g != attempt and g != self._reported and len(g[1]) >= 2
                  and not self._stray(state, g, committed, confidence)]
        if len(cells) > self.MAX_PIECE or others:
            # more than one piece can hold: no attempt; the board differs until it is one again
            self._suspect.reset()
            if self._reported is not None and self._reported not in groups:
                out.append(self._cleared())
            return out
        if not self._suspect.confirmed(attempt):  # look again before telling the players
            self.recheck_at = frame.t + RECHECK_AFTER
            self._held = cells
            return []
        if self._reported is not None:
            old = tuple(sorted(self._reported[1]))
            out.append(Decision("cleared", None, None, None, old, region_px=self._region(old)))
        entry = session.submit(event)
        self._reported = attempt
        out.append(Decision("illegal", event, entry.verdict, entry, event.cells, region_px=self._region(event.cells)))
        return out

    def _cleared(self) -> Decision:
        assert self._reported is not None
        gone = tuple(sorted(self._reported[1]))
        self._reported = None
        return Decision("cleared", None, None, None, gone, region_px=self._region(gone))

    def board_check(self, session: Session, reading: Any, fresh: Fresh | None = None) -> list[CellCheck]:
        """The cells where ``reading`` (the last look, already decided) and the record's board
        disagree, as ``{"colour": ...}`` (``None``: empty); none when the reading is missing or too
        far off the laid pieces to be trusted (see the module docstring)."""
        if reading is None:
            return []
        state: Any = session.state
        committed = {c["cell"]: c["colour"] for c in state.board_json()["cells"]}
        seen, confidence = self._seen(session, reading)
        if not _trusted(committed, seen, _last_place(session, self.PLACE)):
            return []
        out = [CellCheck(c, {"colour": col}, None if c not in seen else {"colour": seen[c]})
               for c, col in committed.items() if seen.get(c) != col and c not in self._held]
        new = {c: col for c, col in seen.items() if c not in committed}
        for colour, cells in _groups(state.pos.table.board, new):
            if cells & self._held or not self._fresh(cells, fresh) \
                    or self._stray(state, (colour, cells), committed, confidence):
                continue
            out.extend(CellCheck(c, None, {"colour": colour}) for c in cells)
        return sorted(out, key=lambda c: c.cell)

    def _stray(self, state: Any, attempt: tuple[str, frozenset[str]], committed: dict[str, str],
               confidence: dict[str, float]) -> bool:
        """Whether a refused attempt is a lone cell the reader is not sure of, or one or two beside
        their own colour's piece (colour bled from the piece into its neighbours; a piece may never
        share a side with its own colour, B-L3, K-L3): not worth a report."""
        colour, cells = attempt
        if len(cells) > MAX_STRAY:
            return False
        if len(cells) == 1 and confidence.get(next(iter(cells)), 0.0) < STRAY_CONFIDENCE:
            return True
        board = state.pos.table.board
        own = {c for c, col in committed.items() if col == colour}
        return any(board.names[n] in own for c in cells for n in board.edge_neighbours[board.index_of_name[c]])

    def _undo(self, session: Session, last: tuple[int, Any] | None, committed: dict[str, str],
              seen: dict[str, str], frame: Frame, meta: EventMeta) -> Decision | None:
        """An ``undo`` of the last piece (``last``) when all its cells are gone at two rests in a
        row while most others are seen."""
        gone = False
        if last is not None:
            others = [c for c in committed if c not in last[1].cells]
            gone = all(c not in seen for c in last[1].cells) and (
                not others or sum(c in seen for c in others) >= 0.7 * len(others))
        if not self._gone.confirmed(last[0] if gone and last is not None else None):
            if gone and last is not None:
                self.recheck_at = frame.t + RECHECK_AFTER
                self._held = frozenset(last[1].cells)
            return None
        assert last is not None
        seq, ev = last
        return undo_decision(session, seq, ev, ev.cells, meta, self._region(ev.cells))

    def _completed_piece(self, session: Session, groups: list[tuple[str, frozenset[str]]], meta: EventMeta
                         ) -> Decision | None:
        """A colour's latest piece corrected to take in one or two cells of its colour beside
        it (not seen at first: under a shadow, a finger), when every event keeps its verdict."""
        state: Any = session.state
        board = state.pos.table.board
        latest = {ev.colour: (seq, ev) for seq, ev in committed_places(session, self.PLACE)}
        for colour, cells in groups:
            if colour not in latest or len(cells) > MAX_STRAY:
                continue
            seq, ev = latest[colour]
            near = {board.names[n] for c in ev.cells for n in board.edge_neighbours[board.index_of_name[c]]}
            if not cells & near:
                continue
            fixed = self._place(state, ev.colour, sorted(set(ev.cells) | cells), ev.meta)
            correct = Correct(player=ev.player, seq=seq, event=fixed, meta=meta)
            if corrected_trial(session, correct) is None:
                continue
            entry = session.submit(correct)
            return Decision("correct", correct, entry.verdict, entry, fixed.cells,
                            extra={"reason": "a cell of the piece was not seen at first"},
                            region_px=self._region(fixed.cells))
        return None

    # -- what a game's follower says ---------------------------------------------------------------
    def _seen(self, session: Session, reading: Any) -> tuple[dict[str, str], dict[str, float]]:
        """The covered cells of ``reading`` named as the engine names them, with their colours and
        confidences (by default the reading's names, cells off the board left out)."""
        state: Any = session.state
        board = state.pos.table.board
        seen = {c.cell: c.colour for c in reading.cells if c.cell in board.index_of_name}
        return seen, {c.cell: float(c.confidence) for c in reading.cells}

    def _place(self, state: Any, colour: str, cells: list[str], meta: EventMeta) -> Any:
        """The game's place event of ``colour`` on ``cells``."""
        raise NotImplementedError

    def _geometry(self, reading: Any) -> tuple[dict[str, NDArray[np.float64]], NDArray[np.float64]] | None:
        """Each cell's corners in board units (by the engine's cell names) and the units → pixels
        homography of ``reading``; ``None`` when the reading has no board outline."""
        return None

    def _remember_pixels(self, reading: Any) -> None:
        """The board's units → pixels map of this reading (for evidence crops)."""
        geometry = self._geometry(reading)
        if geometry is not None:
            self._board = geometry

    def _fresh(self, cells: Iterable[str], fresh: Fresh | None) -> bool:
        """Whether any of ``cells`` lies where the picture changed (``True`` without ``fresh`` or
        without the board's geometry)."""
        if fresh is None or self._board is None:
            return True
        verts, h = self._board
        centres = np.array([verts[c].mean(axis=0) for c in cells if c in verts], np.float64)
        if len(centres) == 0:
            return True
        q = np.c_[centres, np.ones(len(centres))] @ h.T
        return bool(fresh(q[:, :2] / q[:, 2:3]).any())

    def _region(self, cells: Iterable[str]) -> tuple[float, float, float, float] | None:
        """The picture area of ``cells`` in the last reading's board geometry."""
        if self._board is None:
            return None
        verts, h = self._board
        pts = np.array([v for c in cells if c in verts for v in verts[c]], np.float64)
        if len(pts) == 0:
            return None
        q = np.c_[pts, np.ones(len(pts))] @ h.T
        px = q[:, :2] / q[:, 2:3]
        return float(px[:, 0].min()), float(px[:, 1].min()), float(px[:, 0].max()), float(px[:, 1].max())


def _largest_legal_within(state: Any, cells: set[str], confidence: dict[str, float]) -> tuple[str, ...] | None:
    """The mover's legal placement with the most cells among ``cells`` (a group of new cells
    of its colour) leaving out at most ``MAX_STRAY`` of them, the surest first among equals: the
    reader also colours a free cell beside a piece now and then, which joins the piece's group."""
    best: tuple[int, float, tuple[str, ...]] | None = None
    for ev in state.legal_placements():
        if len(ev.cells) < len(cells) - MAX_STRAY or not set(ev.cells) <= cells:
            continue
        key = (len(ev.cells), sum(confidence.get(c, 0.0) for c in ev.cells))
        if best is None or key > best[:2]:
            best = (key[0], key[1], ev.cells)
    return None if best is None else best[2]


def _trusted(committed: dict[str, str], seen: dict[str, str], last: tuple[int, Any] | None) -> bool:
    """Whether a reading shows enough of the pieces laid before the last one in their colours."""
    earlier = {c: col for c, col in committed.items() if last is None or c not in last[1].cells}
    return len(earlier) < TRUST_AFTER or sum(seen.get(c) == col for c, col in earlier.items()) \
        >= TRUST_SHARE * len(earlier)


def _last_place(session: Session, kind: type[Any]) -> tuple[int, Any] | None:
    """The last committed placement (of the game's place event class ``kind``) and its seq."""
    placed = committed_places(session, kind)
    return placed[-1] if placed else None


def _groups(board: Any, cells: dict[str, str]) -> list[tuple[str, frozenset[str]]]:
    """``cells`` (name → colour) split into groups of one colour joined by shared sides."""
    left = dict(cells)
    out: list[tuple[str, frozenset[str]]] = []
    while left:
        start, colour = next(iter(left.items()))
        group = {start}
        todo = [start]
        del left[start]
        while todo:
            c = todo.pop()
            for n in board.edge_neighbours[board.index_of_name[c]]:
                name = board.names[n]
                if left.get(name) == colour:
                    del left[name]
                    group.add(name)
                    todo.append(name)
        out.append((colour, frozenset(group)))
    return out
