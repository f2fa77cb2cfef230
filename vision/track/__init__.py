"""The move tracker: follow a game from video (``companion replay``, the live table).

* :class:`MoveTracker` — ``feed(frame_index, t, image) -> list[TrackerOutput]``; its ``session``
  is the engine log; manual events go in through ``submit``.
* :class:`BoardObserver` — what a reader must offer (``locate``, ``read``); :class:`OracleObserver`
  reads renderer labels (tests, benchmarks), ``reader.ReaderObserver`` wraps the real reader.
* :func:`track` — the tracker over a named source (``camera:N``, ``video:PATH``, ``sim``), for the
  server: yields outputs with ``event``, ``before_png`` and ``after_png``.

See docs/TRACKER.md.
"""

from __future__ import annotations

from vision.track.observer import EMPTY, WILD, BoardFix, BoardObserver, CellRead, Frame
from vision.track.oracle import Misread, OracleObserver
from vision.track.output import TrackerOutput
from vision.track.track import track
from vision.track.tracker import MoveTracker, TrackerOptions, TrackerStats

__all__ = ["EMPTY", "WILD", "BoardFix", "BoardObserver", "CellRead", "Frame", "Misread", "MoveTracker",
           "OracleObserver", "TrackerOptions", "TrackerOutput", "TrackerStats", "track"]
