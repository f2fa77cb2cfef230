"""The square Blokus boards (K-B1, K-B2): cells, names, neighbours.

Cells are numbered ``(row − 1) · width + x`` (row 1 at the bottom, column ``x`` from 0 at the
left), so sorting cell numbers sorts a move canonically (K-B4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from engine.polyform.bits import bit_indices, mask_of
from engine.polyform.notation import cell_name

#: Board sizes (squares per side) that exist: classic and Duo.
SIDES = (20, 14)


@dataclass(frozen=True)
class SquareBoard:
    """A ``side`` × ``side`` board of squares."""

    side: int
    names: tuple[str, ...]
    index_of_name: dict[str, int] = field(repr=False)
    edge_neighbours: tuple[tuple[int, ...], ...] = field(repr=False)
    edge_masks: tuple[int, ...] = field(repr=False)
    corner_masks: tuple[int, ...] = field(repr=False)
    full_mask: int = field(repr=False)

    def __copy__(self) -> SquareBoard:
        return self  # immutable and shared: never copy

    def __deepcopy__(self, memo: dict[int, object]) -> SquareBoard:
        return self

    @property
    def size(self) -> int:
        """Number of squares (400 or 196)."""
        return len(self.names)

    @property
    def width(self) -> int:
        return self.side

    @property
    def height(self) -> int:
        return self.side

    def index(self, x: int, row: int) -> int | None:
        """The cell number of column ``x`` (0-based) and ``row`` (1 at the bottom), if on the board."""
        if 0 <= x < self.side and 1 <= row <= self.side:
            return (row - 1) * self.side + x
        return None

    def colrow(self, cell: int) -> tuple[int, int]:
        """``(x, row)`` of a cell number."""
        row, x = divmod(cell, self.side)
        return x, row + 1

    def mask_of(self, cells: list[int] | tuple[int, ...] | set[int]) -> int:
        return mask_of(cells)

    def cells_of(self, mask: int) -> list[int]:
        """The cell numbers in a bit set, ascending (K-B4 order)."""
        return bit_indices(mask)

    def names_of(self, mask: int) -> tuple[str, ...]:
        """The canonical names of the cells in a bit set."""
        return tuple(self.names[c] for c in bit_indices(mask))


@cache
def square_board(side: int) -> SquareBoard:
    """The board of ``side`` squares per side (20: classic, 14: Duo)."""
    if side not in SIDES:
        raise ValueError(f"no Blokus board of side {side}")
    cells = [(x, row) for row in range(1, side + 1) for x in range(side)]
    names = tuple(cell_name(x, row) for x, row in cells)

    def at(x: int, row: int) -> int | None:
        return (row - 1) * side + x if 0 <= x < side and 1 <= row <= side else None

    edges: list[tuple[int, ...]] = []
    corners: list[tuple[int, ...]] = []
    for x, row in cells:
        e = (at(x - 1, row), at(x + 1, row), at(x, row - 1), at(x, row + 1))
        k = (at(x - 1, row - 1), at(x + 1, row - 1), at(x - 1, row + 1), at(x + 1, row + 1))
        edges.append(tuple(sorted(i for i in e if i is not None)))
        corners.append(tuple(sorted(i for i in k if i is not None)))
    return SquareBoard(
        side=side, names=names, index_of_name={n: i for i, n in enumerate(names)},
        edge_neighbours=tuple(edges), edge_masks=tuple(mask_of(e) for e in edges),
        corner_masks=tuple(mask_of(c) for c in corners), full_mask=(1 << len(names)) - 1,
    )
