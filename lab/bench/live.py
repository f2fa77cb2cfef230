"""``companion bench live`` — the live loop on rendered game videos while the machine is busy.

Each rendered Triolet game (``lab.render.video``, cached with ``bench replay``'s videos) is
served through the loop ``companion serve --source video:PATH`` runs (:class:`TrackerSource`
in-process: paced in real time, frames a busy loop is late for skipped as a camera would) while
``--busy`` extra processes each keep a core busy. A small table beside it logs every observation
in its own engine session, as ``serve``'s table does, and plays the players' part: events the
camera cannot see (exchange, pass) are tapped once the moves before them are in, and when the
board stays "differs" (or an illegal attempt stays on the board) for ``--tap-after`` seconds the
record is set right by one tap (the first wrong placement corrected, or the move on the board
accepted as it really is); so is a committed placement the players see is not what they laid.
Per row: moves exact, moves held for a decision at the end (visibly:
the watch says "differs"), moves missed, false placements (a committed placement whose tiles do
not lie there), attempts larger than a turn (T-P1: more than 3 tiles or not in one line), taps.

``--misread`` adds a row per video with one tile of one move read as a wild on every look (an 11
taken for a wild), the reader being the renderer's truth otherwise: the game must come back to
exact after one tap. ``--soak SECONDS`` runs the soak instead: hands waving over a static board
with tiles (``lab.render.soak``) for that long in video time; every event is a false one.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion_api.cli.common import CliError, seed_number
from companion_api.cli.text_table import format_table

#: Seconds the board may stay "differs" (or an illegal attempt on it) before the players tap.
TAP_AFTER = 4.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--videos", type=int, default=4, help="game videos per difficulty (default 4)")
    p.add_argument("--seed", type=seed_number, default=1, help="seed of the first video (default 1)")
    p.add_argument("--difficulty", default="easy,hard",
                   help="comma list of easy, normal, hard (hard: the renderer's independent-looking styles); "
                        "default easy,hard")
    p.add_argument("--observer", default="reader",
                   help="comma list of: reader (the real locator and reader), oracle (renderer truth: the loop "
                        "alone); default reader")
    p.add_argument("--misread", action="store_true",
                   help="also run each video with one tile of one move always read as a wild (truth otherwise)")
    p.add_argument("--speed", type=float, default=1.0, help="video pace: 1 = real time (default)")
    p.add_argument("--busy", type=int, default=1, help="extra processes keeping a core busy (default 1)")
    p.add_argument("--tap-after", type=float, default=TAP_AFTER,
                   help=f"seconds a differing board waits before the players tap it right (default {TAP_AFTER:g})")
    p.add_argument("--soak", type=float, default=None, metavar="SECONDS",
                   help="run the soak instead: hands waving over a static board for SECONDS of video time")
    p.add_argument("--soak-size", default="1280x720", help="picture size of the soak (default 1280x720)")
    p.add_argument("--cache", default=None, help="folder of the rendered videos (default: bench replay's)")
    p.add_argument("--verbose", action="store_true", help="print each video's problems")


@dataclass
class LiveScore:
    """How the live loop did on one video."""

    name: str
    moves: int = 0
    exact: int = 0
    held: int = 0
    missed: int = 0
    false_placements: int = 0
    oversize: int = 0
    taps: int = 0
    events: int = 0
    fed: int = 0
    dropped: int = 0
    differs_shown: int = 0
    problems: list[str] = field(default_factory=list)


@contextlib.contextmanager
def busy_cores(n: int) -> Iterator[None]:
    """``n`` processes spinning on a core each, ended (by their pids) on leaving."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(0, n))]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


class _View:
    """The loop's handle on the bench's table: sleeps for real, alive until the end."""

    def __init__(self, header: Any) -> None:
        self.header = header

    def state(self) -> Any:
        raise NotImplementedError

    def sleep(self, seconds: float) -> bool:
        if seconds > 0:
            time.sleep(seconds)
        return True

    def alive(self) -> bool:
        return True


