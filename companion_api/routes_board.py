"""Fixing the game from the phone by tapping the board: set what lies on a square, accept what
the camera sees, undo the last move (``docs/serve.md``, additions to INTERFACES §5).

A tap says what truly lies on a cell. Where that differs from the record, the record is wrong:
the tap becomes a ``correct`` event of the move that put a tile there (Triolet; for colours and
triangle tiles a per-cell correction makes no sense, so the answer is 409 "undo the move
instead"). Where it differs only from what the camera reads (a cell of the watch's differing
set), it overrides the camera's reading of that cell until the region is accepted or the camera's
view of the cell changes. "Accept" turns the differing region (with those overrides) into one
``place`` event of the side to move, judged like any other move.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from engine.core import Event, get_game

from .auth import TableWriter, Viewer
from .board_watch import CellDiff, Watch
from .table import ManualEventError, Table

router = APIRouter(tags=["board"])

#: How each game's board is drawn on the phone.
LAYOUTS: dict[str, str] = {"triolet": "squares", "trigon": "colours", "blokus": "colours", "blokus_duo": "colours",
                           "triominos": "tiles", "trio_domino": "tiles"}
#: Keys of an event line that describe where it came from, not what was played.
META_KEYS = ("ts", "source", "confidence", "frame", "evidence")

Lies = dict[str, Any] | None
#: The keys that say what lies on a cell (anything else a source adds is ignored when comparing).
CONTENT_KEYS = ("value", "wild", "colour", "values", "field")


class CellTap(BaseModel):
    """Body of ``POST /api/board/cell``: what truly lies on ``cell`` (``set: null``: nothing)."""

    model_config = ConfigDict(extra="forbid")
    cell: str = Field(min_length=1, max_length=16, description='"H8", "r15", or "x,y" for triangle tiles')
    set: dict[str, Any] | None = Field(
        description='Triolet {"value": 0-15, "wild": false}; Trigon/Blokus {"colour": "blue"}; '
        'Triominos/Trio Domino {"values": [a, b, c]}; null: the cell is empty')


@dataclass
class _Fix:
    seen: Lies  # the camera's reading when the tap was made
    lies: Lies  # what the player says lies there


@dataclass
class BoardFixes:
    """The taps overriding the camera's reading, per game and cell (kept in memory)."""

    game_id: int = -1
    cells: dict[str, _Fix] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def current(self, game_id: int, watch: Watch) -> dict[str, _Fix]:
        """The overrides still standing: same game, cell still differing, camera's view unchanged."""
        with self.lock:
            if game_id != self.game_id:
                self.game_id, self.cells = game_id, {}
            seen = {c.cell: _norm(c.seen) for c in watch.cells} if watch.status == "differs" else {}
            self.cells = {k: f for k, f in self.cells.items() if k in seen and seen[k] == f.seen}
            return dict(self.cells)

    def put(self, game_id: int, cell: str, fix: _Fix) -> None:
        with self.lock:
            if game_id != self.game_id:
                self.game_id, self.cells = game_id, {}
            self.cells[cell] = fix

    def clear(self) -> None:
        with self.lock:
            self.cells = {}


def get_table(request: Request) -> Table:
    table: Table = request.app.state.table
    return table


def get_fixes(request: Request) -> BoardFixes:
    fixes: BoardFixes | None = getattr(request.app.state, "board_fixes", None)
    if fixes is None:
        fixes = request.app.state.board_fixes = BoardFixes()
    return fixes


TableDep = Annotated[Table, Depends(get_table)]
FixesDep = Annotated[BoardFixes, Depends(get_fixes)]


# -- what lies where ----------------------------------------------------------------------------
def _norm(lies: Mapping[str, Any] | None) -> Lies:
    """A cell's content in one comparable shape (Triolet's ``wild`` always present)."""
    if lies is None:
        return None
    out = {k: lies[k] for k in CONTENT_KEYS if k in lies}  # a reading's confidence and the like aside
    if "value" in out or "wild" in lies:
        out["wild"] = bool(lies.get("wild", False))
        out.setdefault("value", None)
    if isinstance(out.get("values"), list | tuple):
        out["values"] = list(out["values"])
    return out


def _same(a: Lies, b: Lies) -> bool:
    """Whether two cells hold the same thing (a triangle tile's field is not compared)."""
    if a is None or b is None:
        return a is b
    a2 = {k: v for k, v in a.items() if k != "field"}
    b2 = {k: v for k, v in b.items() if k != "field"}
    return a2 == b2


