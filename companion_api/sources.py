"""Table sources by name: ``camera:N`` and ``video:PATH`` (frames → vision tracker), ``phone`` (a
phone's camera page streaming over ``WS /api/camera``: :mod:`companion_api.phone_camera`), and the sources
other packages plug in (``companion_api.plugins``): the lab's simulated tables ``sim`` (the default:
renderer + vision tracker in real time), ``sim-lite`` (engine only, for slow machines) and
``render[:SEED]``.
"""

from __future__ import annotations

from pathlib import Path

from .plugins import SourceSpec, source_plugins
from .table import SourceContext, SourceFactory, TableSource

__all__ = ["PhoneFactory", "SourceError", "SourceSpec", "build_source", "choose_source", "parse_source"]


class SourceError(ValueError):
    """A ``--source`` that cannot be used; the message names the problem."""


def known_sources() -> str:
    """The ``--source`` forms this installation knows, for messages and help."""
    return ", ".join(["camera:N", "video:PATH", "phone", *(k for k in source_plugins())])


def parse_source(text: str) -> SourceSpec:
    """Parse ``video:PATH``, ``camera:N``, ``phone`` or a plugged-in source; ``SourceError`` says what is wrong."""
    if text == "phone":
        return SourceSpec(text)
    kind, sep, arg = text.partition(":")
    if kind == "video" and sep:
        if not arg:
            raise SourceError("--source video: needs a path, like video:game.mp4")
        if not Path(arg).exists():
            raise SourceError(f"--source {text}: no such file or folder")
        return SourceSpec("video", arg)
    if kind == "camera" and sep:
        if not arg.isdigit():
            raise SourceError(f"--source {text}: the camera must be a number, like camera:0")
        return SourceSpec(kind, arg)
    plugin = source_plugins().get(kind)
    if plugin is not None:
        try:
            return plugin.parse(kind, arg)
        except ValueError as exc:
            raise SourceError(f"--source {text}: {exc}") from None
    raise SourceError(f"--source {text!r}: expected {known_sources()}")


def choose_source(spec: SourceSpec, speed: float = 1.0, game: str = "triolet") -> SourceSpec:
    """The source that will really run for ``spec`` (a plugged-in source may fall back to a lighter one)."""
    plugin = source_plugins().get(spec.kind)
    return spec if plugin is None else plugin.choose(spec, speed, game)


def build_source(spec: SourceSpec, speed: float = 1.0, interval: float = 3.0) -> SourceFactory:
    """A factory making the table source for each game; call :func:`choose_source` first."""
    plugin = source_plugins().get(spec.kind)
    if plugin is not None:
        return plugin.build(spec, speed, interval)
    if spec.kind == "phone":
        return PhoneFactory()
    from .tracker_source import TrackerSource

    check_frames(spec)

    def make_tracker(ctx: SourceContext) -> TableSource:
        if spec.kind == "camera":  # runs in real time by itself; opened again when it fails
            from vision.sources import open_source

            return TrackerSource(str(spec), ctx, speed=speed, pace=False, reopen=lambda: open_source(str(spec)))
        # a video file plays at --speed, as a camera would show it: frames a busy loop is late for are skipped
        return TrackerSource(str(spec), ctx, speed=speed, pace=True, drop_late=True)

    return make_tracker


class PhoneFactory:
    """Makes the ``phone`` source of each game; ``camera`` is what ``WS /api/camera`` feeds."""

    def __init__(self) -> None:
        from .phone_camera import PhoneCamera

        self.camera = PhoneCamera()

    def __call__(self, ctx: SourceContext) -> TableSource:
        from .phone_camera import PhoneSource

        return PhoneSource(ctx, self.camera)


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
