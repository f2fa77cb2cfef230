"""A camera that fails says so and comes back: ``camera_lost`` on the watch while it is away, the
loop resuming within 2 s of it returning, nothing lost; a camera or video that cannot open at start
is one line and exit 2."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion_api.store import Store
from companion_api.table import Observation, SourceContext
from companion_api.tracker_source import TrackerSource
from engine.core import Event, Session
from engine.core.events import EventMeta
from engine.core.header import Header
from engine.triolet import Place, PlacedTile
from vision.track.base import BoardCheck, CellCheck

ROOT = Path(__file__).resolve().parents[1]
HEADER = Header(game="triolet", players=("Ana", "Ben"))


class FakeTracker:
    """Records the frames it is fed (wall time, video time) and what the table tells it; its board
    check is "ok" after every fed frame but those listed in ``differs_at``."""

    def __init__(self, differs_at: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        self.session = Session(HEADER)
        self.fed: list[tuple[float, int, float]] = []
        self.told: list[Event] = []
        self.differs_at = differs_at
        self.board_check = BoardCheck()

    def submit(self, event: Event) -> Any:
        self.told.append(event)
        return self.session.submit(event)

    def feed(self, index: int, t: float, image: Any) -> list[Any]:
        self.fed.append((time.monotonic(), index, t))
        if index in self.differs_at:
            self.board_check = BoardCheck("differs", (CellCheck("H8", None, {"value": 11, "wild": False}),))
        else:
            self.board_check = BoardCheck("ok")
        return []


class View:
    def __init__(self, stop_after: float) -> None:
        self.header = HEADER
        self.until = time.monotonic() + stop_after

    def sleep(self, seconds: float) -> bool:
        time.sleep(min(seconds, 0.05))
        return time.monotonic() < self.until

    def alive(self) -> bool:
        return time.monotonic() < self.until

    def state(self) -> Any:
        return Session(HEADER).state


class Camera:
    """A camera that gives ``n`` frames then fails; unplugged for ``away`` seconds, then back."""

    def __init__(self, away: float) -> None:
        self.away = away
        self.failed_at: float | None = None
        self.back_at: float | None = None
        self.opens = 0

    def frames(self, n: int, fail: bool) -> Iterator[tuple[int, float, Any]]:
        t0 = time.monotonic()
        for i in range(n):
            time.sleep(0.02)
            yield i, time.monotonic() - t0, np.zeros((8, 8, 3), np.uint8)
        if fail:
            self.failed_at = time.monotonic()
            raise OSError("camera unplugged")

    def reopen(self) -> Iterator[tuple[int, float, Any]]:
        self.opens += 1
        assert self.failed_at is not None
        if time.monotonic() - self.failed_at < self.away:
            raise OSError("no such device")
        if self.back_at is None:
            self.back_at = time.monotonic()
        return self.frames(400, fail=False)


def run_source(tmp_path: Path, camera: Camera, tracker: FakeTracker, seconds: float,
               during_loss: Event | None = None) -> list[tuple[float, Observation]]:
    ctx = SourceContext(game_id=1, header=HEADER, checkpoint=None, seed=1, store=Store(tmp_path / "s.sqlite3"))
    source = TrackerSource("camera:0", ctx, pace=False, frames=camera.frames(15, fail=True),
                           make_tracker=lambda _f, _c: tracker, reopen=camera.reopen)
    seen: list[tuple[float, Observation]] = []
    for obs in source.observations(View(seconds)):
        seen.append((time.monotonic(), obs))
        if during_loss is not None and obs.watch is not None and obs.watch.status == "camera_lost":
            source.on_manual(during_loss, 1)  # a phone's event while the camera is away
    return seen


def statuses(seen: list[tuple[float, Observation]]) -> list[str]:
    return [o.watch.status for _t, o in seen if o.watch is not None]


def test_an_unplugged_camera_is_shown_lost_and_the_loop_resumes_within_two_seconds(tmp_path: Path) -> None:
    camera = Camera(away=1.0)
    tracker = FakeTracker()
    manual = Place(player=0, tiles=(PlacedTile("H8", 5),), meta=EventMeta(source="manual"))
    seen = run_source(tmp_path, camera, tracker, seconds=4.0, during_loss=manual)
    assert statuses(seen) == ["waiting", "ok", "camera_lost", "waiting", "ok"]
    lost_at = next(t for t, o in seen if o.watch is not None and o.watch.status == "camera_lost")
    assert camera.failed_at is not None and camera.back_at is not None
    assert lost_at - camera.failed_at < 0.5  # said at once
    assert camera.opens >= 3  # tried again while it was away
    first_after = min(w for w, _i, _t in tracker.fed if w >= camera.back_at)
    assert first_after - camera.back_at < 2.0
    # the video time runs on across the gap (the tracker sees the time away as motion) …
    times = [t for _w, _i, t in tracker.fed]
    assert times == sorted(times) and max(b - a for a, b in itertools.pairwise(times)) >= 0.9
    assert [i for _w, i, _t in tracker.fed] == list(range(len(tracker.fed)))  # … numbered on, none skipped
    assert [e.to_json()["tiles"] for e in tracker.told] == [[{"square": "H8", "value": 5}]]  # nothing lost


def test_the_watch_carries_the_trackers_differing_cells(tmp_path: Path) -> None:
    camera = Camera(away=0.3)
    tracker = FakeTracker(differs_at={5, 6, 7})
    seen = run_source(tmp_path, camera, tracker, seconds=2.5)
    assert statuses(seen)[:4] == ["waiting", "ok", "differs", "ok"]
    differs = next(o.watch for _t, o in seen if o.watch is not None and o.watch.status == "differs")
    assert differs.to_json()["cells"] == [{"cell": "H8", "record": None, "seen": {"value": 11, "wild": False}}]
    assert differs.message == "board differs from the record"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from companion_api.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("source", ["camera:57", "video:{tmp}/not_a_video.mp4"])
def test_a_source_that_cannot_open_is_one_line_and_exit_2(tmp_path: Path, source: str) -> None:
    (tmp_path / "not_a_video.mp4").write_text("hello")
    r = cli("serve", "--source", source.format(tmp=tmp_path), "--port", "0", "--db", str(tmp_path / "d.sqlite3"),
            cwd=tmp_path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert ("camera 57 cannot be opened" in lines[0]) if source.startswith("camera") else "not a video" in lines[0]
    assert r.stdout == ""  # no server started
