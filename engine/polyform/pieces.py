"""A piece of the Blokus family: a set of cells with every distinct fixed orientation, and the
orientations of a piece set walked for building placement tables."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

#: A set of ``(x, y)`` cells in a game's own coordinates.
Shape = frozenset[tuple[int, int]]


@dataclass(frozen=True)
class Piece:
    """One piece of a colour's set: its number, label, size and distinct fixed orientations."""

    index: int
    label: str
    size: int
    orientations: tuple[Shape, ...]


def oriented_shapes(pieces: Iterable[Piece]) -> Iterator[tuple[Piece, Shape, int, int]]:
    """Every orientation of every piece, with its largest ``x`` and ``y``."""
    for piece in pieces:
        for shape in piece.orientations:
            yield piece, shape, max(c[0] for c in shape), max(c[1] for c in shape)
