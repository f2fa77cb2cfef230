"""Square Blokus board location on synthetic pictures built here (no renderer): the grid window
spans the playing squares exactly, whatever lies just beyond them — a plain rim exactly a whole
square wide ending in a raised border, spare pieces lying against the rim."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.read.blokus import read_blokus
from vision.read.blokus.grid import window_shift

#: pixels per square on the straight-on board texture
UNIT = 32
#: piece colours (BGR) of the synthetic pieces
PIECES = ((170, 60, 20), (20, 190, 230), (40, 40, 200), (60, 150, 40))


def board_texture(rng: np.random.Generator, n: int, rim: float, border: bool, cover: float,
                  edge_cover: float = 0.85) -> np.ndarray:
    """A board seen straight on: a light plate, ``rim`` squares of plain rim all round (with a
    raised border: a bright band and its dark inner wall at the plate's edge), the ``n``×``n``
    grid of recessed squares, pieces on about ``cover`` of them and ``edge_cover`` of the outer
    rows and columns (fuller at the end of a game)."""
    r = round(rim * UNIT)
    side = n * UNIT + 2 * r
    tex = np.full((side, side, 3), 205, np.float32) + rng.normal(0, 3, (side, side, 1)).astype(np.float32)
    if border:
        w = max(3, UNIT // 5)
        tex[:w], tex[-w:], tex[:, :w], tex[:, -w:] = 240, 240, 240, 240
        for sl in (np.s_[w:w + 2, w:side - w], np.s_[side - w - 2:side - w, w:side - w],
                   np.s_[w:side - w, w:w + 2], np.s_[w:side - w, side - w - 2:side - w]):
            tex[sl] = 120
    for row in range(n):
        for col in range(n):
            y, x = r + row * UNIT, r + col * UNIT
            edge = min(row, col, n - 1 - row, n - 1 - col) == 0
            if rng.random() < (edge_cover if edge else cover):
                colour = PIECES[int(rng.integers(len(PIECES)))]
                tex[y + 1:y + UNIT - 1, x + 1:x + UNIT - 1] = colour
            else:
                tex[y + 3:y + UNIT - 3, x + 3:x + UNIT - 3] -= 12  # the recessed square's floor
    for k in range(n + 1):  # grid lines, the outermost ones included
        tex[r:r + n * UNIT, r + k * UNIT - 1:r + k * UNIT + 1] = 150
        tex[r + k * UNIT - 1:r + k * UNIT + 1, r:r + n * UNIT] = 150
    return np.asarray(np.clip(tex, 0, 255), np.uint8)


def marble(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A pale, nearly grey stone table as light as the board, with dark wavy veins."""
    pic = np.empty((h, w, 3), np.float32)
    pic[:] = (200, 208, 210)
    pic += rng.normal(0, 3, (h, w, 1)).astype(np.float32)
    x = np.arange(w, dtype=np.float64)
    for _ in range(40):
        y0, amp, per, ph = rng.uniform(0, h), rng.uniform(8, 40), rng.uniform(60, 220), rng.uniform(0, 6.3)
        wobble = amp * np.sin(x / per + ph) + 0.5 * amp * np.sin(x / (0.37 * per) + 2 * ph)
        pts = np.stack([x, y0 + wobble + rng.normal(0, 1.5, w).cumsum() * 0.3], axis=1)
        cv2.polylines(pic, [np.round(pts).astype(np.int32)], False, (110, 115, 118), int(rng.integers(2, 5)))
    return pic


def scene(seed: int, n: int, rim: float, border: bool, spares: int,
          table: str = "cloth") -> tuple[np.ndarray, np.ndarray]:
    """A 1280×960 picture of the board on a dark cloth (or pale veined ``marble``), seen at a
    tilt, with ``spares`` pieces lying against the rim; and the playing area's four corners in
    the picture."""
    rng = np.random.default_rng(seed)
    early = table == "marble"  # few pieces yet: the board's colour barely differs from the table's
    tex = board_texture(rng, n, rim, border, cover=0.06 if early else 0.5, edge_cover=0.06 if early else 0.85)
    side = tex.shape[0]
    w, h = 1280, 960
    if table == "marble":
        pic = marble(rng, w, h)
    else:
        pic = np.empty((h, w, 3), np.float32)
        pic[:] = (55, 75, 60)
        pic += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    c = np.array([w / 2, h / 2]) + rng.uniform(-40, 40, 2)
    half = 330.0
    ang = rng.uniform(0, np.pi / 2)
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * half
    dst = sq @ rot.T
    dst[:, 0] *= np.where(dst[:, 1] < 0, 0.8, 1.0)  # the far edge shorter: perspective
    dst[:, 1] *= 0.8
    dst += c
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float64)
    hom = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    board = cv2.warpPerspective(tex, hom, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full(tex.shape[:2], 255, np.uint8), hom, (w, h))
    pic[mask > 0] = board[mask > 0]
    # spare pieces: polyomino-sized coloured blocks just outside the board's edge, touching it
    for i in range(spares):
        edge = i % 4
        t = rng.uniform(0.15, 0.7)
        a, b = dst[edge], dst[(edge + 1) % 4]
        out = (a + b) / 2 - c
        out /= np.linalg.norm(out)
        along = (b - a) / np.linalg.norm(b - a)
        p0 = a + t * (b - a) + out * 2
        blk = np.array([p0, p0 + along * 80, p0 + along * 80 + out * 26, p0 + out * 26])
        cv2.fillConvexPoly(pic, np.round(blk).astype(np.int32), PIECES[i % len(PIECES)])
    if table == "marble":
        pic *= np.array([0.62, 0.78, 0.95], np.float32)  # a dim, warm lamp
    blurred = cv2.GaussianBlur(pic, (3, 3), 0.8)
    r = rim * UNIT
    play = np.array([[r, r], [side - r, r], [side - r, side - r], [r, side - r]], np.float64)
    corners = cv2.perspectiveTransform(play.reshape(-1, 1, 2), hom).reshape(-1, 2)
    return np.asarray(np.clip(blurred, 0, 255), np.uint8), corners


