"""The events every game of the Blokus family shares (INTERFACES §1): ``place`` with ``colour`` and
``cells``, ``pass`` with ``colour``, and reading them from a record line.

The ``player`` of an event follows from its colour (the seat owning it in the variant); a seat
naming a colour it does not play is judged by the game (not_your_turn), not refused as malformed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from engine.core.errors import EventFormatError
from engine.core.events import Event, Pass, parse_common, parse_meta
from engine.core.fields import check_int
from engine.core.header import Header

from .notation import canonical_cells, join_move, split_move


class ColourVariant(Protocol):
    """What reading an event needs of a variant: its id, colours in play order and their seats."""

    @property
    def id(self) -> str: ...

    @property
    def colour_names(self) -> tuple[str, ...]: ...

    @property
    def owner(self) -> Sequence[int | None]: ...

    def colours_of(self, seat: int) -> tuple[int, ...]: ...


@dataclass(frozen=True)
class Notation:
    """How a game names its cells in messages: the noun, an example cell and an example move."""

    noun: str
    cell_example: str
    move_example: str

    def canonical(self, names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
        """The names normalised and sorted by row, then column."""
        return canonical_cells(names, self.noun, self.cell_example)

    def split(self, text: str) -> list[str]:
        """The cell names of a move string (no empty items)."""
        return split_move(text, self.noun, self.move_example)


@dataclass(frozen=True)
class PolyformPlace(Event):
    """A colour lays one piece on the given cells (in canonical order)."""

    TYPE: ClassVar[str] = "place"
    colour: str = "blue"
    cells: tuple[str, ...] = ()

    def body_json(self) -> dict[str, Any]:
        return {"colour": self.colour, "cells": join_move(self.cells)}


@dataclass(frozen=True)
class PolyformPass(Pass):
    """A colour that cannot move passes."""

    colour: str = "blue"

    def body_json(self) -> dict[str, Any]:
        return {"colour": self.colour}


def colour_index(variant: ColourVariant, colour: str) -> int:
    """0-based play-order index of a colour name in this variant."""
    names = variant.colour_names
    if colour not in names:
        raise EventFormatError(f'"colour" is {colour!r}; {variant.id} plays {", ".join(names)}')
    return names.index(colour)


@dataclass(frozen=True)
class EventReader:
    """Reads one game's record lines: its event classes, notation and the word naming it."""

    place: type[PolyformPlace]
    pass_: type[PolyformPass]
    notation: Notation
    #: the game as messages name it ("blokus", "trigon")
    word: str
    #: whether ``"player": null`` stands for "no player given" (a colour without a fixed seat)
    null_player: bool = False

    def parse(self, obj: dict[str, Any], header: Header, variant: ColourVariant,
              again: Callable[[dict[str, Any]], Event]) -> Event:
        """One record line as an event (``again`` reads the line inside a correct); malformed input
        raises ``EventFormatError``."""
        kind = obj.get("type")
        if kind in ("correct", "undo"):
            common = parse_common(obj, len(header.players), again)
            assert common is not None
            return common
        if kind not in ("place", "pass"):
            raise EventFormatError(f'"type" is {kind!r}; a {header.game} record holds place, pass, correct and undo '
                                   f'events')
        meta = parse_meta(obj)
        colour = self._colour_of(obj, variant, kind)
        seat = variant.owner[colour_index(variant, colour)]
        if (obj.get("player") is not None) if self.null_player else ("player" in obj):
            seat = check_int(obj["player"], '"player"', lo=0, hi=len(header.players) - 1)
        if kind == "pass":
            return self.pass_(player=seat, colour=colour, meta=meta)
        raw = obj.get("cells")
        if isinstance(raw, str):
            names = self.notation.split(raw)
        elif isinstance(raw, list) and raw and all(isinstance(n, str) for n in raw):
            names = list(raw)
        elif raw is None:
            raise EventFormatError('missing field "cells"')
        else:
            raise EventFormatError(f'"cells" must be {self.notation.noun}s like "{self.notation.move_example}", '
                                   f'not {raw!r}')
        return self.place(player=seat, colour=colour, cells=self.notation.canonical(names), meta=meta)

    def sgf_moves(self, values: list[str], seat: int | None, colour: str) -> list[Event]:
        """The events of one colour's SGF move values on a node: an empty value is a pass."""
        out: list[Event] = []
        for value in values:
            if not value.strip():
                out.append(self.pass_(player=seat, colour=colour))
            else:
                cells = self.notation.canonical(self.notation.split(value.strip().lower()))
                out.append(self.place(player=seat, colour=colour, cells=cells))
        return out

    def _colour_of(self, obj: dict[str, Any], variant: ColourVariant, kind: str) -> str:
        colour = obj.get("colour")
        if colour is None and kind == "pass" and isinstance(obj.get("player"), int):
            owned = variant.colours_of(obj["player"])
            if len(owned) == 1:
                return variant.colour_names[owned[0]]
        if colour is None:
            raise EventFormatError(f'missing field "colour" (a {self.word} {kind} names its colour)')
        if not isinstance(colour, str):
            raise EventFormatError(f'"colour" must be a colour name, not {colour!r}')
        colour = colour.strip().lower()
        colour_index(variant, colour)
        return colour
