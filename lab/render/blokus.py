"""A simple renderer of square Blokus boards (Classic 20×20, Duo 14×14) with exact truth.

Made for the square-board reader's tests and bench: a light plate with recessed squares and a
rim, translucent pieces that tint the board under them (each square with its raised inner
edge), specular glare, the whole warped with any rotation and a perspective tilt onto a wooden
table with spare pieces and a white cup beside it, under light from warm to cold, with noise,
blur and JPEG compression. Pieces are random polyominoes of 1–5 squares, not game positions.
The truth follows RULES K-B1 in the picture's reading frame (the board edge nearest the top of
the picture is the top edge), as the reader names squares.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.blokus import BlokusPlace
from engine.core.header import Header

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

#: nominal piece colours (RGB) by game
PIECE_RGB: dict[str, dict[str, tuple[int, int, int]]] = {
    "blokus": {"blue": (30, 60, 210), "yellow": (250, 210, 10), "red": (220, 30, 35), "green": (10, 150, 100)},
    "blokus_duo": {"purple": (125, 55, 175), "orange": (245, 120, 20)},
}
SIZES = {"blokus": 20, "blokus_duo": 14}
#: texture pixels per square
TEX_UNIT = 36
#: rim width in squares
RIM = 0.5


@dataclass(frozen=True)
class BlokusRender:
    """A rendered picture (BGR), its truth as rows from the reading frame's top (colour or
    ``None``), and the playing area's corners in the picture clockwise from the reading frame's
    top-left."""

    image: U8
    truth: list[list[str | None]]
    corners_px: F64
    game: str


def random_pieces(rng: np.random.Generator, n: int, colours: list[str], cover: float) -> list[list[str | None]]:
    """Random polyominoes of 1–5 squares in random colours until about ``cover`` of the board is
    covered (pieces may touch at edges, as after a finished game)."""
    grid: list[list[str | None]] = [[None] * n for _ in range(n)]
    target = int(cover * n * n)
    filled = 0
    tries = 0
    while filled < target and tries < 20 * n * n:
        tries += 1
        r, c = int(rng.integers(n)), int(rng.integers(n))
        if grid[r][c] is not None:
            continue
        colour = colours[int(rng.integers(len(colours)))]
        cells = [(r, c)]
        size = int(rng.integers(1, 6))
        for _ in range(20):
            if len(cells) >= size:
                break
            br, bc = cells[int(rng.integers(len(cells)))]
            dr, dc = [(0, 1), (1, 0), (0, -1), (-1, 0)][int(rng.integers(4))]
            nr, nc = br + dr, bc + dc
            if 0 <= nr < n and 0 <= nc < n and grid[nr][nc] is None and (nr, nc) not in cells:
                cells.append((nr, nc))
        for rr, cc in cells:
            grid[rr][cc] = colour
        filled += len(cells)
    return grid


def board_texture(rng: np.random.Generator, grid: list[list[str | None]], game: str, steady: bool = False) -> U8:
    """The board seen straight on (BGR), rim included. ``steady``: the same ``rng`` state gives
    the same board, glare and piece tints whatever pieces lie on it (the frames of one game)."""
    n = len(grid)
    u = TEX_UNIT
    rim = round(RIM * u)
    side = n * u + 2 * rim
    base = float(rng.uniform(215, 250))
    tint = rng.uniform(-6, 6, 3)
    tex = np.empty((side, side, 3), np.float64)
    tex[:] = base + tint
    line = max(1, u // 14)
    for r in range(n):
        for c in range(n):
            y, x = rim + r * u, rim + c * u
            tex[y:y + u, x:x + u] -= rng.uniform(4, 12)
            tex[y:y + line, x:x + u] -= 35
            tex[y:y + u, x:x + line] -= 35
    tex[rim + n * u - line:rim + n * u, rim:rim + n * u] -= 35
    tex[rim:rim + n * u, rim + n * u - line:rim + n * u] -= 35
    if game == "blokus_duo":  # the two start points, rings on squares 5-5 from two corners
        for r, c in ((4, 4), (n - 5, n - 5)):
            cy, cx = rim + r * u + u // 2, rim + c * u + u // 2
            cv2.circle(tex, (cx, cy), u // 4, (base - 60.0,) * 3, 2)
    palette = PIECE_RGB[game]
    strength = float(rng.uniform(0.6, 0.85))
    inset = round(0.18 * u)
    tints = rng.normal(0, 8, (n, n, 3)) if steady else None
    for r in range(n):
        for c in range(n):
            colour = grid[r][c]
            if colour is None:
                continue
            rgb = np.array(palette[colour], np.float64) + (rng.normal(0, 8, 3) if tints is None else tints[r, c])
            trans = np.clip(rgb[::-1] / 255.0, 0.03, 1.0)
            y, x = rim + r * u, rim + c * u
            sq = tex[y:y + u, x:x + u]
            sq[:] = sq * (1 - strength + strength * trans)
            # the raised inner square: a darker ring and a slightly lighter top
            a, b = inset, u - inset
            ring = sq[a:b, a:b].copy()
            sq[a:b, a:b] *= 0.7
            sq[a + 2:b - 2, a + 2:b - 2] = ring[2:-2, 2:-2] * 1.04
    # glare: a few bright soft spots
    glare = np.zeros((side, side), np.float64)
    for _ in range(int(rng.integers(0, 6))):
        cx, cy = rng.uniform(0, side, 2)
        ax = rng.uniform(0.2, 0.7) * u
        cv2.ellipse(glare, (int(cx), int(cy)), (int(ax), int(ax * rng.uniform(0.3, 1))), float(rng.uniform(0, 180)),
                    0, 360, 1.0, -1)
    glare = np.asarray(cv2.GaussianBlur(glare, (0, 0), u * 0.15), np.float64)
    tex = tex + glare[:, :, None] * rng.uniform(60, 160)
    return np.asarray(np.clip(tex, 0, 255), np.uint8)


def table_texture(rng: np.random.Generator, w: int, h: int) -> U8:
    """A wooden table top (BGR) with grain."""
    base = np.array([rng.uniform(110, 160), rng.uniform(150, 190), rng.uniform(185, 225)])
    y = np.arange(h)[:, None]
    x = np.arange(w)[None, :]
    angle = rng.uniform(0, np.pi)
    t = x * np.cos(angle) + y * np.sin(angle)
    grain = np.sin(t / rng.uniform(6, 20) + 3 * np.sin(t / rng.uniform(60, 200))) * rng.uniform(4, 12)
    img = base[None, None, :] + grain[:, :, None] * np.array([0.7, 0.85, 1.0])
    return np.asarray(np.clip(img, 0, 255), np.uint8)


def render_blokus(seed: int, game: str = "blokus", cover: float | None = None, hard: bool = False) -> BlokusRender:
    """One random picture of a ``game`` board, determined by ``seed``. ``hard``: 2–6 MP pictures,
    a steeper camera, spare pieces pushed against the board's rim, dimmer and warmer light."""
    rng = np.random.default_rng(seed)
    n = SIZES[game]
    colours = list(PIECE_RGB[game])
    grid = random_pieces(rng, n, colours, float(rng.uniform(0.2, 0.8)) if cover is None else cover)
    tex = board_texture(rng, grid, game)
    return _on_table(rng, tex, grid, game, hard)


