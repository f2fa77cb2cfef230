"""Table sources by name: ``sim`` (the built-in simulated table), ``video:PATH``, ``camera:N``, and
``render[:SEED]`` (the synthetic renderer watched by the vision tracker: experimental, heavy).

Everything but ``sim`` needs the vision tracker (``vision.tracker``); without it they fail with a
clear "not available yet" error.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .table import SourceContext, SourceFactory, TableSource


class SourceError(ValueError):
    """A ``--source`` that cannot be used; the message names the problem."""


@dataclass(frozen=True)
class SourceSpec:
    """A parsed ``--source``: ``kind`` is ``sim``, ``video``, ``camera`` or ``render``."""

    kind: str
    arg: str = ""

    def __str__(self) -> str:
        return self.kind if not self.arg else f"{self.kind}:{self.arg}"


def parse_source(text: str) -> SourceSpec:
    """Parse ``sim``, ``video:PATH``, ``camera:N`` or ``render[:SEED]``; ``SourceError`` says what is wrong."""
    if text in ("sim", "render"):
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
    raise SourceError(f"--source {text!r}: expected sim, video:PATH, camera:N or render[:SEED]")


def tracker_module() -> Any:
    """``vision.tracker``, or ``SourceError`` if it is not built yet."""
    try:
        return importlib.import_module("vision.tracker")
    except ModuleNotFoundError as exc:
        if exc.name in ("vision.tracker", "vision", "vision.sources"):
            raise SourceError("camera and video sources are not available yet: the vision tracker "
                              "(vision.tracker) is not built; use --source sim") from None
        raise


def build_source(spec: SourceSpec, speed: float = 1.0, interval: float = 3.0) -> SourceFactory:
    """A factory making the table source for each game (checks the tracker is there first)."""
    if spec.kind == "sim":
        from .sim_table import SimulatedTable

        def make_sim(ctx: SourceContext) -> TableSource:
            return SimulatedTable(ctx, interval=interval / max(speed, 1e-6))

        return make_sim
    tracker = tracker_module()
    if not hasattr(tracker, "MoveTracker"):
        raise SourceError("camera and video sources are not available yet: vision.tracker has no MoveTracker")
    from .tracker_source import TrackerSource

    def make_tracker(ctx: SourceContext) -> TableSource:
        if spec.kind == "render":
            from vision.sources import SimSource

            seed = int(spec.arg) if spec.arg else ctx.seed * 1_000_003 + ctx.game_id
            frames = SimSource(game=ctx.header.game, seed=seed, fps=10.0,
                               options={"players": len(ctx.header.players)})
            return TrackerSource("sim", ctx, speed=speed, pace=True, frames=frames)
        # a camera runs in real time by itself; a video file plays at --speed
        return TrackerSource(str(spec), ctx, speed=speed, pace=spec.kind == "video")

    return make_tracker
