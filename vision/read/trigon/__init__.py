"""Blokus Trigon picture reader (INTERFACES §3): ``read_trigon(image, calibration, variant)``.

Stages, one file each: ``hexagon`` (plate outline candidates), ``grid`` (cell-line fit),
``locate`` (board homography, orientation), ``colours`` (per-triangle colour), ``sanity``
(game-aware checks), ``reading`` (result and JSON), ``reader`` (``read_trigon``, which the
registry in ``vision.read`` calls).
A picture with no board raises ``vision.locate.BoardNotLocatedError``.
"""

from __future__ import annotations

from vision.locate import BoardNotLocatedError
from vision.read.trigon.reader import read_trigon
from vision.read.trigon.reading import TrigonCell, TrigonReading

__all__ = ["BoardNotLocatedError", "TrigonCell", "TrigonReading", "read_trigon"]
