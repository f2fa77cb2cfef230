"""Trio Domino scores: points left on the stand at the end (D-E1, D-E2), or laid tiles (D-V1).

Reading: a player's total is the points *against* them, so the lowest total wins; with
``topsy_turvy`` every laid tile scores its sum for its player and the highest total wins.
"""

from __future__ import annotations

from engine.core.lattice import Cell
from engine.core.verdict import ScoreItem
from engine.tritiles.shapes import hexagon_cells, hexagons_closed
from engine.tritiles.table import Table
from engine.tritiles.tiles import Tile, Values, tile_name, tile_sum


def laid_items(tile: Tile, cell: Cell, topsy_turvy: bool, first: bool) -> list[ScoreItem]:
    """D-V1: with ``topsy_turvy`` a laid tile scores its sum; otherwise laying scores nothing."""
    if not topsy_turvy:
        return []
    what = "first tile of a field" if first else "laid tile"
    return [ScoreItem("tile", tile_sum(tile), "D-V1", (cell,), detail=f"{what} {tile_name(tile)}")]


def hexagon_items(table: Table, cell: Cell, values: Values) -> list[ScoreItem]:
    """D-P3: a note (0 points) that the tile closes a hexagon and earns a new field."""
    points = hexagons_closed(table, cell)
    if not points:
        return []
    return [ScoreItem("hexagon", 0, "D-P3", tuple(hexagon_cells(points)),
                      detail="closes a hexagon: the same player may open a new field next")]


def remaining_items(tiles: tuple[Tile, ...], end_rule: str, topsy_turvy: bool) -> list[ScoreItem]:
    """D-E1/D-E2: the tiles left on a stand count against their holder (not in topsy-turvy)."""
    if topsy_turvy:
        return []
    total = sum(tile_sum(t) for t in tiles)
    return [ScoreItem("remaining", total, end_rule, detail=f"{len(tiles)} tile(s) left on the stand, "
                      "points against")]
