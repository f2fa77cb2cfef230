"""Trigon events (INTERFACES §1): ``place`` with ``colour`` and ``cells``, ``pass`` with ``colour``.

The ``player`` of an event follows from its colour (the seat owning it in the variant).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core.errors import EventFormatError
from engine.core.events import Event, Pass, parse_common, parse_meta
from engine.core.fields import check_int
from engine.core.header import Header

from .notation import canonical_cells, join_move, split_move
from .variants import Rules, rules_of


@dataclass(frozen=True)
class TrigonPlace(Event):
    """A colour lays one piece on the given triangles (B-B6 order)."""

    TYPE: ClassVar[str] = "place"
    colour: str = "blue"
    cells: tuple[str, ...] = ()

    def body_json(self) -> dict[str, Any]:
        return {"colour": self.colour, "cells": join_move(self.cells)}


@dataclass(frozen=True)
class TrigonPass(Pass):
    """A colour that cannot move passes (B-L4)."""

    colour: str = "blue"

    def body_json(self) -> dict[str, Any]:
        return {"colour": self.colour}


def place(rules: Rules, colour: str, cells: list[str] | tuple[str, ...] | str, **meta: Any) -> TrigonPlace:
    """A place event for ``colour`` (its player derived), cells in any order."""
    names = split_move(cells) if isinstance(cells, str) else list(cells)
    return TrigonPlace(player=rules.variant.owner[colour_index(rules, colour)], colour=colour,
                       cells=canonical_cells(names), **meta)


def pass_event(rules: Rules, colour: str) -> TrigonPass:
    return TrigonPass(player=rules.variant.owner[colour_index(rules, colour)], colour=colour)


def colour_index(rules: Rules, colour: str) -> int:
    """0-based play-order index of a colour name in this variant."""
    names = rules.variant.colour_names
    if colour not in names:
        raise EventFormatError(f'"colour" is {colour!r}; {rules.variant.id} plays {", ".join(names)}')
    return names.index(colour)


def parse_trigon_event(obj: dict[str, Any], header: Header) -> Event:
    """One record line of a trigon game as an event; malformed input raises ``EventFormatError``."""
    rules = rules_of(header)
    kind = obj.get("type")
    if kind in ("correct", "undo"):
        common = parse_common(obj, len(header.players), lambda inner: parse_trigon_event(inner, header))
        assert common is not None
        return common
    if kind not in ("place", "pass"):
        raise EventFormatError(f'"type" is {kind!r}; a trigon record holds place, pass, correct and undo events')
    meta = parse_meta(obj)
    colour = _colour_of(obj, rules, kind)
    seat = rules.variant.owner[colour_index(rules, colour)]
    if "player" in obj:
        # a seat naming a colour it does not play is judged (not_your_turn), not refused as malformed
        seat = check_int(obj["player"], '"player"', lo=0, hi=len(header.players) - 1)
    if kind == "pass":
        return TrigonPass(player=seat, colour=colour, meta=meta)
    raw = obj.get("cells")
    if isinstance(raw, str):
        names = split_move(raw)
    elif isinstance(raw, list) and raw and all(isinstance(n, str) for n in raw):
        names = list(raw)
    elif raw is None:
        raise EventFormatError('missing field "cells"')
    else:
        raise EventFormatError(f'"cells" must be triangles like "q15,r15,p16", not {raw!r}')
    return TrigonPlace(player=seat, colour=colour, cells=canonical_cells(names), meta=meta)


def _colour_of(obj: dict[str, Any], rules: Rules, kind: str) -> str:
    colour = obj.get("colour")
    if colour is None and kind == "pass" and isinstance(obj.get("player"), int):
        owned = rules.variant.colours_of(obj["player"])
        if len(owned) == 1:
            return rules.variant.colour_names[owned[0]]
    if colour is None:
        raise EventFormatError(f'missing field "colour" (a trigon {kind} names its colour)')
    if not isinstance(colour, str):
        raise EventFormatError(f'"colour" must be a colour name, not {colour!r}')
    colour = colour.strip().lower()
    colour_index(rules, colour)
    return colour
