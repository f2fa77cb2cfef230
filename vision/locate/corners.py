"""The board's four corners for ``companion calibrate board``: the readers' own locators."""

from __future__ import annotations

from typing import Any

from numpy.typing import NDArray

from calibration.board_geometry import check_quad, order_corners
from calibration.profile import Point
from vision.locate import BoardNotLocatedError
from vision.locate import locate_board as locate_triolet
from vision.read.trigon.locate import locate_trigon


class NoBoardFound(RuntimeError):
    """The locator ran and found no board in the picture."""


def locate_board(game: str, image: NDArray[Any]) -> list[Point]:
    """The board's 4 corners (raw pixels, INTERFACES §3 order): Triolet's from ``vision.locate``,
    Trigon's the ends of the playing hexagon's top and bottom sides (``board_geometry``'s four
    corners). ``NoBoardFound`` when the locator finds nothing."""
    if game == "trigon":
        return _locate_trigon(image)
    try:
        location = locate_triolet(image, game)
    except BoardNotLocatedError as exc:
        raise NoBoardFound(str(exc) or f"no {game} board found in the picture") from exc
    return order_corners([(float(x), float(y)) for x, y in location.corners_px])


def _locate_trigon(image: NDArray[Any]) -> list[Point]:
    """Trigon: the playing hexagon from the Trigon reader, its corners 0, 1, 3, 4 (top-left,
    top-right, bottom-right, bottom-left: clockwise from the top edge the reader names row 1)."""
    try:
        board = locate_trigon(image)
    except BoardNotLocatedError as exc:
        raise NoBoardFound(str(exc) or "no trigon board found in the picture") from exc
    hexagon = board.corners_px(9)
    quad = [(float(x), float(y)) for x, y in hexagon[[0, 1, 3, 4]]]
    check_quad(quad)
    return quad
