"""Triangle names of Blokus SGF files (B-B2) and the canonical order of a move (B-B6).

The naming scheme is the one every Blokus board shares (:mod:`engine.polyform.notation`); this
module fixes the word used in messages to "triangle".
"""

from __future__ import annotations

from engine.polyform.notation import ColRow, cell_name, column_index, column_letters, join_move
from engine.polyform.notation import canonical_cells as _canonical_cells
from engine.polyform.notation import parse_cell_name as _parse_cell_name
from engine.polyform.notation import split_move as _split_move

__all__ = ["ColRow", "canonical_cells", "cell_name", "column_index", "column_letters", "join_move",
           "parse_cell_name", "split_move"]

_NOUN = "triangle"
_EXAMPLE = "q15,r15,p16"


def parse_cell_name(name: str) -> ColRow:
    """``(x, row)`` of a triangle name like ``r15`` (case-insensitive)."""
    return _parse_cell_name(name, _NOUN, "r15")


def canonical_cells(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The names normalised (lower case) and sorted by row, then column (B-B6)."""
    return _canonical_cells(names, _NOUN, "r15")


def split_move(text: str) -> list[str]:
    """The triangle names of a move string ``q15,r15,p16`` (no empty items)."""
    return _split_move(text, _NOUN, _EXAMPLE)
