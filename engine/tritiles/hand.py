"""A player's hand (``--hand 0-1-2,3-3-5``) and every placement it allows on a set of fields."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from engine.core.errors import EventFormatError
from engine.core.lattice import Cell

from .geometry import ORIGIN_CELLS
from .table import Table
from .tiles import Tile, Values, parse_tile_name, rotations, tile_name

#: One placement: field number, cell, values (M-B3 order).
Placement = tuple[int, Cell, Values]


def parse_hand(text: str) -> list[Tile]:
    """Tiles from a comma-separated list of names; a tile named twice is bad input."""
    names = [t for t in text.replace(" ", "").split(",") if t]
    if not names:
        raise EventFormatError("the hand is empty; list tiles like 0-1-2,3-3-5")
    tiles = [parse_tile_name(t) for t in names]
    seen: set[Tile] = set()
    for t in tiles:
        if t in seen:
            raise EventFormatError(f"{tile_name(t)} is named twice; each tile exists once")
        seen.add(t)
    return tiles


def opening_placements(hand: Iterable[Tile], field: int = 0) -> Iterator[Placement]:
    """Every way to lay a hand tile as the first tile of a field (M-B3: on its origin cell)."""
    for tile in hand:
        for values in rotations(tile):
            for cell in ORIGIN_CELLS:
                yield field, cell, values


def field_placements(table: Table, hand: Sequence[Tile], field: int = 0) -> Iterator[Placement]:
    """Every placement of a hand tile on an open cell of a non-empty field that matches (M-P1)."""
    options = [(t, rotations(t)) for t in hand]
    for cell in sorted(table.open_cells):
        need = table.required(cell)
        for _tile, rots in options:
            for values in rots:
                if fits_need(need, values):
                    yield field, cell, values


def fits_need(need: tuple[int | None, int | None, int | None], values: Values) -> bool:
    """Whether ``values`` shows the required number at each corner that has one."""
    a, b, c = need
    return (a is None or a == values[0]) and (b is None or b == values[1]) and (c is None or c == values[2])


def can_place(tables: Sequence[Table], hand: Sequence[Tile]) -> bool:
    """Whether any tile of the hand fits any open cell of any field (the "cannot play" check)."""
    if not tables or all(t.is_empty() for t in tables):
        return bool(hand)
    for table in tables:
        for _ in field_placements(table, hand):
            return True
    return False


__all__ = ["Placement", "can_place", "field_placements", "opening_placements", "parse_hand"]
