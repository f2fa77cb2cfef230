"""The 22 Trigon pieces (B-B5): one canonical shape each, every orientation computed.

Shapes are sets of lattice cells ``(x, y)`` on the lattice where a cell points up iff ``x + y`` is
even (``TriLattice(0)``). Orientations come from rotating by 60° and reflecting the triangle
corners on the lattice, then translating back to a normal position; distinct results are kept.
"""

from __future__ import annotations

from functools import cache

from engine.core.lattice import TriLattice
from engine.polyform.pieces import Piece, Shape

_LATTICE = TriLattice(0)

#: (label, cells) of each piece in one orientation, largest first (B-B5 order).
_CANONICAL: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = (
    ("I6", ((1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0))),
    ("L6", ((0, 0), (0, 1), (1, 0), (2, 0), (3, 0), (4, 0))),
    ("V", ((1, 1), (2, 0), (2, 1), (3, 0), (4, 0), (5, 0))),
    ("S", ((0, 1), (1, 1), (2, 0), (2, 1), (3, 0), (4, 0))),
    ("P6", ((1, 1), (2, 0), (2, 1), (3, 1), (4, 1), (5, 1))),
    ("F", ((1, 1), (2, 0), (2, 1), (3, 0), (3, 1), (4, 0))),
    ("W", ((0, 1), (1, 1), (2, 0), (2, 1), (3, 1), (4, 1))),
    ("A6", ((0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (3, 1))),
    ("G", ((1, 1), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1))),
    ("Y", ((1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (4, 0))),
    ("X", ((0, 1), (1, 1), (1, 2), (2, 0), (2, 1), (3, 1))),
    ("O", ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1))),
    ("I5", ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))),
    ("L5", ((1, 1), (2, 0), (2, 1), (3, 0), (4, 0))),
    ("C5", ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0))),
    ("P5", ((0, 1), (1, 1), (2, 0), (2, 1), (3, 1))),
    ("I4", ((1, 0), (2, 0), (3, 0), (4, 0))),
    ("C4", ((0, 0), (0, 1), (1, 0), (2, 0))),
    ("A4", ((1, 1), (2, 0), (2, 1), (3, 1))),
    ("I3", ((0, 0), (1, 0), (2, 0))),
    ("2", ((1, 0), (2, 0))),
    ("1", ((0, 0),)),
)


def normalise(cells: Shape | set[tuple[int, int]], up_parity: int = 0) -> Shape:
    """The shape translated so its top row is ``y = 0`` and its leftmost column is 0 or 1, on the
    ``TriLattice(0)`` lattice (``up_parity`` says which lattice ``cells`` are on)."""
    min_x = min(c[0] for c in cells)
    min_y = min(c[1] for c in cells)
    dx, dy = -min_x, -min_y
    if (dx + dy + up_parity) % 2:
        dx += 1
    return frozenset((x + dx, y + dy) for x, y in cells)


def _to_axial(v: tuple[int, int]) -> tuple[int, int]:
    """A lattice vertex as axial coordinates (unit vectors 0° and 60° below the x axis)."""
    vx, vy = v
    return (vx - vy) // 2, vy


def _from_axial(q: int, r: int) -> tuple[int, int]:
    return 2 * q + r, r


def _cell_of_vertices(vs: list[tuple[int, int]]) -> tuple[int, int]:
    """The ``TriLattice(0)`` cell whose corners are ``vs``."""
    ys = sorted(v[1] for v in vs)
    if ys[1] == ys[2]:  # two corners at the bottom: an up cell, apex on top
        apex = min(vs, key=lambda v: v[1])
        return apex
    apex = max(vs, key=lambda v: v[1])
    return apex[0], apex[1] - 1


def _transform(shape: Shape, turns: int, mirror: bool) -> Shape:
    """The shape rotated by ``turns`` × 60° (then mirrored left-right if ``mirror``), normalised."""
    out = set()
    for cell in shape:
        vs = []
        for v in _LATTICE.vertices(cell):
            q, r = _to_axial(v)
            for _ in range(turns):
                q, r = -r, q + r
            if mirror:
                q, r = -q - r, r
            vs.append(_from_axial(q, r))
        out.add(_cell_of_vertices(vs))  # rotated vertices stay on the TriLattice(0) vertex grid
    return normalise(out)


def orientations(shape: Shape) -> tuple[Shape, ...]:
    """Every distinct fixed orientation of a shape (rotations by 60° and reflections)."""
    seen: dict[Shape, None] = {}
    for mirror in (False, True):
        for turns in range(6):
            seen.setdefault(_transform(shape, turns, mirror))
    return tuple(sorted(seen, key=lambda s: sorted(s)))


@cache
def all_pieces() -> tuple[Piece, ...]:
    """The 22 pieces of one colour, largest first."""
    out = []
    for i, (label, cells) in enumerate(_CANONICAL):
        shape = normalise(frozenset(cells))
        out.append(Piece(index=i, label=label, size=len(cells), orientations=orientations(shape)))
    return tuple(out)


PIECE_COUNT = len(_CANONICAL)
#: Triangles per colour (110).
TRIANGLES_PER_COLOUR = sum(len(c) for _, c in _CANONICAL)
#: The number of the single triangle (B-S1 bonus).
MONOMINO = next(i for i, (label, _) in enumerate(_CANONICAL) if label == "1")
