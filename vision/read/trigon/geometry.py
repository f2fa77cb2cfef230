"""Trigon board geometry in board units (B-B1, B-B2, B-B3): cells, names, triangle corners.

Board units: one cell edge = 1, origin at the hexagon's centre, y downward. Cell ``(x, y)`` has
``y`` = 0 on the top row; its name uses ``row = 2·side − y``. The side-8 board (3 players) is the
inner hexagon of the same physical board: its cell ``(x, y)`` lies where side-9 cell ``(x + 2, y + 1)`` is.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from engine.trigon.board import hexagon_cells
from vision.read.trigon.board_geometry import SQRT3, cell_name, cell_vertices_mm, hexagon_corners_mm, is_up

F64 = NDArray[np.float64]
Cell = tuple[int, int]

#: every cell (x, y) of a side-n board, top row first (B-B1)
board_cells = hexagon_cells

__all__ = ["SQRT3", "board_cells", "cell_name", "cell_table", "cell_vertices", "edge_adjacency",
           "hexagon_corners", "is_up"]


def cell_vertices(cell: Cell, side: int) -> F64:
    """The triangle's corners (3×2, board units, y down), apex first."""
    return cell_vertices_mm(cell, side, 1.0)


@lru_cache(maxsize=4)
def cell_table(side: int) -> tuple[tuple[Cell, ...], F64, F64]:
    """``(cells, vertices N×3×2, centres N×2)`` of the side-``side`` board in board units."""
    cells = board_cells(side)
    verts = np.array([cell_vertices(c, side) for c in cells])
    return cells, verts, verts.mean(axis=1)


def hexagon_corners(side: int) -> F64:
    """The playing hexagon's six corners, clockwise from the top-left one (board units, y down)."""
    return hexagon_corners_mm(side, 1.0)


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
