"""The 56 triangular tiles (RULES.md M-B1): names, sums, and the rotations a tile may be laid in."""

from __future__ import annotations

from itertools import combinations_with_replacement

from engine.core.errors import EventFormatError

#: A tile as its three numbers in ascending (printed clockwise) order, e.g. ``(0, 1, 2)``.
Tile = tuple[int, int, int]
#: Three corner numbers in M-B3 order (clockwise from the apex of the cell they lie on).
Values = tuple[int, int, int]

#: Lowest and highest number printed on a corner.
LOW, HIGH = 0, 5

#: Every tile of the set, in ascending order (M-B1).
ALL_TILES: tuple[Tile, ...] = tuple(combinations_with_replacement(range(LOW, HIGH + 1), 3))


def tile_name(tile: Tile) -> str:
    """``"0-1-2"``."""
    return f"{tile[0]}-{tile[1]}-{tile[2]}"


def tile_sum(tile: Tile | Values) -> int:
    """The sum of the three numbers (the tile's points)."""
    return tile[0] + tile[1] + tile[2]


def is_triple(tile: Tile) -> bool:
    """Whether all three numbers are equal (M-P2)."""
    return tile[0] == tile[1] == tile[2]


def tile_rank(tile: Tile) -> tuple[int, int, int, int]:
    """Order of "highest tile" (M-P2, M-E3): by sum, then by the numbers from the largest down."""
    return (tile_sum(tile), tile[2], tile[1], tile[0])


def rotations(tile: Tile) -> tuple[Values, ...]:
    """The distinct ways the tile can lie, as M-B3 values: the rotations of its clockwise order."""
    a, b, c = tile
    out: dict[Values, None] = {(a, b, c): None, (b, c, a): None, (c, a, b): None}
    return tuple(out)


def tile_of(values: Values) -> Tile | None:
    """The tile showing ``values`` clockwise, or ``None`` if none does (it would be turned over)."""
    a, b, c = values
    for rot in ((a, b, c), (b, c, a), (c, a, b)):
        if rot[0] <= rot[1] <= rot[2]:
            return rot
    return None


def parse_tile_name(text: str) -> Tile:
    """A tile from its name (``"0-1-2"``; the numbers may come in any order, ``"2-0-1"``)."""
    parts = text.strip().split("-")
    if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
        raise EventFormatError(f'{text!r} is not a tile name; write three numbers 0-5 like "0-1-2"')
    nums = sorted(int(p) for p in parts)
    if nums[0] < LOW or nums[2] > HIGH:
        raise EventFormatError(f"{text!r} is not a tile: the numbers run from {LOW} to {HIGH}")
    return (nums[0], nums[1], nums[2])