def _record_cells(table: Table) -> dict[str, tuple[dict[str, Any], int | None]]:
    """Every cell the record's board holds: what lies there and the seq of the move that put it."""
    game = table.header.game
    placed: dict[str, int] = {}
    for seq, ev in table.effective_moves():
        line = ev.to_json()
        if line.get("type") != "place":
            continue
        if isinstance(line.get("tiles"), list):
            for t in line["tiles"]:
                placed[str(t["square"]).upper()] = seq
        elif isinstance(line.get("cells"), str):
            for c in line["cells"].split(","):
                placed[c.strip()] = seq
        elif isinstance(line.get("cell"), list):
            placed[_tile_cell(line["cell"], line.get("field", 0))] = seq
    board = table.game_json()["board"]
    out: dict[str, tuple[dict[str, Any], int | None]] = {}
    if game == "triolet":
        for t in board.get("tiles", []):
            out[t["square"]] = ({"value": t["value"], "wild": bool(t.get("wild"))}, placed.get(t["square"]))
    elif LAYOUTS.get(game) == "colours":
        for c in board.get("cells", []):
            out[c["cell"]] = ({"colour": c["colour"]}, placed.get(c["cell"]))
    elif LAYOUTS.get(game) == "tiles":
        for f in board.get("fields", []):
            for t in f.get("tiles", []):
                name = _tile_cell(t["cell"], f["field"])
                out[name] = ({"values": list(t["values"]), "field": f["field"]}, placed.get(name))
    return out


def _tile_cell(cell: Any, fld: Any) -> str:
    """A triangle tile's cell name as the watch uses it: ``"x,y"`` (``"x,y@F"`` on field F > 0)."""
    name = f"{cell[0]},{cell[1]}"
    return name if not fld else f"{name}@{fld}"


def _split_tile_cell(name: str) -> tuple[list[int], int | None]:
    at, _, fld = name.partition("@")
    try:
        x, y = (int(v) for v in at.split(","))
        return [x, y], (int(fld) if fld else None)
    except ValueError:
        raise HTTPException(422, detail=f'{name!r} is not a tile cell like "2,-1"') from None


def _check_lies(table: Table, lies: dict[str, Any] | None) -> Lies:
    """``set`` checked against the game; 422 naming what is wrong."""
    if lies is None:
        return None
    game = table.header.game
    layout = LAYOUTS.get(game)
    if layout == "squares":
        value, wild = lies.get("value"), lies.get("wild", False)
        if not isinstance(wild, bool):
            raise HTTPException(422, detail='"wild" must be true or false')
        if value is None and not wild:
            raise HTTPException(422, detail='a tile needs "value": a whole number 0-15')
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 15):
            raise HTTPException(422, detail='"value" must be a whole number 0-15')
        return {"value": value, "wild": wild}
    if layout == "colours":
        colour = lies.get("colour")
        names = _colour_names(table)
        if colour not in names:
            raise HTTPException(422, detail=f'"colour" must be one of {", ".join(names)}')
        return {"colour": colour}
    if layout == "tiles":
        values = lies.get("values")
        if (not isinstance(values, list) or len(values) != 3
                or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 5 for v in values)):
            raise HTTPException(422, detail='"values" must be three corner numbers 0-5, like [0, 1, 2]')
        out: dict[str, Any] = {"values": values}
        if isinstance(lies.get("field"), int):
            out["field"] = lies["field"]
        return out
    raise HTTPException(409, detail=f"the board of {game} cannot be fixed by tapping")


def _colour_names(table: Table) -> list[str]:
    """The game's colours in play order (the variant's), else those on the board."""
    fresh = get_game(table.header.game).new(table.header)
    variant = getattr(getattr(getattr(fresh, "rules", None), "variant", None), "colour_names", None)
    if variant:
        return list(variant)
    return sorted({c["colour"] for c in table.game_json()["board"].get("cells", [])})


def _show(lies: Lies) -> str:
    """A cell's content in words, for messages."""
    if lies is None:
        return "nothing"
    if "colour" in lies:
        return str(lies["colour"])
    if "values" in lies:
        return "-".join(str(v) for v in lies["values"])
    if lies.get("wild"):
        return "a wild" + ("" if lies.get("value") is None else f" as {lies['value']}")
    return f"a {lies.get('value')}"


