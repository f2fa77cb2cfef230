"""Table sources backed by the vision tracker: ``camera:N``, ``video:PATH``, ``render[:SEED]`` (and,
through :mod:`lab.sim.live`, the default simulated table ``sim``).

Frames come from ``vision.sources``; ``vision.track.MoveTracker`` turns them into events with
before/after crops. The tracker keeps its own engine session; this adapter keeps it in step with
the table's: manual events from the phone are passed on to it (in the loop thread), and event
numbers are translated both ways. Both sessions log every placement, illegal attempt, undo,
correction and manual event in the same order, so the numbers normally agree; the maps keep them
right when they do not (e.g. a phone's amendment of something the tracker never logged).

The tracker's check of the board against the record (``board_check``) is passed on as the table's
*watch* state (``board_watch``): ``waiting`` until the first rest is looked at, ``ok``, or
``differs`` with the cells. A live source (a camera) that fails or stops giving frames makes the
watch ``camera_lost``; it is opened again every ``RETRY_SECONDS`` and the loop goes on where it
was, its clock continuing by the time the camera was away (a board changed meanwhile is motion
to the tracker, which waits for a fresh stable view before committing anything).
"""

from __future__ import annotations

import dataclasses
import json
import queue
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from engine.core import Correct, Event, Undo

from .board_picture import png
from .board_watch import CellDiff, Watch, WatchStatus
from .table import Observation, SourceContext, TableView

#: Seconds between frames sent to the phone's still view (``GET /api/still``).
STILL_EVERY = 2.0
#: Seconds behind the wall clock after which a source may skip making a frame (``late``).
LATE_SECONDS = 0.25
#: Seconds between tries to open a lost camera again.
RETRY_SECONDS = 0.25

Frames = Iterable[tuple[int, float, Any]]


