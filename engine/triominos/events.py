"""The Triominos place event: ``{"type": "place", "player": 0, "cell": [x, y], "values": [a, b, c]}``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.tritiles.events import TilePlace


@dataclass(frozen=True)
class Place(TilePlace):
    """Lay one tile on the single field (M-B3 notation)."""

    WITH_FIELD: ClassVar[bool] = False
