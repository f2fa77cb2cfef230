"""The two hexagonal Trigon boards (B-B1..B-B4): cells, names, neighbours, starting points.

Cells are numbered 0…N−1 in B-B6 order (row from the bottom, then column), so sorting cell
numbers sorts a move canonically. Internally a cell also has lattice coordinates ``(x, y)`` of
:class:`engine.core.lattice.TriLattice` with ``y = height − row`` (0 at the top).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from engine.core.lattice import TriLattice

from .notation import cell_name

#: Starting points per board side (B-B4).
STARTING_POINTS: dict[int, tuple[str, ...]] = {
    9: ("r15", "r4", "j12", "j7", "z12", "z7"),
    8: ("p14", "p3", "h11", "h6", "x11", "x6"),
}


@dataclass(frozen=True)
class Board:
    """A hexagon of ``side`` triangles per edge: 2·side rows, 4·side − 1 columns."""

    side: int
    width: int
    height: int
    lattice: TriLattice
    #: (x, row) of each cell number
    colrow: tuple[tuple[int, int], ...]
    #: lattice (x, y) of each cell number
    xy: tuple[tuple[int, int], ...]
    names: tuple[str, ...]
    index_of_name: dict[str, int] = field(repr=False)
    index_of_xy: dict[tuple[int, int], int] = field(repr=False)
    edge_neighbours: tuple[tuple[int, ...], ...] = field(repr=False)
    corner_neighbours: tuple[tuple[int, ...], ...] = field(repr=False)
    edge_masks: tuple[int, ...] = field(repr=False)
    corner_masks: tuple[int, ...] = field(repr=False)
    starts: tuple[int, ...]
    start_mask: int
    full_mask: int

    def __copy__(self) -> Board:
        return self  # immutable and shared: never copy

    def __deepcopy__(self, memo: dict[int, object]) -> Board:
        return self

    @property
    def size(self) -> int:
        """Number of triangles (486 or 384)."""
        return len(self.names)

    def first_column(self, row: int) -> int:
        """The first column index of ``row`` (1 at the bottom) (B-B1)."""
        return self.side - 1 - min(row - 1, 2 * self.side - row)

    def is_up(self, cell: int) -> bool:
        """Whether the triangle points up (B-B2)."""
        return self.lattice.is_up(self.xy[cell])

    def mask_of(self, cells: list[int] | tuple[int, ...] | set[int]) -> int:
        """The bit set of cell numbers."""
        m = 0
        for c in cells:
            m |= 1 << c
        return m

    def cells_of(self, mask: int) -> list[int]:
        """The cell numbers in a bit set, ascending (B-B6 order)."""
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out

    def names_of(self, mask: int) -> tuple[str, ...]:
        """The canonical names of the cells in a bit set."""
        return tuple(self.names[c] for c in self.cells_of(mask))

    def opposite(self, cell: int) -> int:
        """The cell point-reflected through the board's centre (B-L6)."""
        x, row = self.colrow[cell]
        return self.index_of_colrow(self.width - 1 - x, self.height + 1 - row)

    def index_of_colrow(self, x: int, row: int) -> int:
        return self.index_of_xy[(x, self.height - row)]


@cache
def board_of_side(side: int) -> Board:
    """The hexagonal board of edge ``side`` (9: the full board, 8: the 3-player board)."""
    if side not in STARTING_POINTS:
        raise ValueError(f"no Trigon board of side {side}")
    width, height = 4 * side - 1, 2 * side
    lattice = TriLattice(up_parity=(side + 1) % 2)
    colrow: list[tuple[int, int]] = []
    for row in range(1, height + 1):
        first = side - 1 - min(row - 1, 2 * side - row)
        colrow.extend((x, row) for x in range(first, width - first))
    xy = [(x, height - row) for x, row in colrow]
    names = [cell_name(x, row) for x, row in colrow]
    index_of_xy = {c: i for i, c in enumerate(xy)}
    edges: list[tuple[int, ...]] = []
    corners: list[tuple[int, ...]] = []
    for c in xy:
        edges.append(tuple(sorted(index_of_xy[n] for n in lattice.edge_neighbours(c) if n in index_of_xy)))
        corners.append(tuple(sorted(index_of_xy[n] for n in lattice.corner_neighbours(c) if n in index_of_xy)))

    def mask(cells: tuple[int, ...]) -> int:
        m = 0
        for i in cells:
            m |= 1 << i
        return m

    index_of_name = {n: i for i, n in enumerate(names)}
    starts = tuple(index_of_name[n] for n in STARTING_POINTS[side])
    return Board(
        side=side, width=width, height=height, lattice=lattice, colrow=tuple(colrow), xy=tuple(xy),
        names=tuple(names), index_of_name=index_of_name, index_of_xy=index_of_xy,
        edge_neighbours=tuple(edges), corner_neighbours=tuple(corners),
        edge_masks=tuple(mask(e) for e in edges), corner_masks=tuple(mask(c) for c in corners),
        starts=starts, start_mask=mask(starts), full_mask=(1 << len(names)) - 1,
    )


@cache
def hexagon_cells(side: int) -> tuple[tuple[int, int], ...]:
    """Every cell ``(x, y)`` of the side-``side`` hexagon (B-B1), row by row from the top (y = 0)."""
    rows = 2 * side
    out: list[tuple[int, int]] = []
    for y in range(rows):
        first = side - 1 - min(y, rows - 1 - y)
        out.extend((x, y) for x in range(first, 4 * side - 1 - first))
    return tuple(out)
