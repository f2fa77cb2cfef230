"""Game videos: a simulated game (``lab.sim.driver``) acted out on the rendered table.

Each move: a hand comes in from the player's side, lays the tiles or piece one by one, leaves;
the table then rests. Occasionally the light changes, the board is nudged (the camera pose
shifts for good), or a player lays something and takes it back before the real move.

``game_frames(spec)`` yields ``(image, labels)`` per frame without touching the disk (for the
live simulated table); ``write_game_video(spec, folder)`` writes ``.mp4`` (``mp4v``), the truth
record ``.jsonl`` (INTERFACES §1, each event stamped with ``frame`` and ``ts``) and
``.labels.jsonl`` (one line per frame). Everything follows from the seed.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.core.events import EventMeta
from engine.core.record import dump_record
from lab.render.camera import CameraSpec
from lab.render.difficulty import Difficulty, difficulty
from lab.render.hands import HandSpec
from lab.render.look import LookSpec
from lab.render.sampling import random_camera, random_clutter, random_look, uni
from lab.render.styles import SKIN_TONES, SLEEVES, StylePool

U8 = NDArray[np.uint8]


@dataclass(frozen=True)
class VideoSpec:
    """What video to make. ``max_events`` cuts the game short (tests); ``variant`` for Trigon."""

    game: str
    seed: int = 0
    difficulty: str = "easy"
    fps: float = 15.0
    size: tuple[int, int] = (1280, 720)
    players: int = 2
    max_events: int | None = None
    variant: str | None = None
    takeback_prob: float = 0.12
    light_change_prob: float = 0.08
    nudge_prob: float = 0.05
    greedy: float = 0.5


@dataclass
class _Moment:
    """What the table shows during one frame."""

    items: list[Any]
    hands: tuple[HandSpec, ...]
    camera: CameraSpec
    look: LookSpec
    phase: str
    applied: int  # record events whose result the table shows
    stable: bool


class _Adapter:
    """Game-specific parts: base scene, items from events, world targets, scene assembly."""

    def __init__(self, spec: VideoSpec, sim: Any, rng: np.random.Generator, diff: Difficulty, pool: StylePool) -> None:
        self.spec, self.sim, self.rng, self.diff, self.pool = spec, sim, rng, diff, pool
        self.cache: dict[Any, Any] = {}

    def new_items(self, step: Any) -> list[Any]:
        raise NotImplementedError

    def wrong_items(self, items: list[Any], on_table: list[Any]) -> list[Any]:
        """What a player lays by mistake instead of ``items`` (and then takes back)."""
        return items

    def target(self, item: Any) -> tuple[float, float]:
        raise NotImplementedError

    def render(self, items: list[Any], hands: tuple[HandSpec, ...], cam: CameraSpec, look: LookSpec) -> Any:
        raise NotImplementedError

    def footprint(self) -> tuple[NDArray[np.float64], float]:
        raise NotImplementedError


class _Triolet(_Adapter):
    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        from lab.render.triolet_random import random_triolet_scene
        self.scene = random_triolet_scene(self.rng, self.diff, self.pool, tiles=[])

    def new_items(self, step: Any) -> list[Any]:
        from lab.render.triolet import TilePlacement
        out = []
        d = self.diff
        for t in step.placed:
            turned = int(self.rng.integers(1, 4)) if self.rng.random() < d.turned_prob else 0
            off = (uni(self.rng, (-d.offset, d.offset)) * 0.5, uni(self.rng, (-d.offset, d.offset)) * 0.5)
            out.append(TilePlacement(t["square"], int(t["value"]), bool(t.get("wild", False)), turned,
                                     uni(self.rng, (-d.askew_deg, d.askew_deg)), off))
        return out

    def wrong_items(self, items: list[Any], on_table: list[Any]) -> list[Any]:
        """Other values on the same squares, each one a tile the game still has in play (T-B3):
        a player can only lay tiles that exist."""
        from engine.triolet.tiles import VALUE_COUNTS
        left = list(VALUE_COUNTS)
        for t in on_table:
            if not t.wild:
                left[t.value] -= 1
        out = []
        for t in items:
            choices = [v for v in range(len(left)) if left[v] > 0 and v != t.value]
            v = choices[int(self.rng.integers(len(choices)))]
            left[v] -= 1
            out.append(replace(t, value=v, wild=False))
        return out

    def target(self, item: Any) -> tuple[float, float]:
        from lab.render.triolet import square_centre_mm
        return square_centre_mm(self.scene, item.square)

    def footprint(self) -> tuple[NDArray[np.float64], float]:
        from lab.render.triolet import playing_corners_mm
        from lab.render.triolet_board import board_outer_mm
        return playing_corners_mm(self.scene), board_outer_mm(self.scene.board_scheme, self.scene.square_mm)

    def render(self, items: list[Any], hands: tuple[HandSpec, ...], cam: CameraSpec, look: LookSpec) -> Any:
        from lab.render.triolet import render_triolet
        return render_triolet(replace(self.scene, tiles=tuple(items), hands=hands), cam, look, self.rng, self.cache)


class _Trigon(_Adapter):
    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        from lab.render.styles import TABLE_SURFACES
        from lab.render.trigon import TRIGON_BOARDS, TrigonScene
        variant = str(self.sim.header.options.get("variant", "trigon"))
        self.scene = TrigonScene(variant=variant,
                                 board_style=self.pool.pick(self.rng, TRIGON_BOARDS, self.pool.trigon_boards),
                                 cell_mm=uni(self.rng, (19.0, 23.0)), rim_mm=uni(self.rng, (8.0, 22.0)),
                                 board_thickness_mm=uni(self.rng, (5.0, 12.0)),
                                 piece_opacity=uni(self.rng, (0.55, 0.85)), shade=int(self.rng.integers(3)),
                                 table=self.pool.pick(self.rng, TABLE_SURFACES, self.pool.tables),
                                 table_seed=int(self.rng.integers(1 << 30)))
        hexr = 9 * self.scene.cell_mm + self.scene.rim_mm
        clutter = random_clutter(self.rng, self.diff, hexr, 20.0, loose_tiles=False)
        self.scene = replace(self.scene, clutter=tuple(clutter))

    def new_items(self, step: Any) -> list[Any]:
        return [(p["colour"], tuple(p["cells"])) for p in step.placed]

    def target(self, item: Any) -> tuple[float, float]:
        from lab.render.trigon import _to_phys
        from vision.read.trigon.board_geometry import cell_centre_mm, parse_cell
        side = self.scene.side
        pts = [cell_centre_mm(_to_phys(parse_cell(c, side), side), 9, self.scene.cell_mm) for c in item[1]]
        m = np.mean(pts, axis=0)
        return float(m[0]), float(m[1])

    def footprint(self) -> tuple[NDArray[np.float64], float]:
        from vision.read.trigon.board_geometry import hexagon_corners_mm
        hexr = 9 * self.scene.cell_mm + self.scene.rim_mm
        return hexagon_corners_mm(9, self.scene.cell_mm), 2 * hexr * 0.95

    def render(self, items: list[Any], hands: tuple[HandSpec, ...], cam: CameraSpec, look: LookSpec) -> Any:
        from lab.render.trigon import render_trigon
        return render_trigon(replace(self.scene, pieces=tuple(items), hands=hands), cam, look, self.rng, self.cache)


class _Triangles(_Adapter):
    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        from lab.render.styles import TABLE_SURFACES, tile_game_typeface
        from lab.render.triangles import LATTICE, FieldPose, TrianglesScene, pick_face
        game = self.spec.game
        face = pick_face(self.rng, game, self.pool)
        tile_mm, gap = uni(self.rng, (23.0, 27.0)), uni(self.rng, (0.2, 1.5))
        # lay out every field the game will open, far enough apart for their final size
        final = self.sim.steps[-1].board.get("fields", []) if self.sim.steps else []
        pitch = tile_mm + gap
        poses: list[FieldPose] = []
        placed: list[tuple[float, float, float]] = []
        for f in final or [{"tiles": []}]:
            cells = [tuple(t["cell"]) for t in f["tiles"]] or [(0, 0)]
            pts = np.array([LATTICE.centroid_xy(c, pitch) for c in cells])
            centre = pts.mean(axis=0)
            radius = float(np.linalg.norm(pts - centre, axis=1).max()) + tile_mm
            ang = uni(self.rng, (0, 360))
            if not placed:
                origin = (0.0, 0.0)
            else:
                best, best_gap = (0.0, 0.0), -1e9
                for _ in range(40):
                    phi = uni(self.rng, (0, 2 * math.pi))
                    r = placed[0][2] + radius + uni(self.rng, (40, 160))
                    cand = (r * math.cos(phi), r * math.sin(phi))
                    g = min(math.hypot(cand[0] - x, cand[1] - y) - rr - radius for x, y, rr in placed)
                    if g > best_gap:
                        best, best_gap = cand, g
                origin = best
            b = math.radians(ang)
            rc = np.array([[math.cos(b), -math.sin(b)], [math.sin(b), math.cos(b)]]) @ centre
            poses.append(FieldPose((origin[0] - float(rc[0]), origin[1] - float(rc[1])), ang))
            placed.append((origin[0], origin[1], radius))
        self.extent = max(math.hypot(x, y) + r for x, y, r in placed)
        self.scene = TrianglesScene(game=game, fields=tuple(poses), face=face,
                                    typeface=tile_game_typeface(self.rng, self.pool),
                                    tile_mm=tile_mm, gap_mm=gap, thickness_mm=uni(self.rng, (5.0, 7.0)),
                                    table=self.pool.pick(self.rng, TABLE_SURFACES, self.pool.tables),
                                    table_seed=int(self.rng.integers(1 << 30)))
        self.scene = replace(self.scene, clutter=tuple(random_clutter(self.rng, self.diff, self.extent + 20, tile_mm,
                                                                   loose_tiles=False)))
        self.jit = {"easy": (0.3, 1.0), "normal": (0.8, 2.5), "hard": (1.5, 4.0)}[self.diff.name]

    def new_items(self, step: Any) -> list[Any]:
        from lab.render.triangles import TriangleTile
        j = self.jit
        return [TriangleTile(int(p["field"]), (int(p["cell"][0]), int(p["cell"][1])),
                             (int(p["values"][0]), int(p["values"][1]), int(p["values"][2])),
                             (uni(self.rng, (-j[0], j[0])), uni(self.rng, (-j[0], j[0]))), uni(self.rng, (-j[1], j[1])))
                for p in step.placed]

    def wrong_items(self, items: list[Any], on_table: list[Any]) -> list[Any]:
        return [replace(t, values=(t.values[1], t.values[2], t.values[0])) for t in items]

    def target(self, item: Any) -> tuple[float, float]:
        from lab.render.triangles import tile_vertices_mm
        m = tile_vertices_mm(self.scene, item).mean(axis=0)
        return float(m[0]), float(m[1])

    def footprint(self) -> tuple[NDArray[np.float64], float]:
        e = max(self.extent, 110.0)
        return np.array([[-e, -e], [e, -e], [e, e], [-e, e]]) * 0.8, 2 * e

    def render(self, items: list[Any], hands: tuple[HandSpec, ...], cam: CameraSpec, look: LookSpec) -> Any:
        from lab.render.triangles import render_triangles
        return render_triangles(replace(self.scene, tiles=tuple(items), hands=hands), cam, look, self.rng,
                                self.cache)


def _timeline(spec: VideoSpec, ad: _Adapter, cam: CameraSpec, look: LookSpec, rng: np.random.Generator
              ) -> Iterator[_Moment]:
    fps = spec.fps
    players = len(ad.sim.header.players)
    cam_az = math.degrees(math.atan2(cam.position_mm()[1], cam.position_mm()[0]))
    seat_az = [cam_az + 360.0 * i / players + uni(rng, (-20, 20)) for i in range(players)]
    skins = [SKIN_TONES[int(rng.integers(len(SKIN_TONES)))] for _ in range(players)]
    sleeves = [SLEEVES[int(rng.integers(len(SLEEVES)))] for _ in range(players)]
    items: list[Any] = []

    def n(seconds: float) -> int:
        return max(1, round(seconds * fps))

    def hand(seat: int, tip: tuple[float, float], height: float, pose: str) -> HandSpec:
        return HandSpec(tip_mm=tip, height_mm=height, from_deg=seat_az[seat] + 8.0, pose=pose, skin=skins[seat],
                        sleeve=sleeves[seat], sleeve_at=0.3)

    def rest(seconds: float, applied: int, phase: str = "idle", stable: bool = True) -> Iterator[_Moment]:
        for _ in range(n(seconds)):
            yield _Moment(list(items), (), cam, look, phase, applied, stable)

    def lay(seat: int, new: list[Any], applied: int, phase: str) -> Iterator[_Moment]:
        """A hand brings ``new`` items one by one; they appear under the fingers."""
        az = math.radians(seat_az[seat])
        far_dir = (math.cos(az), math.sin(az))
        t0 = ad.target(new[0])
        start = (t0[0] + far_dir[0] * 600, t0[1] + far_dir[1] * 600)
        k = n(uni(rng, (0.5, 0.9)))
        for i in range(k):
            s = (i + 1) / k
            tip = (start[0] + (t0[0] - start[0]) * s, start[1] + (t0[1] - start[1]) * s)
            yield _Moment(list(items), (hand(seat, tip, 120 - 80 * s, "pinch"),), cam, look, phase, applied, False)
        for it in new:
            tx = ad.target(it)
            for i in range(n(0.25)):
                yield _Moment(list(items), (hand(seat, tx, 40 - 25 * (i + 1) / n(0.25), "pinch"),), cam, look,
                              phase, applied, False)
            items.append(it)
            for i in range(n(0.2)):
                yield _Moment(list(items), (hand(seat, tx, 15 + 30 * (i + 1) / n(0.2), "open"),), cam, look,
                              phase, applied, False)
        last = ad.target(new[-1])
        k = n(uni(rng, (0.4, 0.8)))
        for i in range(k):
            s = (i + 1) / k
            tip = (last[0] + (start[0] - last[0]) * s, last[1] + (start[1] - last[1]) * s)
            yield _Moment(list(items), (hand(seat, tip, 45 + 100 * s, "open"),), cam, look, phase, applied, False)

    def take_back(seat: int, gone: list[Any], applied: int) -> Iterator[_Moment]:
        for it in gone:
            tx = ad.target(it)
            for i in range(n(0.3)):
                yield _Moment(list(items), (hand(seat, tx, 60 - 45 * (i + 1) / n(0.3), "open"),), cam, look,
                              "takeback", applied, False)
            items.remove(it)
            for i in range(n(0.3)):
                yield _Moment(list(items), (hand(seat, tx, 15 + 80 * (i + 1) / n(0.3), "pinch"),), cam, look,
                              "takeback", applied, False)

    yield from rest(uni(rng, (0.8, 1.2)), 0)
    for idx, step in enumerate(ad.sim.steps):
        seat = step.event.player if step.event.player is not None else idx % players
        new = ad.new_items(step)
        if rng.random() < spec.light_change_prob:
            look = replace(look, level=float(np.clip(look.level * uni(rng, (0.75, 1.3)), 0.4, 1.3)),
                           kelvin=float(np.clip(look.kelvin + uni(rng, (-1200, 1200)), 2300, 7500)),
                           gradient_angle_deg=uni(rng, (0, 360)))
            yield from rest(0.3, idx, "light")
        if rng.random() < spec.nudge_prob:
            yaw = cam.yaw_deg + uni(rng, (-3, 3))
            tgt = (cam.target_mm[0] + uni(rng, (-8, 8)), cam.target_mm[1] + uni(rng, (-8, 8)))
            old = cam
            k = n(0.3)
            for i in range(k):
                s = (i + 1) / k
                cam = replace(old, yaw_deg=old.yaw_deg + (yaw - old.yaw_deg) * s,
                              target_mm=(old.target_mm[0] + (tgt[0] - old.target_mm[0]) * s,
                                         old.target_mm[1] + (tgt[1] - old.target_mm[1]) * s))
                yield _Moment(list(items), (), cam, look, "nudge", idx, False)
        if new:
            if rng.random() < spec.takeback_prob:
                wrong = ad.wrong_items(new, items)
                yield from lay(seat, wrong, idx, "takeback")
                yield from rest(uni(rng, (0.3, 0.8)), idx, "takeback", stable=False)
                for m in take_back(seat, wrong, idx):
                    m.stable = False
                    yield m
            yield from lay(seat, new, idx, "move")
        yield from rest(uni(rng, (0.6, 1.2)) if new else uni(rng, (0.2, 0.4)), idx + 1)
    yield from rest(1.0, len(ad.sim.steps))


_ADAPTERS = {"triolet": _Triolet, "trigon": _Trigon, "triominos": _Triangles, "trio_domino": _Triangles}


def _compact(labels: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in labels.items() if k not in ("scene", "look", "style")}


class GameVideo:
    """A whole simulated game ready to be rendered frame by frame."""

    def __init__(self, spec: VideoSpec, pool: StylePool | None = None) -> None:
        from lab.sim.driver import play_game

        if spec.game not in _ADAPTERS:
            raise ValueError(f"unknown game {spec.game!r}")
        self.spec = spec
        self.sim = play_game(spec.game, spec.seed, players=spec.players, greedy=spec.greedy,
                             max_events=spec.max_events, variant=spec.variant)
        rng = np.random.default_rng(spec.seed)
        diff = difficulty(spec.difficulty)
        self.rng = rng
        self.adapter = _ADAPTERS[spec.game](spec, self.sim, rng, diff, pool or StylePool())
        foot, size_mm = self.adapter.footprint()
        self.camera = random_camera(rng, replace(diff, board_fill=(min(0.8, diff.board_fill[1]), diff.board_fill[1]),
                                                 full_board=True), foot, size_mm, spec.size)
        look = random_look(rng, diff, pool or StylePool())
        self.look = replace(look, motion_px=0.0, glare=look.glare[:1])
        self.event_frames: dict[int, int] = {}

    def frames(self) -> Iterator[tuple[U8, dict[str, Any]]]:
        """``(image, labels)`` for every frame, in order."""
        fps = self.spec.fps
        applied_before = 0
        for i, m in enumerate(_timeline(self.spec, self.adapter, self.camera, self.look, self.rng)):
            frame = self.adapter.render(m.items, m.hands, m.camera, m.look)
            while applied_before < m.applied:
                self.event_frames[applied_before] = i
                applied_before += 1
            labels = _compact(frame.labels)
            labels.update({"frame": i, "ts": round(i / fps, 4), "phase": m.phase, "events_applied": m.applied,
                           "stable": m.stable, "hands": len(m.hands),
                           "occluded_px": int((frame.masks["occluders"] > 0).sum())})
            yield frame.image, labels

    def record_text(self) -> str:
        """The truth record (INTERFACES §1), events stamped with the frame that shows them done."""
        fps = self.spec.fps
        events = []
        for k, ev in enumerate(self.sim.events):
            f = self.event_frames.get(k)
            events.append(ev if f is None else replace(ev, meta=EventMeta(ts=round(f / fps, 4), frame=f)))
        return dump_record(self.sim.header, events)


def game_frames(spec: VideoSpec, pool: StylePool | None = None) -> Iterator[tuple[U8, dict[str, Any]]]:
    """Every frame of a simulated game video as ``(image, labels)``; nothing is written."""
    yield from GameVideo(spec, pool).frames()


def write_game_video(spec: VideoSpec, folder: str | Path, pool: StylePool | None = None,
                     progress: bool = False) -> dict[str, Path]:
    """Write ``<stem>.mp4``, ``<stem>.jsonl`` (truth record) and ``<stem>.labels.jsonl``."""
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    stem = f"{spec.game}_seed{spec.seed}"
    paths = {"video": d / f"{stem}.mp4", "record": d / f"{stem}.jsonl", "labels": d / f"{stem}.labels.jsonl"}
    gv = GameVideo(spec, pool)
    writer = cv2.VideoWriter(str(paths["video"]), cv2.VideoWriter.fourcc(*"mp4v"), spec.fps, spec.size)
    if not writer.isOpened():
        raise OSError(f"cannot write {paths['video']} (OpenCV has no mp4v encoder here)")
    try:
        with paths["labels"].open("w", encoding="utf-8") as lf:
            for img, labels in gv.frames():
                writer.write(img)
                lf.write(json.dumps(labels, ensure_ascii=False) + "\n")
                if progress and labels["frame"] % 25 == 0:
                    sys.stderr.write(f"\r{stem}: frame {labels['frame']}, event {labels['events_applied']}"
                                     f"/{len(gv.sim.steps)}")
                    sys.stderr.flush()
    finally:
        writer.release()
    if progress:
        sys.stderr.write("\n")
    paths["record"].write_text(gv.record_text(), encoding="utf-8")
    return paths


def endless_frames(game: str, seed: int = 0, pool: StylePool | None = None, **spec: Any
                   ) -> Iterator[tuple[U8, dict[str, Any]]]:
    """Game after game (seeds ``seed``, ``seed + 1``, …) for a live simulated table; each frame's
    labels also carry ``game_seed`` so a consumer can fetch that game's truth record."""
    s = seed
    while True:
        for img, labels in GameVideo(VideoSpec(game, seed=s, **spec), pool).frames():
            labels["game_seed"] = s
            yield img, labels
        s += 1
