"""Square Blokus boards: sizes and square names (RULES K-B1)."""

from __future__ import annotations

#: squares per side of each game's board
BOARD_SIZE = {"blokus": 20, "blokus_duo": 14}
#: piece colours each game's reader tells apart
GAME_COLOURS: dict[str, tuple[str, ...]] = {"blokus": ("blue", "yellow", "red", "green"),
                                            "blokus_duo": ("purple", "orange")}
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def board_size(game: str) -> int:
    """Squares per side for ``game``; ``ValueError`` naming the choices for another id."""
    if game not in BOARD_SIZE:
        raise ValueError(f"unknown square Blokus game {game!r}; choose {', '.join(BOARD_SIZE)}")
    return BOARD_SIZE[game]


def square_name(col: int, row_from_top: int, size: int) -> str:
    """K-B1 name of the square in column ``col`` (0 = left) and view row ``row_from_top`` (0 = top):
    column letter, then the row counted from 1 at the bottom (``a20`` is the classic top-left)."""
    return f"{LETTERS[col]}{size - row_from_top}"


def square_position(name: str, size: int) -> tuple[int, int]:
    """``(col, row_from_top)`` of a K-B1 square name; ``ValueError`` if it is not on the board."""
    col = LETTERS.find(name[:1])
    try:
        row = size - int(name[1:])
    except ValueError:
        raise ValueError(f"{name!r} is not a square name") from None
    if not (0 <= col < size and 0 <= row < size):
        raise ValueError(f"{name!r} is not a square of a {size}×{size} board")
    return col, row
