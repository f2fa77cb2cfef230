"""What ``read_blokus`` returns, with the INTERFACES §3 JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vision.read.trigon.reading import TrigonCell

#: A covered square: K-B1 name in the view frame, colour, confidence 0–1 (a colour game's covered
#: cell, as Trigon's triangles are).
BlokusSquare = TrigonCell


@dataclass(frozen=True)
class BlokusReading:
    """``corners_px``: the playing area's 4 corners clockwise from its top-left one (the top edge
    is the board edge nearest the top of the image); ``cells``: covered squares only."""

    game: str
    corners_px: tuple[tuple[float, float], ...]
    cells: tuple[BlokusSquare, ...]
    confidence: float
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"game": …, "board": {"corners_px": [...]}, "cells": [...]}`` (INTERFACES §3)."""
        return {"game": self.game,
                "board": {"corners_px": [[round(x, 1), round(y, 1)] for x, y in self.corners_px]},
                "cells": [c.to_json() for c in self.cells]}

    def grid(self, size: int) -> list[list[str | None]]:
        """The reading as rows from the top: each square's colour or ``None``."""
        from vision.read.blokus.geometry import square_position

        out: list[list[str | None]] = [[None] * size for _ in range(size)]
        for c in self.cells:
            col, row = square_position(c.cell, size)
            out[row][col] = c.colour
        return out
