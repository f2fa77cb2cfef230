"""Blokus events (INTERFACES §1): ``place`` with ``colour`` and ``cells``, ``pass`` with ``colour``.

The ``player`` of an event follows from its colour (the seat owning it in the variant); a colour
the players take turns with (classic_3 green) has no fixed seat, so its events may leave
``player`` out and the game fills it in (K-V1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.events import Event
from engine.core.header import Header
from engine.polyform.events import EventReader, Notation, PolyformPass, PolyformPlace
from engine.polyform.events import colour_index as _colour_index

from .variants import Variant, variant_of

#: Squares as messages name them (K-B4).
NOTATION = Notation("square", "e10", "a20,b20,b19")


def canonical_squares(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Square names normalised and sorted by row, then column (K-B4)."""
    return NOTATION.canonical(names)


def split_squares(text: str) -> list[str]:
    """The square names of a move string like ``a20,b20,b19``."""
    return NOTATION.split(text)


@dataclass(frozen=True)
class BlokusPlace(PolyformPlace):
    """A colour lays one piece on the given squares (K-B4 order)."""


@dataclass(frozen=True)
class BlokusPass(PolyformPass):
    """A colour that cannot move passes (K-L4)."""


#: A shared colour (classic_3 green) has no fixed seat: ``"player": null`` leaves it open (K-V1).
READER = EventReader(BlokusPlace, BlokusPass, NOTATION, "blokus", null_player=True)


def colour_index(variant: Variant, colour: str) -> int:
    """0-based play-order index of a colour name in this variant."""
    return _colour_index(variant, colour)


def place(variant: Variant, colour: str, cells: list[str] | tuple[str, ...] | str, **meta: Any) -> BlokusPlace:
    """A place event for ``colour`` (its player derived where the colour has an owner), cells in any order."""
    names = split_squares(cells) if isinstance(cells, str) else list(cells)
    return BlokusPlace(player=variant.owner[colour_index(variant, colour)], colour=colour,
                       cells=canonical_squares(names), **meta)


def parse_blokus_event(obj: dict[str, Any], header: Header) -> Event:
    """One record line of a blokus or blokus_duo game as an event; malformed input raises ``EventFormatError``."""
    return READER.parse(obj, header, variant_of(header), lambda inner: parse_blokus_event(inner, header))
