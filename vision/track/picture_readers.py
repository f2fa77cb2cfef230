"""Whole-picture readers for the games followed at rest (Trigon, Blokus Classic and Duo,
Triominos, Trio Domino).

A picture reader takes one frame and returns the game's one-picture reading (``TrigonReading``,
``BlokusReading`` or ``TrianglesReading``, as ``companion read`` gives), or ``None`` when the picture shows no
board or no tile. :func:`real_reader` takes the game's reader from ``vision.read``;
:func:`oracle_reader` builds the same readings from a rendered video's labels (the follower's
logic alone, for tests and benchmarks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vision.locate import BoardNotLocatedError
from vision.read import reader_for as reader_for_game
from vision.track.observer import Frame

PictureReader = Callable[[Frame], Any]
Labels = dict[str, Any]

#: The games followed by whole-picture reads at rest (Triolet has its own per-square tracker).
PICTURE_GAMES = ("trigon", "blokus", "blokus_duo", "triominos", "trio_domino")
#: The games of one piece per turn on a square board (readings named in the picture's frame).
SQUARE_GAMES = ("blokus", "blokus_duo")
#: A tile or triangle less than this share in view is not in the oracle's reading.
ORACLE_VISIBLE = 0.5


class PictureReaderUnavailableError(RuntimeError):
    """The reader for a game cannot run here (a module or its model is missing)."""


def real_reader(game: str, variant: str = "trigon") -> PictureReader:
    """The real one-picture reader of ``game`` from ``vision.read`` (``variant``: the Trigon
    board, B-B1); ``None`` for a picture that shows no board or no tile."""
    if game not in PICTURE_GAMES:
        raise ValueError(f"no whole-picture reader for {game!r}")
    reader = reader_for_game(game, variant if game == "trigon" else "")

    def read(frame: Frame) -> Any:
        try:
            return reader.read(frame.image)
        except BoardNotLocatedError:
            return None
    return read


def reader_for(header: Any) -> PictureReader:
    """The real reader of a game's header (Trigon: the board of the header's variant, B-V1)."""
    variant = "trigon"
    if header.game == "trigon":
        from engine.trigon.variants import rules_of
        variant = str(rules_of(header).variant.id)
    return real_reader(header.game, variant)


def oracle_reader(game: str, labels_of: Callable[[int], Labels | None]) -> PictureReader:
    """Readings made from the renderer's labels of each frame (what is at least half in view)."""
    if game not in PICTURE_GAMES:
        raise ValueError(f"no whole-picture reader for {game!r}")

    def read(frame: Frame) -> Any:
        labels = labels_of(frame.index)
        if labels is None:
            return None
        if game == "trigon":
            return trigon_from_labels(labels)
        if game in SQUARE_GAMES:
            return blokus_from_labels(labels, game)
        return tiles_from_labels(labels)
    return read


def trigon_from_labels(labels: Labels) -> Any:
    """A ``TrigonReading`` of the covered triangles in view, named in the view frame."""
    from vision.read.trigon.reading import TrigonCell, TrigonReading

    cells = tuple(TrigonCell(str(c.get("cell_view", c["cell"])), str(c["colour"]), 1.0)
                  for c in labels.get("cells", []) if float(c.get("visible", 1.0)) >= ORACLE_VISIBLE)
    board = labels.get("board", {})
    hexagon = list(board.get("hexagon_px", []))
    turn = int(board.get("view_rotation", 0)) % 6 if hexagon else 0  # board frame → view frame
    corners = tuple((float(x), float(y)) for x, y in hexagon[turn:] + hexagon[:turn])
    return TrigonReading(variant=str(labels.get("variant", "trigon")), corners_px=corners, cells=cells, confidence=1.0)


def blokus_from_labels(labels: Labels, game: str = "blokus") -> Any:
    """A ``BlokusReading`` of the covered squares in view, named in the picture's frame (labels as
    ``companion read --game blokus`` writes its JSON: ``board.corners_px`` and ``cells``)."""
    from vision.read.blokus.reading import BlokusReading, BlokusSquare

    cells = tuple(BlokusSquare(str(c["cell"]), str(c["colour"]), 1.0)
                  for c in labels.get("cells", []) if float(c.get("visible", 1.0)) >= ORACLE_VISIBLE)
    corners = tuple((float(x), float(y)) for x, y in labels.get("board", {}).get("corners_px", []))
    return BlokusReading(game=str(labels.get("game", game)), corners_px=corners, cells=cells, confidence=1.0)


def tiles_from_labels(labels: Labels) -> Any:
    """A ``TrianglesReading`` of the tiles in view, corners clockwise in the picture (``None``: no tile)."""
    from vision.read.tritiles.reading import TileCorner, TileReading, TrianglesReading
    from vision.track.tile_lattice import clockwise_from

    tiles = []
    for t in labels.get("tiles", []):
        if float(t.get("visible", 1.0)) < ORACLE_VISIBLE:
            continue
        px = np.array([c["px"] for c in t["corners"]], np.float64)
        order = clockwise_from(px, 0)
        cs = [TileCorner((float(px[i][0]), float(px[i][1])), int(t["corners"][i]["value"])) for i in order]
        cen = px.mean(axis=0)
        tiles.append(TileReading((float(cen[0]), float(cen[1])), (cs[0], cs[1], cs[2]), (0, 0), 0, 1.0))
    if not tiles:
        return None
    return TrianglesReading(game=str(labels.get("game", "triominos")), tiles=tuple(tiles))
