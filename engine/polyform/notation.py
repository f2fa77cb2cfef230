"""Cell names of Blokus SGF files and the canonical order of a move (B-B2, B-B6, K-B1, K-B4).

A cell is named by its column letters (``a`` = column 0, no letter skipped) and its row number
counted from 1 at the bottom; a move lists its cells sorted by row, then column.
"""

from __future__ import annotations

import re

from engine.core.errors import EventFormatError

#: A named cell as (column index x, row number counted from the bottom).
ColRow = tuple[int, int]

_NAME = re.compile(r"([a-z]+)([1-9][0-9]*)")


def column_letters(x: int) -> str:
    """Bijective base-26 column letters: 0 → ``a``, 25 → ``z``, 26 → ``aa``, 34 → ``ai``."""
    if x < 0:
        raise ValueError(f"column {x} is negative")
    out = ""
    n = x + 1
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(ord("a") + rem) + out
    return out


def column_index(letters: str) -> int:
    """The 0-based column of bijective base-26 letters (``a`` → 0, ``ai`` → 34)."""
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - ord("a") + 1)
    return n - 1


def cell_name(x: int, row: int) -> str:
    """The name of column ``x`` (0-based) and ``row`` (1 at the bottom), e.g. ``r15``."""
    return f"{column_letters(x)}{row}"


def parse_cell_name(name: str, noun: str = "cell", example: str = "e10") -> ColRow:
    """``(x, row)`` of a cell name like ``e10`` (case-insensitive); any well-formed name, on a
    board or not, parses. A malformed name is an ``EventFormatError`` (``noun``, ``example``: the
    words its message uses)."""
    if not isinstance(name, str):
        raise EventFormatError(f"a {noun} name must be a string, not {name!r}")
    m = _NAME.fullmatch(name.strip().lower())
    if m is None or len(m.group(1)) > 3 or len(m.group(2)) > 4:
        raise EventFormatError(f"{name!r} is not a {noun} name like {example} (column letters, then row)")
    return column_index(m.group(1)), int(m.group(2))


def canonical_cells(names: list[str] | tuple[str, ...], noun: str = "cell", example: str = "e10") -> tuple[str, ...]:
    """The names normalised (lower case) and sorted by row, then column (B-B6, K-B4).

    A name given twice is an ``EventFormatError``.
    """
    parsed = [(parse_cell_name(n, noun, example), n) for n in names]
    keyed = sorted({(row, x) for (x, row), _ in parsed})
    if len(keyed) != len(parsed):
        seen: set[ColRow] = set()
        for cr, n in parsed:
            if cr in seen:
                raise EventFormatError(f"{noun} {n} is named twice")
            seen.add(cr)
    return tuple(cell_name(x, row) for row, x in keyed)


def split_move(text: str, noun: str = "cell", example: str = "a20,b20,b19") -> list[str]:
    """The cell names of a move string like ``a20,b20,b19`` (no empty items)."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise EventFormatError(f"{text!r} is not a list of {noun}s like {example}")
    return items


def join_move(names: tuple[str, ...] | list[str]) -> str:
    """The move string (B-B6, K-B4) of canonical names."""
    return ",".join(names)
