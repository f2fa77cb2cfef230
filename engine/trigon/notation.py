"""Triangle names of Blokus SGF files (B-B2) and the canonical order of a move (B-B6)."""

from __future__ import annotations

import re

from engine.core.errors import EventFormatError

#: A named triangle as (column index x, row number counted from the bottom).
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


def parse_cell_name(name: str) -> ColRow:
    """``(x, row)`` of a triangle name like ``r15`` (case-insensitive); any well-formed name,
    on a board or not, parses. A malformed name is an ``EventFormatError``."""
    if not isinstance(name, str):
        raise EventFormatError(f"a triangle name must be a string, not {name!r}")
    m = _NAME.fullmatch(name.strip().lower())
    if m is None or len(m.group(1)) > 3 or len(m.group(2)) > 4:
        raise EventFormatError(f"{name!r} is not a triangle name like r15 (column letters, then row)")
    return column_index(m.group(1)), int(m.group(2))


def canonical_cells(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The names normalised (lower case) and sorted by row, then column (B-B6).

    A name given twice is an ``EventFormatError``.
    """
    parsed = [(parse_cell_name(n), n) for n in names]
    keyed = sorted({(row, x) for (x, row), _ in parsed})
    if len(keyed) != len(parsed):
        seen: set[ColRow] = set()
        for cr, n in parsed:
            if cr in seen:
                raise EventFormatError(f"triangle {n} is named twice")
            seen.add(cr)
    return tuple(cell_name(x, row) for row, x in keyed)


def split_move(text: str) -> list[str]:
    """The triangle names of a move string ``q15,r15,p16`` (no empty items)."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise EventFormatError(f"{text!r} is not a list of triangles like q15,r15,p16")
    return items


def join_move(names: tuple[str, ...] | list[str]) -> str:
    """The B-B6 move string of canonical names."""
    return ",".join(names)
