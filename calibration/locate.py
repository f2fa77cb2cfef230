"""Automatic board location for ``calibrate board``: a hook into the board reader's ``vision.locate``."""

from __future__ import annotations

import importlib
from typing import Any

from numpy.typing import NDArray

from .board_geometry import check_quad, order_corners
from .profile import Point

READER_MISSING = "automatic board location needs the board reader; pass --corners"


class LocatorUnavailable(RuntimeError):
    """``vision.locate`` (part of the board reader) cannot be imported."""


class NoBoardFound(RuntimeError):
    """The locator ran and found no board in the picture."""


def locate_board(game: str, image: NDArray[Any]) -> list[Point]:
    """The board's 4 corners (raw pixels, INTERFACES §3 order) found by ``vision.locate.locate_board``
    (Triolet) or ``vision.trigon.locate.locate_trigon`` (Trigon: the ends of the playing hexagon's
    top and bottom sides, ``board_geometry``'s four corners).

    Raises ``LocatorUnavailable`` if the reader is not installed and ``NoBoardFound`` if it
    finds nothing (it returns ``None`` or raises its ``BoardNotLocatedError``). The reader's
    ``BoardLocation`` must carry ``corners_px`` (4 points).
    """
    if game == "trigon":
        return _locate_trigon(image)
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


def _locate_trigon(image: NDArray[Any]) -> list[Point]:
    """Trigon: the playing hexagon from the Trigon reader, its corners 0, 1, 3, 4 (top-left,
    top-right, bottom-right, bottom-left: clockwise from the top edge the reader names row 1)."""
    try:
        from vision.locate import BoardNotLocatedError
        from vision.trigon.locate import locate_trigon
    except ImportError as exc:
        raise LocatorUnavailable(READER_MISSING) from exc
    try:
        board = locate_trigon(image)
    except BoardNotLocatedError as exc:
        raise NoBoardFound(str(exc) or "no trigon board found in the picture") from exc
    hexagon = board.corners_px(9)
    quad = [(float(x), float(y)) for x, y in hexagon[[0, 1, 3, 4]]]
    check_quad(quad)
    return quad
