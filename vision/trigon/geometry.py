"""Trigon board geometry in board units (B-B1, B-B2, B-B3): cells, names, triangle corners.

Board units: one cell edge = 1, origin at the hexagon's centre, y downward. Cell ``(x, y)`` has
``y`` = 0 on the top row; its name uses ``row = 2·side − y``. The side-8 board (3 players) is the
inner hexagon of the same physical board: its cell ``(x, y)`` lies where side-9 cell ``(x + 2, y + 1)`` is.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from engine.trigon.board import hexagon_cells
from engine.trigon.notation import column_letters

F64 = NDArray[np.float64]
Cell = tuple[int, int]
SQRT3 = math.sqrt(3.0)

#: every cell (x, y) of a side-n board, top row first (B-B1)
board_cells = hexagon_cells




def cell_name(cell: Cell, side: int) -> str:
    """``(17, 3)`` → ``r15`` on the side-9 board (B-B2)."""
    return f"{column_letters(cell[0])}{2 * side - cell[1]}"


def is_up(cell: Cell, side: int) -> bool:
    """B-B2: on side 9 a cell points up iff x + row is even; on side 8 iff it is odd."""
    row = 2 * side - cell[1]
    return (cell[0] + row) % 2 == (0 if side == 9 else 1)


def cell_vertices(cell: Cell, side: int) -> F64:
    """The triangle's corners (3×2, board units, y down), apex first."""
    x, y = cell
    row = 2 * side - y
    cx, cy = 2 * side - 1, side

    def v(vx: int, vr: int) -> tuple[float, float]:
        return (vx - cx) / 2.0, (cy - vr) * SQRT3 / 2.0

    if is_up(cell, side):
        return np.array([v(x, row), v(x + 1, row - 1), v(x - 1, row - 1)])
    return np.array([v(x, row - 1), v(x - 1, row), v(x + 1, row)])


@lru_cache(maxsize=4)
def cell_table(side: int) -> tuple[tuple[Cell, ...], F64, F64]:
    """``(cells, vertices N×3×2, centres N×2)`` of the side-``side`` board in board units."""
    cells = board_cells(side)
    verts = np.array([cell_vertices(c, side) for c in cells])
    return cells, verts, verts.mean(axis=1)


def hexagon_corners(side: int) -> F64:
    """The playing hexagon's six corners, clockwise from the top-left one (board units, y down)."""
    r = float(side)
    h = r * SQRT3 / 2
    return np.array([[-r / 2, -h], [r / 2, -h], [r, 0.0], [r / 2, h], [-r / 2, h], [-r, 0.0]])


@lru_cache(maxsize=4)
def edge_adjacency(side: int) -> tuple[tuple[int, ...], ...]:
    """For each cell index of ``board_cells(side)``, the indices of its edge neighbours (B-B3)."""
    cells = board_cells(side)
    index = {c: i for i, c in enumerate(cells)}
    out = []
    for c in cells:
        x, y = c
        across = (x, y + 1) if is_up(c, side) else (x, y - 1)
        out.append(tuple(index[n] for n in ((x - 1, y), (x + 1, y), across) if n in index))
    return tuple(out)
