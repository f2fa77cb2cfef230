"""The Triolet tile set (T-B3) and the bag arithmetic of the set-up (T-B4, T-E2)."""

from __future__ import annotations

#: How many tiles show each value 0–15 (T-B3); the count is printed on the tile.
VALUE_COUNTS: tuple[int, ...] = (9, 9, 8, 8, 7, 8, 6, 6, 4, 4, 3, 3, 2, 2, 1, 1)
WILDS = 2
TOTAL_TILES = sum(VALUE_COUNTS) + WILDS  # 83
UNSEEN = 3
RACK_SIZE = 3
MAX_VALUE = 15
#: The token naming a wild in a rack (``--rack 3,5,W``).
WILD = "W"

assert TOTAL_TILES == 83


def initial_bag(players: int) -> int:
    """Tiles in the bag once 3 are set aside and every player has drawn 3 (T-B4)."""
    return TOTAL_TILES - UNSEEN - RACK_SIZE * players


def full_set() -> list[int | str]:
    """Every tile of the game: each value as often as T-B3 says, and the wilds as ``"W"``."""
    tiles: list[int | str] = [v for v, n in enumerate(VALUE_COUNTS) for _ in range(n)]
    tiles.extend([WILD] * WILDS)
    return tiles


def point_value(value: int, wild: bool) -> int:
    """What a tile scores in a pair or at the end: its value, 0 for a wild (T-S2, T-E3)."""
    return 0 if wild else value
