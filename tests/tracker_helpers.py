"""Scripted table streams for the tracker tests: the renderer draws every frame of a script.

A :class:`Script` keeps what lies on the table (tiles by square, in the labels' board frame),
the camera and the light, and appends frames: ``rest``, ``reach`` (a hand comes to a square,
``put``/``remove`` tiles under it, ``leave``), ``hover`` (a hand held still), ``light``,
``nudge``. Frames come with the renderer's exact labels, for the oracle observer.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine.core.header import Header
from lab.render.camera import CameraSpec
from lab.render.difficulty import difficulty
from lab.render.hands import HandSpec
from lab.render.look import LookSpec
from lab.render.sampling import random_camera, random_look
from lab.render.styles import StylePool
from lab.render.triolet import TilePlacement, TrioletScene, playing_corners_mm, render_triolet, square_centre_mm
from lab.render.triolet_board import board_outer_mm
from lab.render.triolet_random import random_triolet_scene
from vision.track import MoveTracker, OracleObserver, TrackerOptions, TrackerOutput
from vision.track.oracle import Misread

HEADER = Header(game="triolet", players=("A", "B"))
SIZE = (640, 360)


@dataclass
class Script:
    """A table scene played frame by frame (see the module docstring)."""

    seed: int = 0
    fps: float = 10.0
    size: tuple[int, int] = SIZE
    frames: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        diff = difficulty("easy")
        pool = StylePool()
        self.scene: TrioletScene = random_triolet_scene(self.rng, diff, pool, tiles=[])
        outer = board_outer_mm(self.scene.board_scheme, self.scene.square_mm)
        self.camera: CameraSpec = random_camera(self.rng, diff, playing_corners_mm(self.scene), outer, self.size)
        look = random_look(self.rng, diff, pool)
        self.look: LookSpec = replace(look, glare=(), motion_px=0.0)
        self.tiles: dict[str, TilePlacement] = {}
        self.cache: dict[Any, Any] = {}
        self.hand_from = float(self.rng.uniform(0, 360))
        #: (frame index of the first frame without a hand, squares) after each ``leave``
        self.left_at: list[int] = []

    # -- frames -----------------------------------------------------------------------------
    def _frame(self, hands: tuple[HandSpec, ...] = ()) -> None:
        scene = replace(self.scene, tiles=tuple(self.tiles.values()), hands=hands)
        f = render_triolet(scene, self.camera, self.look, self.rng, self.cache)
        f.labels["frame"] = len(self.frames)
        self.frames.append((f.image, f.labels))

    def n(self, seconds: float) -> int:
        return max(1, round(seconds * self.fps))

    def rest(self, seconds: float) -> Script:
        for _ in range(self.n(seconds)):
            self._frame()
        return self

    def _hand(self, tip: tuple[float, float], height: float, pose: str = "pinch") -> HandSpec:
        return HandSpec(tip_mm=tip, height_mm=height, from_deg=self.hand_from, pose=pose, skin=(200, 150, 115),
                        sleeve=(40, 70, 150))

    def _far(self, tip: tuple[float, float]) -> tuple[float, float]:
        a = math.radians(self.hand_from)
        return tip[0] + 600 * math.cos(a), tip[1] + 600 * math.sin(a)

    def reach(self, square: str, seconds: float = 0.6) -> Script:
        """A hand comes in from outside to just above ``square``."""
        tip = square_centre_mm(self.scene, square)
        far = self._far(tip)
        k = self.n(seconds)
        for i in range(k):
            s = (i + 1) / k
            self._frame((self._hand((far[0] + (tip[0] - far[0]) * s, far[1] + (tip[1] - far[1]) * s),
                                    120 - 90 * s),))
        self._at = square
        return self

    def put(self, *tiles: tuple[str, int] | tuple[str, int, bool], seconds: float = 0.3) -> Script:
        """Tiles appear under the hand (which moves to each)."""
        for t in tiles:
            wild = bool(t[2]) if len(t) > 2 else False
            self.tiles[t[0]] = TilePlacement(t[0], int(t[1]), wild, askew_deg=float(self.rng.uniform(-3, 3)))
            self._at = t[0]
            tip = square_centre_mm(self.scene, t[0])
            for i in range(self.n(seconds)):
                self._frame((self._hand(tip, 20 + 10 * i),))
        return self

    def remove(self, *squares: str, seconds: float = 0.3) -> Script:
        for sq in squares:
            self.tiles.pop(sq)
            self._at = sq
            tip = square_centre_mm(self.scene, sq)
            for i in range(self.n(seconds)):
                self._frame((self._hand(tip, 20 + 10 * i, "open"),))
        return self

    def hover(self, seconds: float) -> Script:
        """The hand held perfectly still where it is."""
        tip = square_centre_mm(self.scene, self._at)
        for _ in range(self.n(seconds)):
            self._frame((self._hand(tip, 40.0),))
        return self

    def leave(self, seconds: float = 0.5) -> Script:
        tip = square_centre_mm(self.scene, self._at)
        far = self._far(tip)
        k = self.n(seconds)
        for i in range(k):
            s = (i + 1) / k
            self._frame((self._hand((tip[0] + (far[0] - tip[0]) * s, tip[1] + (far[1] - tip[1]) * s),
                                    40 + 100 * s, "open"),))
        self.left_at.append(len(self.frames))
        return self

    def move(self, *tiles: tuple[str, int] | tuple[str, int, bool], rest: float = 1.2) -> Script:
        """A whole placement: reach, put the tiles, leave, rest."""
        return self.reach(tiles[0][0]).put(*tiles).leave().rest(rest)

    def take_back(self, *squares: str, rest: float = 1.2) -> Script:
        return self.reach(squares[0]).remove(*squares).leave().rest(rest)

    def light(self, level: float = 0.7, kelvin: float = -1200.0, seconds: float = 1.0) -> Script:
        """The light changes at once (a lamp switched), then the table rests."""
        self.look = replace(self.look, level=self.look.level * level, kelvin=self.look.kelvin + kelvin,
                            gradient_angle_deg=self.look.gradient_angle_deg + 90)
        return self.rest(seconds)

    def nudge(self, dx_mm: float = 8.0, dy_mm: float = -6.0, dyaw: float = 2.5, seconds: float = 0.3) -> Script:
        """The camera is bumped (its view of the board shifts for good) over ``seconds``."""
        old = self.camera
        k = self.n(seconds)
        for i in range(k):
            s = (i + 1) / k
            self.camera = replace(old, yaw_deg=old.yaw_deg + dyaw * s,
                                  target_mm=(old.target_mm[0] + dx_mm * s, old.target_mm[1] + dy_mm * s))
            self._frame()
        return self

    # -- running the tracker --------------------------------------------------------------------
    def labels_of(self, index: int) -> dict[str, Any] | None:
        return self.frames[index][1] if 0 <= index < len(self.frames) else None

    def t(self, index: int) -> float:
        return index / self.fps


@dataclass
class Run:
    """A tracker run over a script: every output, and the tracker itself."""

    tracker: MoveTracker
    outputs: list[TrackerOutput]
    observer: OracleObserver
    reads_at: list[int]

    def kinds(self) -> list[str]:
        return [o.kind for o in self.outputs]

    def of(self, kind: str) -> list[TrackerOutput]:
        return [o for o in self.outputs if o.kind == kind]


def run_tracker(script: Script, misreads: tuple[Misread, ...] = (), options: TrackerOptions | None = None,
                header: Header = HEADER, on_output: Callable[[MoveTracker, TrackerOutput], None] | None = None
                ) -> Run:
    """Feed every frame of ``script`` to a tracker with the oracle observer."""
    observer = OracleObserver(script.labels_of, misreads=misreads)
    tracker = MoveTracker(header, observer, options)
    outputs: list[TrackerOutput] = []
    reads_at: list[int] = []
    for i, (image, _labels) in enumerate(script.frames):
        before = observer.calls["read"]
        outs = tracker.feed(i, script.t(i), image)
        outputs.extend(outs)
        if on_output is not None:
            for o in outs:
                on_output(tracker, o)
        if observer.calls["read"] > before:
            reads_at.append(i)
    return Run(tracker, outputs, observer, reads_at)


def view(script: Script, square: str) -> str:
    """The name of a square (labels' board frame) in the tracker's frame (the first view)."""
    from lab.evaluate.videos import view_turns
    from vision.track.layout import TRIOLET_LAYOUT, rotate_cell

    return rotate_cell(TRIOLET_LAYOUT, square, view_turns(script.frames[0][1]))


def tiles_of(output: TrackerOutput) -> dict[str, tuple[int, bool]]:
    tiles = getattr(output.event, "tiles", ())
    return {t.square: (t.value, t.wild) for t in tiles}


@functools.cache
def story() -> Script:
    """One scripted game used by most tracker tests (built once per test session).

    A hand hovers over C3 and leaves; A plays H8 11, I8 3 and holds the hand still over the board
    for 1.5 s; B lays 12 on H9 (11 + 12 > 15: illegal) and takes it back; B plays G9 8, H9 4;
    A plays a wild on J8 (trio 11, 3, w: w = 1); B plays F8 4, F9 3 and takes them back (undo);
    the light changes; the camera is bumped; B plays a wild on G10 (pair with 8: w = 0…7).
    """
    s = Script(seed=11, fps=10.0)
    s.rest(1.0)
    s.reach("C3").hover(1.5).leave().rest(1.0)
    s.reach("H8").put(("H8", 11), ("I8", 3)).hover(1.5).leave().rest(1.2)
    s.move(("H9", 12))
    s.take_back("H9")
    s.move(("G9", 8), ("H9", 4))
    s.move(("J8", 1, True))
    s.move(("F8", 4), ("F9", 3))
    s.take_back("F8", "F9")
    s.light(0.7, -1200.0, 1.0)
    s.nudge(8.0, -6.0, 2.5).rest(1.0)
    s.move(("G10", 5, True), rest=1.5)
    return s


#: What the story's tracker must report, in order (squares in the labels' board frame).
STORY_KINDS = ["place", "illegal", "cleared", "place", "place", "place", "undo", "place"]
