"""What ``read_trigon`` returns, with the INTERFACES §3 JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TrigonCell:
    """A covered triangle: B-B2 name in the view frame, colour, confidence 0–1."""

    cell: str
    colour: str
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {"cell": self.cell, "colour": self.colour, "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class TrigonReading:
    """``corners_px``: the playing hexagon's 6 corners clockwise from the top-left one (the top edge
    is the board edge nearest the top of the image); ``cells``: covered triangles only."""

    variant: str
    corners_px: tuple[tuple[float, float], ...]
    cells: tuple[TrigonCell, ...]
    confidence: float
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"game": "trigon", "board": {"corners_px": [...]}, "cells": [...]}`` (INTERFACES §3)."""
        return {"game": "trigon", "board": {"corners_px": [[round(x, 1), round(y, 1)] for x, y in self.corners_px]},
                "cells": [c.to_json() for c in self.cells]}
