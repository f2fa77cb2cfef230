"""Scoring the tracker on a rendered game video against its truth (record + per-frame labels).

Used by ``companion bench replay`` and the tests. Events the camera cannot see (exchange, pass,
reveal) are given to the tracker as the phone would, right after the placements that precede
them in the truth record are committed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.core.events import Event
from engine.core.header import Header
from engine.core.record import Record, load_record
from engine.triolet import Place
from vision.track.follower import committed_places
from vision.track.layout import TRIOLET_LAYOUT, best_rotation, rotate_cell
from vision.track.observer import BoardObserver
from vision.track.oracle import load_labels
from vision.track.output import TrackerOutput
from vision.track.tracker import MoveTracker, TrackerOptions

Labels = dict[str, Any]
TileKey = tuple[str, int | None, bool]


@dataclass
class VideoScore:
    """How the tracker did on one video."""

    name: str
    truth_moves: int = 0
    exact_moves: int = 0
    false_events: int = 0
    missed: int = 0
    illegal_reports: int = 0
    undos: int = 0
    corrections: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    frames: int = 0
    tracker_seconds: float = 0.0
    total_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return self.exact_moves == self.truth_moves and self.false_events == 0


def view_turns(labels: Labels) -> int:
    """Quarter turns from the labels' board frame to the frame of the first board fix (view frame)."""
    b = labels["board"]
    return best_rotation(np.asarray(b["corners_px"], np.float64), np.asarray(b["corners_px_view"], np.float64))


def to_view(event: Place, q: int) -> tuple[int | None, frozenset[TileKey]]:
    return event.player, frozenset((rotate_cell(TRIOLET_LAYOUT, t.square, q), t.value, t.wild) for t in event.tiles)


def table_tiles(labels: Labels, q: int) -> dict[str, tuple[int, bool]]:
    """What physically lies on the board in one frame, named in the view frame."""
    return {rotate_cell(TRIOLET_LAYOUT, c["square"], q): (int(c["value"]), bool(c["wild"])) for c in labels["cells"]}


def same_placement(truth: tuple[int | None, frozenset[TileKey]], out: Place, q_out: int = 0,
                   wild_options: Iterable[int] | None = None) -> bool:
    """Whether the tracker's placement is the truth's (a pending wild matches any of its options)."""
    player, tiles = truth
    if out.player != player or len(out.tiles) != len(tiles):
        return False
    options = set(wild_options) if wild_options is not None else None
    by_sq = {sq: (v, w) for sq, v, w in tiles}
    for t in out.tiles:
        if t.square not in by_sq:
            return False
        v, w = by_sq[t.square]
        if w != t.wild:
            return False
        if t.value != v and not (t.wild and options is not None and v in options):
            return False
    return True


#: whether a committed placement is the truth's: ``same(truth, got, extra)`` (``extra``: the
#: output line's extra fields when it was committed, ``{}`` while the benchmark checks progress)
Same = Callable[[Event, Event, dict[str, Any]], bool]


def follow_and_score(name: str, tracker: Any, frames: Iterable[tuple[int, float, Any]], labels: list[Labels],
                     record: Record, place_type: type[Event], matcher: Callable[[list[Event]], Same],
                     judge: Callable[[TrackerOutput, Labels | None, VideoScore], object],
                     on_output: Callable[[TrackerOutput], None] | None = None) -> VideoScore:
    """Feed ``frames`` to ``tracker`` and compare its committed placements with the truth, in order.

    ``matcher(placed)`` gives the comparison for the placements committed so far (the tile games
    match lattices on them); ``judge`` counts each output (false events). Events the camera cannot
    see are submitted once every placement before them is committed as played.
    """
    truth_events: list[Event] = list(record.events)
    truth_places = [(k, ev) for k, ev in enumerate(truth_events) if isinstance(ev, place_type)]
    score = VideoScore(name, truth_moves=len(truth_places))
    manual_done: set[int] = set()
    t_start = time.perf_counter()
    out_at: dict[int, tuple[float, dict[str, Any]]] = {}  # tracker seq -> (t, extra)

    def committed() -> list[tuple[int, Event]]:
        return committed_places(tracker.session, place_type)

    def inject() -> None:
        """Give the tracker the truth's unseen events (exchange, pass, draw, reveal) once the
        placements before them are committed as they were played (as a player would tap them)."""
        placed = [ev for _s, ev in committed()]
        same = matcher(placed)
        for k, ev in enumerate(truth_events):
            if k in manual_done or isinstance(ev, place_type):
                continue
            before = [e for j, e in truth_places if j < k]
            if not all(j in manual_done or isinstance(truth_events[j], place_type) for j in range(k)):
                return
            if len(placed) != len(before):
                return
            if not all(same(t, got, {}) for t, got in zip(before, placed, strict=True)):
                return
            tracker.submit(ev)
            manual_done.add(k)

    inject()
    for index, t, image in frames:
        outs = tracker.feed(index, t, image)
        score.frames += 1
        for o in outs:
            score.lines.append(o.to_json())
            if on_output is not None:
                on_output(o)
            judge(o, labels[index] if index < len(labels) else None, score)
            if o.kind == "place" and o.entry is not None:
                out_at[o.entry.seq] = (o.t, dict(o.extra))
        if outs:
            inject()
    score.tracker_seconds = tracker.stats.seconds
    score.total_seconds = time.perf_counter() - t_start
    placed = committed()
    same = matcher([ev for _s, ev in placed])
    fps = video_fps(labels)
    for i, (_k, ev) in enumerate(truth_places):
        if i >= len(placed):
            score.missed += 1
            score.problems.append(f"missed move {i + 1}: {ev.to_json()}")
            continue
        seq, got = placed[i]
        if same(ev, got, out_at.get(seq, (0.0, {}))[1]):
            score.exact_moves += 1
            if ev.meta.frame is not None and seq in out_at:
                score.latencies_ms.append(1000.0 * (out_at[seq][0] - ev.meta.frame / fps))
        else:
            score.problems.append(f"move {i + 1}: truth {ev.to_json()} got {got.to_json()}")
    if len(placed) > len(truth_places):
        score.problems.append(f"{len(placed) - len(truth_places)} extra committed placements")
    return score


