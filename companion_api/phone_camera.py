"""The phone as the table's camera: frames arrive as JPEGs over ``WS /api/camera`` and feed the
same tracker as any camera (``--source phone``).

:class:`PhoneCamera` is the meeting point of the WebSocket (any number of connections, one at a
time in practice) and the table loop. It keeps **only the newest frame**: a frame that arrives
before the loop took the previous one replaces it (the page is then told it is ``behind``), so
the tracker always looks at the table as it is now, never at a backlog.

A phone that locks, sleeps or loses the Wi-Fi is a camera lost and found: after
``LOST_AFTER`` seconds without a frame the table's watch state becomes ``camera_lost`` (before
the first frame: ``waiting``), whatever frame was pending is dropped, and when frames come back
the tracker starts its stillness wait afresh and reads the whole board at its next rest, so
nothing is committed from a view taken before the gap.

Each frame is answered with one JSON text message (INTERFACES §5)::

    {"located": true, "fps": 9.5, "want_fps": 10, "send_width": 1280, "hint": "", "behind": false,
     "corners": [[x, y] ×4] or null, "size": [w, h], "frame": 17}

``corners`` are the located board's playing-area corners in pixels of a frame of ``size`` (the
page scales them to its preview to draw the outline); ``send_width`` is the frame width wanted;
``hint`` is one line for the person holding the phone ("" when all is well).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .board_watch import Watch
from .table import Observation, SourceContext, TableView
from .tracker_source import TrackerSource

#: Frames per second the page is asked to send.
WANT_FPS = 10.0
#: Seconds without a frame after which the phone counts as lost.
LOST_AFTER = 2.0
#: Widest frame the tracker reads: wider ones are scaled down, and the page is asked to send this
#: width (its preview and calibration pictures keep the camera's full size). Reading a 1920×1080
#: frame takes about 2.5 times as long at rest for no better reading of a board that fills the view.
READ_WIDTH = 1280
#: Longest JPEG taken (bytes): a 1920×1080 frame is 0.2–1 MB.
MAX_FRAME_BYTES = 8 * 1024 * 1024
#: Mean grey level (0–255) under which the picture is too dark to read.
DARK_LEVEL = 45.0
#: Shift of the whole picture between two frames (fraction of its width) that means the phone moves.
SHAKE_FRACTION = 0.01

HINT_NO_BOARD = "move the phone so the whole board shows"
HINT_DARK = "too dark"
HINT_STILL = "hold still"
HINT_OTHER_SOURCE = "this table uses another source ({source}); its frames are not read"


@dataclass
class CameraStatus:
    """What the server last made of the phone's frames (sent back with every answer)."""

    located: bool = False
    corners: list[list[float]] | None = None
    size: tuple[int, int] | None = None
    hint: str = HINT_NO_BOARD
    frames_in: int = 0
    dropped: int = 0
    times: deque[float] = field(default_factory=lambda: deque(maxlen=30))

    def fps(self) -> float:
        """Frames the tracker took per second, over the last few."""
        if len(self.times) < 2 or self.times[-1] <= self.times[0]:
            return 0.0
        return round((len(self.times) - 1) / (self.times[-1] - self.times[0]), 1)


class PhoneCamera:
    """The newest JPEG from the phone, handed to whoever reads frames; see the module docstring."""

    def __init__(self, want_fps: float = WANT_FPS, lost_after: float = LOST_AFTER, active: bool = True,
                 source_name: str = "phone") -> None:
        self.want_fps = want_fps
        self.lost_after = lost_after
        #: whether the table loop reads these frames (``--source phone``)
        self.active = active
        self.source_name = source_name
        self.status = CameraStatus()
        self._cond = threading.Condition()
        self._pending: bytes | None = None
        self._pending_at = 0.0
        self._last_at: float | None = None  # monotonic time of the newest frame
        self._latest: bytes | None = None  # the newest JPEG (for a calibration picture)
        self._behind = False
        self._connections = 0
        self._t0 = time.monotonic()

    # -- the WebSocket side ----------------------------------------------------------------
    def connected(self) -> None:
        with self._cond:
            self._connections += 1

    def disconnected(self) -> None:
        with self._cond:
            self._connections = max(0, self._connections - 1)

    @property
    def connections(self) -> int:
        return self._connections

    def push(self, jpeg: bytes) -> dict[str, Any]:
        """Take one frame (replacing one not yet read); the answer for the page."""
        now = time.monotonic()
        with self._cond:
            if self._pending is not None:
                self.status.dropped += 1
                self._behind = True
            self._pending = jpeg
            self._pending_at = now
            self._last_at = now
            self._latest = jpeg
            self.status.frames_in += 1
            self._cond.notify_all()
            return self.answer()

    def answer(self) -> dict[str, Any]:
        """The JSON answer of INTERFACES §5 (and a few fields more) as things stand."""
        with self._cond:
            s = self.status
            behind, self._behind = self._behind, False
            hint = s.hint if self.active else HINT_OTHER_SOURCE.format(source=self.source_name)
            return {"located": s.located, "fps": s.fps(), "want_fps": self.want_fps, "send_width": READ_WIDTH,
                    "hint": hint,
                    "behind": behind, "corners": s.corners, "size": list(s.size) if s.size else None,
                    "frame": s.frames_in}

    def latest_jpeg(self) -> bytes | None:
        """The newest frame the phone sent (``None`` before the first)."""
        with self._cond:
            return self._latest

    # -- the table side ----------------------------------------------------------------------
    def lost(self) -> bool:
        """Whether frames stopped coming for ``lost_after`` seconds (or never came)."""
        with self._cond:
            return self._last_at is None or time.monotonic() - self._last_at > self.lost_after

    def ever_seen(self) -> bool:
        with self._cond:
            return self._last_at is not None

    def take(self, timeout: float) -> tuple[float, bytes] | None:
        """The pending frame (its time in seconds since start, its JPEG), waiting up to ``timeout``;
        ``None`` if none came. A frame older than ``lost_after`` is dropped, never returned."""
        with self._cond:
            self._cond.wait_for(lambda: self._pending is not None, timeout=timeout)
            if self._pending is None:
                return None
            jpeg, at = self._pending, self._pending_at
            self._pending = None
            if time.monotonic() - at > self.lost_after:
                return None  # a stale view
            return at - self._t0, jpeg

    def frames(self, view: TableView, tick: float = 0.25) -> Iterator[tuple[int, float, Any]]:
        """``(index, t, image)`` for each new frame; ``(index, t, None)`` every ``tick`` seconds
        without one (so the loop can report a lost camera and stop when asked)."""
        import cv2

        index = 0
        while view.sleep(0):
            got = self.take(tick)
            if got is None:
                yield index, time.monotonic() - self._t0, None
                continue
            t, jpeg = got
            image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
            if image is None or image.size == 0:
                continue  # not a picture: skipped (the page only sends canvas JPEGs)
            h, w = image.shape[:2]
            if w > READ_WIDTH:
                image = cv2.resize(image, (READ_WIDTH, max(1, round(h * READ_WIDTH / w))), interpolation=cv2.INTER_AREA)
            with self._cond:
                self.status.times.append(time.monotonic())
            yield index, t, np.asarray(image, np.uint8)
            index += 1


