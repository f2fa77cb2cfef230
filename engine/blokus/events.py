"""Blokus events (INTERFACES §1): ``place`` with ``colour`` and ``cells``, ``pass`` with ``colour``.

The ``player`` of an event follows from its colour (the seat owning it in the variant); a colour
the players take turns with (classic_3 green) has no fixed seat, so its events may leave
``player`` out and the game fills it in (K-V1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core.errors import EventFormatError
from engine.core.events import Event, Pass, parse_common, parse_meta
from engine.core.fields import check_int
from engine.core.header import Header
from engine.polyform.notation import canonical_cells, join_move, split_move

from .variants import Variant, variant_of


def canonical_squares(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Square names normalised and sorted by row, then column (K-B4)."""
    return canonical_cells(names, "square", "e10")


def split_squares(text: str) -> list[str]:
    """The square names of a move string like ``a20,b20,b19``."""
    return split_move(text, "square", "a20,b20,b19")


@dataclass(frozen=True)
class BlokusPlace(Event):
    """A colour lays one piece on the given squares (K-B4 order)."""

    TYPE: ClassVar[str] = "place"
    colour: str = "blue"
    cells: tuple[str, ...] = ()

    def body_json(self) -> dict[str, Any]:
        return {"colour": self.colour, "cells": join_move(self.cells)}


@dataclass(frozen=True)
class BlokusPass(Pass):
    """A colour that cannot move passes (K-L4)."""

    colour: str = "blue"

    def body_json(self) -> dict[str, Any]:
        return {"colour": self.colour}


def colour_index(variant: Variant, colour: str) -> int:
    """0-based play-order index of a colour name in this variant."""
    if colour not in variant.colour_names:
        raise EventFormatError(f'"colour" is {colour!r}; {variant.id} plays {", ".join(variant.colour_names)}')
    return variant.colour_names.index(colour)


def place(variant: Variant, colour: str, cells: list[str] | tuple[str, ...] | str, **meta: Any) -> BlokusPlace:
    """A place event for ``colour`` (its player derived where the colour has an owner), cells in any order."""
    names = split_squares(cells) if isinstance(cells, str) else list(cells)
    return BlokusPlace(player=variant.owner[colour_index(variant, colour)], colour=colour,
                       cells=canonical_squares(names), **meta)


def parse_blokus_event(obj: dict[str, Any], header: Header) -> Event:
    """One record line of a blokus or blokus_duo game as an event; malformed input raises ``EventFormatError``."""
    variant = variant_of(header)
    kind = obj.get("type")
    if kind in ("correct", "undo"):
        common = parse_common(obj, len(header.players), lambda inner: parse_blokus_event(inner, header))
        assert common is not None
        return common
    if kind not in ("place", "pass"):
        raise EventFormatError(f'"type" is {kind!r}; a {header.game} record holds place, pass, correct and undo events')
    meta = parse_meta(obj)
    colour = _colour_of(obj, variant, kind)
    seat = variant.owner[colour_index(variant, colour)]
    if obj.get("player") is not None:
        # a seat naming a colour it does not play is judged (not_your_turn), not refused as malformed
        seat = check_int(obj["player"], '"player"', lo=0, hi=len(header.players) - 1)
    if kind == "pass":
        return BlokusPass(player=seat, colour=colour, meta=meta)
    raw = obj.get("cells")
    if isinstance(raw, str):
        names = split_squares(raw)
    elif isinstance(raw, list) and raw and all(isinstance(n, str) for n in raw):
        names = list(raw)
    elif raw is None:
        raise EventFormatError('missing field "cells"')
    else:
        raise EventFormatError(f'"cells" must be squares like "a20,b20,b19", not {raw!r}')
    return BlokusPlace(player=seat, colour=colour, cells=canonical_squares(names), meta=meta)


def _colour_of(obj: dict[str, Any], variant: Variant, kind: str) -> str:
    colour = obj.get("colour")
    if colour is None and kind == "pass" and isinstance(obj.get("player"), int):
        owned = variant.colours_of(obj["player"])
        if len(owned) == 1:
            return variant.colour_names[owned[0]]
    if colour is None:
        raise EventFormatError(f'missing field "colour" (a blokus {kind} names its colour)')
    if not isinstance(colour, str):
        raise EventFormatError(f'"colour" must be a colour name, not {colour!r}')
    colour = colour.strip().lower()
    colour_index(variant, colour)
    return colour
