"""Trigon events (INTERFACES §1): ``place`` with ``colour`` and ``cells``, ``pass`` with ``colour``.

The ``player`` of an event follows from its colour (the seat owning it in the variant).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.events import Event
from engine.core.header import Header
from engine.polyform.events import EventReader, Notation, PolyformPass, PolyformPlace
from engine.polyform.events import colour_index as _colour_index

from .notation import canonical_cells, split_move
from .variants import Rules, rules_of


@dataclass(frozen=True)
class TrigonPlace(PolyformPlace):
    """A colour lays one piece on the given triangles (B-B6 order)."""


@dataclass(frozen=True)
class TrigonPass(PolyformPass):
    """A colour that cannot move passes (B-L4)."""


READER = EventReader(TrigonPlace, TrigonPass, Notation("triangle", "r15", "q15,r15,p16"), "trigon")


def place(rules: Rules, colour: str, cells: list[str] | tuple[str, ...] | str, **meta: Any) -> TrigonPlace:
    """A place event for ``colour`` (its player derived), cells in any order."""
    names = split_move(cells) if isinstance(cells, str) else list(cells)
    return TrigonPlace(player=rules.variant.owner[colour_index(rules, colour)], colour=colour,
                       cells=canonical_cells(names), **meta)


def pass_event(rules: Rules, colour: str) -> TrigonPass:
    return TrigonPass(player=rules.variant.owner[colour_index(rules, colour)], colour=colour)


def colour_index(rules: Rules, colour: str) -> int:
    """0-based play-order index of a colour name in this variant."""
    return _colour_index(rules.variant, colour)


def parse_trigon_event(obj: dict[str, Any], header: Header) -> Event:
    """One record line of a trigon game as an event; malformed input raises ``EventFormatError``."""
    return READER.parse(obj, header, rules_of(header).variant, lambda inner: parse_trigon_event(inner, header))
