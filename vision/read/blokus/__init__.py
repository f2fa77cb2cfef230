"""Square Blokus board reader (Classic 20×20, Duo 14×14; INTERFACES §3):
``read_blokus(image, calibration, game)``.

Stages, one file each: ``locate`` (plate outline candidates in the whole picture), ``grid``
(square lattice fit and homography), ``colours`` (per-square colour with white balance from the
board), ``geometry`` (sizes, K-B1 names), ``reading`` (result and JSON), ``reader`` (the entry
points). A picture with no board raises ``vision.locate.BoardNotLocatedError``.
"""

from __future__ import annotations

from vision.locate import BoardNotLocatedError
from vision.read.blokus.reader import read_blokus
from vision.read.blokus.reading import BlokusReading, BlokusSquare

__all__ = ["BlokusReading", "BlokusSquare", "BoardNotLocatedError", "read_blokus"]
