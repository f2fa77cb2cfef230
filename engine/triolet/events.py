"""Triolet events: the ``place`` event and the parser of every Triolet record line (INTERFACES §1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core.errors import EventFormatError
from engine.core.events import Event, Exchange, Pass, parse_common, parse_meta
from engine.core.fields import get_bool, get_int, get_list, get_str
from engine.core.header import Header

from .board import parse_square, square_name
from .tiles import MAX_VALUE


@dataclass(frozen=True)
class PlacedTile:
    """One tile of a placement: its square (``"H8"``), value, and whether it is a wild.

    A wild's ``value`` is the value declared for it (T-P6).
    """

    square: str
    value: int
    wild: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"square": self.square, "value": self.value}
        if self.wild:
            out["wild"] = True
        return out


@dataclass(frozen=True)
class Place(Event):
    """A player puts 1–3 tiles on the board (T-P1)."""

    TYPE: ClassVar[str] = "place"
    tiles: tuple[PlacedTile, ...] = ()

    def body_json(self) -> dict[str, Any]:
        return {"tiles": [t.to_json() for t in self.tiles]}


def parse_tile(obj: Any, number: int) -> PlacedTile:
    """One item of a place event's ``tiles`` list; ``number`` (1-based) names it in messages."""
    what = f"tile {number}"
    if not isinstance(obj, dict):
        raise EventFormatError(f'{what} must be a JSON object like {{"square": "H8", "value": 11}}')
    try:
        text = get_str(obj, "square")
        value = get_int(obj, "value", lo=0, hi=MAX_VALUE)
        wild = get_bool(obj, "wild")
    except EventFormatError as exc:
        raise EventFormatError(f"{what}: {exc}") from None
    index = parse_square(text)
    if index is None:
        raise EventFormatError(f'{what}: unknown square "{text}" (squares are A1 to O15)')
    return PlacedTile(square=square_name(index), value=value, wild=wild)


def parse_tiles(raw: list[Any]) -> tuple[PlacedTile, ...]:
    """The ``tiles`` of a place event; one square named twice is bad input."""
    tiles = tuple(parse_tile(t, n) for n, t in enumerate(raw, start=1))
    seen: set[str] = set()
    for t in tiles:
        if t.square in seen:
            raise EventFormatError(f"square {t.square} is named twice in one placement")
        seen.add(t.square)
    return tiles


def parse_event(obj: dict[str, Any], header: Header) -> Event:
    """A Triolet record line as an event; malformed input raises ``EventFormatError``."""
    players = len(header.players)
    kind = obj.get("type")
    if kind in ("correct", "undo", "reveal"):
        event = parse_common(obj, players, lambda inner: parse_event(inner, header))
        assert event is not None
        if kind == "reveal" and getattr(event, "values", None) is None:
            raise EventFormatError('a Triolet reveal needs "values": the point values left on the rack')
        return event
    meta = parse_meta(obj)
    if kind == "place":
        player = get_int(obj, "player", lo=0, hi=players - 1)
        tiles = parse_tiles(get_list(obj, "tiles", min_len=1))
        return Place(player=player, tiles=tiles, meta=meta)
    if kind == "exchange":
        player = get_int(obj, "player", lo=0, hi=players - 1)
        return Exchange(player=player, count=get_int(obj, "count", lo=1), meta=meta)
    if kind == "pass":
        return Pass(player=get_int(obj, "player", lo=0, hi=players - 1), meta=meta)
    if not isinstance(kind, str):
        raise EventFormatError(f'"type" must be a string, not {kind!r}')
    raise EventFormatError(
        f'unknown event type "{kind}" for triolet (expected place, exchange, pass, reveal, correct or undo)'
    )


def place(player: int, *tiles: tuple[str, int] | tuple[str, int, bool]) -> Place:
    """A place event from ``("H8", 11)`` / ``("I7", 4, True)`` tuples (for code and tests)."""
    made = []
    for t in tiles:
        wild = bool(t[2]) if len(t) > 2 else False
        made.append(PlacedTile(square=t[0], value=t[1], wild=wild))
    return Place(player=player, tiles=tuple(made))


def tile_key(tile: PlacedTile) -> tuple[str, int, bool]:
    """A hashable description of a placed tile."""
    return (tile.square, tile.value, tile.wild)
