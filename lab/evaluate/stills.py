"""Scoring the rest tracker on a renderer-B stills game (``lab.render.povray.blokus_game``) and saying
why each move that went wrong went wrong.

The frames are the game's stills at rest with an arm over each new piece between them; the
tracker reads with the oracle (the renderer's labels) or the real one-picture reader. A move is
exact when the tracker commits it in order with the same colour and cells (Trigon: named in the
view frame, as the reader names them; square boards: the engine's names). Every reading the
tracker asked for is kept, so a move that went wrong is put down to what the reading of its
still shows against the truth: the board not found, the board found off its place
(registration), squares or triangles of the wrong colour, the engine refusing the reading (an
illegal report), or a right reading that the tracker mishandled. A move whose piece was committed,
but as another move (pieces laid while the board was not found, caught up with in another order
of the same colour's pieces), is ``out of order``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.core.events import Event, EventMeta
from engine.core.record import Record, RecordLine
from lab.evaluate.pictures import view_names
from lab.evaluate.videos import VideoScore, count_output, follow_and_score
from lab.render.frame import RenderedFrame
from lab.render.povray.blokus_game import StillsGame, still_frames
from vision.track.follower import committed_places
from vision.track.observer import Frame
from vision.track.picture_readers import PictureReader, oracle_reader, reader_for
from vision.track.rest_tracker import RestOptions, RestTracker

Labels = dict[str, Any]
#: a board found with a corner this many cells off its place is a registration fault
REGISTRATION_CELLS = 0.5


@dataclass
class MoveFault:
    """A move that went wrong: its number (1-based), what happened and why."""

    move: int
    what: str
    why: str
    cause: str


@dataclass
class StillsScore:
    """The tracker's score on one stills game and the faults found."""

    score: VideoScore
    faults: list[MoveFault] = field(default_factory=list)
    #: the game's pieces the tracker committed, in whatever order
    pieces_committed: int = 0


def reading_labels(labels: Labels) -> Labels:
    """A still's labels as the tracker's oracle and the scorer take them: square boards name the
    squares in the picture's frame (``read.cells``), Trigon keeps its ``cell_view`` names."""
    if labels.get("game") == "trigon":
        return dict(labels)
    return {**labels, "cells": list(labels["read"]["cells"]), "engine_cells": labels["cells"]}


def truth_cells(labels: Labels) -> dict[str, str]:
    """What lies on the board in a still, named as the reader names it (the picture's frame)."""
    if labels.get("game") == "trigon":
        return {str(c["cell_view"]): str(c["colour"]) for c in labels["cells"]}
    return {str(c["cell"]): str(c["colour"]) for c in labels["cells"]}


def truth_corners(labels: Labels) -> Any:
    board = labels["board"]
    return np.asarray(board.get("hexagon_px") or board["corners_px"], np.float64)


def corner_error_cells(found: Any, truth: Any, cells_across: int) -> float:
    """How far the found board's corners lie from the truth's, in cells (the best cyclic match)."""
    f, t = np.asarray(found, np.float64), np.asarray(truth, np.float64)
    if f.shape != t.shape:
        return math.inf
    size = float(np.mean(np.hypot(*(t - np.roll(t, 1, axis=0)).T))) / cells_across
    return min(float(np.hypot(*(np.roll(f, s, axis=0) - t).T).max()) for s in range(len(t))) / max(size, 1e-9)


def _turnings(game: str) -> list[dict[str, str]]:
    """Name maps for each turn of the board in the picture (4 for squares, 6 for Trigon)."""
    if game == "trigon":
        from vision.read.trigon.board_geometry import cell_name, rotation_map

        out = []
        for k in range(6):
            rot = rotation_map(9, k)
            out.append({cell_name(c, 9): cell_name(rot[c], 9) for c in rot})
        return out
    from vision.track.blokus_follower import square_name, turned

    n = 14 if game == "blokus_duo" else 20
    return [{square_name(c, r, n): square_name(*turned(c, r, n, k), n) for r in range(n) for c in range(n)}
            for k in range(4)]


def cell_differences(game: str, seen: dict[str, str], truth: dict[str, str]) -> list[str]:
    """The cells where a reading differs from the truth (``a5 red→blue``; ``-`` empty), under the
    turn of the board that fits best (the reader may take another edge for the top)."""
    best: list[str] | None = None
    for names in _turnings(game):
        moved = {names.get(c, c): col for c, col in seen.items()}
        diff = [f"{c} {truth.get(c, '-')}→{moved.get(c, '-')}" for c in sorted(set(moved) | set(truth))
                if truth.get(c) != moved.get(c)]
        if best is None or len(diff) < len(best):
            best = diff
    return best or []


def diagnose(game: str, reading: Any, labels: Labels) -> tuple[str, str]:
    """Why a reading of a still may mislead the tracker: (cause, detail); cause ``right`` when the
    reading is the truth."""
    if reading is None:
        return "not located", "the board was not found"
    cells_across = 9 if game == "trigon" else (14 if game == "blokus_duo" else 20)
    err = corner_error_cells(reading.corners_px, truth_corners(labels), cells_across)
    if err > REGISTRATION_CELLS:
        return "registration", f"board corners {err:.1f} cells off"
    seen = {str(c.cell): str(c.colour) for c in reading.cells}
    diff = cell_differences(game, seen, truth_cells(labels))
    if diff:
        return "cell colour", f"{len(diff)} cells: " + ", ".join(diff[:4]) + (" …" if len(diff) > 4 else "")
    return "right", "the reading is the truth"