def score_video(name: str, frames: Iterable[tuple[int, float, Any]], labels: list[Labels], record: Record,
                observer: BoardObserver, options: TrackerOptions | None = None,
                on_output: Callable[[TrackerOutput], None] | None = None) -> VideoScore:
    """Run a Triolet tracker over ``frames`` and compare with the truth."""
    header: Header = record.header
    q = view_turns(labels[0])

    def matcher(_placed: list[Event]) -> Same:
        def same(truth: Event, got: Event, extra: dict[str, Any]) -> bool:
            assert isinstance(truth, Place) and isinstance(got, Place)
            return same_placement(to_view(truth, q), got, 0, extra.get("wild_candidates"))
        return same

    def judge(o: TrackerOutput, lab: Labels | None, score: VideoScore) -> None:
        _judge_output(o, lab, q, score)

    return follow_and_score(name, MoveTracker(header, observer, options), frames, labels, record, Place,
                            matcher, judge, on_output)


def video_fps(labels: list[Labels]) -> float:
    """The frame rate of a rendered video, from its labels' time stamps (10 if they tell none)."""
    for lab in labels[1:]:
        if lab.get("ts"):
            return float(lab["frame"]) / float(lab["ts"])
    return 10.0


def count_output(o: TrackerOutput, lab: Labels | None, score: VideoScore) -> bool:
    """Count an output by kind; an illegal report outside a take-back scene is a false event (the
    videos' only illegal placements are the take-back scenes: any other report is a reading of a
    move in progress, or a misread, shown to the players as an error). Whether it was false."""
    if o.kind == "illegal":
        score.illegal_reports += 1
    if o.kind == "undo":
        score.undos += 1
    if o.kind == "correct":
        score.corrections += 1
    if lab is None or o.event is None:
        return False
    if o.kind == "illegal" and lab.get("phase", "takeback") != "takeback":
        score.false_events += 1
        score.problems.append(f"illegal report outside a take-back at frame {o.frame}: {o.event.to_json()}")
        return True
    return False


def _judge_output(o: TrackerOutput, lab: Labels | None, q: int, score: VideoScore) -> None:
    """Count an output as false when what it reports is not physically so on the table."""
    if count_output(o, lab, score) or lab is None or o.event is None:
        return
    table = table_tiles(lab, q)
    if isinstance(o.event, Place):
        for t in o.event.tiles:
            got = table.get(t.square)
            pending = o.extra.get("wild_pending") and o.extra.get("wild_square") == t.square
            if got is None or got[1] != t.wild or (got[0] != t.value and not pending):
                score.false_events += 1
                score.problems.append(f"false {o.kind} at frame {o.frame}: {o.event.to_json()} (table: "
                                      f"{t.square}={got})")
                return
    elif o.kind == "undo":
        undone = o.extra.get("undone", {}).get("tiles", [])
        still = [t for t in undone if table.get(t["square"]) == (t["value"], bool(t.get("wild", False)))]
        if undone and len(still) == len(undone):
            score.false_events += 1
            score.problems.append(f"false undo at frame {o.frame}: {undone} all still on the table")


def load_video_truth(video: Path) -> tuple[list[Labels], Record]:
    stem = video.with_suffix("")
    labels = load_labels(stem.with_name(stem.name + ".labels.jsonl"))
    record = load_record(stem.with_suffix(".jsonl"))
    return labels, record


def run_file(video: Path, observer_kind: str = "oracle", options: TrackerOptions | None = None,
             observer: BoardObserver | None = None, misread_rate: float = 0.0) -> VideoScore:
    """Score the tracker on one written video (``write_game_video`` output).

    ``observer_kind``: ``oracle`` (labels), ``locator`` (real locator, labels' tiles) or ``reader``;
    ``misread_rate`` makes the oracle misread that share of tiles (truth as second candidate)."""
    from vision.sources import VideoFileSource
    from vision.track.oracle import OracleObserver

    labels, record = load_video_truth(video)
    if observer is None:
        if observer_kind in ("oracle", "locator"):
            from vision.track.reader import locate_triolet
            observer = OracleObserver(lambda i: labels[i] if 0 <= i < len(labels) else None,
                                      locator=locate_triolet if observer_kind == "locator" else None,
                                      misread_rate=misread_rate, seed=7)
        else:
            from vision.track.reader import ReaderObserver
            observer = ReaderObserver("triolet")
    return score_video(video.stem, VideoFileSource(video), labels, record, observer, options)
