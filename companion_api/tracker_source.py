"""Table sources backed by the vision tracker: ``camera:N``, ``video:PATH`` and ``render[:SEED]``.

Frames come from ``vision.sources``; ``vision.tracker.MoveTracker`` turns them into events with
before/after crops. The tracker keeps its own engine session; this adapter keeps it in step with
the table's: manual events from the phone are passed on to it (in the loop thread), and event
numbers are translated both ways (the table also logs illegal attempts and manual events, so its
``seq`` differs from the tracker's).
"""

from __future__ import annotations

import dataclasses
import json
import queue
import time
from collections.abc import Callable, Iterator
from typing import Any

from engine.core import Correct, Event, Undo

from .board_picture import png
from .table import Observation, SourceContext, TableView

#: Seconds between frames sent to the phone's still view (``GET /api/still``).
STILL_EVERY = 2.0


class TrackerSource:
    """Frames → tracker → observations, for one game."""

    def __init__(self, frames_spec: str, ctx: SourceContext, speed: float = 1.0, pace: bool = True,
                 frames: Any = None, make_tracker: Callable[[Any, Any], Any] | None = None) -> None:
        """``frames`` overrides opening ``frames_spec``; ``make_tracker(frames, fix)`` the tracker."""
        self.frames_spec = frames_spec
        self.ctx = ctx
        self.speed = speed
        self.pace = pace
        self._frames = frames
        self._make_tracker = make_tracker
        self._manual: queue.Queue[tuple[Event, int]] = queue.Queue()
        self.to_tracker: dict[int, int] = {}  # table seq -> tracker seq
        self.to_table: dict[int, int] = {}  # tracker seq -> table seq

    # -- called by the table (any thread) -------------------------------------------------------
    def on_manual(self, event: Event, table_seq: int) -> None:
        """A manual event the table has logged as ``table_seq``; the tracker hears of it next frame."""
        self._manual.put((event, table_seq))

    # -- the source ------------------------------------------------------------------------------
    def observations(self, view: TableView) -> Iterator[Observation]:
        frames = self._frames
        if frames is None:
            from vision.sources import open_source

            frames = open_source(self.frames_spec)
        raw = self.ctx.store.get_meta("corners")
        corners = json.loads(raw).get("corners_px") if raw else None
        tracker = (self._make_tracker or self._default_tracker)(frames, corners)
        for seq, event in enumerate(self.ctx.history, start=1):  # resume: the table's log so far
            self._tell(tracker, event, seq)
        start = time.monotonic()
        last_still = -STILL_EVERY
        for index, t, image in frames:
            self._drain(tracker)
            if self.pace:
                ahead = t / self.speed - (time.monotonic() - start)
                if ahead > 0 and not view.sleep(ahead):
                    return
            if not view.sleep(0):
                return
            now = time.monotonic()
            if now - last_still >= STILL_EVERY:
                last_still = now
                yield Observation(event=None, frame_png=png(image))
            for out in tracker.feed(index, t, image):
                if out.event is None:  # a cleared attempt: nothing to log
                    continue
                tracker_seq = out.seq if out.kind in ("place", "undo") else None
                yield Observation(event=self._to_table_event(out.event), before_png=out.before_png,
                                  after_png=out.after_png, on_commit=self._committed(tracker_seq))
        self._drain(tracker)

    def _default_tracker(self, frames: Any, corners: Any) -> Any:
        from vision.tracker.observer import BoardFix
        from vision.tracker.track import default_observer
        from vision.tracker.tracker import MoveTracker

        fix = BoardFix.from_corners(corners) if corners else None
        return MoveTracker(self.ctx.header, default_observer(self.ctx.header.game, frames), initial_fix=fix)

    # -- keeping the two sessions in step --------------------------------------------------------
    def _committed(self, tracker_seq: int | None) -> Any:
        def note(table_seq: int, legal: bool) -> None:
            if tracker_seq is not None:
                self.to_tracker[table_seq] = tracker_seq
                self.to_table[tracker_seq] = table_seq
        return note

    def _drain(self, tracker: Any) -> None:
        while True:
            try:
                event, table_seq = self._manual.get_nowait()
            except queue.Empty:
                return
            self._tell(tracker, event, table_seq)

    def _tell(self, tracker: Any, event: Event, table_seq: int) -> None:
        """Log a table event the tracker did not produce in the tracker's session."""
        if table_seq in self.to_tracker:
            return
        if isinstance(event, Correct | Undo):
            target = self.to_tracker.get(event.seq)
            if target is None:
                return  # amends something the tracker never logged (an illegal attempt)
            event = dataclasses.replace(event, seq=target)
        entry = tracker.submit(event)
        self.to_tracker[table_seq] = entry.seq
        self.to_table[entry.seq] = table_seq

    def _to_table_event(self, event: Event) -> Event:
        if isinstance(event, Correct | Undo) and event.seq in self.to_table:
            return dataclasses.replace(event, seq=self.to_table[event.seq])
        return event