def render_blokus_game(seed: int, grids: list[list[list[str | None]]], game: str = "blokus") -> list[BlokusRender]:
    """The positions ``grids`` (rows from the board's top, K-B1: colour or ``None``) seen by one
    fixed camera on one table under one light, as the frames of a game; determined by ``seed``."""
    out = []
    for grid in grids:
        tex = board_texture(np.random.default_rng([seed, 1]), grid, game, steady=True)
        out.append(_on_table(np.random.default_rng([seed, 2]), tex, grid, game, False))
    return out


def _on_table(rng: np.random.Generator, tex: U8, grid: list[list[str | None]], game: str, hard: bool) -> BlokusRender:
    """The board texture ``tex`` warped onto a table with clutter, light, noise and blur."""
    n = SIZES[game]
    colours = list(PIECE_RGB[game])
    w = int(rng.integers(1800, 3000)) if hard else int(rng.integers(900, 1500))
    h = int(w * rng.choice([0.75, 1.0, 1.333]))
    img = table_texture(rng, w, h).astype(np.float64)
    # the board: any rotation, size and place, a perspective tilt
    side = tex.shape[0]
    span = rng.uniform(0.55, 0.8) * min(w, h)
    # any rotation but within 6° of a diagonal, where "the board edge nearest the top of the
    # picture" (K-B1's reading frame) is a toss-up between two edges
    theta = np.radians(float(rng.integers(4)) * 90 + rng.uniform(-39, 39))
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.08, 0.08, 2) * np.array([w, h])
    sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * span / 2
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    dst = sq @ rot.T * 0.75 + centre
    # perspective: the far side shrinks
    tilt = rng.uniform(0.18, 0.4) if hard else rng.uniform(0.0, 0.18)
    far = int(rng.integers(4))
    mid = dst.mean(axis=0)
    for i in (far, (far + 1) % 4):
        dst[i] = mid + (dst[i] - mid) * (1 - tilt)
    dst += rng.normal(0, 0.01 * span, dst.shape)
    # spare pieces and a cup on the table; on hard pictures some touch the board's rim
    palette = PIECE_RGB[game]
    unit_px = span * 0.75 / n
    for k in range(int(rng.integers(1, 5)) + (3 if hard else 0)):
        rgb = palette[colours[int(rng.integers(len(colours)))]]
        if hard and k < 3:
            i = int(rng.integers(4))
            t = rng.uniform(0.1, 0.9)
            edge = dst[i] + t * (dst[(i + 1) % 4] - dst[i])
            out = edge - mid
            cx, cy = edge + out / np.linalg.norm(out) * unit_px * rng.uniform(0.8, 1.5)
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        box = cv2.boxPoints(((float(cx), float(cy)), (unit_px * rng.uniform(1, 2), unit_px * rng.uniform(1, 5)),
                             float(rng.uniform(0, 180))))
        cv2.fillConvexPoly(img, np.round(box).astype(np.int32), tuple(float(v) * 0.8 for v in rgb[::-1]))
    cv2.circle(img, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), int(rng.uniform(0.03, 0.07) * min(w, h)),
               (235.0, 238.0, 240.0), -1)
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float64)
    hm = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    warped = cv2.warpPerspective(tex, hm, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((side, side), 255, np.uint8), hm, (w, h))
    shadow = np.asarray(cv2.GaussianBlur(mask.astype(np.float64), (0, 0), 6), np.float64) / 255.0
    img = img * (1 - 0.25 * shadow[:, :, None])
    m = mask.astype(np.float64)[:, :, None] / 255.0
    img = img * (1 - m) + warped.astype(np.float64) * m
    # light: colour of the lamp, a gradient, noise, blur
    gains = np.array([rng.uniform(0.75, 1.1), 1.0, rng.uniform(0.9, 1.2)])
    if hard:
        gains *= np.array([rng.uniform(0.7, 0.9), 1.0, 1.05]) * rng.uniform(0.6, 0.9)
    gy, gx = np.mgrid[0:h, 0:w]
    ga = rng.uniform(0, 2 * np.pi)
    grad = 1 + rng.uniform(0, 0.25) * ((gx * np.cos(ga) + gy * np.sin(ga)) / max(w, h) - 0.5)
    img = img * gains[None, None, :] * grad[:, :, None] * rng.uniform(0.8, 1.05)
    img = img + rng.normal(0, rng.uniform(1, 4), img.shape)
    img = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), rng.uniform(0.5, 1.2))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))])
    image = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8) if ok else np.asarray(img, np.uint8)
    # playing-area corners, and the truth turned into the reading frame
    rim = round(RIM * TEX_UNIT)
    play = np.array([[rim, rim], [side - rim, rim], [side - rim, side - rim], [rim, side - rim]], np.float64)
    pts = np.c_[play, np.ones(4)] @ hm.T
    corners = pts[:, :2] / pts[:, 2:3]
    mids = [(corners[i] + corners[(i + 1) % 4]) / 2 for i in range(4)]
    top = int(np.argmin([p[1] for p in mids]))
    turned = np.rot90(np.array(grid, dtype=object), top)
    truth = [[v if v is None else str(v) for v in row] for row in turned.tolist()]
    return BlokusRender(image=image, truth=truth, corners_px=np.roll(corners, -top, axis=0), game=game)