class _Recorder:
    """The tracker, with every output kept (for judging what it committed against the labels)."""

    def __init__(self, tracker: Any) -> None:
        self.tracker = tracker
        self.outputs: list[Any] = []
        self.last_frame: int | None = None

    def feed(self, index: int, t: float, image: Any) -> list[Any]:
        self.last_frame = index
        outs = self.tracker.feed(index, t, image)
        self.outputs.extend(outs)
        return list(outs)

    def submit(self, event: Any) -> Any:
        return self.tracker.submit(event)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tracker, name)


def run(args: argparse.Namespace) -> int:
    import cv2

    if args.speed <= 0:
        raise CliError("--speed must be above 0")
    cv2.setNumThreads(1)
    if args.soak is not None:
        return _run_soak(args)
    if args.videos < 1:
        raise CliError("--videos must be at least 1")
    diffs = [d.strip() for d in args.difficulty.split(",") if d.strip()]
    if not diffs or any(d not in ("easy", "normal", "hard") for d in diffs):
        raise CliError(f"--difficulty {args.difficulty}: choose from easy, normal, hard")
    kinds = [k.strip() for k in args.observer.split(",") if k.strip()]
    if not kinds or any(k not in ("reader", "oracle") for k in kinds):
        raise CliError(f"--observer {args.observer}: choose from reader, oracle")
    from lab.bench.replay import ensure_videos

    rows: list[list[Any]] = []
    with busy_cores(args.busy):
        for diff in diffs:
            ns = argparse.Namespace(game="triolet", difficulty=diff, fps=10.0, max_events=12, seed=args.seed,
                                    videos=args.videos, cache=args.cache)
            videos = ensure_videos(ns)
            runs = [(k, None) for k in kinds] + ([("oracle", "misread")] if args.misread else [])
            for kind, misread in runs:
                scores = [live_video(v, kind, misread is not None, args.speed, args.tap_after) for v in videos]
                for s in scores:
                    _progress(kind, s, args.verbose)
                label = f"{kind}, one tile read as a wild" if misread else kind
                rows.append(_row(diff, label, scores))
    print(format_table(HEADERS, rows, title=f"companion bench live: triolet, {args.videos} videos per difficulty "
                                            f"from seed {args.seed}, 1280x720 @ 10 fps played at x{args.speed:g}, "
                                            f"{args.busy} busy process(es) beside it"))
    return 0


HEADERS = ["videos", "observer", "games", "moves", "exact", "held (differs)", "missed", "false placements",
           "attempts > a turn", "taps", "frames looked at %"]


def _row(diff: str, label: str, scores: list[LiveScore]) -> list[Any]:
    fed = sum(s.fed for s in scores)
    dropped = sum(s.dropped for s in scores)
    return [diff, label, len(scores), sum(s.moves for s in scores), sum(s.exact for s in scores),
            sum(s.held for s in scores), sum(s.missed for s in scores), sum(s.false_placements for s in scores),
            sum(s.oversize for s in scores), sum(s.taps for s in scores),
            round(100.0 * fed / max(1, fed + dropped), 1)]


def _progress(kind: str, s: LiveScore, verbose: bool) -> None:
    sys.stderr.write(f"bench live: {kind} {s.name}: {s.exact}/{s.moves} exact, {s.held} held, {s.missed} missed, "
                     f"{s.false_placements} false, {s.oversize} oversize, {s.taps} taps, "
                     f"{s.dropped} of {s.fed + s.dropped} frames skipped\n")
    if verbose:
        for p in s.problems:
            sys.stderr.write(f"    {p}\n")


def live_video(video: Path, kind: str = "reader", misread: bool = False, speed: float = 1.0,
               tap_after: float = TAP_AFTER) -> LiveScore:
    """Serve one rendered video through the live loop and score it (see the module docstring)."""
    from engine.triolet import Place
    from lab.evaluate.videos import load_video_truth, view_turns
    from vision.track import MoveTracker

    labels, record = load_video_truth(video)
    header = record.header
    q = view_turns(labels[0])
    truth = list(record.events)
    truth_places = [ev for ev in truth if isinstance(ev, Place)]
    observer = _observer(kind, labels, truth_places if misread else None)

    def make_tracker(_frames: Any, _corners: Any) -> Any:
        return _Recorder(MoveTracker(header, observer))

    table = _BenchTable(header, truth, q, tap_after / speed, labels)
    recorder = table.run(str(video), make_tracker, speed)
    return table.score(video.stem, recorder, labels, q, truth_places)


