"""Automatic board location for ``calibrate board``: a hook into the board reader's ``vision.locate``."""

from __future__ import annotations

import importlib
from typing import Any

from numpy.typing import NDArray

from .board_geometry import order_corners
from .profile import Point

READER_MISSING = "automatic board location needs the board reader; pass --corners"


class LocatorUnavailable(RuntimeError):
    """``vision.locate`` (part of the board reader) cannot be imported."""


class NoBoardFound(RuntimeError):
    """The locator ran and found no board in the picture."""


def locate_board(game: str, image: NDArray[Any]) -> list[Point]:
    """The board's 4 corners (raw pixels, INTERFACES §3 order) found by ``vision.locate.locate_board``.

    Raises ``LocatorUnavailable`` if the reader is not installed and ``NoBoardFound`` if it
    finds nothing (it returns ``None`` or raises its ``BoardNotLocatedError``). The reader's
    ``BoardLocation`` must carry ``corners_px`` (4 points).
    """
    try:
        module = importlib.import_module("vision.locate")
        locate = module.locate_board
    except (ImportError, AttributeError) as exc:
        raise LocatorUnavailable(READER_MISSING) from exc
    not_found = getattr(module, "BoardNotLocatedError", None)
    try:
        location = locate(image, game)
    except Exception as exc:
        if isinstance(not_found, type) and isinstance(exc, not_found):
            raise NoBoardFound(str(exc) or f"no {game} board found in the picture") from exc
        raise
    corners = None if location is None else getattr(location, "corners_px", None)
    if corners is None and isinstance(location, dict):
        corners = location.get("corners_px")
    if corners is None:
        raise NoBoardFound(f"no {game} board found in the picture")
    return order_corners(corners)
