"""What ``read_triangles`` returns, with the INTERFACES §3 JSON for ``triominos`` / ``trio_domino``."""

from __future__ import annotations

from dataclasses import dataclass, field
from dataclasses import field as dataclass_field
from typing import Any

#: Per corner (in ``TileReading.corners`` order), a score per value 0–5 (log-likelihoods).
CornerScores = tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]


@dataclass(frozen=True)
class TileCorner:
    """One corner of a tile: its position in the image and the value read there (0–5)."""

    px: tuple[float, float]
    value: int

    def to_json(self) -> dict[str, Any]:
        return {"px": [round(self.px[0], 1), round(self.px[1], 1)], "value": self.value}


@dataclass(frozen=True)
class TileReading:
    """A tile: centre, 3 corners clockwise in the image, lattice cell (M-B2/M-B3), field (D-B1).
    ``scores``: what the value reader gave each corner (not in the JSON; the tracker weighs other
    readings of a doubtful tile with them)."""

    center_px: tuple[float, float]
    corners: tuple[TileCorner, TileCorner, TileCorner]
    cell: tuple[int, int]
    field: int
    confidence: float
    scores: CornerScores | None = dataclass_field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"center_px": [round(self.center_px[0], 1), round(self.center_px[1], 1)],
                "corners": [c.to_json() for c in self.corners], "cell": [self.cell[0], self.cell[1]],
                "field": self.field, "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class TrianglesReading:
    """Every tile read in one picture of a ``triominos`` or ``trio_domino`` table."""

    game: str
    tiles: tuple[TileReading, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"game": G, "tiles": [...]}`` (INTERFACES §3)."""
        return {"game": self.game, "tiles": [t.to_json() for t in self.tiles]}