class TrackerSource:
    """Frames → tracker → observations, for one game."""

    def __init__(self, frames_spec: str, ctx: SourceContext, speed: float = 1.0, pace: bool = True,
                 frames: Any = None, make_tracker: Callable[[Any, Any], Any] | None = None,
                 reopen: Callable[[], Frames] | None = None, drop_late: bool = False) -> None:
        """``frames`` overrides opening ``frames_spec``; ``make_tracker(frames, fix)`` the tracker.

        ``reopen`` makes the source live: when its frames fail or end, the watch says
        ``camera_lost`` and ``reopen()`` is tried every ``RETRY_SECONDS`` until frames come again.
        ``drop_late``: a paced source skips frames already ``LATE_SECONDS`` overdue, as a camera
        does for a busy reader (the tracker then waits for enough frames of a rest)."""
        self.frames_spec = frames_spec
        self.ctx = ctx
        self.speed = speed
        self.pace = pace
        self.reopen = reopen
        self.drop_late = drop_late
        #: frames looked at and frames skipped for lateness
        self.fed = 0
        self.dropped = 0
        self._frames = frames
        self._make_tracker = make_tracker
        self._manual: queue.Queue[tuple[Event, int]] = queue.Queue()
        self._trust: queue.Queue[list[str]] = queue.Queue()
        self.to_tracker: dict[int, int] = {}  # table seq -> tracker seq
        self.to_table: dict[int, int] = {}  # tracker seq -> table seq
        self._clock0: float | None = None  # wall clock (monotonic) of video time 0

    # -- called by the table (any thread) -------------------------------------------------------
    def on_manual(self, event: Event, table_seq: int) -> None:
        """A manual event the table has logged as ``table_seq``; the tracker hears of it next frame."""
        self._manual.put((event, table_seq))

    def trust_record(self, cells: list[str]) -> None:
        """The players say the record is right on ``cells`` (named as the watch names them) and the
        camera wrong; the tracker hears of it next frame (trackers that cannot take it ignore it)."""
        self._trust.put(list(cells))

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
        last_still = -STILL_EVERY
        watch = Watch.of("waiting", since=time.time())
        yield Observation(event=None, watch=watch)
        stale: Any = getattr(tracker, "board_check", None)  # a check from before the camera (came back)
        yield from self.between_frames(tracker)
        for item in self._stream(frames, view):
            self._drain(tracker)
            if item is None:  # the camera is lost
                stale = getattr(tracker, "board_check", None)
                watch = Watch.of("camera_lost", since=time.time())
                yield Observation(event=None, watch=watch)
                continue
            index, t, image = item
            if image is None:  # a live source with no new frame yet (the phone): nothing to look at
                if not view.sleep(0):
                    return
                yield from self.between_frames(tracker)
                continue
            if watch.status == "camera_lost":
                watch = Watch.of("waiting", since=time.time())
                yield Observation(event=None, watch=watch)
            if self._clock0 is None:
                self._clock0 = time.monotonic() - t / self.speed
            if self.pace:
                ahead = t / self.speed - (time.monotonic() - self._clock0)
                if ahead > 0 and not view.sleep(ahead):
                    return
                if self.drop_late and self.late(t):
                    self.dropped += 1
                    continue
            if not view.sleep(0):
                return
            now = time.monotonic()
            if now - last_still >= STILL_EVERY:
                last_still = now
                yield Observation(event=None, frame_png=png(image))
            self.fed += 1
            for out in tracker.feed(index, t, image):
                if out.event is None:  # a cleared attempt: nothing to log
                    continue
                # the tracker's session logs places, illegal attempts, undos and corrections alike
                yield Observation(event=self._to_table_event(out.event), before_png=out.before_png,
                                  after_png=out.after_png, checkpoint=self.checkpoint(),
                                  on_commit=self._committed(out.seq))
                yield from self.after_output(tracker, out)
            self._drain(tracker)
            check = getattr(tracker, "board_check", None)
            if check is not None and check is not stale and check.status != "waiting":
                new = watch_of(check, watch)
                if not new.same_as(watch):
                    watch = new
                    yield Observation(event=None, watch=watch)
            yield from self.between_frames(tracker)
        self._drain(tracker)

    def _stream(self, frames: Frames, view: TableView) -> Iterator[tuple[int, float, Any] | None]:
        """The frames, numbered and timed on without a break across a lost live source; ``None``
        once when it is lost (it failed, or its frames ended). Without ``reopen`` the end of the
        frames is the end of the game, and a failure is passed on."""
        t_shift = 0.0
        i_shift = 0
        last: tuple[int, float] | None = None
        lost_at: float | None = None
        while True:
            try:
                for index, t, image in frames:
                    if lost_at is not None:  # back: video time goes on by the time it was away
                        done_i, done_t = last if last is not None else (-1, 0.0)
                        t_shift = done_t + (time.monotonic() - lost_at) - t
                        i_shift = done_i + 1 - index
                        lost_at = None
                    last = (index + i_shift, t + t_shift)
                    yield index + i_shift, t + t_shift, image
                if self.reopen is None:
                    return
            except Exception:
                if self.reopen is None:
                    raise
            if lost_at is None:
                lost_at = time.monotonic()
                yield None
            while True:
                if not view.sleep(RETRY_SECONDS):
                    return
                try:
                    frames = self.reopen()
                    break
                except Exception:  # not there yet
                    continue

    # -- hooks for sources built on this one (the simulated table) -------------------------------
    def late(self, t: float) -> bool:
        """Whether the frame of video time ``t`` is already more than ``LATE_SECONDS`` overdue."""
        if self._clock0 is None or not self.pace:
            return False
        return (time.monotonic() - self._clock0) - t / self.speed > LATE_SECONDS

    def checkpoint(self) -> dict[str, Any] | None:
        """The source's state to store with each committed event (``None``: nothing to keep)."""
        return None

    def between_frames(self, tracker: Any) -> Iterator[Observation]:
        """Observations of the source's own after each frame (none here)."""
        return iter(())

    def after_output(self, tracker: Any, out: Any) -> Iterator[Observation]:
        """Observations of the source's own right after a tracker output was committed (none here)."""
        return iter(())

    def _default_tracker(self, frames: Any, corners: Any) -> Any:
        from vision.track.track import tracker_for

        return tracker_for(self.ctx.header, frames, corners)

    # -- keeping the two sessions in step --------------------------------------------------------
    def _committed(self, tracker_seq: int | None) -> Any:
        def note(table_seq: int, legal: bool) -> None:
            if tracker_seq is not None:
                self.to_tracker[table_seq] = tracker_seq
                self.to_table[tracker_seq] = table_seq
        return note

    def _drain(self, tracker: Any) -> None:
        while not self._trust.empty():
            cells = self._trust.get_nowait()
            if hasattr(tracker, "trust_record"):
                tracker.trust_record(cells)
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


def watch_of(check: Any, current: Watch) -> Watch:
    """The table's watch state for a tracker's board check (``since`` kept while it stays the same)."""
    cells = tuple(CellDiff(c.cell, c.record, c.seen) for c in check.cells)
    status: WatchStatus = "differs" if check.status == "differs" else "ok"
    if current.status == status and current.cells == cells:
        return current
    return Watch.of(status, cells, since=time.time() if status != "ok" else None)
