"""The shapes a placement can complete (M-S1): a bridge, and hexagons round its corners."""

from __future__ import annotations

from engine.core.lattice import Cell, Vertex

from .geometry import cells_at_vertex, edge_neighbours, vertices
from .table import Table


def is_bridge(table: Table, cell: Cell) -> bool:
    """Whether a tile on ``cell`` would share exactly one side with the table while the corner opposite
    that side touches another tile (judged before the tile is laid)."""
    sides = [nb for nb in edge_neighbours(cell) if nb in table.cells]
    if len(sides) != 1:
        return False
    shared = set(vertices(cell)) & set(vertices(sides[0]))
    (opposite,) = [v for v in vertices(cell) if v not in shared]
    return opposite in table.corners


def hexagons_closed(table: Table, cell: Cell) -> list[Vertex]:
    """The corner points of ``cell`` whose six surrounding cells a tile on ``cell`` would complete."""
    out: list[Vertex] = []
    for v in vertices(cell):
        if all(c == cell or c in table.cells for c in cells_at_vertex(v)):
            out.append(v)
    return out


def hexagon_cells(points: list[Vertex]) -> list[Cell]:
    """The cells of the hexagons round ``points``, each once, in order."""
    seen: dict[Cell, None] = {}
    for v in points:
        for c in cells_at_vertex(v):
            seen[c] = None
    return list(seen)
