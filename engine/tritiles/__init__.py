"""Triangular tiles numbered 0-5 at the corners, laid on a triangular lattice: the part Triominos and
Trio Domino share (tiles, fields, matching, hexagons and bridges, hands, the turn flow)."""

from .events import TilePlace
from .geometry import LATTICE, ORIGIN_CELLS
from .hand import can_place, parse_hand
from .state import TileGameState
from .table import Table
from .tiles import ALL_TILES, Tile, Values, parse_tile_name, rotations, tile_name, tile_of, tile_sum

__all__ = [
    "ALL_TILES", "LATTICE", "ORIGIN_CELLS", "Table", "Tile", "TileGameState", "TilePlace", "Values",
    "can_place", "parse_hand", "parse_tile_name", "rotations", "tile_name", "tile_of", "tile_sum",
]
