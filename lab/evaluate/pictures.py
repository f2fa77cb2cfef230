"""Scoring the rest tracker on a rendered Trigon, Triominos or Trio Domino video against its truth.

A placement is recovered exactly when the tracker commits it, in order, for the right player,
with the same content: for Trigon the same colour and triangles (named in the view frame, as
the reader names them); for the tile games the same field, cell and corner values once the
tracker's lattice is turned onto the truth's (a field's lattice is fixed by its first tile in
the picture, the truth's by the game; they differ by a turn of 60° steps and a shift).
Events the camera cannot see (draws, passes, reveals) are given to the tracker as the phone would,
once the placements before them are committed. A Blokus game (``score_blokus_game``, frames from
``lab.render.blokus.blokus_game_frames``) is recovered when every piece is committed in order with
the same colour and squares in the engine's names.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from engine.core.events import Event
from engine.core.lattice import Cell, Vertex
from engine.core.record import Record
from engine.trigon.events import TrigonPlace
from engine.tritiles.events import TilePlace
from engine.tritiles.geometry import LATTICE, vertices
from lab.evaluate.videos import Same, VideoScore, count_output, follow_and_score, load_video_truth
from vision.track.output import TrackerOutput
from vision.track.picture_readers import PictureReader, oracle_reader, reader_for
from vision.track.rest_tracker import RestOptions, RestTracker

Labels = dict[str, Any]
ROW = math.sqrt(3.0) / 2.0


def rotate_vertex(v: Vertex, turns: int) -> Vertex:
    """A lattice point turned by ``turns`` × 60° about the origin."""
    x, y = LATTICE.vertex_xy(v)
    a = math.radians(60.0 * turns)
    xr, yr = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
    return round(2.0 * xr), round(yr / ROW)


def cell_of(points: Iterable[Vertex]) -> Cell | None:
    """The cell whose corners are these three lattice points."""
    pts = list(points)
    cx = sum(p[0] for p in pts) / 3.0
    cy = sum(p[1] for p in pts) / 3.0
    for cell in ((round(cx), round(cy - 2.0 / 3.0)), (round(cx), round(cy - 1.0 / 3.0))):
        if set(vertices(cell)) == set(pts):
            return cell
    return None


def moved_tile(cell: Cell, values: tuple[int, int, int], turns: int, shift: Vertex
               ) -> tuple[Cell, tuple[int, int, int]] | None:
    """A tile's cell and M-B3 values after turning the lattice by ``turns`` and shifting it."""
    at = {}
    for v, n in zip(vertices(cell), values, strict=True):
        r = rotate_vertex(v, turns)
        at[(r[0] + shift[0], r[1] + shift[1])] = n
    new = cell_of(at)
    if new is None:
        return None
    vs = vertices(new)
    return new, (at[vs[0]], at[vs[1]], at[vs[2]])


def lattice_match(truth: list[TilePlace], got: list[TilePlace]) -> dict[int, tuple[int, Vertex]]:
    """Per field, the turn and shift that carry the truth's tiles onto most of the tracker's."""
    out: dict[int, tuple[int, Vertex]] = {}
    for field in {e.field for e in truth}:
        t_tiles = [(e.cell, e.values) for e in truth if e.field == field]
        g_tiles = {(e.cell, e.values) for e in got if e.field == field}
        if not g_tiles:
            continue
        best, best_n = (0, (0, 0)), -1
        g_first = next(e for e in got if e.field == field)
        for turns in range(6):
            for t_cell, _values in t_tiles[:3]:
                r = [rotate_vertex(v, turns) for v in vertices(t_cell)]
                for anchor in vertices(g_first.cell):
                    shift = (anchor[0] - r[0][0], anchor[1] - r[0][1])
                    n = sum(1 for c, vals in t_tiles if moved_tile(c, vals, turns, shift) in g_tiles)
                    if n > best_n:
                        best, best_n = (turns, shift), n
        out[field] = best
    return out