def board_view(table: Table, fixes: BoardFixes) -> dict[str, Any]:
    """``GET /api/board``: the record's cells (with the move that placed each) and the watch with the taps."""
    game = table.header.game
    state = table.game_json()
    watch = table.watch
    standing = fixes.current(table.game_id, watch)
    wj = watch.to_json()
    for c in wj["cells"]:
        fix = standing.get(c["cell"])
        c["fix"] = None if fix is None else fix.lies
        c["fixed"] = fix is not None
    cells = [{"cell": name, "record": lies, "seq": seq} for name, (lies, seq) in _record_cells(table).items()]
    moves = table.effective_moves()
    last = next((seq for seq, _ in reversed(moves)), None)
    out: dict[str, Any] = {"game": game, "game_id": table.game_id, "layout": LAYOUTS.get(game, "none"),
                           "cells": cells, "watch": wj, "turn": state["turn"], "last_move": last}
    board = state["board"]
    if game == "triolet":
        out["size"] = board.get("size", 15)
    elif out["layout"] == "colours":
        out["side"] = board.get("side")
        out["colours"] = _colour_names(table)
    return out


def _publish(table: Table) -> None:
    """Tell every phone to look again (a ``state`` message)."""
    from .events_bus import Message

    table.bus.publish(Message("state", None, table.game_json(), table.game_id))


def _manual(table: Table, obj: dict[str, Any]) -> dict[str, Any]:
    try:
        return table.manual(obj)
    except ManualEventError as exc:
        raise HTTPException(422, detail=str(exc)) from None


# -- endpoints ----------------------------------------------------------------------------------
@router.get("/api/board", summary="the board for tapping: the record's cells, the moves that placed them, "
            "the cells the camera sees differently and the taps on them")
def get_board(table: TableDep, fixes: FixesDep, _: Viewer) -> dict[str, Any]:
    return board_view(table, fixes)


@router.post("/api/board/cell", summary="say what lies on a cell (table token): corrects the move that put "
             "it there, or overrides the camera's reading of a differing cell")
def tap_cell(table: TableDep, fixes: FixesDep, _: TableWriter, body: CellTap) -> dict[str, Any]:
    lies = _check_lies(table, body.set)
    layout = LAYOUTS.get(table.header.game)
    name = body.cell.strip().upper() if layout == "squares" else body.cell.strip()
    watch = table.watch
    differing = {c.cell: c for c in watch.cells} if watch.status == "differs" else {}
    record = _record_cells(table).get(name)
    rec_lies = None if record is None else record[0]
    out: dict[str, Any] = {"cell": name}
    if not _same(lies, rec_lies):
        if record is not None:  # the record is wrong about this cell: correct the move that put it there
            out["event"] = _correct(table, name, lies, record[1])
            out["done"] = "correct"
        elif name not in differing:
            raise HTTPException(409, detail=f"nothing lies on {name} in the record and the camera sees no change "
                                "there: put the tile down where the camera can see it")
    if name in differing:  # what the camera reads there is overridden until it reads something else
        diff = differing[name]
        fixes.put(table.game_id, name, _Fix(seen=_norm(diff.seen), lies=lies))
        out.setdefault("done", "override")
        if _same(lies, rec_lies):  # the record is right and the camera wrong: the tracker is told so
            out["tracker_told"] = table.trust_record([name])
        _publish(table)
    elif "done" not in out:
        raise HTTPException(409, detail=f"{name} already holds {_show(rec_lies)} in the record")
    out["board"] = board_view(table, fixes)
    return out


def _correct(table: Table, name: str, lies: Lies, seq: int | None) -> dict[str, Any]:
    """A ``correct`` event of the move ``seq`` with ``name`` set to ``lies`` (Triolet only)."""
    if LAYOUTS.get(table.header.game) != "squares":
        raise HTTPException(409, detail=f"{name} belongs to a placed piece: a single cell of it cannot be "
                            "corrected; undo the move instead")
    if seq is None:
        raise HTTPException(409, detail=f"no move of the record placed {name}; undo the move instead")
    moves = dict(table.effective_moves())
    line = moves[seq].to_json()
    for key in META_KEYS:
        line.pop(key, None)
    tiles = [dict(t) for t in line["tiles"]]
    if lies is None:
        tiles = [t for t in tiles if str(t["square"]).upper() != name]
        if not tiles:
            raise HTTPException(409, detail=f"move {seq} placed only {name}: undo the move instead")
    else:
        if lies["value"] is None:
            raise HTTPException(422, detail=f"say which value the wild on {name} stands for (0-15)")
        for t in tiles:
            if str(t["square"]).upper() == name:
                t["value"] = lies["value"]
                t.pop("wild", None)
                if lies["wild"]:
                    t["wild"] = True
    line["tiles"] = tiles
    return _manual(table, {"type": "correct", "seq": seq, "event": line, "source": "manual"})


