"""Blokus Trigon follower: a reading of the whole board → place, illegal, cleared and undo events
(the logic shared with the square boards is :class:`~.piece_follower.PieceFollower`'s; Trigon's
readings name the triangles as the engine does, the picture's hexagon gives their places)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.events import EventMeta
from engine.trigon.events import TrigonPlace, place
from vision.track.piece_follower import PieceFollower


class TrigonFollower(PieceFollower):
    """Turns whole-board Trigon readings into events."""

    PLACE = TrigonPlace
    MAX_PIECE = 6  # triangles of the largest piece (B-L1)

    def _place(self, state: Any, colour: str, cells: list[str], meta: EventMeta) -> TrigonPlace:
        return place(state.rules, colour, cells, meta=meta)

    def _geometry(self, reading: Any) -> tuple[dict[str, NDArray[np.float64]], NDArray[np.float64]] | None:
        corners = getattr(reading, "corners_px", ())
        if len(corners) != 6:
            return None
        from vision.read.trigon.geometry import hexagon_corners
        from vision.read.trigon.reader import SIDE_OF_VARIANT

        side = SIDE_OF_VARIANT.get(str(reading.variant), 9)
        h, _ = cv2.findHomography(hexagon_corners(side), np.asarray(corners, np.float64), 0)
        if h is None:
            return None
        return _cell_vertices(side), np.asarray(h, np.float64)


@lru_cache(maxsize=2)
def _cell_vertices(side: int) -> dict[str, Any]:
    """Cell name → its corners in board units."""
    from vision.read.trigon.geometry import cell_name, cell_table

    cells, verts, _ = cell_table(side)
    return {cell_name(c, side): verts[i] for i, c in enumerate(cells)}
