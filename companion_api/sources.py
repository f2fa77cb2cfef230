"""Table sources by name: ``sim`` (the simulated table: renderer + vision tracker in real time),
``sim-lite`` (the engine-only simulated table, for slow machines), ``video:PATH``, ``camera:N``,
and ``render[:SEED]`` (renderer + tracker at full size, 10 fps: heavy, for experiments).

Everything but ``sim-lite`` needs the vision tracker (``vision.tracker``); without it ``sim`` falls
back to ``sim-lite`` (one line on stderr says so) and the others fail with a clear
"not available yet" error.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .table import SourceContext, SourceFactory, TableSource


class SourceError(ValueError):
    """A ``--source`` that cannot be used; the message names the problem."""


@dataclass(frozen=True)
class SourceSpec:
    """A parsed ``--source``: ``kind`` is ``sim``, ``sim-lite``, ``video``, ``camera`` or ``render``."""

    kind: str
    arg: str = ""

    def __str__(self) -> str:
        return self.kind if not self.arg else f"{self.kind}:{self.arg}"


def parse_source(text: str) -> SourceSpec:
    """Parse ``sim``, ``sim-lite``, ``video:PATH``, ``camera:N`` or ``render[:SEED]``; ``SourceError`` says
    what is wrong."""
    if text in ("sim", "sim-lite", "render"):
        return SourceSpec(text)
    kind, sep, arg = text.partition(":")
    if kind == "video" and sep:
        if not arg:
            raise SourceError("--source video: needs a path, like video:game.mp4")
        if not Path(arg).exists():
            raise SourceError(f"--source {text}: no such file or folder")
        return SourceSpec("video", arg)
    if kind in ("camera", "render") and sep:
        if not arg.isdigit():
            what = "camera" if kind == "camera" else "seed"
            raise SourceError(f"--source {text}: the {what} must be a number, like {kind}:0")
        return SourceSpec(kind, arg)
    raise SourceError(f"--source {text!r}: expected sim, sim-lite, video:PATH, camera:N or render[:SEED]")


def tracker_module() -> Any:
    """``vision.tracker``, or ``SourceError`` if it is not built yet."""
    try:
        return importlib.import_module("vision.tracker")
    except ModuleNotFoundError as exc:
        if exc.name in ("vision.tracker", "vision", "vision.sources"):
            raise SourceError("camera and video sources are not available yet: the vision tracker "
                              "(vision.tracker) is not built; use --source sim-lite") from None
        raise


def choose_source(spec: SourceSpec, speed: float = 1.0, game: str = "triolet") -> SourceSpec:
    """The source that will really run for ``spec``: ``sim`` becomes ``sim-lite`` (with one line on
    stderr saying why) when the vision tracker cannot start for ``game`` or ``speed`` is beyond what
    the renderer keeps up with."""
    if spec.kind != "sim":
        return spec
    from .live_sim import MAX_LIVE_SPEED, ReaderUnavailable, check_reader

    if speed > MAX_LIVE_SPEED:
        reason = f"--speed {speed:g} is faster than the renderer keeps up with (at most {MAX_LIVE_SPEED:g})"
    else:
        try:
            check_reader(game)
            return spec
        except ReaderUnavailable as exc:
            reason = f"the vision tracker cannot start ({exc})"
    print(f"sim: {reason}; using sim-lite (the engine-only simulated table)", file=sys.stderr, flush=True)
    return SourceSpec("sim-lite")


def build_source(spec: SourceSpec, speed: float = 1.0, interval: float = 3.0) -> SourceFactory:
    """A factory making the table source for each game (checks the tracker is there first).

    ``sim`` is taken as given here; call :func:`choose_source` first for its fallback."""
    if spec.kind == "sim-lite":
        from .sim_table import SimulatedTable

        def make_sim(ctx: SourceContext) -> TableSource:
            return SimulatedTable(ctx, interval=interval / max(speed, 1e-6))

        return make_sim
    if spec.kind == "sim":
        from .live_sim import LiveSimSource

        def make_live(ctx: SourceContext) -> TableSource:
            return LiveSimSource(ctx, speed=speed)

        return make_live
    tracker = tracker_module()
    if not hasattr(tracker, "MoveTracker"):
        raise SourceError("camera and video sources are not available yet: vision.tracker has no MoveTracker")
    from .tracker_source import TrackerSource

    check_frames(spec)

    def make_tracker(ctx: SourceContext) -> TableSource:
        if spec.kind == "render":
            from vision.sources import SimSource

            seed = int(spec.arg) if spec.arg else ctx.seed * 1_000_003 + ctx.game_id
            frames = SimSource(game=ctx.header.game, seed=seed, fps=10.0,
                               options={"players": len(ctx.header.players)})
            return TrackerSource("sim", ctx, speed=speed, pace=True, frames=frames)
        if spec.kind == "camera":  # runs in real time by itself; opened again when it fails
            from vision.sources import open_source

            return TrackerSource(str(spec), ctx, speed=speed, pace=False, reopen=lambda: open_source(str(spec)))
        # a video file plays at --speed, as a camera would show it: frames a busy loop is late for are skipped
        return TrackerSource(str(spec), ctx, speed=speed, pace=True, drop_late=True)

    return make_tracker


def check_frames(spec: SourceSpec) -> None:
    """``SourceError`` naming the problem when a ``camera:N`` does not open or give a picture, or a
    ``video:PATH`` is not a video (or folder of frames) that can be read."""
    from vision import sources as frames

    try:
        if spec.kind == "camera":
            frames.probe_camera(int(spec.arg))
        elif spec.kind == "video":
            frames.open_source(str(spec))
    except frames.SourceError as exc:
        raise SourceError(f"--source {spec}: {exc}") from None
