"""Triominos / Trio Domino follower: a reading of the whole table → place, illegal, cleared and undo events.

There is no board: each field's lattice is fixed by its first tile and followed in the picture
through the corners of its laid tiles (:mod:`tile_lattice`). At each rest:

1. The camera may have moved (a nudge): laid tiles are matched to seen tiles showing the same
   numbers, and when most are off by more than a fifth of a side, the shift most of them agree
   with, refined to a similarity, moves every field's points.
2. Each seen tile is put on the lattice of the field it lies on (its corners within
   ``MAX_FIT_ERROR`` sides of a cell's): a cell already laid is the tile seen again; a free one is
   new, if the picture changed there since the start (``fresh``: a cloth pattern found as a tile
   never moves). A tile on no field's lattice may open a field (the opening; D-P3, Trio Domino).
3. A new tile is a placement by the player the engine names (M-B3 order from the lattice, the
   field's number, a new field's number for the player owed one). A tile read unsure waits for
   the same reading twice. When the engine refuses the reading, other readings of its corners
   that the value reader found likely (each at least ``ALT_RATIO`` of the best one's probability)
   are tried, and so are other readings of a laid tile touching it that was committed unsure:
   the likeliest legal combination is committed (the laid tile corrected first).
4. An attempt still refused is reported once it has been seen the same at two rests in a row,
   and ``cleared`` when it is taken away. The last tile gone, or its cell showing other values,
   at two rests in a row is undone, if its place in the picture changed too (else it is misread).
5. An attempt is at most one tile: two or more new tiles beside the fields at one look are never
   committed nor reported (who laid which is not known); the board differs until one is left. A
   tile that would open a field is chosen among every loose tile in view (hands, the pile) as
   before, and is no difference until it is laid. After every look
   :meth:`TilesFollower.board_check` lists the cells where the reading and the record's board
   disagree (a laid tile seen gone or with other values, a new tile), leaving out what is being
   looked at again before it is decided.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.events import Correct, EventMeta
from engine.core.lattice import Cell
from engine.core.session import Session
from engine.tritiles.events import TilePlace
from engine.tritiles.geometry import cells_at_vertex, edge_neighbours, vertices
from engine.tritiles.state import TileGameState
from vision.track.base import CellCheck
from vision.track.follower import Decision, Fresh, SeenTwice, committed_places, corrected_trial, undo_decision
from vision.track.observer import Frame
from vision.track.tile_lattice import MAX_FIT_ERROR, FieldMap, fit_field_map, origin_placement, place_on_lattice

F64 = NDArray[np.float64]

#: seconds after an unconfirmed attempt or a vanished tile at which to look again
RECHECK_AFTER = 0.3
#: a corner reading is tried when at least this share as likely as the best reading
ALT_RATIO = 0.1
#: the laid tiles are taken to have moved in the picture beyond this share of a side
MOVED = 0.2
#: a laid tile is re-read beside a new one only if it was committed less sure than this (a sure
#: tile read otherwise beside a new one is the new one's misread, e.g. a wrong tile laid)
CORRECT_BELOW = 0.8
#: a new tile read less sure than this is committed only once read the same at two looks in a row
SURE_ENOUGH = 0.5
#: a tile away from every field is reported (refused) only when read at least this sure
LOOSE_CONFIDENCE = 0.8
#: ... and at least this many sides from every laid tile
CLEAR_SIDES = 1.5
#: a laid tile seen again moves its field's points only when found this well (error in sides, confidence)
REFRESH_ERROR, REFRESH_CONFIDENCE = 0.15, 0.5
#: a laid tile read surer than when it was committed, this many sides from where it lies, is it
AGAIN_SIDES = 0.35
#: a tile's look (``LOOK_PX`` square, light divided out) has changed where a pixel's colour changed by
#: more than ``LOOK_CHANGE`` (relative), on more than ``LOOK_SHARE`` of the tile
LOOK_PX, LOOK_CHANGE, LOOK_SHARE = 24, 0.12, 0.25
#: ... looked for within this share of a side of where the tile was (a small shift of the view)
LOOK_SHIFT = 0.3
#: a look is softened by this (Gaussian sigma, look px)
LOOK_BLUR = 1.0
#: the last tile's cell read with other values is another tile laid there only where more than this
#: share of its look changed (another tile differs in its marks only; a misread changes nothing).
#: Rendered games (seeds 800-807 normal, both tile games, the renderer's phases as truth): a tile
#: misread where it lay changed 0-0.03 of its look (10 readings), a tile laid in a taken-back one's
#: place 0.245-0.45 (20), one reading with a hand reaching in 0.115
REPLACED_SHARE = 0.08


@dataclass(frozen=True)
class SeenTile:
    """A tile in the picture: corners (3×2 px, clockwise), values there, value scores, confidence."""

    corners: F64
    values: tuple[int, int, int]
    scores: tuple[tuple[float, ...], ...] | None
    confidence: float

    @property
    def centre(self) -> F64:
        return np.asarray(self.corners.mean(axis=0), np.float64)

    @property
    def side(self) -> float:
        c = self.corners
        return float(np.mean([np.linalg.norm(c[i] - c[(i + 1) % 3]) for i in range(3)]))


@dataclass(frozen=True)
class Candidate:
    """A seen tile as a placement: field, cell, M-B3 order of its corners, whether it opens a field."""

    tile: SeenTile
    field: int
    cell: Cell
    order: tuple[int, int, int]
    new_field: bool
    #: how far (tile sides) its corners lie from its cell's on the field's lattice
    error: float = 0.0

    @property
    def values(self) -> tuple[int, int, int]:
        """The values read at its corners, in M-B3 order."""
        v = self.tile.values
        return v[self.order[0]], v[self.order[1]], v[self.order[2]]

    @property
    def key(self) -> tuple[int, Cell, tuple[int, int, int], bool]:
        return self.field, self.cell, self.values, self.new_field


class TilesFollower:
    """Turns whole-table Triominos / Trio Domino readings into events (see the module docstring)."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.recheck_at: float | None = None
        #: per field, each laid tile's corners (3×2 px, M-B3 order) where last seen well
        self.points: list[dict[Cell, F64]] = []
        self._reported: tuple[Any, ...] | None = None  # the refused attempt on the table, told once
        self._reported_region: tuple[float, float, float, float] | None = None
        self._suspect = SeenTwice()  # an attempt the engine refuses, seen once
        self._gone = SeenTwice()  # the last tile seen gone
        self._changed = SeenTwice()  # the last tile's cell seen with other values
        self._unsure = SeenTwice()  # a new tile read unsure
        #: how sure the reader was of each laid tile (field, cell) when it was committed
        self._sure: dict[tuple[int, Cell], float] = {}
        #: the last look: where each seen tile lies on the fields, and the new tiles as placements
        self._fits: list[Candidate | None] = []
        self._cands: list[Candidate] = []
        #: cells (field, cell) being looked at again before they are decided (no difference yet)
        self._held: set[tuple[int, Cell]] = set()
        #: how each laid tile looked where it was last seen well (``tile_look``), and the picture now
        self._looks: dict[tuple[int, Cell], NDArray[np.float32]] = {}
        self._image: NDArray[Any] | None = None
        #: how sure the reading was that gave a laid tile's corners, where later than its commit
        self._found: dict[tuple[int, Cell], float] = {}
        #: where the last tile taken back for another in its place lay (picture px): the tile there
        #: is the one laid in its place
        self._in_place: F64 | None = None

    # -- the decision ------------------------------------------------------------------------
    def decide(self, session: Session, reading: Any, frame: Frame, meta: EventMeta,
               fresh: Fresh | None = None) -> list[Decision]:
        self.recheck_at = None
        self._held = set()
        self._cands = []
        self._image = frame.image
        state = session.state
        assert isinstance(state, TileGameState)
        seen = _seen_tiles(reading)
        is_fresh = _fresh_flags(seen, fresh)
        self._sync_fields(session)
        if self.points and seen:
            self._follow_camera(state, seen)
            self._found_again(seen)
        maps = [self._map(f) for f in range(len(state.tables))]
        fits = [self._on_fields(state, maps, t) for t in seen]
        self._fits = fits
        laid = {(f, c) for f, t in enumerate(state.tables) for c in t.cells}
        on_laid = {(c.field, c.cell) for c in fits if c is not None and (c.field, c.cell) in laid}
        self._refresh_points(state, [c for c in fits if c is not None and (c.field, c.cell) in laid])
        last = _last_place(session)
        undo = self._undo(session, last, laid, on_laid, frame, meta) or self._replaced(session, last, fits, frame, meta)
        if undo is not None:
            then = self.decide(session, reading, frame, meta, fresh)
            self._in_place = None
            return [undo, *then]
        # a new tile lies where the picture changed (a cloth pattern found as a tile does not move)
        new = [c for c, ok in zip(fits, is_fresh, strict=True)
               if c is not None and ok and (c.field, c.cell) not in laid]
        loose = [t for t, c, ok in zip(seen, fits, is_fresh, strict=True) if c is None and ok]
        cands = self._candidates(state, new, loose)
        self._cands = cands
        out: list[Decision] = []
        if len({(c.field, c.cell) for c in cands if not c.new_field and c.key != self._reported}) > 1:
            # more than one turn can hold (two tiles, say a take-back and the next move merged):
            # nothing is committed; the board differs until it is one tile again
            self._unsure.reset()
            self._suspect.reset()
            return out
        seen_laid = {(c.field, c.cell): c for c in fits if c is not None and (c.field, c.cell) in laid}
        for cand in cands:
            if cand.tile.confidence < SURE_ENOUGH and not self._unsure.confirmed(cand.key):
                # read unsure (a finger still on it, a blurred corner): the same reading twice first
                self.recheck_at = frame.t + RECHECK_AFTER
                self._held.add((cand.field, cand.cell))
                return out
            decided = self._try_place(session, cand, meta, seen_laid)
            if decided:
                self._reported = None
                self._suspect.reset()
                # the next tile, if two were laid unseen, is judged on the new position
                return [*decided, *self.decide(session, reading, frame, meta, fresh)]
        attempt = cands[0] if cands else None
        if attempt is None:
            self._suspect.reset()
            if self._reported is not None:
                out.append(self._cleared())
            return out
        key = attempt.key
        if key == self._reported:
            return out
        if not self._suspect.confirmed(key):
            self.recheck_at = frame.t + RECHECK_AFTER
            self._held.add((attempt.field, attempt.cell))
            return out
        if self._reported is not None:
            out.append(self._cleared())
        event = self._event(state, attempt, attempt.values, meta)
        entry = session.submit(event)
        self._reported = key
        self._reported_region = _region(attempt.tile.corners)
        out.append(Decision("illegal", event, entry.verdict, entry, (_cell_text(attempt),),
                            confidence=attempt.tile.confidence, region_px=_region(attempt.tile.corners)))
        return out

    def board_check(self, session: Session, reading: Any, fresh: Fresh | None = None) -> list[CellCheck]:
        """The cells where the last look (already decided) and the record's board disagree, as
        ``{"values": [a, b, c]}`` (``None``: no tile) with the cell named ``"x,y"`` or ``"x,y@F"`` on
        field F; nothing before the first tile is laid and seen (no lattice to name cells by)."""
        state = session.state
        assert isinstance(state, TileGameState)
        seen: dict[tuple[int, Cell], Candidate] = {}
        for c in self._fits:
            if c is not None and ((c.field, c.cell) not in seen or c.error < seen[(c.field, c.cell)].error):
                seen[(c.field, c.cell)] = c
        out: list[CellCheck] = []
        for f, table in enumerate(state.tables):
            for cell, values in table.cells.items():
                got = seen.get((f, cell))
                if (f, cell) in self._held or (got is not None and got.values == tuple(values)):
                    continue
                out.append(CellCheck(tile_cell_name(cell, f), {"values": list(values)},
                                     None if got is None else {"values": list(got.values)}))
        for c in self._cands:  # a tile opening a field is one of the tiles in view (hands, the pile)
            if not c.new_field and (c.field, c.cell) not in self._held and c.cell not in (
                    state.tables[c.field].cells if c.field < len(state.tables) else {}):
                out.append(CellCheck(tile_cell_name(c.cell, c.field), None, {"values": list(c.values)}))
        return out

    def _cleared(self) -> Decision:
        self._reported = None
        return Decision("cleared", None, None, None, (), region_px=self._reported_region)

    def _candidates(self, state: TileGameState, new: list[Candidate], loose: list[SeenTile]) -> list[Candidate]:
        """New tiles as placements, likeliest first: beside laid tiles, then a new field's first tile;
        else a tile away from every field, on field 0's lattice, to be refused (M-P1)."""
        out = [c for c in new if any(nb in state.tables[c.field].cells for nb in edge_neighbours(c.cell))]
        out.sort(key=lambda c: -c.tile.confidence)
        opening = not state.tables
        owed = state.NEW_FIELDS and state.new_field_for is not None
        if not (opening or owed):
            # a field opened out of turn (D-P3) is reported only when read sure and clear of the
            # laid tiles: near them it is more likely a laid-beside tile the lattice missed
            loose = [t for t in loose if t.confidence >= LOOSE_CONFIDENCE and self._clear_of_fields(t)]
        if opening or owed or (state.NEW_FIELDS and loose and not out):
            field = len(state.tables)
            for t in sorted(loose, key=lambda t: (not self._lies_in_place(t), -t.confidence)):
                cell, order = origin_placement(t.corners)
                out.append(Candidate(t, field, cell, order, True))
        elif loose and not out and (fmap := self._map(0)) is not None:
            t = max(loose, key=lambda t: t.confidence)
            fit = place_on_lattice(fmap, t.corners)
            # on the lattice, away from the tiles, read sure: refused (it touches none); a tile
            # found off the lattice is more likely a pattern on the cloth than a player's mistake
            if fit.error < MAX_FIT_ERROR:
                out.append(Candidate(t, 0, fit.cell, fit.order, False, fit.error))
        return out

    def _lies_in_place(self, tile: SeenTile) -> bool:
        """Whether ``tile`` lies where a tile was just taken back for another (``_replaced``)."""
        return self._in_place is not None and \
            float(np.linalg.norm(tile.centre - self._in_place)) < AGAIN_SIDES * tile.side

    def _clear_of_fields(self, tile: SeenTile) -> bool:
        """Whether a tile lies at least ``CLEAR_SIDES`` sides from every laid tile's centre."""
        centres = [px.mean(axis=0) for tiles in self.points for px in tiles.values()]
        if not centres:
            return True
        d = np.linalg.norm(np.array(centres) - tile.centre, axis=1).min()
        return bool(d >= CLEAR_SIDES * tile.side)

    def _try_place(self, session: Session, cand: Candidate, meta: EventMeta,
                   seen_laid: dict[tuple[int, Cell], Candidate]) -> list[Decision]:
        """Commit the likeliest legal reading of ``cand`` (``[]``: none). Besides the tile's own
        readings, an earlier tile touching it may be re-read: where the picture now reads it
        otherwise (its corners are read together with the new tile's, M-P1) and that makes both
        legal, the earlier tile is corrected first (a ``correct`` event, INTERFACES §1); only a tile
        committed less sure than ``CORRECT_BELOW`` is re-read so."""
        state = session.state
        assert isinstance(state, TileGameState)
        options: list[tuple[float, tuple[int, int, int], tuple[int, TilePlace] | None]] = [
            (prob, values, None) for values, prob in _readings(cand)]
        own = options[0][1]
        for seq, ev, seen in self._touching_laid(session, cand, seen_laid):
            for values, prob in _readings(seen):
                if values != ev.values:
                    options.append((prob, own, (seq, replace(ev, values=values))))
        options.sort(key=lambda o: -o[0])
        for prob, values, fix in options:
            event = self._event(state, cand, values, meta)
            out: list[Decision] = []
            if fix is not None:
                correct = Correct(player=fix[1].player, seq=fix[0], event=fix[1], meta=meta)
                if not _legal_after(session, correct, event):
                    continue
                entry = session.submit(correct)
                out.append(Decision("correct", correct, entry.verdict, entry, (f"{fix[1].cell[0]},{fix[1].cell[1]}",),
                                    confidence=prob, extra={"reason": "read again beside the next tile"}))
            elif not session.check(event).legal:
                continue
            entry = session.submit(event)
            self._store(cand, state)
            self._sure[(cand.field, cand.cell)] = min(cand.tile.confidence, prob)
            extra: dict[str, Any] = {}
            if prob < 1.0 and fix is None:
                extra["reread"] = "another reading of its corners was the legal one"
            out.append(Decision("place", event, entry.verdict, entry, (_cell_text(cand),),
                                confidence=min(cand.tile.confidence, prob), extra=extra,
                                region_px=_region(cand.tile.corners)))
            return out
        return []

    def _touching_laid(self, session: Session, cand: Candidate, seen_laid: dict[tuple[int, Cell], Candidate]
                       ) -> list[tuple[int, TilePlace, Candidate]]:
        """The committed tiles sharing a corner with ``cand`` that the picture shows again."""
        if cand.new_field:
            return []
        touching = {c for v in vertices(cand.cell) for c in cells_at_vertex(v)} - {cand.cell}
        out = []
        for seq, ev in committed_places(session, TilePlace):
            where = (ev.field, ev.cell)
            if ev.field == cand.field and ev.cell in touching and where in seen_laid \
                    and self._sure.get(where, 0.0) < CORRECT_BELOW:
                out.append((seq, ev, seen_laid[where]))
        return out

    def _event(self, state: TileGameState, cand: Candidate, values: tuple[int, int, int], meta: EventMeta) -> TilePlace:
        player = state.current
        if cand.new_field and state.new_field_for is not None and cand.field == len(state.tables):
            player = state.new_field_for
        return state.PLACE(player=player, cell=cand.cell, values=values, field=cand.field, meta=meta)

    # -- geometry ------------------------------------------------------------------------------
    def _sync_fields(self, session: Session) -> None:
        """Forget the positions of fields and tiles that an undo or a correction took away."""
        state = session.state
        assert isinstance(state, TileGameState)
        del self.points[len(state.tables):]
        for f, table in enumerate(state.tables):
            self.points[f] = {c: p for c, p in self.points[f].items() if c in table.cells}
        self._looks = {k: v for k, v in self._looks.items() if k[0] < len(self.points) and k[1] in self.points[k[0]]}

    def _store(self, cand: Candidate, state: TileGameState, look: bool = True) -> None:
        """Remember where a committed tile's corners are, and (``look``) how it looks there."""
        while len(self.points) <= cand.field:
            self.points.append({})
        self.points[cand.field][cand.cell] = np.asarray(cand.tile.corners[list(cand.order)], np.float64)
        if not look:
            return
        look_now = tile_look(self._image, cand.tile.corners) if self._image is not None else None
        if look_now is not None:
            self._looks[(cand.field, cand.cell)] = look_now
        else:
            self._looks.pop((cand.field, cand.cell), None)

    def _map(self, field: int) -> FieldMap | None:
        """The field's lattice in the picture, fitted to every laid tile's own corners (each tile
        is a little smaller than its cell, so neighbours' corners at one lattice point differ:
        all of them are kept and the fit averages them)."""
        tiles = self.points[field] if field < len(self.points) else {}
        pairs = [(v, (float(px[k][0]), float(px[k][1]))) for c, px in tiles.items()
                 for k, v in enumerate(vertices(c))]
        return fit_field_map(pairs) if pairs else None

    def _on_fields(self, state: TileGameState, maps: list[FieldMap | None], tile: SeenTile) -> Candidate | None:
        """The field and cell a seen tile lies on (``None``: on no field's lattice); ``maps``: each
        field's lattice in the picture."""
        best: Candidate | None = None
        best_err = MAX_FIT_ERROR
        for f, fmap in enumerate(maps):
            if fmap is None:
                continue
            fit = place_on_lattice(fmap, tile.corners)
            if fit.error < best_err and _touches(state.tables[f].cells, fit.cell):
                best_err = fit.error
                best = Candidate(tile, f, fit.cell, fit.order, False, fit.error)
        return best

    def _found_again(self, seen: list[SeenTile]) -> None:
        """A laid tile committed unsure (below ``SURE_ENOUGH``: its corners may be found badly, a
        finger on it, a blurred edge) and now read sure (``CORRECT_BELOW``) where it lies (centre
        within ``AGAIN_SIDES`` of a side): the sure reading's corners replace its own, each stored
        corner taking its nearest (the same tile, its M-B3 order kept), so its field's lattice
        follows the tile as it is. Done once per surer reading."""
        for f, tiles in enumerate(self.points):
            for cell, px in list(tiles.items()):
                if self._sure.get((f, cell), 1.0) >= SURE_ENOUGH:
                    continue  # committed sure: its corners were found well
                sure = self._found.get((f, cell), 0.0)
                centre = px.mean(axis=0)
                near = [t for t in seen if t.confidence >= CORRECT_BELOW and t.confidence > sure
                        and float(np.linalg.norm(t.centre - centre)) < AGAIN_SIDES * t.side]
                if not near:
                    continue
                t = max(near, key=lambda t: t.confidence)
                # the seen corners in the stored ones' order: each stored corner takes its nearest
                best = min(itertools.permutations(range(3)),
                           key=lambda o: float(np.linalg.norm(t.corners[list(o)] - px, axis=1).sum()))
                tiles[cell] = np.asarray(t.corners[list(best)], np.float64)
                self._found[(f, cell)] = t.confidence

    def _refresh_points(self, state: TileGameState, seen_laid: list[Candidate]) -> None:
        """Laid tiles seen again, well found: their corners' positions follow the picture (slow drift)."""
        for c in seen_laid:
            if c.field < len(self.points) and c.error < REFRESH_ERROR and c.tile.confidence >= REFRESH_CONFIDENCE:
                # its look is kept only when it is read as laid (another tile there must not become it)
                laid = state.tables[c.field].cells.get(c.cell) if c.field < len(state.tables) else None
                self._store(c, state, look=laid is not None and sorted(laid) == sorted(c.values))

    def _follow_camera(self, state: TileGameState, seen: list[SeenTile]) -> None:
        """Move every field's points by the similarity that carries the laid tiles onto the tiles
        seen, when most of them moved (a nudged camera or table)."""
        laid = [(px.mean(axis=0), tuple(sorted(state.tables[f].cells[c])))
                for f, tiles in enumerate(self.points) if f < len(state.tables)
                for c, px in tiles.items() if c in state.tables[f].cells]
        if not laid:
            return
        src = np.array([p for p, _ in laid], np.float64)
        dst = np.array([t.centre for t in seen], np.float64)
        # a laid tile and a seen one can be the same only if they show the same numbers
        same = np.array([[tile == tuple(sorted(t.values)) for t in seen] for _, tile in laid], bool)
        side = float(np.median([t.side for t in seen]))
        d = np.linalg.norm(src[:, None] - dst[None], axis=2).min(axis=1)
        if float(np.median(d)) < MOVED * side:
            return

        def agree(shift: F64) -> int:
            dd = np.linalg.norm((src + shift)[:, None] - dst[None], axis=2)
            return int(((dd < MOVED * side) & same).any(axis=1).sum())

        # every (laid, seen) pair showing the same tile proposes a shift; the one most laid tiles
        # agree with wins, then a similarity is fitted to the tiles it pairs (a nudge can move
        # tiles by a whole side)
        still = agree(np.zeros(2))
        best, best_n = np.zeros(2), still
        for i, j in zip(*np.nonzero(same), strict=True):
            shift = dst[j] - src[i]
            n = agree(shift)
            if n > best_n:
                best, best_n = shift, n
        # borne out by half the laid tiles at least, and more than stay put
        if best_n < max(1, 0.5 * len(src), still + 1):
            return
        moved = src + best
        near = np.argmin(np.linalg.norm(moved[:, None] - dst[None], axis=2), axis=1)
        ok = np.linalg.norm(moved - dst[near], axis=1) < MOVED * side
        m = np.array([[1.0, 0.0, best[0]], [0.0, 1.0, best[1]], [0.0, 0.0, 1.0]])
        if int(ok.sum()) >= 2 and len(set(near[ok].tolist())) == int(ok.sum()):
            a, _ = cv2.estimateAffinePartial2D(src[ok], dst[near[ok]])
            if a is not None and 0.8 < float(np.hypot(a[0, 0], a[1, 0])) < 1.25:
                m = np.vstack([a, [0.0, 0.0, 1.0]])
        for tiles in self.points:
            for c, px in list(tiles.items()):
                q = np.c_[px, np.ones(3)] @ m.T
                tiles[c] = q[:, :2]

    # -- take-backs -----------------------------------------------------------------------------
    def _undo(self, session: Session, last: tuple[int, TilePlace] | None, laid: set[tuple[int, Cell]],
              on_laid: set[tuple[int, Cell]], frame: Frame, meta: EventMeta) -> Decision | None:
        """An ``undo`` of the last tile (``last``) when it is gone at two rests in a row while most
        others are seen, and the picture changed where it lay (a tile the reader misses is still
        there: it looks as it did)."""
        gone = last is not None and len(laid) >= 2 and (last[1].field, last[1].cell) not in on_laid \
            and len(on_laid) >= 0.7 * (len(laid) - 1) and not self._looks_the_same(last[1].field, last[1].cell)
        if not self._gone.confirmed(last[0] if gone and last is not None else None):
            if gone:
                self.recheck_at = frame.t + RECHECK_AFTER
            return None
        assert last is not None
        seq, ev = last
        return undo_decision(session, seq, ev, (f"{ev.cell[0]},{ev.cell[1]}",), meta)

    def _looks_the_same(self, field: int, cell: Cell, share: float = LOOK_SHARE) -> bool:
        """Whether the picture shows a laid tile's place as it was when the tile was last seen well,
        changed on at most ``share`` of it (``False`` when that is not known)."""
        changed = self._look_change(field, cell)
        return changed is not None and changed <= share

    def _look_change(self, field: int, cell: Cell) -> float | None:
        """The least share of a laid tile's place changed since the tile was last seen well, wherever
        its look is searched within ``LOOK_SHIFT`` of a side (``None``: not known)."""
        before = self._looks.get((field, cell))
        px = self.points[field].get(cell) if field < len(self.points) else None
        if before is None or px is None or self._image is None:
            return None
        # the table or the camera may have shifted a little (less than ``MOVED``: not followed)
        side = float(np.mean([np.linalg.norm(px[i] - px[(i + 1) % 3]) for i in range(3)]))
        steps = np.linspace(-LOOK_SHIFT, LOOK_SHIFT, 9) * side
        best: float | None = None
        for dx, dy in itertools.product(steps, steps):
            now = tile_look(self._image, px + np.array([dx, dy]))
            if now is not None:
                share = look_change_share(before, now)
                best = share if best is None else min(best, share)
        return best

    def _replaced(self, session: Session, last: tuple[int, TilePlace] | None, fits: list[Candidate | None],
                  frame: Frame, meta: EventMeta) -> Decision | None:
        """An ``undo`` of the last tile when its cell shows other values at two rests in a row (a
        wrong tile taken back and the right one laid in its place before the table rested) and its
        look changed there (more than ``REPLACED_SHARE``: else the tile laid is misread and kept);
        the tile now there is then judged as a new placement."""
        if last is not None and not _turn_open(session, last[0]):
            self._changed.reset()  # the turn has moved on: a tile read otherwise is no take-back
            return None
        now = [] if last is None else [c for c in fits if c is not None
                                        and (c.field, c.cell) == (last[1].field, last[1].cell)]
        # other values where the picture has not changed there are a misread, not another tile
        changed = last is not None and bool(now) and now[0].values != last[1].values \
            and not self._looks_the_same(last[1].field, last[1].cell, REPLACED_SHARE)
        if not self._changed.confirmed((last[0], now[0].values) if changed and last is not None else None):
            if changed:
                self.recheck_at = frame.t + RECHECK_AFTER
            return None
        assert last is not None
        seq, ev = last
        decided = undo_decision(session, seq, ev, (_cell_text(now[0]),), meta, _region(now[0].tile.corners),
                                reason="another tile lies in its place")
        self._in_place = now[0].tile.centre
        self._sync_fields(session)
        return decided


