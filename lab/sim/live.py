"""The simulated table (``--source sim``): the synthetic renderer's game, watched by the vision tracker.

A game played by ``lab.sim.driver`` is acted out by ``lab.render.video`` (hands laying
tiles, take-backs, light changes, nudges) at a small size and a low frame rate, paced to the
wall clock: frames due in the past are not rendered at all, so the table never falls further
and further behind. The real reader (``vision.track.reader.ReaderObserver``) follows the game
through :class:`~companion_api.tracker_source.TrackerSource`, so events, scores and evidence crops
are the tracker's own. What a camera cannot see (exchanges, passes, reveals) is entered the way
the players would on the phone, once the video shows it done and the tracker has committed the
placements before it; so is the value of a wild the tracker cannot decide (``wild_pending``).

A restart resumes: the source's checkpoint holds the renderer seed, the last frame whose event
was committed and the unseen events already entered.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from companion_api.table import Observation, SourceContext, TableView
from companion_api.tracker_source import TrackerSource
from engine.core import Correct, Event, EventMeta

#: Picture size and frame rate of the live simulated table (small enough for real time on 2 cores).
LIVE_SIZE = (960, 540)
#: Games read whole (no board to fill the view: tiles and triangles are small) get a larger picture.
LIVE_SIZE_WHOLE = (1280, 720)
LIVE_FPS = 5.0
#: Renderer difficulty of the live table (plain top-down-ish views).
LIVE_DIFFICULTY = "easy"
#: Above this ``--speed`` the renderer cannot keep up on a small machine: ``sim`` uses ``sim-lite``.
MAX_LIVE_SPEED = 2.0


class ReaderUnavailable(RuntimeError):
    """The vision tracker or its reader cannot start here (module or model missing)."""


def check_reader(game: str) -> None:
    """Raise :class:`ReaderUnavailable` (with the reason) unless the real reader for ``game`` starts."""
    try:
        from lab.render.video import VideoSpec  # noqa: F401
        from vision.track.picture_readers import PictureReaderUnavailableError, real_reader
        from vision.track.reader import ReaderObserver, ReaderUnavailableError
    except ModuleNotFoundError as exc:
        raise ReaderUnavailable(f"{exc.name} is missing") from None
    try:
        if game == "triolet":
            ReaderObserver(game)
        else:
            real_reader(game)
    except (ReaderUnavailableError, PictureReaderUnavailableError) as exc:
        raise ReaderUnavailable(str(exc)) from None


@dataclass
class RenderedGame:
    """One renderer game as a list of moments (what the table shows in each frame), rendered on demand.

    Built on ``lab.render.video.GameVideo``; the moments are listed up front (cheap) so frames can
    be skipped without rendering them and a restart can start at any frame.
    """

    game: str
    seed: int
    players: int
    size: tuple[int, int] = LIVE_SIZE
    fps: float = LIVE_FPS
    difficulty: str = LIVE_DIFFICULTY
    labels: dict[int, dict[str, Any]] = field(default_factory=dict)
    keep_labels: bool = False
    #: Trigon: the table's variant (the rendered game is played by its rules)
    variant: str | None = None

    def __post_init__(self) -> None:
        from lab.render.video import GameVideo, VideoSpec, _timeline

        self.video = GameVideo(VideoSpec(self.game, seed=self.seed, fps=self.fps, size=self.size,
                                         players=self.players, difficulty=self.difficulty,
                                         variant=self.variant))
        v = self.video
        self.moments: list[Any] = list(_timeline(v.spec, v.adapter, v.camera, v.look, v.rng))
        self.truth: list[Event] = list(v.sim.events)
        self.truth_header = v.sim.header
        self.rendered = 0
        self.render_seconds = 0.0
        self.last_labels: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self.moments)

    def render(self, index: int) -> Any:
        """The BGR picture of frame ``index``."""
        t0 = time.perf_counter()
        m = self.moments[index]
        frame = self.video.adapter.render(m.items, m.hands, m.camera, m.look)
        self.render_seconds += time.perf_counter() - t0
        self.rendered += 1
        self.last_labels = frame.labels
        if self.keep_labels:
            self.labels[index] = frame.labels
        return frame.image

    def applied(self, index: int) -> int:
        """How many truth events the table shows done at frame ``index``."""
        return int(self.moments[min(index, len(self.moments) - 1)].applied)


class LiveSimSource(TrackerSource):
    """Renderer frames → real reader tracker → table, in real time (``--source sim``)."""

    def __init__(self, ctx: SourceContext, speed: float = 1.0, size: tuple[int, int] | None = None,
                 fps: float = LIVE_FPS, observer: Any = None, seed: int | None = None,
                 keep_labels: bool = False) -> None:
        super().__init__("sim", ctx, speed=speed, pace=True)
        cp = ctx.checkpoint or {}
        self.seed = int(cp.get("seed", seed if seed is not None else ctx.seed * 1_000_003 + ctx.game_id))
        if size is None:
            size = LIVE_SIZE if ctx.header.game == "triolet" else LIVE_SIZE_WHOLE
        variant = None
        if ctx.header.game == "trigon":
            from engine.trigon.variants import rules_of
            variant = str(rules_of(ctx.header).variant.id)
        self.render_game = RenderedGame(ctx.header.game, self.seed, len(ctx.header.players), size, fps,
                                        keep_labels=keep_labels, variant=variant)
        self.fps = fps
        self.start_frame = int(cp["frame"]) + 1 if "frame" in cp else 0
        self.unseen_done: set[int] = {int(k) for k in cp.get("unseen", [])}
        self.observer = observer
        self.dropped = 0
        self.frames_fed = 0
        self._index = self.start_frame
        self._wilds: dict[str, int] | None = None
        n = len(ctx.header.players)
        shift = ctx.header.first_player - self.render_game.truth_header.first_player
        self._seat = {p: (p + shift) % n for p in range(n)}

    # -- frames ----------------------------------------------------------------------------------
    def observations(self, view: TableView) -> Iterator[Observation]:
        self._frames = self._paced_frames()
        yield from super().observations(view)

    def _paced_frames(self) -> Iterator[tuple[int, float, Any]]:
        g = self.render_game
        for i in range(self.start_frame, len(g)):
            t = i / self.fps
            if i < len(g) - 1 and self.late(t):
                self.dropped += 1  # behind the wall clock: skip this picture, render the next one due
                continue
            self._index = i
            self.frames_fed += 1
            yield i, t, g.render(i)

    def _default_tracker(self, frames: Any, corners: Any) -> Any:
        from vision.track.reader import ReaderObserver
        from vision.track.track import tracker_for

        if self.ctx.header.game != "triolet":
            return tracker_for(self.ctx.header, frames, corners)
        observer = self.observer if self.observer is not None else ReaderObserver(self.ctx.header.game)
        return tracker_for(self.ctx.header, frames, corners, observer)

    # -- hooks of TrackerSource ------------------------------------------------------------------
    def checkpoint(self) -> dict[str, Any]:
        return {"seed": self.seed, "frame": self._index, "unseen": sorted(self.unseen_done)}

    def between_frames(self, tracker: Any) -> Iterator[Observation]:
        """Enter the next unseen truth events (exchange, pass, reveal) that are due, as the phone would."""
        g = self.render_game
        while True:
            k = self._next_unseen()
            if k is None or not self._due(tracker, k):
                return
            self.unseen_done.add(k)
            ev = g.truth[k]
            seat = self._seat.get(ev.player, ev.player) if ev.player is not None else None
            ts = round(self._index / self.fps, 3)
            event = dataclasses.replace(ev, player=seat, meta=EventMeta(ts=ts, source="manual"))
            yield Observation(event=event, checkpoint=self.checkpoint(), on_commit=self._told(tracker, event))

    def after_output(self, tracker: Any, out: Any) -> Iterator[Observation]:
        """A wild the tracker could not decide: the player declares its value (a ``correct``, as
        ``{"type": "wild"}`` on the phone does) when the committed one is not the truth."""
        extra = getattr(out, "extra", None) or {}
        if out.kind != "place" or not extra.get("wild_pending") or out.seq not in self.to_table:
            return
        square = str(extra.get("wild_square"))
        value = self._truth_wilds().get(square)
        tiles = list(getattr(out.event, "tiles", ()))
        if value is None or not tiles or all(t.square != square or t.value == value for t in tiles):
            return
        fixed = [dataclasses.replace(t, value=value) if t.square == square else t for t in tiles]
        inner = dataclasses.replace(out.event, tiles=tuple(fixed), meta=EventMeta())
        event = Correct(player=out.event.player, seq=self.to_table[out.seq], event=inner,
                        meta=EventMeta(ts=round(self._index / self.fps, 3), source="manual"))
        yield Observation(event=event, checkpoint=self.checkpoint(), on_commit=self._told(tracker, event))

    def _truth_wilds(self) -> dict[str, int]:
        """Square (named as the tracker names it) -> declared value, for every wild the truth places."""
        if self._wilds is None:
            from lab.evaluate.videos import view_turns
            from vision.track.layout import TRIOLET_LAYOUT, rotate_cell

            labels = self.render_game.last_labels
            q = view_turns(labels) if labels is not None else 0
            self._wilds = {}
            for ev in self.render_game.truth:
                for t in getattr(ev, "tiles", ()) if ev.type == "place" else ():
                    if getattr(t, "wild", False):
                        self._wilds[rotate_cell(TRIOLET_LAYOUT, t.square, q)] = int(t.value)
        return self._wilds

    def _told(self, tracker: Any, event: Event) -> Any:
        def note(table_seq: int, legal: bool) -> None:
            self._tell(tracker, event, table_seq)
        return note

    def _next_unseen(self) -> int | None:
        for k, ev in enumerate(self.render_game.truth):
            if ev.type != "place" and k not in self.unseen_done:
                return k
        return None

    def _due(self, tracker: Any, k: int) -> bool:
        g = self.render_game
        if g.applied(self._index) <= k:
            return False  # the video has not got there yet
        places_before = sum(1 for ev in g.truth[:k] if ev.type == "place")
        session = tracker.session
        placed = sum(1 for s, ev in session.effective_events()
                     if ev.type == "place" and session.entries[s - 1].verdict.legal)
        if placed >= places_before:
            return True
        # the tracker missed a placement: go on once the video has laid the next one anyway
        later = [j for j in range(k + 1, len(g.truth)) if g.truth[j].type == "place"]
        return not later or g.applied(self._index) > later[0]
