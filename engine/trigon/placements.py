"""Precomputed placement tables: every way each piece fits on an empty Trigon board, as bit sets.

A placement is one orientation of one piece at one spot, all triangles on the board (B-L1). The
table itself is the shared one of :mod:`engine.polyform.table` (per-cell and per-piece placement
sets); this module lists the placements of the hexagonal boards and the B-L5 rings.
"""

from __future__ import annotations

from functools import cache

from engine.polyform.bits import mask_of
from engine.polyform.pieces import oriented_shapes
from engine.polyform.table import PlacementTable, build_table

from .board import Board, board_of_side
from .pieces import PIECE_COUNT, all_pieces

__all__ = ["PlacementTable", "placement_table", "straight_rings"]


@cache
def placement_table(side: int) -> PlacementTable[Board]:
    """The placement table of the board of edge ``side`` (built once per process)."""
    board = board_of_side(side)
    parity = board.lattice.up_parity
    index_of_xy = board.index_of_xy
    masks: list[int] = []
    pieces: list[int] = []
    for piece, shape, max_x, max_y in oriented_shapes(all_pieces()):
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
                    masks.append(mask_of(cells))
                    pieces.append(piece.index)
    return build_table(board, masks, pieces, PIECE_COUNT)


@cache
def straight_rings(side: int) -> tuple[int, ...]:
    """Per placement: the cells around each corner point where it covers 3 or more consecutive
    triangles (a straight side or more), outside the placement (B-L5)."""
    table = placement_table(side)
    board = board_of_side(side)
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