def _observer(kind: str, labels: list[dict[str, Any]], misread_in: list[Any] | None) -> Any:
    from vision.track.oracle import Misread, OracleObserver

    def labels_of(i: int) -> dict[str, Any] | None:
        return labels[i] if 0 <= i < len(labels) else None

    if misread_in is not None:
        return OracleObserver(labels_of, misreads=(_misread(misread_in, Misread),))
    if kind == "oracle":
        return OracleObserver(labels_of)
    from vision.track.reader import ReaderObserver, ReaderUnavailableError

    try:
        return ReaderObserver("triolet")
    except ReaderUnavailableError as exc:
        raise CliError(f"--observer reader: {exc}") from None


def _misread(places: list[Any], misread: Callable[..., Any]) -> Any:
    """One tile of one move read as a wild on every look: the first 11 laid after the opening (else
    the first plain tile of the third move)."""
    for ev in places[1:]:
        for t in ev.tiles:
            if t.value == 11 and not t.wild:
                return misread(t.square, "wild", 0.6, True)
    ev = places[min(2, len(places) - 1)]
    tile = next(t for t in ev.tiles if not t.wild)
    return misread(tile.square, "wild", 0.6, True)


class _BenchTable:
    """The bench's table: logs observations in an engine session, as ``serve``'s table does, and
    taps for the players (unseen events; a correction when the board stays differing)."""

    def __init__(self, header: Any, truth: list[Any], q: int, tap_after: float, labels: list[dict[str, Any]]
                 ) -> None:
        from engine.core.session import Session

        self.session = Session(header)
        self.labels = labels
        self.frame = -1  # the last frame the tracker looked at
        self.truth = truth
        self.q = q
        self.tap_after = tap_after
        self.taps = 0
        self.manual_done: set[int] = set()
        self.differs_shown = 0
        self.watch: Any = None
        self.since: float | None = None  # wall time the board started to differ (or an attempt to wait)
        self.pending_illegal = False

    def run(self, video: str, make_tracker: Callable[[Any, Any], Any], speed: float) -> Any:
        from companion_api.table import SourceContext
        from companion_api.tracker_source import TrackerSource

        holder: dict[str, Any] = {}

        def keep(frames: Any, corners: Any) -> Any:
            holder["t"] = make_tracker(frames, corners)
            return holder["t"]

        ctx = SourceContext(0, self.session.header, None, 0, _NoStore())  # type: ignore[arg-type]
        self.source = TrackerSource(f"video:{video}", ctx, speed=speed, pace=True, drop_late=True, make_tracker=keep)
        self._inject()
        for obs in self.source.observations(_View(self.session.header)):
            if obs.watch is not None:
                self.watch = obs.watch
                if obs.watch.status == "differs":
                    self.differs_shown += 1
            if obs.event is not None:
                entry = self.session.submit(obs.event)
                if obs.on_commit is not None:
                    obs.on_commit(entry.seq, entry.verdict.legal)
                self.pending_illegal = not entry.verdict.legal and obs.event.type == "place"
                if entry.verdict.legal:
                    self._inject()
            tracker = holder.get("t")
            if tracker is not None and tracker.last_frame is not None:
                self.frame = tracker.last_frame
            self._maybe_tap(tracker)
        self.source_stats = (self.source.fed, self.source.dropped)
        return holder["t"]

    # -- the players' part -----------------------------------------------------------------------
    def _manual(self, event: Any) -> None:
        entry = self.session.submit(event)
        self.source.on_manual(event, entry.seq)

    def _committed(self) -> list[tuple[int, Any]]:
        from engine.triolet import Place
        from vision.track.follower import committed_places

        return committed_places(self.session, Place)

    def _view_event(self, ev: Any) -> Any:
        from engine.triolet import Place, PlacedTile
        from vision.track.layout import TRIOLET_LAYOUT, rotate_cell

        return Place(player=ev.player, tiles=tuple(PlacedTile(rotate_cell(TRIOLET_LAYOUT, t.square, self.q), t.value,
                                                              t.wild) for t in ev.tiles))

    def _matches(self, truth: Any, got: Any) -> bool:
        from lab.evaluate.videos import same_placement, to_view

        return same_placement(to_view(truth, self.q), got)

    def _inject(self) -> None:
        """The truth's unseen events, once the placements before them are in as played."""
        from engine.core.events import EventMeta
        from engine.triolet import Place

        placed = [ev for _s, ev in self._committed()]
        for k, ev in enumerate(self.truth):
            if k in self.manual_done or isinstance(ev, Place):
                continue
            before = [e for e in self.truth[:k] if isinstance(e, Place)]
            if len(placed) != len(before) or not all(self._matches(t, g) for t, g in zip(before, placed, strict=True)):
                return
            self._manual(dataclasses.replace(ev, meta=EventMeta(source="manual")))
            self.manual_done.add(k)

    def _maybe_tap(self, tracker: Any) -> None:
        """One tap when the board has differed (or an illegal attempt waited) for ``tap_after``."""
        waiting = self.pending_illegal or (self.watch is not None and self.watch.status == "differs") or \
            self._wrong_committed()
        now = time.monotonic()
        if not waiting:
            self.since = None
            return
        if self.since is None:
            self.since = now
            return
        if now - self.since < self.tap_after or tracker is None:
            return
        self.since = now
        wrong_camera = self._camera_wrong()
        if wrong_camera and not self._wrong_committed():
            self.taps += 1
            self.source.trust_record(wrong_camera)
            return
        fix = self._fix(tracker)
        if fix is not None:
            self.taps += 1
            self.pending_illegal = False
            self._manual(fix)
            self._inject()

    def _camera_wrong(self) -> list[str]:
        """Differing cells where the record has what lies there (the camera misreads them)."""
        from lab.evaluate.videos import table_tiles
        from vision.track.triolet_follower import tile_json

        if self.watch is None or self.watch.status != "differs" or not 0 <= self.frame < len(self.labels):
            return []
        lying = table_tiles(self.labels[self.frame], self.q)
        out = []
        for c in self.watch.cells:
            there = lying.get(c.cell)
            truth = None if there is None else tile_json("wild" if there[1] else str(there[0]))
            record = None if c.record is None else dict(c.record)
            if record == truth or (record is not None and truth is not None and record.get("wild")
                                   and truth.get("wild")):
                out.append(c.cell)
        return out

    def _wrong_committed(self) -> bool:
        """Whether a committed placement is not the truth's (the players see it on the page)."""
        from engine.triolet import Place

        truth_places = [ev for ev in self.truth if isinstance(ev, Place)]
        return any(not self._matches(want, got)
                   for (_s, got), want in zip(self._committed(), truth_places, strict=False))

    def _fix(self, tracker: Any) -> Any:
        """The first committed placement that is not the truth's, corrected; else the next move of
        the truth, if its tiles lie on the board (seen by the camera), accepted as it is."""
        from engine.core.events import Correct, EventMeta
        from engine.triolet import Place
        from lab.evaluate.videos import table_tiles

        meta = EventMeta(source="manual")
        truth_places = [ev for ev in self.truth if isinstance(ev, Place)]
        committed = self._committed()
        for (seq, got), want in zip(committed, truth_places, strict=False):
            if not self._matches(want, got):
                return Correct(player=None, seq=seq, event=self._view_event(want), meta=meta)
        if len(committed) >= len(truth_places):
            return None
        want = self._view_event(truth_places[len(committed)])
        lying = table_tiles(self.labels[self.frame], self.q) if 0 <= self.frame < len(self.labels) else {}
        if all(lying.get(t.square) == (t.value, t.wild) for t in want.tiles):
            return Place(player=want.player, tiles=want.tiles, meta=meta)
        return None

    # -- scoring -----------------------------------------------------------------------------------
    def score(self, name: str, recorder: Any, labels: list[dict[str, Any]], q: int, truth_places: list[Any]
              ) -> LiveScore:
        from lab.evaluate.videos import table_tiles

        s = LiveScore(name, moves=len(truth_places), taps=self.taps, differs_shown=self.differs_shown)
        s.fed, s.dropped = self.source_stats
        for o in recorder.outputs:
            if o.event is None:
                continue
            s.events += 1
            tiles = getattr(o.event, "tiles", None)
            if o.kind in ("place", "illegal") and tiles is not None and not _one_turn([t.square for t in tiles]):
                s.oversize += 1
                s.problems.append(f"attempt larger than a turn at frame {o.frame}: {o.event.to_json()}")
            if o.kind == "place" and tiles is not None and o.frame < len(labels):
                table = table_tiles(labels[o.frame], q)
                pending = o.extra.get("wild_square") if o.extra.get("wild_pending") else None
                for t in tiles:
                    got = table.get(t.square)
                    if got is None or got[1] != t.wild or (got[0] != t.value and t.square != pending):
                        s.false_placements += 1
                        s.problems.append(f"false placement at frame {o.frame}: {o.event.to_json()}")
                        break
        committed = self._committed()
        differs_at_end = (self.watch is not None and self.watch.status == "differs") or self.pending_illegal
        for i, want in enumerate(truth_places):
            if i < len(committed) and self._matches(want, committed[i][1]):
                s.exact += 1
            elif i >= len(committed) and differs_at_end:
                s.held += 1
            else:
                s.missed += 1
                s.problems.append(f"move {i + 1} not recovered: {want.to_json()}")
        return s


