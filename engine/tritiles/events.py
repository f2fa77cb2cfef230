"""Record events of the triangle-tile games (INTERFACES §1): the place event and how lines are parsed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core.errors import EventFormatError
from engine.core.events import Draw, Event, Pass, Reveal, parse_common, parse_meta
from engine.core.fields import check_int, get_int, get_list
from engine.core.header import Header
from engine.core.lattice import Cell

from .tiles import HIGH, LOW, Values, parse_tile_name, tile_name


@dataclass(frozen=True)
class TilePlace(Event):
    """Lay one tile: its cell and its corner numbers in M-B3 order, on field ``field`` (Trio Domino)."""

    TYPE: ClassVar[str] = "place"
    #: Whether the record line names the field (Trio Domino) or not (Triominos: one field).
    WITH_FIELD: ClassVar[bool] = False
    cell: Cell = (0, 0)
    values: Values = (0, 0, 0)
    field: int = 0

    def body_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cell": list(self.cell), "values": list(self.values)}
        if self.WITH_FIELD:
            out["field"] = self.field
        return out


def parse_cell(obj: dict[str, Any]) -> Cell:
    """The ``cell`` field: ``[x, y]`` whole numbers."""
    raw = get_list(obj, "cell", min_len=2, max_len=2)
    return check_int(raw[0], '"cell" x', lo=-10_000, hi=10_000), check_int(raw[1], '"cell" y', lo=-10_000, hi=10_000)


def parse_values(obj: dict[str, Any]) -> Values:
    """The ``values`` field: three corner numbers 0-5 in M-B3 order."""
    raw = get_list(obj, "values", min_len=3, max_len=3)
    a, b, c = (check_int(v, '"values" item', lo=LOW, hi=HIGH) for v in raw)
    return a, b, c


def parse_tile_event(
    obj: dict[str, Any], header: Header, place_cls: type[TilePlace], parse_inner: Callable[[dict[str, Any]], Event]
) -> Event:
    """One event line of a Triominos or Trio Domino record."""
    n = len(header.players)
    kind = obj.get("type")
    common = parse_common(obj, n, parse_inner)
    if isinstance(common, Reveal):
        if common.tiles is None:
            raise EventFormatError('a reveal in this game names "tiles", e.g. ["0-1-2", "3-3-5"]')
        tiles = tuple(tile_name(parse_tile_name(t)) for t in common.tiles)
        return Reveal(player=common.player, tiles=tiles, meta=common.meta)
    if common is not None:
        return common
    meta = parse_meta(obj)
    if kind == "place":
        player = get_int(obj, "player", lo=0, hi=n - 1)
        cell = parse_cell(obj)
        values = parse_values(obj)
        if place_cls.WITH_FIELD:
            fld = get_int(obj, "field", lo=0, hi=55)
        else:
            fld = get_int(obj, "field", lo=0, hi=0, default=0)
        return place_cls(player=player, cell=cell, values=values, field=fld, meta=meta)
    if kind == "draw":
        return Draw(player=get_int(obj, "player", lo=0, hi=n - 1), count=get_int(obj, "count", lo=1, default=1),
                    meta=meta)
    if kind == "pass":
        return Pass(player=get_int(obj, "player", lo=0, hi=n - 1), meta=meta)
    raise EventFormatError(f"unknown event type {kind!r} for {header.game}; expected place, draw, pass, "
                           "reveal, correct or undo")
