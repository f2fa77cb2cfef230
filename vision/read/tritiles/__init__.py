"""Triominos / Trio Domino picture reader (INTERFACES §3).

Stages, one file each: ``finder`` (the finder nets over a short pyramid: tiles of any size),
``detect`` (tile faces → lattice → tile triangles), ``values`` (corner values: numerals or pips,
M-B1), ``pips`` (pips of any colour counted per corner), ``tile_lesson`` (``calibrate tiles``:
an edition learned from one picture), ``lattice`` (cells and fields, M-B2/M-B3/D-B1), ``reading``
(result + JSON), ``reader`` (``read_triangles``, which the registry in ``vision.read`` calls). No
tile found → ``TilesNotFoundError``, a subclass of ``vision.locate.BoardNotLocatedError``.
"""

from __future__ import annotations

from vision.read.tritiles.lattice import Placed, assemble, clockwise
from vision.read.tritiles.reader import TilesNotFoundError, read_triangles, tiles_from_corners
from vision.read.tritiles.reading import TileCorner, TileReading, TrianglesReading

__all__ = [
    "Placed", "TileCorner", "TileReading", "TilesNotFoundError", "TrianglesReading", "assemble", "clockwise",
    "read_triangles", "tiles_from_corners"
]