@router.post("/api/board/accept", status_code=201,
             summary="accept what the camera sees (with the taps) as the move of the side to move (table token)")
def accept(table: TableDep, fixes: FixesDep, _: TableWriter) -> dict[str, Any]:
    watch = table.watch
    if watch.status != "differs":
        why = {"ok": "the board matches the record: there is nothing to accept",
               "camera_lost": "the camera is lost: nothing to accept until it sees the board again",
               "waiting": "the camera has not seen the board yet: nothing to accept"}
        raise HTTPException(409, detail=why.get(watch.status, "there is nothing to accept"))
    standing = fixes.current(table.game_id, watch)
    new: dict[str, dict[str, Any]] = {}
    for diff in watch.cells:
        truth = standing[diff.cell].lies if diff.cell in standing else _norm(diff.seen)
        rec = _norm(diff.record)
        if _same(truth, rec):
            continue
        if rec is not None:
            raise HTTPException(409, detail=f"{diff.cell} holds {_show(rec)} in the record but the camera sees "
                                f"{_show(truth)}: tap it to say what lies there")
        assert truth is not None
        new[diff.cell] = truth
    if not new:
        raise HTTPException(409, detail="nothing new to accept: every differing cell is settled")
    obj = _placement(table, new)
    message = _manual(table, obj)
    fixes.clear()
    if message["type"] != "illegal":  # the accepted cells are in the record now
        left = tuple(c for c in table.watch.cells if c.cell not in new)
        table.set_watch(Watch.of("differs", left, since=watch.since) if left else Watch())
    _publish(table)
    return message


def _placement(table: Table, new: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The ``place`` event of the side to move laying ``new``."""
    turn = table.game_json()["turn"] or {}
    player = turn.get("player")
    layout = LAYOUTS.get(table.header.game)
    if layout == "squares":
        tiles = []
        for cell, lies in sorted(new.items()):
            if lies.get("value") is None:
                raise HTTPException(409, detail=f"tap {cell} to say which value the wild stands for")
            tiles.append({"square": cell, "value": lies["value"], **({"wild": True} if lies.get("wild") else {})})
        return {"type": "place", "player": player, "tiles": tiles, "source": "manual"}
    if layout == "colours":
        colours = {lies.get("colour") for lies in new.values()}
        if len(colours) != 1:
            raise HTTPException(409, detail=f"the camera sees {len(colours)} colours on the new cells: a move lays "
                                "one piece; tap the cells that are wrong")
        return {"type": "place", "colour": colours.pop(), "cells": ",".join(sorted(new)), "source": "manual"}
    if layout == "tiles":
        if len(new) != 1:
            raise HTTPException(409, detail=f"the camera sees {len(new)} new tiles: a move lays one; tap the extra "
                                "ones to clear them")
        (name, lies), = new.items()
        xy, fld = _split_tile_cell(name)
        obj: dict[str, Any] = {"type": "place", "player": player, "cell": xy, "values": lies["values"],
                               "source": "manual"}
        if table.header.game == "trio_domino":
            obj["field"] = lies.get("field", fld if fld is not None else 0)
        return obj
    raise HTTPException(409, detail=f"the board of {table.header.game} cannot be fixed by tapping")


class UndoBody(BaseModel):
    """Body of ``POST /api/board/undo`` (optional): which move to take back (default: the last one)."""

    model_config = ConfigDict(extra="forbid")
    seq: int | None = Field(None, ge=1, description="the move's seq; default: the last move still standing")


@router.post("/api/board/undo", status_code=201, summary="take back the last move (table token)")
def undo(table: TableDep, fixes: FixesDep, _: TableWriter,
         body: Annotated[UndoBody | None, Body()] = None) -> dict[str, Any]:
    moves: list[tuple[int, Event]] = table.effective_moves()
    if not moves:
        raise HTTPException(409, detail="there is no move to take back")
    seq = moves[-1][0] if body is None or body.seq is None else body.seq
    if seq not in dict(moves):
        raise HTTPException(409, detail=f"move {seq} is not on the record any more (taken back, illegal or "
                            "not a move)")
    message = _manual(table, {"type": "undo", "seq": seq, "source": "manual"})
    fixes.clear()
    return message


__all__ = ["BoardFixes", "CellDiff", "board_view", "router"]