class RecordingReader:
    """A picture reader that keeps each frame's reading (frame index → reading)."""

    def __init__(self, reader: PictureReader) -> None:
        self.reader = reader
        self.readings: dict[int, Any] = {}

    def __call__(self, frame: Frame) -> Any:
        out = self.reader(frame)
        self.readings[frame.index] = out
        return out


def score_stills_game(sg: StillsGame, stills: list[RenderedFrame], observer_kind: str = "oracle",
                      options: RestOptions | None = None, fps: float = 8.0, hold: int = 6,
                      reader: PictureReader | None = None) -> StillsScore:
    """Run the rest tracker over the game's stills (``still_frames``) and score it against the truth
    (``reader``, when given, reads instead of the observer's)."""
    from engine.trigon.events import TrigonPlace

    images: list[Any] = []
    labels: list[Labels] = []
    still_of: list[int] = []
    first_at: dict[int, int] = {}
    for i, (image, lab, k, at_rest) in enumerate(still_frames(sg, stills, hold)):
        images.append(image)
        if at_rest and k > 0:
            first_at[k - 1] = i
        still_of.append(k)
        labels.append({"phase": "idle", **reading_labels(lab), "frame": i, "ts": i / fps})
    events = [dataclasses.replace(ev, meta=EventMeta(frame=first_at[j], ts=first_at[j] / fps))
              for j, ev in enumerate(sg.events)]
    record = Record(sg.header, [RecordLine(j + 1, j + 1, ev) for j, ev in enumerate(events)])
    base = reader or (oracle_reader(sg.game, lambda i: labels[i] if 0 <= i < len(labels) else None)
                      if observer_kind == "oracle" else reader_for(sg.header))
    recorder = RecordingReader(base)
    tracker = RestTracker(sg.header, recorder, options)
    place_type: type[Event] = type(events[0]) if events else Event
    view = view_names(labels) if sg.game == "trigon" else {}

    def same(t: Event, g: Event, _extra: dict[str, Any]) -> bool:
        if getattr(t, "colour", None) != getattr(g, "colour", None):
            return False
        if isinstance(t, TrigonPlace):
            return {view.get(c, c) for c in t.cells} == set(getattr(g, "cells", ()))
        return bool(getattr(t, "cells", ()) == getattr(g, "cells", ()))

    illegal_at: list[int] = []

    def judge(o: Any, lab: Labels | None, score: VideoScore) -> bool:
        if o.kind == "illegal":
            illegal_at.append(o.frame)
        return count_output(o, lab, score)

    frames = ((i, i / fps, images[i]) for i in range(len(images)))
    score = follow_and_score(f"{sg.game}_seed{sg.seed}", tracker, frames, labels, record, place_type,
                             lambda _placed: same, judge)
    placed = [ev for _s, ev in committed_places(tracker.session, place_type)]
    faults = list(_faults(sg, placed, events, same, recorder.readings, labels, still_of, illegal_at))
    pieces = sum(any(same(t, g, {}) for g in placed) for t in events)
    return StillsScore(score, faults, pieces)


def _faults(sg: StillsGame, placed: Sequence[Event], truth: Sequence[Event], same: Any, readings: dict[int, Any],
            labels: list[Labels], still_of: list[int], illegal_at: list[int]) -> Iterator[MoveFault]:
    """Each move that went wrong, with the reading of its still held against the truth."""
    went_wrong = False
    faulted: set[int] = set()
    for j, ev in enumerate(truth):
        got = placed[j] if j < len(placed) else None
        if got is not None and same(ev, got, {}):
            continue
        what = "missed" if got is None else f"got {getattr(got, 'colour', '?')} {' '.join(getattr(got, 'cells', ()))}"
        played = next((m for m, t in enumerate(truth) if got is not None and same(t, got, {})), None)
        if played is not None:
            what = f"got move {played + 1}'s piece"
        reads = [(i, r) for i, r in sorted(readings.items()) if still_of[i] == j + 1]
        if not reads:
            cause, why = "not read", "the tracker read no picture of this still"
        else:
            i, r = reads[-1]
            cause, why = diagnose(sg.game, r, labels[i])
            refused = [f for f in illegal_at if still_of[f] == j + 1]
            if cause == "right" and refused:
                cause, why = "engine refused", "the engine refused a right reading"
            elif cause == "right":
                cause, why = ("after a wrong move", "the reading is right; an earlier move went wrong") if went_wrong \
                    else ("tracker", "the reading is right; the tracker did not commit it")
            elif refused:
                why += "; the engine refused the reading"
        if played is not None:
            why = f"{why}; its own piece was committed as another move"
            cause = "out of order"
        went_wrong = True
        faulted.add(j + 1)
        yield MoveFault(j + 1, what, why, cause)
    for f in illegal_at:
        k = still_of[f]
        if k == 0 or k in faulted or f not in readings:
            continue
        cause, why = diagnose(sg.game, readings[f], labels[f])
        if cause != "right":
            yield MoveFault(k, "illegal report", why, cause)


__all__ = ["MoveFault", "RecordingReader", "StillsScore", "cell_differences", "corner_error_cells", "diagnose",
           "reading_labels", "score_stills_game"]
