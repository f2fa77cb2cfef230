"""``track(source, header, corners=None)``: the tracker over a named source, for the server."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from engine.core.header import Header
from vision.track.observer import BoardFix, BoardObserver
from vision.track.output import TrackerOutput
from vision.track.tracker import MoveTracker, TrackerOptions


def default_observer(game: str, source: Any = None) -> BoardObserver:
    """The real reader for ``game``; the oracle for a source that carries its frames' labels
    (``labels_of(index)``: a rendered table, whose truth is known)."""
    labels_of = getattr(source, "labels_of", None)
    if callable(labels_of):
        from vision.track.oracle import OracleObserver
        return OracleObserver(labels_of)
    from vision.track.reader import ReaderObserver
    return ReaderObserver(game)


def tracker_for(header: Header, frames: Any = None, corners: Sequence[Sequence[float]] | None = None,
                observer: BoardObserver | None = None) -> Any:
    """The tracker that follows ``header.game`` from ``frames``: a :class:`MoveTracker` for Triolet
    (``observer``: the real reader by default, the oracle for the simulated table; ``corners`` skip
    the first board search), a :class:`~.rest_tracker.RestTracker` with the game's real one-picture
    reader for Trigon, Blokus Classic and Duo, Triominos and Trio Domino. Raises
    ``ReaderUnavailableError`` when the reader cannot run here."""
    if header.game == "triolet":
        fix = BoardFix.from_corners(corners) if corners else None
        return MoveTracker(header, observer or default_observer(header.game, frames), initial_fix=fix)
    from vision.track.picture_readers import PictureReaderUnavailableError, reader_for
    from vision.track.reader import ReaderUnavailableError
    from vision.track.rest_tracker import RestTracker

    try:
        return RestTracker(header, reader_for(header))
    except PictureReaderUnavailableError as exc:
        raise ReaderUnavailableError(str(exc)) from None


def track(source: str, header: Header, corners: Sequence[Sequence[float]] | None = None,
          options: TrackerOptions | None = None, observer: BoardObserver | None = None,
          on_start: Callable[[Any], None] | None = None) -> Iterator[TrackerOutput]:
    """Follow the game seen by ``source`` (``camera:N``, ``video:PATH``, a frame folder): yield every
    output that carries an event (place, illegal attempt, undo), with ``before_png``/``after_png``.

    ``corners`` (INTERFACES §3 order, e.g. confirmed on the phone) skip the first board search.
    ``on_start`` receives the :class:`MoveTracker` before the first frame: keep it to pass the
    phone's manual events (exchange, pass, reveal, wild values, corrections) to ``submit``, so the
    tracker's turn order and seq numbers stay those of the table's session.
    """
    from vision.sources import open_source

    frames = open_source(source)
    if header.game == "triolet":
        obs = observer or default_observer(header.game, frames)
        fix = BoardFix.from_corners(corners) if corners is not None else None
        tracker: Any = MoveTracker(header, obs, options, initial_fix=fix)
    else:
        tracker = tracker_for(header, frames)
    if on_start is not None:
        on_start(tracker)
    for index, t, image in frames:
        for out in tracker.feed(index, t, image):
            if out.event is not None:
                yield out