class PhoneSource(TrackerSource):
    """The tracker fed by :class:`PhoneCamera`; reports the camera lost and found as the watch state."""

    def __init__(self, ctx: SourceContext, camera: PhoneCamera, make_tracker: Any = None) -> None:
        super().__init__("phone", ctx, pace=False, make_tracker=make_tracker)
        self.camera = camera
        self._watch: str | None = None
        self._was_lost = True
        self._prev_small: Any = None
        self._last_image: Any = None
        self.tracker: Any = None

    def observations(self, view: TableView) -> Iterator[Observation]:
        self._frames = _Frames(self, view)
        make = self._make_tracker or self._default_tracker

        def keep(frames: Any, corners: Any) -> Any:
            self.tracker = make(frames, corners)
            return self.tracker

        self._make_tracker = keep
        yield from super().observations(view)

    def fresh_frame(self) -> None:
        """A frame is about to be fed: after a gap, the tracker first starts afresh (found again:
        wait for stillness in new frames only, then read the whole board anew)."""
        if self._was_lost:
            _start_afresh(self.tracker)
            self._was_lost = False

    def between_frames(self, tracker: Any) -> Iterator[Observation]:
        if self._last_image is not None:
            self.seen(tracker, self._last_image)
            self._last_image = None
        cam = self.camera
        lost = cam.lost()
        status = ("camera_lost" if cam.ever_seen() else "waiting") if lost else "ok"
        if lost and not self._was_lost:
            self._was_lost = True
            self._prev_small = None
        if status != self._watch:
            self._watch = status
            yield Observation(event=None, watch=Watch.of(status, since=time.time()))  # type: ignore[arg-type]

    def seen(self, tracker: Any, image: Any) -> None:
        """Update what the page is told after the tracker looked at ``image``."""
        import cv2

        fix = getattr(tracker, "fix", None)
        h, w = image.shape[:2]
        small = cv2.cvtColor(cv2.resize(image, (160, max(1, round(160 * h / w))), interpolation=cv2.INTER_AREA),
                             cv2.COLOR_BGR2GRAY).astype(np.float32)
        shaking = False
        if self._prev_small is not None and self._prev_small.shape == small.shape:
            (dx, dy), _resp = cv2.phaseCorrelate(self._prev_small, small)
            shaking = float(np.hypot(dx, dy)) > SHAKE_FRACTION * 160
        self._prev_small = small
        if hasattr(tracker, "fix"):  # the move tracker (Triolet): the board's fix gives the outline
            located = fix is not None
            corners = None if fix is None else [[round(float(x), 1), round(float(y), 1)] for x, y in fix.corners_px]
        else:  # the rest tracker reads the whole picture at rests: located once a read found the game
            located, corners = bool(getattr(tracker, "ever_located", False)), None
        if float(small.mean()) < DARK_LEVEL:
            hint = HINT_DARK
        elif not located:
            hint = HINT_NO_BOARD
        elif shaking:
            hint = HINT_STILL
        elif corners is not None and not _inside(corners, w, h):
            hint = HINT_NO_BOARD
        else:
            hint = ""
        with self.camera._cond:
            s = self.camera.status
            s.located, s.corners, s.size, s.hint = located, corners, (w, h), hint


class _Frames:
    """The camera's frames for one game; the source keeps the last one to tell the page about it."""

    def __init__(self, source: PhoneSource, view: TableView) -> None:
        self.source = source
        self.view = view

    def __iter__(self) -> Iterator[tuple[int, float, Any]]:
        for index, t, image in self.source.camera.frames(self.view):
            if image is not None:
                self.source.fresh_frame()
            self.source._last_image = image
            yield index, t, image


def _inside(corners: list[list[float]], w: int, h: int) -> bool:
    return all(0 <= x <= w and 0 <= y <= h for x, y in corners)


def _start_afresh(tracker: Any) -> None:
    """After a gap in the frames: the next frames must be still for the tracker's whole stability
    window before anything is read, and the read covers the whole board (moves made meanwhile)."""
    restart = getattr(tracker, "restart_watch", None)
    if callable(restart):
        restart()
    else:
        tracker.request_full_read()
