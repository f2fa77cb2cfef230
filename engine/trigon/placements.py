"""Precomputed placement tables: every way each piece fits on an empty board, as bit sets.

A placement is one orientation of one piece at one spot, all triangles on the board (B-L1). The
tables index placements by the cells they cover and by piece, so legal-move generation only
looks at placements through a colour's corner-contact cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from .board import Board, board_of_side
from .pieces import all_pieces


@dataclass(frozen=True)
class PlacementTable:
    """All placements on one board. Placement ``p`` covers ``masks[p]`` and is of ``pieces[p]``."""

    board: Board
    masks: tuple[int, ...]
    pieces: tuple[int, ...]
    #: the cell numbers of each placement, ascending (B-B6 order)
    cells: tuple[tuple[int, ...], ...] = field(repr=False)
    #: cells touching the placement along an edge (outside it)
    edge_rings: tuple[int, ...] = field(repr=False)
    #: cells touching the placement only at a corner (outside it, not along any edge)
    corner_rings: tuple[int, ...] = field(repr=False)
    #: placement numbers by bit set
    index_of_mask: dict[int, int] = field(repr=False)
    #: by_cell_piece[cell][piece]: bit sets of that piece's placements covering that cell
    by_cell_piece: tuple[tuple[tuple[int, ...], ...], ...] = field(repr=False)

    def __copy__(self) -> PlacementTable:
        return self  # immutable and shared: never copy

    def __deepcopy__(self, memo: dict[int, object]) -> PlacementTable:
        return self

    def __len__(self) -> int:
        return len(self.masks)

    def count_by_piece(self) -> list[int]:
        """Number of placements of each piece on the empty board."""
        out = [0] * len(all_pieces())
        for p in self.pieces:
            out[p] += 1
        return out


@cache
def placement_table(side: int) -> PlacementTable:
    """The placement table of the board of edge ``side`` (built once per process)."""
    board = board_of_side(side)
    parity = board.lattice.up_parity
    index_of_xy = board.index_of_xy
    masks: list[int] = []
    pieces: list[int] = []
    for piece in all_pieces():
        for shape in piece.orientations:
            max_x = max(c[0] for c in shape)
            max_y = max(c[1] for c in shape)
            for dy in range(0, board.height - max_y):
                for dx in range(-max_x, board.width):
                    if (dx + dy) % 2 != parity:
                        continue
                    cells = []
                    for x, y in shape:
                        i = index_of_xy.get((x + dx, y + dy))
                        if i is None:
                            break
                        cells.append(i)
                    else:
                        m = 0
                        for i in cells:
                            m |= 1 << i
                        masks.append(m)
                        pieces.append(piece.index)
    edge_rings: list[int] = []
    corner_rings: list[int] = []
    cells_of: list[tuple[int, ...]] = []
    n_pieces = len(all_pieces())
    by_cell_piece: list[list[list[int]]] = [[[] for _ in range(n_pieces)] for _ in range(board.size)]
    for m, p in zip(masks, pieces, strict=True):
        edge = corner = 0
        cells_of.append(tuple(board.cells_of(m)))
        for c in cells_of[-1]:
            edge |= board.edge_masks[c]
            corner |= board.corner_masks[c]
            by_cell_piece[c][p].append(m)
        edge &= ~m
        edge_rings.append(edge)
        corner_rings.append(corner & ~m & ~edge)
    return PlacementTable(
        board=board, masks=tuple(masks), pieces=tuple(pieces), cells=tuple(cells_of), edge_rings=tuple(edge_rings),
        corner_rings=tuple(corner_rings), index_of_mask={m: i for i, m in enumerate(masks)},
        by_cell_piece=tuple(tuple(tuple(lst) for lst in row) for row in by_cell_piece),
    )


@cache
def straight_rings(side: int) -> tuple[int, ...]:
    """Per placement: the cells around each corner point where it covers 3 or more consecutive
    triangles (a straight side or more), outside the placement (B-L5)."""
    table = placement_table(side)
    board = table.board
    lat = board.lattice
    # every corner point once: its six cells (cyclic order, None off the board) and their bit set
    vertex_ids: dict[tuple[int, int], int] = {}
    around: list[tuple[int | None, ...]] = []
    around_mask: list[int] = []
    cell_vertices: list[tuple[int, ...]] = []
    for xy in board.xy:
        ids = []
        for v in lat.vertices(xy):
            if v not in vertex_ids:
                vertex_ids[v] = len(around)
                cells = tuple(board.index_of_xy.get(c) for c in lat.cells_at_vertex(v))
                around.append(cells)
                around_mask.append(board.mask_of([c for c in cells if c is not None]))
            ids.append(vertex_ids[v])
        cell_vertices.append(tuple(ids))
    out: list[int] = []
    for m in table.masks:
        ring = 0
        for k in {k for c in board.cells_of(m) for k in cell_vertices[c]}:
            if bin(around_mask[k] & m).count("1") < 3:
                continue
            covered = [i is not None and (m >> i) & 1 == 1 for i in around[k]]
            if _longest_cyclic_run(covered) >= 3:
                ring |= around_mask[k] & ~m
        out.append(ring)
    return tuple(out)


def _longest_cyclic_run(flags: list[bool]) -> int:
    if all(flags):
        return len(flags)
    best = run = 0
    for f in flags + flags:
        run = run + 1 if f else 0
        best = max(best, run)
    return best