def tile_look(image: NDArray[Any], corners: F64) -> NDArray[np.float32] | None:
    """A tile's look: the picture over the tile's triangle warped to ``LOOK_PX`` square (the same
    pixels whichever way the tile is named), softened by ``LOOK_BLUR``, each channel divided by its
    mean over the tile and a ring around it (a light changed or falling off divides out); ``None``
    when the tile is not wholly in the picture."""
    c = np.asarray(corners, np.float64).reshape(3, 2)
    h, w = image.shape[:2]
    if image.ndim != 3 or c.min() < 0 or c[:, 0].max() >= w - 1 or c[:, 1].max() >= h - 1:
        return None
    cen = c.mean(axis=0)
    ring = cen + (c - cen) * 1.6
    order = np.argsort(np.arctan2(c[:, 1] - cen[1], c[:, 0] - cen[0]))  # the same look whatever the order
    src = (cen + (c[order] - cen) * 0.85).astype(np.float32)
    dst = np.array([[LOOK_PX / 2, 0], [LOOK_PX - 1, LOOK_PX - 1], [0, LOOK_PX - 1]], np.float32)
    m = cv2.getAffineTransform(src, dst)
    patch = cv2.warpAffine(image, m, (LOOK_PX, LOOK_PX), flags=cv2.INTER_AREA).astype(np.float32) + 4.0
    # softened so that a view off by a pixel or two (a nudge followed from the tiles' found corners)
    # leaves sharp marks on a dark tile the same
    if LOOK_BLUR > 0:
        patch = np.asarray(cv2.GaussianBlur(patch, (0, 0), LOOK_BLUR), np.float32)
    x0, y0 = np.floor(np.clip(ring.min(axis=0), 0, None)).astype(int)
    x1, y1 = np.ceil(ring.max(axis=0)).astype(int)
    around = image[y0:y1 + 1, x0:x1 + 1].reshape(-1, 3).astype(np.float32).mean(axis=0) + 4.0
    return np.asarray(patch / around, np.float32)


