"""The 21 Blokus pieces (K-B3): one shape each, every fixed orientation computed, every placement.

Shapes are sets of ``(x, y)`` squares with ``y`` growing upward (rows). An orientation is one of
the 8 rotations and reflections, moved so its lowest column and row are 0; distinct ones are kept.
"""

from __future__ import annotations

from functools import cache

from engine.polyform.bits import mask_of
from engine.polyform.pieces import Piece, Shape, oriented_shapes
from engine.polyform.table import PlacementTable, build_table

from .board import SquareBoard, square_board


def _shape(text: str) -> tuple[tuple[int, int], ...]:
    """Squares of a placement written at the lower-left corner, e.g. ``a1,b1,a2``."""
    return tuple((ord(n[0]) - ord("a"), int(n[1:]) - 1) for n in text.split(","))


#: (label, squares) of each piece, largest first (the labels Pentobi shows; K-B3).
_CANONICAL: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = tuple((label, _shape(cells)) for label, cells in (
    ("I5", "a1,b1,c1,d1,e1"), ("L5", "a1,b1,a2,a3,a4"), ("Y", "a1,a2,a3,b3,a4"), ("N", "a1,a2,b2,b3,b4"),
    ("V5", "a1,b1,c1,a2,a3"), ("U", "a1,b1,c1,a2,c2"), ("T5", "b1,b2,a3,b3,c3"), ("Z5", "b1,c1,b2,a3,b3"),
    ("W", "b1,c1,a2,b2,a3"), ("P", "a1,a2,b2,a3,b3"), ("F", "b1,a2,b2,b3,c3"), ("X", "b1,a2,b2,c2,b3"),
    ("I4", "a1,b1,c1,d1"), ("L4", "a1,b1,a2,a3"), ("T4", "a1,b1,c1,b2"), ("Z4", "a1,b1,b2,c2"),
    ("O", "a1,b1,a2,b2"), ("I3", "a1,b1,c1"), ("V3", "a1,b1,a2"), ("2", "a1,b1"), ("1", "a1"),
))


def normalise(cells: Shape | set[tuple[int, int]]) -> Shape:
    """The shape moved so its lowest column and row are 0."""
    min_x = min(c[0] for c in cells)
    min_y = min(c[1] for c in cells)
    return frozenset((x - min_x, y - min_y) for x, y in cells)


def orientations(shape: Shape) -> tuple[Shape, ...]:
    """Every distinct fixed orientation of a shape (4 rotations, each also turned over)."""
    seen: dict[Shape, None] = {}
    for mirror in (False, True):
        cells = {(-x, y) for x, y in shape} if mirror else set(shape)
        for _ in range(4):
            cells = {(-y, x) for x, y in cells}
            seen.setdefault(normalise(cells))
    return tuple(sorted(seen, key=lambda s: sorted(s)))


@cache
def all_pieces() -> tuple[Piece, ...]:
    """The 21 pieces of one colour, largest first."""
    return tuple(Piece(index=i, label=label, size=len(cells), orientations=orientations(normalise(frozenset(cells))))
                 for i, (label, cells) in enumerate(_CANONICAL))


PIECE_COUNT = len(_CANONICAL)
#: Squares per colour (89).
SQUARES_PER_COLOUR = sum(len(c) for _, c in _CANONICAL)
#: The number of the single square (K-S1 bonus).
MONOMINO = next(i for i, (label, _) in enumerate(_CANONICAL) if label == "1")


@cache
def placement_table(side: int) -> PlacementTable[SquareBoard]:
    """Every placement of every piece on the empty board of ``side`` squares (built once per process)."""
    board = square_board(side)
    masks: list[int] = []
    pieces: list[int] = []
    for piece, shape, max_x, max_y in oriented_shapes(all_pieces()):
        for dy in range(side - max_y):
            for dx in range(side - max_x):
                masks.append(mask_of((y + dy) * side + x + dx for x, y in shape))
                pieces.append(piece.index)
    return build_table(board, masks, pieces, PIECE_COUNT)
