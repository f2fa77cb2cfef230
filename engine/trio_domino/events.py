"""The Trio Domino place event: cell and values as in Triominos plus the ``field`` number (D-B1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.tritiles.events import TilePlace


@dataclass(frozen=True)
class Place(TilePlace):
    """Lay one tile on field ``field`` (a new number opens a new field, D-P3)."""

    WITH_FIELD: ClassVar[bool] = True
