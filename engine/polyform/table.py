"""Placement tables: every way each piece fits on an empty board, as bit sets, built once per board.

Two kinds of bit set are kept. Over *cells*: the cells of each placement and the rings around it
(cells along its edges, cells touching it only at a corner). Over *placement numbers*: for each
cell the placements covering it, and for each piece its placements. With those, the placements a
colour may make are one ``&`` of a few big ints (see :class:`engine.polyform.position.Position`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from .bits import bit_indices, mask_from_indices


class Grid(Protocol):
    """What a board offers the shared core: cell count and neighbour bit sets per cell."""

    @property
    def size(self) -> int: ...

    @property
    def edge_masks(self) -> tuple[int, ...]: ...

    @property
    def corner_masks(self) -> tuple[int, ...]: ...


B = TypeVar("B", bound=Grid)


@dataclass(frozen=True)
class PlacementTable(Generic[B]):
    """All placements on one board. Placement ``p`` covers ``masks[p]`` and is of ``pieces[p]``."""

    board: B
    masks: tuple[int, ...]
    pieces: tuple[int, ...]
    #: the number of distinct pieces a colour has
    piece_count: int
    #: cells in each piece
    piece_sizes: tuple[int, ...]
    #: the cell numbers of each placement, ascending
    cells: tuple[tuple[int, ...], ...] = field(repr=False)
    #: cells touching the placement along an edge (outside it)
    edge_rings: tuple[int, ...] = field(repr=False)
    #: cells touching the placement only at a corner (outside it, not along any edge)
    corner_rings: tuple[int, ...] = field(repr=False)
    #: placement numbers by bit set
    index_of_mask: dict[int, int] = field(repr=False)
    #: by_cell_piece[cell][piece]: bit sets of that piece's placements covering that cell
    by_cell_piece: tuple[tuple[tuple[int, ...], ...], ...] = field(repr=False)
    #: covering[cell]: the placement numbers covering that cell, as a bit set
    covering: tuple[int, ...] = field(repr=False)
    #: of_piece[piece]: the placement numbers of that piece, as a bit set
    of_piece: tuple[int, ...] = field(repr=False)

    def __copy__(self) -> PlacementTable[B]:
        return self  # immutable and shared: never copy

    def __deepcopy__(self, memo: dict[int, object]) -> PlacementTable[B]:
        return self

    def __len__(self) -> int:
        return len(self.masks)

    def count_by_piece(self) -> list[int]:
        """Number of placements of each piece on the empty board."""
        out = [0] * self.piece_count
        for p in self.pieces:
            out[p] += 1
        return out

    def conflicting(self, placement: int) -> int:
        """The placement numbers sharing a cell with placement ``placement`` (itself included)."""
        out = 0
        covering = self.covering
        for c in self.cells[placement]:
            out |= covering[c]
        return out

    def covering_any(self, cells: int) -> int:
        """The placement numbers covering at least one cell of the bit set ``cells``."""
        out = 0
        covering = self.covering
        for c in bit_indices(cells):
            out |= covering[c]
        return out


def build_table(board: B, masks: Sequence[int], pieces: Sequence[int], piece_count: int) -> PlacementTable[B]:
    """The table of the given placements (``masks[i]`` is a placement of piece ``pieces[i]``)."""
    edge_rings: list[int] = []
    corner_rings: list[int] = []
    cells_of: list[tuple[int, ...]] = []
    by_cell_piece: list[list[list[int]]] = [[[] for _ in range(piece_count)] for _ in range(board.size)]
    by_cell: list[list[int]] = [[] for _ in range(board.size)]
    by_piece: list[list[int]] = [[] for _ in range(piece_count)]
    edge_masks, corner_masks = board.edge_masks, board.corner_masks
    for i, (m, p) in enumerate(zip(masks, pieces, strict=True)):
        edge = corner = 0
        cells = tuple(bit_indices(m))
        cells_of.append(cells)
        by_piece[p].append(i)
        for c in cells:
            edge |= edge_masks[c]
            corner |= corner_masks[c]
            by_cell_piece[c][p].append(m)
            by_cell[c].append(i)
        edge &= ~m
        edge_rings.append(edge)
        corner_rings.append(corner & ~m & ~edge)
    n = len(masks)
    return PlacementTable(
        board=board, masks=tuple(masks), pieces=tuple(pieces), piece_count=piece_count,
        piece_sizes=tuple(len(cells_of[lst[0]]) if lst else 0 for lst in by_piece), cells=tuple(cells_of),
        edge_rings=tuple(edge_rings), corner_rings=tuple(corner_rings),
        index_of_mask={m: i for i, m in enumerate(masks)},
        by_cell_piece=tuple(tuple(tuple(lst) for lst in row) for row in by_cell_piece),
        covering=tuple(mask_from_indices(lst, n) for lst in by_cell),
        of_piece=tuple(mask_from_indices(lst, n) for lst in by_piece),
    )
