"""A soak video: hands waving over a static Triolet board with tiles, for as long as asked.

Nothing is laid or taken: every event a tracker reports over it is a false one. The board is the
position a simulated game reached (``lab.sim.driver.play_game``); hands come in from the
players' sides, wander over the board, hover perfectly still for up to ``max_hover`` seconds,
leave, and the table rests between them. A pool of hand pictures is rendered once and the video
walks through it (from each picture to one of its nearest neighbours), so an hour of video costs
a few hundred renders.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.core.events import Event
from engine.triolet import Place, PlacedTile

Image = NDArray[np.uint8]


@dataclass(frozen=True)
class SoakSpec:
    """What soak to make: ``seconds`` of video at ``fps``; ``moves`` of a simulated game on the
    board; ``poses`` hand pictures in the pool; ``max_hover`` the longest still hand (seconds)."""

    seconds: float = 3600.0
    seed: int = 1
    size: tuple[int, int] = (1280, 720)
    fps: float = 10.0
    moves: int = 8
    poses: int = 240
    max_hover: float = 2.5


class SoakFrames:
    """The soak's frames ``(index, t, image)``; ``labels_of(index)`` the renderer's labels (for the
    oracle observer); ``opening_events()`` the record of the tiles lying there, named as a tracker
    names them (the first view's frame)."""

    def __init__(self, spec: SoakSpec) -> None:
        from lab.render.difficulty import difficulty
        from lab.render.hands import HandSpec
        from lab.render.sampling import random_camera, random_look
        from lab.render.styles import StylePool
        from lab.render.triolet import playing_corners_mm, render_triolet, square_centre_mm
        from lab.render.triolet_board import board_outer_mm
        from lab.render.triolet_random import random_triolet_scene
        from lab.sim.driver import play_game

        self.spec = spec
        rng = np.random.default_rng(spec.seed)
        self.sim = play_game("triolet", spec.seed, players=2, max_events=spec.moves)
        tiles = [(t["square"], int(t["value"]), bool(t.get("wild", False)))
                 for t in self.sim.steps[-1].board.get("tiles", [])] if self.sim.steps else []
        diff = difficulty("easy")
        pool = StylePool()
        scene = random_triolet_scene(rng, diff, pool, tiles=tiles)
        outer = board_outer_mm(scene.board_scheme, scene.square_mm)
        camera = random_camera(rng, diff, playing_corners_mm(scene), outer, spec.size)
        look = replace(random_look(rng, diff, pool), glare=(), motion_px=0.0)
        cache: dict[Any, Any] = {}
        centre = np.asarray(square_centre_mm(scene, "H8"), float)
        half = 7.5 * scene.square_mm
        sides = [float(rng.uniform(0, 360)), 0.0]
        sides[1] = sides[0] + 180.0  # two players facing each other
        self._pictures: list[tuple[Image, dict[str, Any]]] = []
        tips: list[tuple[float, float]] = []
        first = render_triolet(scene, camera, look, rng, cache)
        self._pictures.append((first.image, first.labels))  # picture 0: no hand
        for k in range(spec.poses):
            side = sides[k % 2]
            tip = centre + np.array([rng.uniform(-0.95, 0.95) * half, rng.uniform(-0.95, 0.95) * half])
            hand = HandSpec(tip_mm=(float(tip[0]), float(tip[1])), height_mm=float(rng.uniform(10, 120)),
                            from_deg=side + float(rng.uniform(-25, 25)),
                            pose=str(rng.choice(["open", "point", "pinch", "fist", "flat"])),
                            skin=(int(rng.integers(150, 235)), int(rng.integers(110, 190)), int(rng.integers(90, 160))),
                            sleeve=(int(rng.integers(20, 200)), int(rng.integers(20, 200)), int(rng.integers(20, 200))))
            f = render_triolet(replace(scene, hands=(hand,)), camera, look, rng, cache)
            self._pictures.append((f.image, f.labels))
            tips.append((float(tip[0]), float(tip[1])))
        pts = np.asarray(tips, float)
        self._near = [list(np.argsort(((pts - p) ** 2).sum(axis=1))[1:6] + 1) for p in pts]
        self._plan = self._walk(np.random.default_rng(spec.seed + 1))

    def _walk(self, rng: np.random.Generator) -> list[int]:
        """Which picture each frame shows: rests, hands wandering, hovering still, leaving."""
        fps, n = self.spec.fps, max(1, round(self.spec.seconds * self.spec.fps))
        plan: list[int] = []
        while len(plan) < n:
            plan.extend([0] * int(rng.integers(round(0.5 * fps), round(6 * fps) + 1)))  # the table rests
            k = int(rng.integers(1, len(self._pictures)))
            for _ in range(int(rng.integers(round(1 * fps), round(12 * fps) + 1))):
                if rng.random() < 0.04:  # the hand held still
                    plan.extend([k] * int(rng.integers(1, round(self.spec.max_hover * fps) + 1)))
                plan.append(k)
                k = int(rng.choice(self._near[k - 1]))
        return plan[:n]

    def __len__(self) -> int:
        return len(self._plan)

    def __iter__(self) -> Iterator[tuple[int, float, Image]]:
        for i, k in enumerate(self._plan):
            yield i, i / self.spec.fps, self._pictures[k][0]

    def has_hand(self, index: int) -> bool:
        """Whether a hand is in frame ``index``."""
        return 0 <= index < len(self._plan) and self._plan[index] != 0

    def labels_of(self, index: int) -> dict[str, Any] | None:
        if not 0 <= index < len(self._plan):
            return None
        return self._pictures[self._plan[index]][1]

    def opening_events(self) -> list[Event]:
        """The simulated game's events, squares named in the first view's frame."""
        from lab.evaluate.videos import view_turns
        from vision.track.layout import TRIOLET_LAYOUT, rotate_cell

        q = view_turns(self._pictures[0][1])
        out: list[Event] = []
        for ev in self.sim.events:
            if isinstance(ev, Place):
                ev = replace(ev, tiles=tuple(PlacedTile(rotate_cell(TRIOLET_LAYOUT, t.square, q), t.value, t.wild)
                                             for t in ev.tiles))
            out.append(ev)
        return out

    @property
    def header(self) -> Any:
        return self.sim.header


def soak_frames(spec: SoakSpec) -> SoakFrames:
    """The soak video of ``spec`` (see the module docstring)."""
    return SoakFrames(spec)
