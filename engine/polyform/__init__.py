"""What Blokus Classic, Duo and Trigon share: placement tables and bit-set positions.

A board is a set of cells numbered 0…N−1 with edge and corner neighbours; a piece is a set of
orientations; a placement is one orientation of one piece at one spot. Everything about which
placements a colour may make is bit-set arithmetic over those numbers (cells) and over placement
numbers, as Pentobi does with its per-colour move tables.
"""

from .bits import bit_indices, mask_of
from .perft import perft
from .position import Position
from .table import Grid, PlacementTable, build_table

__all__ = ["Grid", "PlacementTable", "Position", "bit_indices", "build_table", "mask_of", "perft"]