def _same(game: str, truth: Event, got: Event, frame_of: dict[int, tuple[int, Vertex]],
          view: dict[str, str]) -> bool:
    if truth.player != got.player:
        return False
    if game == "trigon":
        assert isinstance(truth, TrigonPlace) and isinstance(got, TrigonPlace)
        return truth.colour == got.colour and {view.get(c, c) for c in truth.cells} == set(got.cells)
    assert isinstance(truth, TilePlace) and isinstance(got, TilePlace)
    if truth.field != got.field or truth.field not in frame_of:
        return False
    turns, shift = frame_of[truth.field]
    return moved_tile(truth.cell, truth.values, turns, shift) == (got.cell, got.values)


def view_names(labels: list[Labels]) -> dict[str, str]:
    """Trigon: each covered triangle's board-frame name → its view-frame name, from the labels."""
    out: dict[str, str] = {}
    for lab in labels:
        for c in lab.get("cells", []):
            if "cell_view" in c:
                out[str(c["cell"])] = str(c["cell_view"])
    return out


def score_picture_video(name: str, frames: Iterable[tuple[int, float, Any]], labels: list[Labels], record: Record,
                        reader: PictureReader, options: RestOptions | None = None,
                        on_output: Callable[[TrackerOutput], None] | None = None) -> VideoScore:
    """Run a rest tracker over ``frames`` and compare with the truth."""
    game = record.header.game
    place_type: type[Event] = TrigonPlace if game == "trigon" else TilePlace
    truth = [ev for ev in record.events if isinstance(ev, place_type)]
    view = view_names(labels) if game == "trigon" else {}

    def matcher(placed: list[Event]) -> Same:
        frame_of = {} if game == "trigon" else lattice_match(truth, placed)  # type: ignore[arg-type]
        return lambda t, g, _extra: _same(game, t, g, frame_of, view)

    return follow_and_score(name, RestTracker(record.header, reader, options), frames, labels, record, place_type,
                            matcher, count_output, on_output)


def score_blokus_game(name: str, game: Any, observer_kind: str = "oracle", options: RestOptions | None = None,
                      fps: float = 8.0) -> VideoScore:
    """Score the rest tracker on a rendered Blokus game (``BlokusGameFrames``) with the oracle (its
    labels) or the real square reader."""
    import dataclasses

    from engine.core.events import EventMeta
    from engine.core.record import RecordLine
    from vision.track.picture_readers import real_reader

    labels = [{"phase": "idle", **lab, "frame": i, "ts": i / fps} for i, lab in enumerate(game.labels)]
    events = [dataclasses.replace(ev, meta=EventMeta(frame=f, ts=f / fps)) for ev, f in game.moves]
    record = Record(game.header, [RecordLine(k + 1, k + 1, ev) for k, ev in enumerate(events)])
    gid = game.header.game
    reader = (oracle_reader(gid, lambda i: labels[i] if 0 <= i < len(labels) else None)
              if observer_kind == "oracle" else real_reader(gid))
    frames = ((i, i / fps, image) for i, image in enumerate(game.frames))

    def same(t: Event, g: Event, _extra: dict[str, Any]) -> bool:
        return bool(getattr(t, "colour", None) == getattr(g, "colour", None)
                    and getattr(t, "cells", ()) == getattr(g, "cells", ()))

    return follow_and_score(name, RestTracker(game.header, reader, options), frames, labels, record,
                            type(events[0]) if events else Event, lambda _placed: same, count_output)


def run_picture_file(video: Any, observer_kind: str = "oracle", options: RestOptions | None = None,
                     reader: PictureReader | None = None) -> VideoScore:
    """Score the rest tracker on one written video (``oracle``: readings from the labels; ``reader``)."""
    from pathlib import Path

    from vision.sources import VideoFileSource

    path = Path(video)
    labels, record = load_video_truth(path)
    game = record.header.game
    if reader is None:
        if observer_kind == "oracle":
            reader = oracle_reader(game, lambda i: labels[i] if 0 <= i < len(labels) else None)
        else:
            reader = reader_for(record.header)
    return score_picture_video(path.stem, VideoFileSource(path), labels, record, reader, options)


__all__ = ["cell_of", "lattice_match", "moved_tile", "rotate_vertex", "run_picture_file", "score_blokus_game",
           "score_picture_video"]