@dataclass(frozen=True)
class BlokusGameFrames:
    """A short rendered game: the frames (BGR), each frame's labels (INTERFACES §3 reading JSON of
    what is in view: ``board.corners_px`` and ``cells`` named in the picture's frame, and the
    ``phase``: ``idle``, or ``takeback`` while a wrong piece is on the board), the header, the
    place events played (engine names) each with the first frame showing it at rest, and the
    wrong pieces laid and taken back (colour, squares, first frame at rest)."""

    frames: list[U8]
    labels: list[dict[str, object]]
    header: Header
    moves: list[tuple[BlokusPlace, int]]
    wrong: list[tuple[str, tuple[str, ...], int]]


def blokus_game_frames(seed: int, game: str = "blokus", players: int = 4, moves: int = 6, hold: int = 6,
                       takeback: float = 0.0) -> BlokusGameFrames:
    """A game of ``moves`` random legal pieces (the engine's own moves, chosen by ``seed``) seen by
    one fixed camera: the empty board, then per move two frames of an arm reaching in over the
    new piece and ``hold`` frames of the table at rest. With chance ``takeback`` a move is
    preceded by a wrong piece laid, left for ``2 × hold`` frames and taken back: a piece of 3+
    squares the mover could lay, but in the next colour's plastic (not that colour's turn, K-L4)."""
    import random

    from engine.core.session import Session

    header = Header(game=game, players=tuple(f"P{i + 1}" for i in range(players)))
    session = Session(header)
    pick = random.Random(seed)
    n = SIZES[game]
    colours = list(PIECE_RGB[game])
    empty: list[list[str | None]] = [[None] * n for _ in range(n)]
    # scenes: (grid, what: start / move / wrong / back, the move or the wrong piece)
    scenes: list[tuple[list[list[str | None]], str, object]] = [(empty, "start", None)]

    def painted(grid: list[list[str | None]], cells: tuple[str, ...], colour: str) -> list[list[str | None]]:
        out = [row[:] for row in grid]
        for name in cells:
            out[n - int(name[1:])]["abcdefghijklmnopqrst".index(name[0])] = colour
        return out

    for _ in range(moves):
        options = list(session.state.legal_placements())
        if not options:
            break
        last = scenes[-1][0]
        big = [o for o in options if len(getattr(o, "cells", ())) >= 3]
        if takeback > 0 and big and pick.random() < takeback:
            w = pick.choice(big)
            assert isinstance(w, BlokusPlace)
            other = colours[(colours.index(w.colour) + 1) % len(colours)]
            scenes.append((painted(last, w.cells, other), "wrong", (other, w.cells)))
            scenes.append((last, "back", None))
        event = pick.choice(options)
        assert isinstance(event, BlokusPlace)
        session.submit(event)
        scenes.append((painted(last, event.cells, event.colour), "move", event))
    renders = render_blokus_game(seed, [g for g, _, _ in scenes], game)
    frames: list[U8] = []
    labels: list[dict[str, object]] = []
    moves_at: list[tuple[BlokusPlace, int]] = []
    wrong_at: list[tuple[str, tuple[str, ...], int]] = []
    arm_rng = np.random.default_rng([seed, 3])
    for k, (r, (_, what, item)) in enumerate(zip(renders, scenes, strict=True)):
        label = {**_labels_of(r), "phase": "takeback" if what in ("wrong", "back") else "idle"}
        if k > 0:
            for step in (0.6, 1.0):  # an arm from the picture's bottom edge over what changed
                frames.append(_with_arm(r.image, renders[k - 1], r, step, arm_rng))
                labels.append(label)
            if isinstance(item, BlokusPlace):
                moves_at.append((item, len(frames)))
            elif isinstance(item, tuple):
                wrong_at.append((str(item[0]), tuple(item[1]), len(frames)))
        still = 2 * hold if what == "wrong" else hold  # a wrong piece lies a while before it is taken back
        frames.extend([r.image] * still)
        labels.extend([label] * still)
    return BlokusGameFrames(frames, labels, header, moves_at, wrong_at)


