"""One field of laid tiles: which cell holds which numbers, and the number shown at each corner point."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.lattice import Cell, Vertex

from .geometry import cells_at_vertex, edge_neighbours, vertices
from .tiles import Tile, Values, tile_of


@dataclass
class Table:
    """A field: tiles by cell (values in M-B3 order), the number at every covered corner point, and
    the open cells (empty, sharing a side with a tile) where the next tile may go."""

    cells: dict[Cell, Values] = field(default_factory=dict)
    corners: dict[Vertex, int] = field(default_factory=dict)
    open_cells: set[Cell] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.cells)

    def is_empty(self) -> bool:
        return not self.cells

    def place(self, cell: Cell, values: Values) -> None:
        """Lay a tile (the caller has checked it is legal)."""
        self.cells[cell] = values
        for v, n in zip(vertices(cell), values, strict=True):
            self.corners[v] = n
        self.open_cells.discard(cell)
        for nb in edge_neighbours(cell):
            if nb not in self.cells:
                self.open_cells.add(nb)

    def tile_at(self, cell: Cell) -> Tile | None:
        """The tile lying on ``cell``, if any."""
        values = self.cells.get(cell)
        return None if values is None else tile_of(values)

    def occupied_edge_neighbours(self, cell: Cell) -> list[Cell]:
        """The laid tiles sharing a side with ``cell``."""
        return [nb for nb in edge_neighbours(cell) if nb in self.cells]

    def tiles_at_corner(self, v: Vertex) -> list[Cell]:
        """The laid tiles that have ``v`` as a corner."""
        return [c for c in cells_at_vertex(v) if c in self.cells]

    def required(self, cell: Cell) -> tuple[int | None, int | None, int | None]:
        """The number each corner of ``cell`` must show (M-P1), ``None`` where no tile touches it."""
        a, b, c = vertices(cell)
        get = self.corners.get
        return get(a), get(b), get(c)

    def copy(self) -> Table:
        return Table(dict(self.cells), dict(self.corners), set(self.open_cells))
