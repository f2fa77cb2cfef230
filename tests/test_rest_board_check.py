"""The board seen against the record's board for the games read whole (Trigon, Triominos, Trio
Domino): an attempt is at most one piece or one tile, anything larger or inconsistent is held as
"differs" with the cells (never an event), and the watch returns to ok by itself when board and
record agree again. Readings are scripted; nothing is rendered."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from companion_api.board_watch import Watch
from companion_api.routes_board import _tile_cell
from companion_api.tracker_source import watch_of
from engine.core.events import EventMeta
from engine.core.header import Header
from engine.core.session import Session
from engine.trigon.state import TrigonState
from engine.tritiles.events import TilePlace
from engine.tritiles.geometry import vertices
from vision.read.trigon.reading import TrigonCell, TrigonReading
from vision.read.tritiles.reading import TileCorner, TileReading, TrianglesReading
from vision.track.base import CellCheck
from vision.track.observer import Frame
from vision.track.rest_tracker import RestTracker
from vision.track.tile_lattice import FieldMap, vertex_xy
from vision.track.tiles_follower import TilesFollower, tile_cell_name
from vision.track.trigon_follower import TrigonFollower

META = EventMeta(source="vision")
BLANK = np.zeros((1, 1, 3))


def _trigon_reading(cells: dict[str, str]) -> TrigonReading:
    return TrigonReading("trigon", (), tuple(TrigonCell(c, col, 0.99) for c, col in cells.items()), 1.0)


def _trigon() -> tuple[Session, Any]:
    session = Session(Header(game="trigon", players=("A", "B", "C", "D")))
    return session, next(iter(session.state.legal_placements()))


def _grown(session: Session, start: tuple[str, ...], size: int) -> list[str]:
    """``start`` grown by side-sharing free triangles to ``size`` (one connected group)."""
    state = session.state
    assert isinstance(state, TrigonState)
    board = state.pos.table.board
    group = list(start)
    while len(group) < size:
        for c in list(group):
            for n in board.edge_neighbours[board.index_of_name[c]]:
                if board.names[n] not in group and len(group) < size:
                    group.append(board.names[n])
    return group


def _check(f: Any, session: Session, reading: Any) -> list[tuple[str, Any, Any]]:
    return [(c.cell, c.record, c.seen) for c in f.board_check(session, reading)]


# -- Trigon (B-L1, B-L4) -------------------------------------------------------------------------
def test_trigon_more_than_a_piece_is_never_an_event_and_clears_when_taken_back_B_L1() -> None:
    session, first = _trigon()
    f = TrigonFollower()
    board: dict[str, str] = {c: "blue" for c in _grown(session, first.cells, TrigonFollower.MAX_PIECE + 3)}
    for t in (1.0, 1.3, 1.6, 2.0):  # looked at again and again: never a placement nor an attempt
        assert f.decide(session, _trigon_reading(board), Frame(0, t, BLANK), META) == []
        got = _check(f, session, _trigon_reading(board))
        assert sorted(c for c, _r, _s in got) == sorted(board)
        assert all(r is None and s == {"colour": "blue"} for _c, r, s in got)
    assert session.entries == []
    board.clear()  # taken back: board and record agree again
    assert f.decide(session, _trigon_reading(board), Frame(0, 3.0, BLANK), META) == []
    assert _check(f, session, _trigon_reading(board)) == []
    board.update({c: "blue" for c in first.cells})  # one piece: judged as usual
    assert [d.kind for d in f.decide(session, _trigon_reading(board), Frame(0, 4.0, BLANK), META)] == ["place"]
    assert _check(f, session, _trigon_reading(board)) == []


def test_trigon_a_refused_piece_beside_other_new_triangles_is_held_not_reported() -> None:
    session, first = _trigon()
    f = TrigonFollower()
    board = {c: "blue" for c in first.cells}
    assert [d.kind for d in f.decide(session, _trigon_reading(board), Frame(0, 1.0, BLANK), META)] == ["place"]
    # yellow's piece away from its start (refused) and, apart from it, three red triangles: two pieces
    board.update({c: "yellow" for c in ("o10", "p10", "o11")})
    board.update({c: "red" for c in _grown(session, ("aa5",), 3)})
    for t in (2.0, 2.3, 2.6):
        assert f.decide(session, _trigon_reading(board), Frame(0, t, BLANK), META) == []
    cells = [c for c, _r, _s in _check(f, session, _trigon_reading(board))]
    assert {"o10", "p10", "o11"} <= set(cells) and len(session.entries) == 1
    for c in [c for c, col in board.items() if col == "red"]:
        del board[c]  # one attempt left: seen twice, reported; it stays a difference on the board
    assert f.decide(session, _trigon_reading(board), Frame(0, 3.0, BLANK), META) == []
    assert [d.kind for d in f.decide(session, _trigon_reading(board), Frame(0, 3.3, BLANK), META)] == ["illegal"]
    assert [c for c, _r, _s in _check(f, session, _trigon_reading(board))] == ["o10", "o11", "p10"]


def test_trigon_a_misread_triangle_of_a_laid_piece_differs_until_read_right() -> None:
    session, first = _trigon()
    f = TrigonFollower()
    board = {c: "blue" for c in first.cells}
    f.decide(session, _trigon_reading(board), Frame(0, 1.0, BLANK), META)
    misread = first.cells[0]
    board[misread] = "green"
    for t in (2.0, 2.3, 2.6):
        assert f.decide(session, _trigon_reading(board), Frame(0, t, BLANK), META) == []
        assert _check(f, session, _trigon_reading(board)) == [(misread, {"colour": "blue"}, {"colour": "green"})]
    board[misread] = "blue"
    assert f.decide(session, _trigon_reading(board), Frame(0, 3.0, BLANK), META) == []
    assert _check(f, session, _trigon_reading(board)) == []
    assert len(session.entries) == 1


def test_trigon_an_attempt_looked_at_again_is_not_yet_a_difference() -> None:
    session, _first = _trigon()
    f = TrigonFollower()
    board = {c: "yellow" for c in _grown(session, ("o10",), 3)}  # not yellow's turn: refused once seen twice
    assert f.decide(session, _trigon_reading(board), Frame(0, 1.0, BLANK), META) == []
    assert _check(f, session, _trigon_reading(board)) == []  # being looked at again
    assert [d.kind for d in f.decide(session, _trigon_reading(board), Frame(0, 1.3, BLANK), META)] == ["illegal"]
    assert len(_check(f, session, _trigon_reading(board))) == 3


# -- the rest tracker passes it on as the table's watch -------------------------------------------
def _rests(tracker: RestTracker) -> Callable[[], list[str]]:
    """A function feeding the tracker frames of a still table until the picture is read (the scripted
    board is what it shows); it returns the kinds of the outputs."""
    clock = iter(range(10_000))

    def rest() -> list[str]:
        tracker.request_full_read()
        kinds: list[str] = []
        for _ in range(12):
            i = next(clock)
            kinds += [o.kind for o in tracker.feed(i, i * 0.1, np.zeros((48, 64, 3), np.uint8))]
        return kinds
    return rest


def test_rest_tracker_reports_differs_with_the_cells_and_back_to_ok_by_itself() -> None:
    session, first = _trigon()
    board: dict[str, str] = {}
    tracker = RestTracker(session.header, lambda frame: _trigon_reading(board))
    rest = _rests(tracker)

    def status() -> str:
        return tracker.board_check.status

    assert status() == "waiting"
    assert rest() == [] and status() == "ok"
    board.update({c: "blue" for c in _grown(session, first.cells, TrigonFollower.MAX_PIECE + 3)})
    assert rest() == [] and rest() == []
    check = tracker.board_check
    assert check.status == "differs" and len(check.cells) == TrigonFollower.MAX_PIECE + 3
    watch = watch_of(check, Watch.of("ok"))
    assert watch.to_json()["message"] == "board differs from the record"
    assert watch.to_json()["cells"][0]["record"] is None
    assert watch.to_json()["cells"][0]["seen"] == {"colour": "blue"}
    board.clear()
    board.update({c: "blue" for c in first.cells})
    assert rest() == ["place"] and status() == "ok"
    assert watch_of(tracker.board_check, watch).status == "ok"


# -- Triominos / Trio Domino (M-P1) ----------------------------------------------------------------
def _fmap() -> FieldMap:
    a = math.radians(20.0)
    return FieldMap(np.array([[45 * math.cos(a), -45 * math.sin(a), 640.0],
                              [45 * math.sin(a), 45 * math.cos(a), 360.0], [0.0, 0.0, 1.0]]))


def _tiles(tiles: dict[tuple[int, int], tuple[int, int, int]], game: str = "triominos") -> TrianglesReading:
    out = []
    for cell, values in tiles.items():
        px = _fmap().to_image(np.array([vertex_xy(v) for v in vertices(cell)]))
        corners = [TileCorner((float(p[0]), float(p[1])), v) for p, v in zip(px, values, strict=True)]
        cen = px.mean(axis=0)
        out.append(TileReading((float(cen[0]), float(cen[1])), (corners[0], corners[1], corners[2]), (0, 0), 0, 0.95))
    return TrianglesReading(game, tuple(out))


def _look(f: TilesFollower, session: Session, tiles: dict[tuple[int, int], tuple[int, int, int]],
          t: float) -> list[str]:
    return [d.kind for d in f.decide(session, _tiles(tiles), Frame(0, t, BLANK), META)]


def test_tiles_two_new_tiles_at_once_are_never_an_event_and_clear_when_taken_back_M_P1() -> None:
    session = Session(Header(game="triominos", players=("A", "B")))
    f = TilesFollower("triominos")
    table = {(0, 0): (2, 3, 4)}
    assert _look(f, session, table, 1.0) == ["place"]
    assert _check(f, session, _tiles(table)) == []
    # two tiles beside it at one rest (a take-back and the next move merged, a starved camera)
    table.update({(1, 0): (3, 2, 3), (-1, 0): (4, 1, 2)})
    for t in (2.0, 2.3, 2.6, 3.0):
        assert _look(f, session, table, t) == []
    assert len(session.entries) == 1
    assert sorted(_check(f, session, _tiles(table))) == [
        ("-1,0", None, {"values": [4, 1, 2]}), ("1,0", None, {"values": [3, 2, 3]})]
    del table[(-1, 0)]  # one taken back: one tile, judged as usual
    assert _look(f, session, table, 4.0) == ["place"]
    assert _check(f, session, _tiles(table)) == []


def test_tiles_a_misread_laid_tile_differs_until_read_right_and_holds_no_event() -> None:
    session = Session(Header(game="triominos", players=("A", "B")))
    f = TilesFollower("triominos")
    table = {(0, 0): (2, 3, 4)}
    assert _look(f, session, table, 1.0) == ["place"]
    table[(1, 0)] = (3, 2, 3)
    assert _look(f, session, table, 2.0) == ["place"]
    misread = dict(table)
    misread[(0, 0)] = (2, 2, 4)  # the first tile now read otherwise
    for t in (3.0, 3.3, 3.6):
        assert _look(f, session, misread, t) == []
        assert _check(f, session, _tiles(misread)) == [("0,0", {"values": [2, 3, 4]}, {"values": [2, 2, 4]})]
    gone = {(1, 0): table[(1, 0)], (0, 0): table[(0, 0)]}
    assert _look(f, session, gone, 4.0) == [] and _check(f, session, _tiles(gone)) == []
    assert len(session.entries) == 2


def test_tiles_an_illegal_tile_left_on_the_table_is_no_baseline_M_P1() -> None:
    session = Session(Header(game="triominos", players=("A", "B")))
    f = TilesFollower("triominos")
    table = {(0, 0): (2, 3, 4)}
    assert _look(f, session, table, 1.0) == ["place"]
    table[(1, 0)] = (0, 0, 0)  # its corners do not match: refused once seen twice
    assert _look(f, session, table, 2.0) == [] and _look(f, session, table, 2.3) == ["illegal"]
    assert _check(f, session, _tiles(table)) == [("1,0", None, {"values": [0, 0, 0]})]
    table[(-1, 0)] = (4, 1, 2)  # the player lays a matching tile elsewhere, the refused one still there
    assert _look(f, session, table, 3.0) == ["place"]
    placed = [ev.values for s, ev in session.effective_events()
              if isinstance(ev, TilePlace) and session.entries[s - 1].verdict.legal]
    assert placed == [(2, 3, 4), (4, 1, 2)]
    # the refused tile still lying there is judged afresh against the new record, then shown
    assert _look(f, session, table, 3.3) == ["illegal"]
    assert session.entries[-1].verdict.legal is False
    assert _check(f, session, _tiles(table)) == [("1,0", None, {"values": [0, 0, 0]})]


def test_tile_cells_are_named_as_the_phone_names_them() -> None:
    for cell, fld in (((2, -1), 0), ((0, 0), 1), ((-3, 4), 2)):
        assert tile_cell_name(cell, fld) == _tile_cell(list(cell), fld)
    assert tile_cell_name((0, 0), 1) == "0,0@1"
    assert CellCheck("0,0@1", None, {"values": [1, 2, 3]}).cell == "0,0@1"


def test_rest_tracker_takes_the_players_word_on_a_persistent_misread() -> None:
    session, first = _trigon()
    board: dict[str, str] = {c: "blue" for c in first.cells}
    tracker = RestTracker(session.header, lambda frame: _trigon_reading(board))
    rest = _rests(tracker)

    def cells() -> list[str]:
        return [c.cell for c in tracker.board_check.cells]

    assert rest() == ["place"]
    misread = first.cells[0]
    board[misread] = "green"  # read so at every look
    assert rest() == [] and cells() == [misread]
    tracker.trust_record([misread])
    assert tracker.board_check.status == "ok"
    assert rest() == [] and tracker.board_check.status == "ok"  # still read green: the word holds
    board[misread] = "red"  # read otherwise now: looked at as usual
    assert rest() == [] and cells() == [misread]
    assert tracker.board_check.cells[0].seen == {"colour": "red"}
