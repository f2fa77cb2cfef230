"""The move tracker: frames in, engine events out.

Per frame (cheap): the board is warped to a small picture and each cell gets a light-independent
signature (``appearance``). The frame is *moving* when any cell differs from the previous frame
beyond its usual flicker,
*covered* when a change against the last stable board reaches in from outside (``cover``).
Once nothing has moved for ``stable_seconds`` and nothing covers the board, the cells that
differ from the last stable board are read (only those; everything on the first look or on
request) and the game follower turns the seen board into events (``triolet_follower``). A
board that looks changed everywhere after a rest is located again (nudged board, bumped
camera) before anything is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.core.events import Event, EventMeta
from engine.core.header import Header
from engine.core.session import Entry, Session
from vision.track.appearance import Appearance, AppearanceConfig, change_map, misalignment, observe, register
from vision.track.base import BoardCheck, TrackerBase
from vision.track.cover import find_cover
from vision.track.evidence import crop_cells
from vision.track.follower import Follower
from vision.track.layout import align_fix, corner_shift, snap_to_lattice
from vision.track.motion import NoiseFloor
from vision.track.observer import BoardFix, BoardObserver, CellRead, Frame
from vision.track.output import TrackerOutput

Image = NDArray[Any]


@dataclass(frozen=True)
class TrackerOptions:
    """Tunable behaviour of :class:`MoveTracker`."""

    #: a board state is accepted once nothing has moved for this long (seconds of video time)
    stable_seconds: float = 0.5
    #: ... and over at least this many frames looked at (a starved loop skipping frames must not
    #: take one thin frame for a rest)
    stable_frames: int = 3
    #: how often to look for a lost board (seconds)
    locate_interval: float = 0.5
    #: a still "cover" this old is taken to be an object beside the board: its margin part is accepted
    cover_timeout: float = 3.0
    #: phase-correlation shift (squares) above which the board is located again
    max_shift: float = 0.12
    #: a board located again is taken to have moved when a corner moved this far (squares)
    min_move: float = 0.08
    #: ... and a new location whose corners moved further than this (squares) is refused
    max_jump: float = 2.0
    #: cells changed (fraction of the valid ones) above which the board is located again
    relocate_fraction: float = 0.35
    #: quiet frames over which each cell's usual frame-to-frame change is measured (noise floor)
    noise_frames: int = 30
    #: a frame with at most this many changed cells, none by much, is quiet (flicker, no hand)
    quiet_cells: int = 12
    #: keep evidence crops (BGR arrays)
    evidence: bool = True
    evidence_pitch: int = 48
    appearance: AppearanceConfig = field(default_factory=AppearanceConfig)


@dataclass
class TrackerStats:
    """Counters for benchmarks and debugging."""

    frames: int = 0
    locates: int = 0
    relocations: int = 0
    refused_fixes: int = 0
    reads: int = 0
    cells_read: int = 0
    full_reads: int = 0
    covered_frames: int = 0
    seconds: float = 0.0


def _follower_for(game: str) -> Follower:
    if game == "triolet":
        from vision.track.triolet_follower import TrioletFollower
        return TrioletFollower()
    raise ValueError(f"the tracker does not follow {game!r} yet (only triolet)")


class MoveTracker(TrackerBase[TrackerStats]):
    """Follow one game from a stream of frames; see the module docstring.

    ``feed(frame_index, t, image)`` returns what happened (usually nothing). The tracker keeps
    its own engine ``Session`` (``session``); events the camera cannot see (exchange, pass,
    reveal, a wild's value, corrections) go in through :meth:`submit` so turn order stays right.
    """

    def __init__(self, header: Header, observer: BoardObserver, options: TrackerOptions | None = None,
                 *, initial_fix: BoardFix | None = None, follower: Follower | None = None) -> None:
        self.header = header
        self.observer = observer
        self.options = options or TrackerOptions()
        self.session = Session(header)
        self.follower = follower or _follower_for(header.game)
        self.layout = self.follower.layout
        self.names = self.layout.names
        self.fix: BoardFix | None = initial_fix
        self.ever_located = initial_fix is not None
        self.stats = TrackerStats()
        self._last_locate: float | None = None
        self._prev: Appearance | None = None
        self._ref: Appearance | None = None
        self._ref_frame: Frame | None = None
        self._ref_fix: BoardFix | None = None
        self._last_motion = 0.0
        self._quiet = 0  # frames looked at since the last motion
        self._processed = False
        self._relocate_tried = False
        self._margin_rebased = False
        self._full_read = True
        self._seen: dict[str, CellRead] = {}
        self._noise = NoiseFloor(self.options.noise_frames, self.options.quiet_cells)
        self.covered = False
        self.last_outputs: list[TrackerOutput] = []

    # -- public -------------------------------------------------------------------------------

    def request_full_read(self) -> None:
        """Read every cell at the next stable moment."""
        self._full_read = True
        self._processed = False

    def restart_watch(self) -> None:
        """After a gap in the frames (a camera lost and found): wait for a whole stability window
        of new frames, then read every cell; nothing seen before the gap counts as still."""
        self._prev = None
        self._noise.clear()
        self.request_full_read()


    def trust_record(self, cells: Sequence[str]) -> None:
        """The players say the record is right on ``cells`` and the camera wrong: those cells are
        taken as the record has them while the camera keeps seeing them as now; checked again at once."""
        if self.follower.trust_record(self.session, cells, self._seen):
            self._processed = False

    def submit(self, event: Event) -> Entry:
        """A manual event (from the phone): judged and logged; one that changes the record's board
        (a placement, a correction, an undo) makes the board be checked against it again at once,
        and the cells it names are taken as the players say while the camera sees them unchanged."""
        entry = self.session.submit(event)
        if self.follower.on_manual(self.session, event, self._seen):
            self._processed = False
        return entry

    # -- per frame ----------------------------------------------------------------------------
    def _feed(self, frame: Frame) -> list[TrackerOutput]:
        if self.fix is None and not self._try_locate(frame):
            return []
        assert self.fix is not None
        app = observe(frame.image, self.fix, self.options.appearance)
        if self._prev is None:
            self._last_motion = frame.t
            self._quiet = 0
        else:
            ff = change_map(app, self._prev, self.options.appearance.motion_scale)
            floor = self._noise.update(ff.score)
            moving = bool((ff.score > floor).any())
            if moving:
                self._last_motion = frame.t
                self._quiet = 0
                self._processed = False
                self._relocate_tried = False
                self._margin_rebased = False
            else:
                self._quiet += 1
        self._prev = app
        if (frame.t - self._last_motion + 1e-6 < self.options.stable_seconds
                or self._quiet < self.options.stable_frames):
            return []
        recheck = self.follower.recheck_at
        if self._processed and recheck is not None and frame.t + 1e-6 >= recheck:
            self._processed = False  # the follower waits to see whether doubtful tiles stay
        if self._processed:
            return []
        return self._on_stable(frame, app)

    def _try_locate(self, frame: Frame) -> bool:
        if self._last_locate is not None and frame.t - self._last_locate < self.options.locate_interval:
            return False
        self._last_locate = frame.t
        self.stats.locates += 1
        fix = self.observer.locate(frame, None)
        if fix is None:
            return False
        self.fix = fix
        self.ever_located = True
        self._prev = None
        self._noise.clear()
        return True

    def _relocate(self, frame: Frame, current: Appearance) -> Appearance | None:
        """Find the board again; if it moved, adopt the new fix and return the new appearance.

        Two candidates: the rectified board aligned with the last stable one (ECC: small nudges,
        light changes), and the observer's located board, moved by whole squares to the window
        nearest the old fix (``snap_to_lattice``) and plausible (corners inside the picture, moved
        at most ``max_jump`` squares). Of those with which clearly fewer playing cells differ from
        the last stable board, the one explaining it best is taken.
        """
        assert self.fix is not None
        ref = self._ref
        m, n = self.options.appearance.margin, self.layout.size

        def changed(app: Appearance) -> int:
            return 0 if ref is None else int(change_map(app, ref).changed[m:m + n, m:m + n].sum())

        before = changed(current)
        candidates: list[BoardFix] = []
        if ref is not None:
            aligned = register(current, ref, self.fix)
            if aligned is not None and corner_shift(aligned, self.fix) <= self.options.max_jump:
                candidates.append(aligned)
        self.stats.locates += 1
        located = self.observer.locate(frame, self.fix)
        if located is not None:
            located = snap_to_lattice(align_fix(located, self.fix), self.fix)
            h, w = frame.image.shape[:2]
            c = located.corners_array()
            slack = 0.01 * max(w, h)
            inside = bool((c[:, 0] >= -slack).all() and (c[:, 0] <= w + slack).all()
                          and (c[:, 1] >= -slack).all() and (c[:, 1] <= h + slack).all())
            if inside and corner_shift(located, self.fix) <= self.options.max_jump:
                candidates.append(located)
            else:
                self.stats.refused_fixes += 1
        best: tuple[int, BoardFix, Appearance] | None = None
        for new in candidates:
            if corner_shift(new, self.fix) < self.options.min_move:
                continue
            app = observe(frame.image, new, self.options.appearance)
            after = changed(app)
            if ref is not None and after > max(0.5 * before, 3):
                self.stats.refused_fixes += 1
                continue
            if best is None or after < best[0]:
                best = (after, new, app)
        if best is None:
            return None
        self.fix = best[1]
        self.stats.relocations += 1
        self._prev = best[2]
        return best[2]

    def _on_stable(self, frame: Frame, app: Appearance) -> list[TrackerOutput]:
        assert self.fix is not None
        opts = self.options
        margin, size = opts.appearance.margin, self.layout.size
        if self._ref is None:
            self._ref = app
            self._ref_frame = frame
            self._ref_fix = self.fix
            self._full_read = True
        cmap = change_map(app, self._ref)
        cmap.changed &= cmap.score > 1.0 + (self._noise.floor - 1.0) * opts.appearance.motion_scale
        valid = app.valid & self._ref.valid
        many = cmap.changed.sum() > opts.relocate_fraction * max(1, int(valid.sum()))
        cover = find_cover(cmap.changed, valid, margin, size)
        if (cover.covered or many) and not self._relocate_tried:
            self._relocate_tried = True
            moved = self._relocate(frame, app)
            if moved is not None:
                # the board or the camera moved: the old reference no longer lines up, so
                # everything is read afresh (the follower finds no change if nothing changed)
                return self._process(frame, moved, list(self.names), full=True)
        if cover.covered:
            self.covered = True
            self.stats.covered_frames += 1
            if frame.t - self._last_motion >= opts.cover_timeout and not self._margin_rebased:
                self._margin_rebased = True
                _rebase_margin(self._ref, app, margin, size)
            return []
        self.covered = False
        changed = cmap.playing(margin, size) & valid[margin:margin + size, margin:margin + size]
        cells = [self.names[i] for i in np.flatnonzero(changed.ravel())]
        if self._full_read:
            return self._process(frame, app, list(self.names), full=True)
        shift, response = misalignment(app, self._ref)
        if shift > opts.max_shift and response > 0.05:
            moved = self._relocate(frame, app)
            if moved is not None:
                return self._process(frame, moved, list(self.names), full=True)
        # tiles that may have been swapped for look-alikes while the hand was there
        cells.extend(c for c in self.follower.watch_cells(self.session, self._seen) if c not in cells)
        return self._process(frame, app, cells, full=False)

    def _process(self, frame: Frame, app: Appearance, cells: list[str], full: bool) -> list[TrackerOutput]:
        """Read ``cells``, let the follower decide, and make ``app`` the new reference."""
        if full:
            self.stats.full_reads += 1
        outputs = self._read_and_decide(frame, cells, effort=0)
        checks = self.follower.board_check(self.session, self._seen)
        self.board_check = BoardCheck("differs", tuple(checks)) if checks else BoardCheck("ok")
        self._ref = app
        self._ref_frame = frame
        self._ref_fix = self.fix
        self._processed = True
        self._full_read = False
        return outputs

    def _read(self, frame: Frame, cells: Sequence[str], effort: int) -> dict[str, CellRead]:
        assert self.fix is not None
        self.stats.reads += 1
        self.stats.cells_read += len(cells)
        return self.observer.read(frame, self.fix, list(cells), effort)

    def _read_and_decide(self, frame: Frame, cells: Sequence[str], effort: int) -> list[TrackerOutput]:
        if cells:
            self._seen.update(self._read(frame, cells, effort))
        meta = EventMeta(ts=round(frame.t, 3), source="vision", frame=frame.index)
        decisions = self.follower.decide(self.session, self._seen, lambda cs: self._read(frame, cs, effort + 1), meta)
        outputs = []
        for d in decisions:
            before = after = None
            if self.options.evidence and d.cells:
                if self._ref_frame is not None and self._ref_fix is not None:
                    before = crop_cells(self._ref_frame.image, self._ref_fix, self.layout, d.cells,
                                        self.options.evidence_pitch)
                assert self.fix is not None
                after = crop_cells(frame.image, self.fix, self.layout, d.cells, self.options.evidence_pitch)
            outputs.append(TrackerOutput(d.kind, d.event, d.verdict, d.entry, frame.index, frame.t, d.cells,
                                         before, after, d.confidence, dict(d.extra)))
        return outputs


def _rebase_margin(ref: Appearance, cur: Appearance, margin: int, size: int) -> None:
    """Take ``cur``'s margin cells into ``ref`` (the playing cells of ``ref`` stay)."""
    g = ref.logmean.shape[0]
    ring = np.ones((g, g), bool)
    ring[margin:margin + size, margin:margin + size] = False
    ref.logmean = ref.logmean.copy()
    ref.texture = ref.texture.copy()
    ref.valid = ref.valid.copy()
    ref.logmean[ring] = cur.logmean[ring]
    ref.texture[ring] = cur.texture[ring]
    ref.valid[ring] = cur.valid[ring]