def corner_error_squares(found: tuple[tuple[float, float], ...], true: np.ndarray, n: int) -> float:
    """The largest distance from a found corner to the nearest true one, in squares."""
    f = np.array(found, np.float64)
    square = float(np.linalg.norm(true - np.roll(true, 1, axis=0), axis=1).mean()) / n
    return max(float(np.linalg.norm(true - p, axis=1).min()) for p in f) / square


@pytest.mark.parametrize(("seed", "game", "rim"), [(1, "blokus", 1.0), (2, "blokus_duo", 1.0), (3, "blokus", 2.0)])
def test_plain_rim_a_whole_square_wide_with_a_raised_border_registers_exactly(seed: int, game: str,
                                                                             rim: float) -> None:
    """The board's raised outer edge lies a whole square beyond the outer grid lines (a line by
    strength alone); the window still spans the playing squares, not the rim."""
    n = 20 if game == "blokus" else 14
    pic, true = scene(seed, n, rim, border=True, spares=0)
    r = read_blokus(pic, game=game)
    assert corner_error_squares(r.corners_px, true, n) < 0.25


def test_spare_pieces_against_the_rim_do_not_extend_the_board() -> None:
    """Coloured pieces lying against the rim are no squares of the board: the grid ends at the rim."""
    pic, true = scene(4, 20, 1.0, border=True, spares=6)
    r = read_blokus(pic)
    assert corner_error_squares(r.corners_px, true, 20) < 0.25


def test_board_on_a_pale_veined_table_is_located() -> None:
    """A light grey board with few pieces yet on a table as light and grey as it (marble), under a
    warm lamp: the board's straight grid lines find it where its colour does not."""
    pic, true = scene(5, 20, 1.0, border=False, spares=0, table="marble")
    r = read_blokus(pic)
    assert corner_error_squares(r.corners_px, true, 20) < 0.25


def test_window_goes_to_the_bands_crossed_by_grid_lines() -> None:
    """One axis: squares crossed by the other family's lines in bands 0–13, plain rim around, a
    strong edge (the plate's) a square out on one side only: the window is moved onto bands 0–13."""
    n, reach = 14, 4
    for late in (-2, -1, 0, 1, 2):  # the current window starts ``late`` squares after the board's grid
        k = np.arange(-reach, n + reach + 1) + late  # line (band) numbers of the board's own grid
        cross = np.where((k >= 0) & (k < n), 10.0, 0.3)
        energy = np.where((k >= 0) & (k <= n), 5.0, 0.2)
        energy[k == n + 1] = 30.0  # the plate's edge a square beyond the last line: stronger than any line
        energy[k == -1] = 12.0  # a raised border on the other side: also a strong edge
        assert window_shift(energy, cross, n, reach) == -late
