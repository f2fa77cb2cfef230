"""Triominos scores: the opening (M-P2), a placement (M-S1), the end of a round (M-E1, M-E2)."""

from __future__ import annotations

from engine.core.lattice import Cell
from engine.core.verdict import ScoreItem
from engine.tritiles.shapes import hexagon_cells, hexagons_closed, is_bridge
from engine.tritiles.table import Table
from engine.tritiles.tiles import Tile, Values, is_triple, tile_name, tile_sum

BRIDGE_BONUS = 40
#: Bonus for completing 1, 2 or 3 hexagons with one tile (M-S1).
HEXAGON_BONUS = {1: 50, 2: 60, 3: 70}
ZERO_TRIPLE_OPENING = 40
PRESSMAN_TRIPLE_BONUS = 10
GOING_OUT_BONUS = 25


def opening_items(tile: Tile, cell: Cell, pressman: bool) -> list[ScoreItem]:
    """M-P2: the opener scores the tile's sum; 0-0-0 scores 40; ``pressman``: other triples +10."""
    what = (f"opening triple {tile_name(tile)}" if is_triple(tile) else
            f"opening tile {tile_name(tile)} (the highest tile opens when no hand holds a triple; "
            "hands are not visible, so the opener is taken from the record)")
    items = [ScoreItem("tile", tile_sum(tile), "M-P2", (cell,), detail=what)]
    if tile == (0, 0, 0):
        items.append(ScoreItem("start", ZERO_TRIPLE_OPENING, "M-P2", (cell,), detail="0-0-0 opening scores 40"))
    elif pressman and is_triple(tile):
        items.append(ScoreItem("start", PRESSMAN_TRIPLE_BONUS, "M-P2", (cell,),
                               detail="pressman edition: a triple opening scores its sum + 10"))
    return items


def placement_items(table: Table, cell: Cell, values: Values) -> list[ScoreItem]:
    """M-S1: the sum of the numbers, plus a bridge or the hexagons completed (judged before laying)."""
    a, b, c = values
    items = [ScoreItem("tile", a + b + c, "M-S1", (cell,), detail=f"{a} + {b} + {c}")]
    if is_bridge(table, cell):
        items.append(ScoreItem("bridge", BRIDGE_BONUS, "M-S1", (cell,),
                               detail="shares one side with the table and its opposite corner touches a tile"))
    points = hexagons_closed(table, cell)
    if points:
        k = len(points)
        items.append(ScoreItem("hexagon", HEXAGON_BONUS[k], "M-S1", tuple(hexagon_cells(points)),
                               detail=f"completes {k} hexagon{'s' if k > 1 else ''} at once" if k > 1
                               else "completes a hexagon"))
    return items


def blocked_items(hand_totals: dict[int, int]) -> list[ScoreItem]:
    """M-E2: the lowest hand scores the others' hand totals minus its own (each tied lowest alike)."""
    low = min(hand_totals.values())
    items = []
    for seat, own in hand_totals.items():
        if own == low:
            others = sum(v for s, v in hand_totals.items() if s != seat)
            items.append(ScoreItem("remaining", others - own, "M-E2", player=seat,
                                   detail=f"lowest hand: others hold {others}, own {own}"))
    return items