def _labels_of(r: BlokusRender) -> dict[str, object]:
    n = len(r.truth)
    cells = [{"cell": f"{'abcdefghijklmnopqrst'[c]}{n - row}", "colour": colour}
             for row, line in enumerate(r.truth) for c, colour in enumerate(line) if colour is not None]
    return {"game": r.game, "board": {"corners_px": [[float(x), float(y)] for x, y in r.corners_px]}, "cells": cells}


def _with_arm(image: U8, before: BlokusRender, after: BlokusRender, reach: float, rng: np.random.Generator) -> U8:
    """``image`` with a skin-toned arm from the bottom edge reaching ``reach`` of the way to the
    squares that differ between the two renders."""
    n = len(before.truth)
    changed = [(r, c) for r in range(n) for c in range(n) if before.truth[r][c] != after.truth[r][c]]
    pts = np.array([[c + 0.5, r + 0.5] for r, c in changed] or [[n / 2, n / 2]], np.float64)
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    hm = cv2.getPerspectiveTransform(src, after.corners_px.astype(np.float32))
    q = np.c_[pts, np.ones(len(pts))] @ hm.T
    return arm_towards(image, (q[:, :2] / q[:, 2:3]).mean(axis=0), reach, rng)


def arm_towards(image: U8, target: NDArray[np.float64], reach: float, rng: np.random.Generator) -> U8:
    """``image`` with a flat skin-toned arm from the picture's bottom edge reaching ``reach`` of the
    way to the pixel ``target``."""
    h, w = image.shape[:2]
    base = np.array([target[0] + rng.uniform(-0.1, 0.1) * w, h + 20.0])
    tip = base + reach * (target - base)
    width = 0.07 * min(w, h)
    d = tip - base
    normal = np.array([-d[1], d[0]]) / max(1e-6, float(np.hypot(*d))) * width / 2
    arm = np.array([base - normal, base + normal, tip + normal, tip - normal], np.int32)
    out = image.copy()
    skin = (float(rng.uniform(90, 140)), float(rng.uniform(130, 170)), float(rng.uniform(180, 220)))
    cv2.fillConvexPoly(out, arm, skin)
    cv2.circle(out, (int(tip[0]), int(tip[1])), int(width * 0.6), skin, -1)
    return out
