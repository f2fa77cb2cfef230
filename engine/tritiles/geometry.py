"""The lattice the triangle-tile games are laid on (M-B2, M-B3): orientation, corners, the origin."""

from __future__ import annotations

from engine.core.lattice import Cell, TriLattice, Vertex

#: M-B2: cell (x, y) points up iff x + y is even.
LATTICE = TriLattice(up_parity=0)

#: M-B3: a field's first tile lies on (0, 0) if it points up, on (1, 0) if it points down.
ORIGIN_UP: Cell = (0, 0)
ORIGIN_DOWN: Cell = (1, 0)
ORIGIN_CELLS: tuple[Cell, Cell] = (ORIGIN_UP, ORIGIN_DOWN)

_UP_CORNERS = ("top", "bottom-right", "bottom-left")
_DOWN_CORNERS = ("bottom", "top-left", "top-right")


def corner_names(cell: Cell) -> tuple[str, str, str]:
    """Names of the cell's corners in M-B3 order (clockwise from the apex)."""
    return _UP_CORNERS if LATTICE.is_up(cell) else _DOWN_CORNERS


def vertices(cell: Cell) -> tuple[Vertex, Vertex, Vertex]:
    """The cell's corners in M-B3 order."""
    return LATTICE.vertices(cell)


def edge_neighbours(cell: Cell) -> tuple[Cell, Cell, Cell]:
    """The three cells sharing a side with ``cell``."""
    return LATTICE.edge_neighbours(cell)


def cells_at_vertex(v: Vertex) -> tuple[Cell, ...]:
    """The six cells of the hexagon around a corner point."""
    return LATTICE.cells_at_vertex(v)


def cell_text(cell: Cell) -> str:
    """``[2, 1]``, the way records write a cell."""
    return f"[{cell[0]}, {cell[1]}]"