def _one_turn(squares: list[str]) -> bool:
    from vision.track.triolet_follower import TrioletFollower

    return TrioletFollower.one_turn(squares)


class _NoStore:
    """The bench's table keeps nothing (no board corners stored)."""

    def get_meta(self, _key: str) -> str | None:
        return None


def _run_soak(args: argparse.Namespace) -> int:
    from lab.render.soak import SoakSpec

    try:
        w, h = (int(x) for x in args.soak_size.lower().split("x"))
    except ValueError:
        raise CliError(f"--soak-size {args.soak_size}: expected WIDTHxHEIGHT, like 1280x720") from None
    if args.soak <= 0:
        raise CliError("--soak must be above 0 seconds")
    rows = []
    for kind in [k.strip() for k in args.observer.split(",") if k.strip()]:
        spec = SoakSpec(seconds=args.soak, seed=args.seed, size=(w, h))
        t0 = time.perf_counter()
        result = soak(spec, kind)
        rows.append([kind, round(args.soak / 60.0, 1), result["frames"], result["rests"], result["events"],
                     result["watch_differs"], round(result["frames"] / max(1e-9, time.perf_counter() - t0), 1)])
        for p in result["problems"][:10]:
            sys.stderr.write(f"bench live --soak: {p}\n")
    print(format_table(["observer", "video minutes", "frames", "rests read", "events", "watch differs",
                        "fps"],
                       rows, title=f"companion bench live --soak {args.soak:g}: hands waving over a static "
                                   f"Triolet board with tiles, {w}x{h} @ 10 fps, seed {args.seed}"))
    return 0


