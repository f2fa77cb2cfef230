"""Blokus Trigon board geometry (B-B1, B-B2, B-B4): cells, names, triangle corners in mm.

Cells are ``(x, y)`` with ``y`` = 0 at the top row; the name uses ``row = height − y``. The board
is centred on the world origin; the 3-player board (side 8) is the inner hexagon of the same
physical board (its cell ``(x, y)`` sits where side-9 cell ``(x + 2, y + 1)`` is).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from engine.trigon.board import hexagon_cells
from engine.trigon.notation import column_index, column_letters

F64 = NDArray[np.float64]
Cell = tuple[int, int]

SQRT3 = math.sqrt(3.0)

#: every cell (x, y) of a side-n board, top row first (B-B1)
board_cells = hexagon_cells




def cell_name(cell: Cell, side: int) -> str:
    """``(17, 3)`` → ``r15`` on the side-9 board (B-B2)."""
    return f"{column_letters(cell[0])}{2 * side - cell[1]}"


def parse_cell(name: str, side: int) -> Cell:
    i = 0
    while i < len(name) and name[i].isalpha():
        i += 1
    return column_index(name[:i]), 2 * side - int(name[i:])


def is_up(cell: Cell, side: int) -> bool:
    """B-B2: side 9 up iff x + row even; side 8 up iff x + row odd."""
    row = 2 * side - cell[1]
    return (cell[0] + row) % 2 == (0 if side == 9 else 1)


def cell_vertices_mm(cell: Cell, side: int, a: float) -> F64:
    """The triangle's corners (3×2 mm, y down), apex first then clockwise."""
    x, y = cell
    row = 2 * side - y
    cx = 2 * side - 1  # X of the centre in half-edges
    cy = side  # vertex row of the centre

    def v(vx: int, vr: int) -> tuple[float, float]:
        return (vx - cx) * a / 2.0, (cy - vr) * a * SQRT3 / 2.0

    if is_up(cell, side):
        return np.array([v(x, row), v(x + 1, row - 1), v(x - 1, row - 1)])
    return np.array([v(x, row - 1), v(x - 1, row), v(x + 1, row)])


def cell_centre_mm(cell: Cell, side: int, a: float) -> F64:
    return np.asarray(cell_vertices_mm(cell, side, a).mean(axis=0))


def hexagon_corners_mm(side: int, a: float) -> F64:
    """The playing hexagon's six corners, clockwise from the top-left one (y down)."""
    r = side * a
    h = r * SQRT3 / 2
    return np.array([[-r / 2, -h], [r / 2, -h], [r, 0.0], [r / 2, h], [-r / 2, h], [-r, 0.0]])


START_POINTS = {9: ("r15", "r4", "j12", "j7", "z12", "z7"), 8: ("p14", "p3", "h11", "h6", "x11", "x6")}


def edge_neighbours(cell: Cell, side: int) -> list[Cell]:
    x, y = cell
    across = (x, y + 1) if is_up(cell, side) else (x, y - 1)
    cells = set(board_cells(side))
    return [c for c in ((x - 1, y), (x + 1, y), across) if c in cells]


def corner_neighbours(cell: Cell, side: int) -> list[Cell]:
    """The cells sharing exactly one vertex (B-B3)."""
    x, y = cell
    if is_up(cell, side):
        cand = [(x - 2, y), (x + 2, y), (x - 1, y - 1), (x, y - 1), (x + 1, y - 1),
                (x - 2, y + 1), (x - 1, y + 1), (x + 1, y + 1), (x + 2, y + 1)]
    else:
        cand = [(x - 2, y), (x + 2, y), (x - 1, y + 1), (x, y + 1), (x + 1, y + 1),
                (x - 2, y - 1), (x - 1, y - 1), (x + 1, y - 1), (x + 2, y - 1)]
    cells = set(board_cells(side))
    return [c for c in cand if c in cells]


@lru_cache(maxsize=16)
def rotation_map(side: int, sixths: int) -> dict[Cell, Cell]:
    """Where each cell lands when the board turns ``sixths`` × 60° counter-clockwise on screen."""
    cells = board_cells(side)
    cent = np.array([cell_centre_mm(c, side, 1.0) for c in cells])
    ang = -sixths * math.pi / 3
    rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
    moved = cent @ rot.T
    out: dict[Cell, Cell] = {}
    for i, c in enumerate(cells):
        j = int(np.argmin(((cent - moved[i]) ** 2).sum(axis=1)))
        out[c] = cells[j]
    return out
