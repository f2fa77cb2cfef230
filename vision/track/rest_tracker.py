"""The rest tracker: frames in, engine events out, for the games read whole (Trigon, Blokus Classic
and Duo, the tile games).

Per frame (cheap) the whole picture is warped to a small grid and each cell gets the
light-independent signature of :mod:`appearance`; the frame is *moving* when any cell differs
from the previous frame beyond its usual flicker (:class:`~.motion.NoiseFloor`). Once nothing
has moved for ``stable_seconds``, the picture is compared with the one last read: a changed
region that reaches in from the picture's edge is a hand or an arm (:func:`~.cover.find_cover`)
and nothing is read until it leaves; a change over most of the picture is the camera or the
table moved, and the picture is read at once. Otherwise the whole picture is read by the game's
one-picture reader and the game's follower turns the reading into events
(:mod:`trigon_follower`, :mod:`blokus_follower`, :mod:`tiles_follower`), which then list where the
reading and the record's board disagree (``board_check``: ``ok`` or ``differs`` with the cells).
The tile games have no board to locate, so a grid over the whole picture serves for both.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.events import Event, EventMeta
from engine.core.header import Header
from engine.core.session import Entry, Session
from vision.track.appearance import Appearance, AppearanceConfig, change_map, light_residual, observe, register
from vision.track.base import BoardCheck, CellCheck, TrackerBase
from vision.track.cover import find_cover
from vision.track.follower import Decision, Fresh
from vision.track.motion import NoiseFloor
from vision.track.observer import BoardFix, Frame
from vision.track.output import TrackerOutput
from vision.track.picture_readers import PictureReader

Image = NDArray[Any]


class PictureFollower(Protocol):
    """What the rest tracker needs from a game follower."""

    #: video time at which the follower wants another look though nothing moved, or ``None``
    recheck_at: float | None

    def decide(self, session: Session, reading: Any, frame: Frame, meta: EventMeta,
               fresh: Fresh | None = None) -> list[Decision]:
        """Submit to ``session`` what ``reading`` (``None``: nothing found) implies; return it.
        ``fresh(points_px)`` says which picture points lie where the picture has changed since
        the tracker started (a new tile or piece can only be there)."""
        ...

    def board_check(self, session: Session, reading: Any, fresh: Fresh | None = None) -> list[CellCheck]:
        """After ``decide``: the cells where ``reading`` and the record's board disagree (none: they
        agree), but for what is being looked at again before it is decided."""
        ...


@dataclass(frozen=True)
class RestOptions:
    """Tunable behaviour of :class:`RestTracker`."""

    #: a picture is read once nothing has moved for this long (seconds of video time)
    stable_seconds: float = 0.5
    #: ... and over at least this many frames looked at (not one thin frame of a starved loop)
    stable_frames: int = 3
    #: a still cover this old is taken to be an object left on the table: the picture is read
    cover_timeout: float = 3.0
    #: cells along each side of the grid over the picture
    grid: int = 16
    #: share of the valid cells changed beyond which the view itself moved (read at once)
    moved_fraction: float = 0.6
    #: a changed region inside the picture covering this share of the grid is a hand or an arm too
    big_region: float = 0.25
    #: where the picture changed between reads is kept at this width (pixels), a change being a
    #: relative colour difference beyond ``fresh_change`` (light falling off is divided out)
    fresh_width: int = 320
    fresh_change: float = 0.12
    #: while the picture looks covered, alignment with the last one read is tried this often (s)
    align_every: float = 0.5
    #: a cover found again at the next rest over this share of the same cells is no hand
    same_cover: float = 0.7
    noise_frames: int = 30
    quiet_cells: int = 12
    #: keep evidence crops (BGR arrays) of this many pixels on their longer side
    evidence: bool = True
    evidence_px: int = 320
    appearance: AppearanceConfig = field(default_factory=AppearanceConfig)


@dataclass
class RestStats:
    """Counters for benchmarks and debugging."""

    frames: int = 0
    reads: int = 0
    covered_frames: int = 0
    realignments: int = 0
    seconds: float = 0.0
    read_seconds: float = 0.0


def picture_fix(width: int, height: int, grid: int) -> BoardFix:
    """A "board" covering the whole picture (``grid`` × ``grid`` cells, stretched to its shape)."""
    return BoardFix.from_corners([[0, 0], [width, 0], [width, height], [0, height]], grid)


def follower_for(game: str) -> PictureFollower:
    """The follower of a game read whole."""
    if game == "trigon":
        from vision.track.trigon_follower import TrigonFollower
        return TrigonFollower()
    if game in ("blokus", "blokus_duo"):
        from vision.track.blokus_follower import BlokusFollower
        return BlokusFollower()
    if game in ("triominos", "trio_domino"):
        from vision.track.tiles_follower import TilesFollower
        return TilesFollower(game)
    raise ValueError(f"the rest tracker does not follow {game!r} (Triolet has MoveTracker)")


class RestTracker(TrackerBase[RestStats]):
    """Follow one game read whole at every rest; see the module docstring.

    The same surface as :class:`~.tracker.MoveTracker`: ``feed(frame_index, t, image)`` returns
    what happened (usually nothing); ``session`` is the engine log; events the camera cannot see
    (draws, passes, reveals, corrections) go in through :meth:`submit`.
    """

    def __init__(self, header: Header, reader: PictureReader, options: RestOptions | None = None,
                 follower: PictureFollower | None = None) -> None:
        self.header = header
        self.reader = reader
        self.options = options or RestOptions()
        self.session = Session(header)
        self.follower = follower or follower_for(header.game)
        self.ever_located = False
        self.covered = False
        self.stats = RestStats()
        self.last_outputs: list[TrackerOutput] = []
        self._fix: BoardFix | None = None
        self._size = (0, 0)
        self._prev: Appearance | None = None
        self._ref: Appearance | None = None
        self._ref_frame: Frame | None = None
        self._noise = NoiseFloor(self.options.noise_frames, self.options.quiet_cells)
        self._last_motion = 0.0
        self._quiet = 0  # frames looked at since the last motion
        self._processed = False
        self._align_at: float | None = None  # video time of the last alignment tried this rest
        self._rest = 0  # counts the rests (still spells between motions)
        self._last_cover: tuple[int, NDArray[np.bool_]] | None = None
        #: pixels of the small picture that changed between two reads since the start (the first
        #: read is the table before the game: what it shows is not a move)
        self._dirty: NDArray[np.bool_] = np.zeros((1, 1), bool)
        self._near = self._dirty  # the changed pixels and their neighbours (two pixels around)
        self._ref_small: NDArray[np.float32] | None = None
        #: the differences found at the last read, and the cells the players said the record is
        #: right on, with what the camera saw there then (a difference no more while it sees that)
        self._differences: tuple[CellCheck, ...] = ()
        self._vouched: dict[str, Any] = {}

    # -- public -------------------------------------------------------------------------------
    def request_full_read(self) -> None:
        """Read the picture at the next stable moment."""
        self._processed = False

    def restart_watch(self) -> None:
        """After a gap in the frames (a camera lost and found): wait for a whole stability window
        of new frames before reading; nothing seen before the gap counts as still."""
        self._prev = None
        self._noise.clear()
        self.request_full_read()

    def submit(self, event: Event) -> Entry:
        """A manual event (from the phone), judged and logged; the board is checked against the
        changed record at the next stable moment."""
        entry = super().submit(event)
        self.request_full_read()
        return entry

    def trust_record(self, cells: list[str]) -> None:
        """The players say the record is right on ``cells`` (named as the watch names them) and the
        camera wrong: those cells are no difference while the camera keeps seeing them as now."""
        for c in self._differences:
            if c.cell in cells:
                self._vouched[c.cell] = c.seen
        self._set_check()

    def _set_check(self) -> None:
        """``board_check`` from the last read's differences, the players' word taken; a word given
        on a cell whose reading changed since (or that now agrees) is forgotten."""
        now = {c.cell: c.seen for c in self._differences}
        self._vouched = {c: seen for c, seen in self._vouched.items() if c in now and now[c] == seen}
        cells = tuple(c for c in self._differences if c.cell not in self._vouched)
        self.board_check = BoardCheck("differs", cells) if cells else BoardCheck("ok")

    # -- per frame ----------------------------------------------------------------------------
    def _feed(self, frame: Frame) -> list[TrackerOutput]:
        opts = self.options
        h, w = frame.image.shape[:2]
        if self._fix is None or self._size != (w, h):
            self._fix = picture_fix(w, h, opts.grid)
            self._size = (w, h)
            self._ref_small = None
            self._prev = self._ref = None
            self._noise.clear()
        app = observe(frame.image, self._fix, opts.appearance)
        if self._prev is None:
            self._last_motion = frame.t
            self._quiet = 0
        else:
            ff = change_map(app, self._prev, opts.appearance.motion_scale)
            moving = bool((ff.score > self._noise.update(ff.score)).any())
            if moving:
                self._last_motion = frame.t
                self._quiet = 0
                self._processed = False
                self._align_at = None
                self._rest += 1
            else:
                self._quiet += 1
        self._prev = app
        if frame.t - self._last_motion + 1e-6 < opts.stable_seconds or self._quiet < opts.stable_frames:
            return []
        recheck = self.follower.recheck_at
        if self._processed and recheck is not None and frame.t + 1e-6 >= recheck:
            self._processed = False
        if self._processed:
            return []
        if self._ref is not None:
            if self._covered(app, frame) and not self._realigned(frame, app):
                self.covered = True
                self.stats.covered_frames += 1
                return []
            assert self._prev is not None
            app = self._prev  # the realigned appearance when the grid followed a nudge
        self.covered = False
        return self._read_and_decide(frame, app)

    def _covered(self, app: Appearance, frame: Frame, colour_only: bool = False) -> bool:
        """Whether a hand or an arm reaches over the picture since the last read (see the module
        docstring); a change over most of it is the view moving, not a hand. ``colour_only``: judge
        by colour alone (after a realignment the table's texture is a pixel or two off at the edges,
        while a hand or a sleeve changes the colour)."""
        assert self._ref is not None
        opts = self.options
        valid = app.valid & self._ref.valid
        if colour_only:
            score = (light_residual(app, self._ref, valid) / opts.appearance.colour_threshold).astype(np.float32)
            score[~valid] = 0.0
        else:
            score = change_map(app, self._ref).score
        changed = score > 1.0 + (self._noise.floor - 1.0) * opts.appearance.motion_scale
        if changed.sum() > opts.moved_fraction * max(1, int(valid.sum())):
            return False
        # a hand reaches in from the picture's edge; a piece or a tile laid inside may change many
        # cells of this coarse grid, so only a region over much of the picture counts by size alone
        cover = find_cover(changed, valid, opts.appearance.margin, opts.grid,
                           big_blob=max(10, int(opts.big_region * opts.grid ** 2)))
        if not cover.covered or frame.t - self._last_motion >= opts.cover_timeout:
            return False
        last = self._last_cover
        if last is not None and last[0] != self._rest:
            both, either = int((last[1] & cover.cells).sum()), int((last[1] | cover.cells).sum())
            if either and both >= opts.same_cover * either:
                return False  # the same change at two rests apart is no hand (a light, a nudge, an object)
        if last is None or last[0] != self._rest:
            self._last_cover = (self._rest, cover.cells.copy())
        return True

    def _realigned(self, frame: Frame, app: Appearance) -> bool:
        """Every ``align_every`` seconds of a covered rest: whether the picture lines up with the
        last one read after a small shift (a nudged camera or table, ECC alignment) and then shows
        no hand; if so the grid follows."""
        if self._ref is None or self._fix is None or (
                self._align_at is not None and frame.t - self._align_at < self.options.align_every):
            return False
        self._align_at = frame.t
        moved = register(app, self._ref, self._fix)
        if moved is None:
            return False
        again = observe(frame.image, moved, self.options.appearance)
        if self._covered(again, frame, colour_only=True):
            return False
        self._fix = moved
        self._prev = again
        self.stats.realignments += 1
        return True

    def _fresh(self, pts: NDArray[np.float64]) -> NDArray[np.bool_]:
        return _fresh_points(self._near, self.options.fresh_width, self._size[0], pts)

    def _read_and_decide(self, frame: Frame, app: Appearance) -> list[TrackerOutput]:
        t0 = time.perf_counter()
        reading = self.reader(frame)
        self.stats.read_seconds += time.perf_counter() - t0
        self.stats.reads += 1
        if reading is not None:
            self.ever_located = True
        small = _small_picture(frame.image, self.options.fresh_width)
        if self._ref_small is not None and self._ref_small.shape == small.shape:
            self._dirty |= np.abs(small - self._ref_small).max(axis=2) > self.options.fresh_change
        elif self._ref_small is None or self._dirty.shape != small.shape[:2]:
            self._dirty = np.zeros(small.shape[:2], bool)
        self._ref_small = small
        self._near = cv2.dilate(self._dirty.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        meta = EventMeta(ts=round(frame.t, 3), source="vision", frame=frame.index)
        decisions = self.follower.decide(self.session, reading, frame, meta, self._fresh)
        outputs = []
        for d in decisions:
            before = after = None
            if self.options.evidence and d.region_px is not None:
                if self._ref_frame is not None:
                    before = crop_region(self._ref_frame.image, d.region_px, self.options.evidence_px)
                after = crop_region(frame.image, d.region_px, self.options.evidence_px)
            outputs.append(TrackerOutput(d.kind, d.event, d.verdict, d.entry, frame.index, frame.t, d.cells,
                                         before, after, d.confidence, dict(d.extra)))
        self._ref = app
        self._ref_frame = frame
        self._last_cover = None
        self._processed = True
        # the whole picture was read and judged: what the follower could not commit is a difference
        self._differences = tuple(self.follower.board_check(self.session, reading, self._fresh))
        self._set_check()
        return outputs


def _small_picture(image: Image, width: int) -> NDArray[np.float32]:
    """The picture shrunk to ``width`` pixels across, each channel divided by its local mean (a
    wide blur): light falling off or changing leaves it alone, a tile or a piece does not."""
    h, w = image.shape[:2]
    size = (width, max(1, round(h * width / w)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.float32) + 4.0
    local = cv2.GaussianBlur(small, (0, 0), sigmaX=width / 40.0)
    return np.asarray(small / local, np.float32)


def _fresh_points(near: NDArray[np.bool_], width: int, image_width: int, pts: NDArray[np.float64]
                  ) -> NDArray[np.bool_]:
    """Which picture points fall on a set pixel of ``near`` (the small picture's changed pixels,
    widened by two)."""
    idx = np.floor(np.asarray(pts, np.float64).reshape(-1, 2) * (width / image_width)).astype(int)
    h, w = near.shape
    inside = (idx[:, 0] >= 0) & (idx[:, 0] < w) & (idx[:, 1] >= 0) & (idx[:, 1] < h)
    out = np.zeros(len(idx), bool)
    out[inside] = near[idx[inside, 1], idx[inside, 0]]
    return out


def crop_region(image: Image, region: tuple[float, float, float, float], longest: int = 320,
                pad: float = 0.5) -> Image:
    """The picture around ``region`` (x0, y0, x1, y1; ``pad`` of its size more on each side),
    scaled to ``longest`` pixels on its longer side."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = region
    px, py = pad * max(x1 - x0, 20.0), pad * max(y1 - y0, 20.0)
    a, b = max(0, int(x0 - px)), max(0, int(y0 - py))
    c, d = min(w, int(np.ceil(x1 + px))), min(h, int(np.ceil(y1 + py)))
    crop = image[b:max(d, b + 1), a:max(c, a + 1)]
    scale = longest / max(crop.shape[:2])
    size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
    return np.asarray(cv2.resize(crop, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR))