def soak(spec: Any, kind: str = "oracle") -> dict[str, Any]:
    """Hands waving over a static board (``lab.render.soak``) through the tracker: every event
    is a false one; also counts the rests whose board check said "differs"."""
    from lab.render.soak import soak_frames
    from vision.track import MoveTracker, OracleObserver

    frames = soak_frames(spec)
    header = frames.header
    if kind == "oracle":
        observer: Any = OracleObserver(frames.labels_of)
    else:
        observer = _observer("reader", [], None)
    tracker = MoveTracker(header, observer)
    # the tiles on the board before the soak are the record's: played in by hand, one move each
    for ev in frames.opening_events():
        tracker.submit(ev)
    problems: list[str] = []
    events = differs = rests = 0
    last_check = None
    count = 0
    for index, t, image in frames:
        count += 1
        for o in tracker.feed(index, t, image):
            if o.event is not None:
                events += 1
                problems.append(f"event at {t:.1f} s: {o.to_json()}")
        if tracker.board_check is not last_check:
            last_check = tracker.board_check
            rests += 1
            if last_check.status == "differs":
                differs += 1
                problems.append(f"board differs at {t:.1f} s: {[c.cell for c in last_check.cells]}")
    return {"frames": count, "rests": rests, "events": events, "watch_differs": differs, "problems": problems}
