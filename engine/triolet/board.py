"""The Triolet board: 15×15 squares named ``A1``–``O15`` (T-B1) and its special squares (T-B2).

Squares are numbered ``row * 15 + column`` (both 0-based, row 0 = row ``1`` at the top), so a
board is a flat list of 225 entries.
"""

from __future__ import annotations

SIZE = 15
SQUARES = SIZE * SIZE
COLUMNS = "ABCDEFGHIJKLMNO"


def square_index(row: int, col: int) -> int:
    """The index of the square in 0-based ``row`` and ``col``."""
    return row * SIZE + col


def square_name(index: int) -> str:
    """The T-B1 name of a square index, e.g. ``112 -> "H8"``."""
    row, col = divmod(index, SIZE)
    return f"{COLUMNS[col]}{row + 1}"


NAMES: tuple[str, ...] = tuple(square_name(i) for i in range(SQUARES))
INDEX: dict[str, int] = {name: i for i, name in enumerate(NAMES)}


def parse_square(text: str) -> int | None:
    """The index of a square name (case-insensitive), or ``None`` if there is no such square."""
    return INDEX.get(text.strip().upper())


#: H8, the centre: the game's first placement covers it (T-P3); it is a double square (T-B2).
CENTRE = INDEX["H8"]

DOUBLE_SQUARES = frozenset(INDEX[n] for n in ["H8", "D8", "L8", "H4", "H12", "E5", "K5", "E11", "K11"])
TRIPLE_SQUARES = frozenset(INDEX[n] for n in ["E2", "K2", "E14", "K14", "B5", "N5", "B11", "N11"])
REPLAY_SQUARES = frozenset(INDEX[n] for n in ["A8", "O8", "H1", "H15", "B2", "N2", "B14", "N14"])

#: Score factor of each premium square (T-B2, T-S4).
FACTOR: dict[int, int] = {**{i: 2 for i in DOUBLE_SQUARES}, **{i: 3 for i in TRIPLE_SQUARES}}

ROW_OF: tuple[int, ...] = tuple(i // SIZE for i in range(SQUARES))
COL_OF: tuple[int, ...] = tuple(i % SIZE for i in range(SQUARES))


def _neighbours(index: int) -> tuple[int, ...]:
    row, col = divmod(index, SIZE)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < SIZE and 0 <= c < SIZE:
            out.append(square_index(r, c))
    return tuple(out)


#: The orthogonal neighbours of every square (T-P3 adjacency).
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(SQUARES))


def _ray(index: int, dr: int, dc: int) -> tuple[int, ...]:
    row, col = divmod(index, SIZE)
    out = []
    r, c = row + dr, col + dc
    while 0 <= r < SIZE and 0 <= c < SIZE:
        out.append(square_index(r, c))
        r, c = r + dr, c + dc
    return tuple(out)


#: The squares met going from a square toward the board's edge: ``RAYS[horizontal][forward][index]``
#: (horizontal: left/right; vertical: up/down), nearest first.
RAYS: dict[bool, dict[bool, tuple[tuple[int, ...], ...]]] = {
    True: {False: tuple(_ray(i, 0, -1) for i in range(SQUARES)), True: tuple(_ray(i, 0, 1) for i in range(SQUARES))},
    False: {False: tuple(_ray(i, -1, 0) for i in range(SQUARES)), True: tuple(_ray(i, 1, 0) for i in range(SQUARES))},
}


def _windows_through(index: int) -> tuple[tuple[bool, tuple[int, ...]], ...]:
    """Lines of 1–3 squares holding ``index``: ``(horizontal, squares)``; a single square counts once."""
    row, col = divmod(index, SIZE)
    out: list[tuple[bool, tuple[int, ...]]] = [(True, (index,))]
    for horizontal in (True, False):
        step = 1 if horizontal else SIZE
        pos = col if horizontal else row
        for length in (2, 3):
            for offset in range(length):
                first = pos - offset
                if first >= 0 and first + length <= SIZE:
                    start = index - offset * step
                    out.append((horizontal, tuple(start + j * step for j in range(length))))
    return tuple(out)


#: Every line of 1–3 squares through each square (the generator's candidate placements).
WINDOWS_THROUGH: tuple[tuple[tuple[bool, tuple[int, ...]], ...], ...] = tuple(
    _windows_through(i) for i in range(SQUARES))


def kind_of(index: int) -> str | None:
    """``"double"``, ``"triple"``, ``"replay"`` or ``None`` for a plain square."""
    if index in DOUBLE_SQUARES:
        return "double"
    if index in TRIPLE_SQUARES:
        return "triple"
    if index in REPLAY_SQUARES:
        return "replay"
    return None
