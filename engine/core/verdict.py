"""Verdicts: why an event is legal or not, and what it scores, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: A cell reference: a square/triangle name (``"H8"``, ``"r15"``) or lattice coordinates (``(x, y)``).
CellRef = str | tuple[int, ...]


def cell_json(cell: CellRef) -> Any:
    """The JSON form of a cell reference: names stay strings, coordinates become lists."""
    return list(cell) if isinstance(cell, tuple) else cell


@dataclass(frozen=True)
class Reason:
    """One rule an event breaks: RULES.md id, stable snake_case code, a sentence, the cells involved."""

    rule: str
    code: str
    message: str
    cells: tuple[CellRef, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "code": self.code,
            "cells": [cell_json(c) for c in self.cells],
            "message": self.message,
        }


@dataclass(frozen=True)
class Multiplier:
    """A premium square's factor applied to one score item."""

    square: str
    factor: int
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {"square": self.square, "factor": self.factor, "rule": self.rule}


@dataclass(frozen=True)
class ScoreItem:
    """One line of a score breakdown.

    ``player`` is the seat credited when it is not the event's own player (end-of-game transfers).
    """

    kind: str
    points: int
    rule: str
    cells: tuple[CellRef, ...] = ()
    multiplier: Multiplier | None = None
    player: int | None = None
    detail: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "cells": [cell_json(c) for c in self.cells],
            "points": self.points,
            "rule": self.rule,
        }
        if self.multiplier is not None:
            out["multiplier"] = self.multiplier.to_json()
        if self.player is not None:
            out["player"] = self.player
        if self.detail is not None:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class Verdict:
    """The engine's judgement of one event in one position.

    ``score`` is what the event earns its own player; ``breakdown`` may also carry items for
    other seats (``ScoreItem.player``), e.g. the tiles left on the others' racks at the end.
    """

    legal: bool
    player: int | None
    reasons: tuple[Reason, ...] = ()
    breakdown: tuple[ScoreItem, ...] = ()
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def score(self) -> int:
        """Points the event earns the acting player (0 when illegal)."""
        if not self.legal:
            return 0
        return sum(i.points for i in self.breakdown if i.player is None or i.player == self.player)

    def points_by_player(self, players: int) -> list[int]:
        """Per-seat change in totals this event causes."""
        delta = [0] * players
        if not self.legal:
            return delta
        for item in self.breakdown:
            seat = self.player if item.player is None else item.player
            if seat is not None and 0 <= seat < players:
                delta[seat] += item.points
        return delta

    @property
    def rules(self) -> tuple[str, ...]:
        """The ids of the rules that decided this verdict."""
        ids = [r.rule for r in self.reasons] + [i.rule for i in self.breakdown]
        return tuple(dict.fromkeys(ids))

    @staticmethod
    def illegal(player: int | None, *reasons: Reason) -> Verdict:
        return Verdict(legal=False, player=player, reasons=tuple(reasons))