def looks_changed(before: NDArray[np.float32], now: NDArray[np.float32]) -> bool:
    """Whether a tile's place changed between two looks (``tile_look``): over ``LOOK_SHARE`` of
    its triangle a colour changed by ``LOOK_CHANGE`` or more."""
    return look_change_share(before, now) > LOOK_SHARE


def look_change_share(before: NDArray[np.float32], now: NDArray[np.float32]) -> float:
    """The share of a tile's triangle where a colour changed by ``LOOK_CHANGE`` or more between two
    looks (``tile_look``)."""
    tri = _look_mask()
    diff = np.abs(now - before).max(axis=2)[tri]
    return float((diff > LOOK_CHANGE).mean())


def _look_mask() -> NDArray[np.bool_]:
    m = np.zeros((LOOK_PX, LOOK_PX), np.uint8)
    cv2.fillPoly(m, [np.array([[LOOK_PX // 2, 1], [LOOK_PX - 2, LOOK_PX - 2], [1, LOOK_PX - 2]], np.int32)], 1)
    return m > 0


def _seen_tiles(reading: Any) -> list[SeenTile]:
    if reading is None:
        return []
    out = []
    for t in reading.tiles:
        corners = np.array([c.px for c in t.corners], np.float64)
        values = (int(t.corners[0].value), int(t.corners[1].value), int(t.corners[2].value))
        out.append(SeenTile(corners, values, getattr(t, "scores", None), float(t.confidence)))
    return out


def _fresh_flags(seen: list[SeenTile], fresh: Fresh | None) -> list[bool]:
    """Per seen tile, whether the picture changed at its centre or half way to any of its corners
    (where its marks are: a tile of the cloth's colour changes the picture there, not at its blank
    centre); all, without ``fresh``."""
    if fresh is None or not seen:
        return [True] * len(seen)
    pts = np.concatenate([np.vstack([t.centre, (t.corners + t.centre) / 2.0]) for t in seen])
    flags = np.asarray(fresh(pts), bool).reshape(len(seen), 4)
    return [bool(flags[i].any()) for i in range(len(seen))]


def _touches(cells: dict[Cell, Any], cell: Cell) -> bool:
    """Whether ``cell`` is laid or shares a side with a laid cell."""
    return cell in cells or any(nb in cells for nb in edge_neighbours(cell))


def _readings(cand: Candidate) -> list[tuple[tuple[int, int, int], float]]:
    """Readings of the tile's corners in M-B3 order with their probability relative to the best:
    the reader's own first, then the likely alternatives."""
    read = cand.values
    out = [(read, 1.0)]
    if cand.tile.scores is None:
        return out
    logp = [np.asarray(cand.tile.scores[i], np.float64) for i in cand.order]
    logp = [s - np.logaddexp.reduce(s) for s in logp]
    base = sum(float(logp[k][read[k]]) for k in range(3))
    options = [[v for v in range(6) if float(logp[k][v]) - float(logp[k][read[k]]) > np.log(ALT_RATIO)]
               for k in range(3)]
    alts = []
    for vals in itertools.product(*options):
        if vals == read:
            continue
        rel = float(np.exp(sum(float(logp[k][vals[k]]) for k in range(3)) - base))
        if rel >= ALT_RATIO:
            alts.append(((int(vals[0]), int(vals[1]), int(vals[2])), min(1.0, rel)))
    alts.sort(key=lambda a: -a[1])
    return out + alts


def _legal_after(session: Session, correct: Correct, event: TilePlace) -> bool:
    """Whether ``correct`` keeps every placement's verdict and ``event`` is then legal."""
    trial = corrected_trial(session, correct)
    return trial is not None and trial.check(event).legal


def _turn_open(session: Session, seq: int) -> bool:
    """Whether the placement ``seq`` is still the last thing the game holds: no legal event (a draw,
    a pass, the next player's tile) has followed it, so its player may yet take it back."""
    later = [s for s, _ev in session.effective_events() if s > seq and session.entries[s - 1].verdict.legal]
    return not later


def _last_place(session: Session) -> tuple[int, TilePlace] | None:
    placed = committed_places(session, TilePlace)
    return placed[-1] if placed else None


def _region(corners: F64) -> tuple[float, float, float, float]:
    c = np.asarray(corners, np.float64)
    return float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max())


def tile_cell_name(cell: Cell, fld: int) -> str:
    """A tile's cell as the table's watch names it: ``"x,y"`` on field 0, ``"x,y@F"`` on field F."""
    name = f"{cell[0]},{cell[1]}"
    return name if not fld else f"{name}@{fld}"


def _cell_text(c: Candidate) -> str:
    return f"{c.field}:{c.cell[0]},{c.cell[1]}"


__all__ = ["Candidate", "SeenTile", "TilesFollower", "tile_cell_name"]
