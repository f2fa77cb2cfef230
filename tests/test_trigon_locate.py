"""The Trigon board locator: grid phases solved together, local grid measurements that are local,
the lattice grown ring by ring from the middle, registration by the plain rim (B-B1 geometry)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from lab.render.trigon import random_trigon_frame
from vision.locate import BoardNotLocatedError
from vision.read.trigon import locate as TL
from vision.read.trigon.geometry import SQRT3, hexagon_corners
from vision.read.trigon.grid import (
    consistent_offset,
    family_images,
    lattice_shifts,
    local_offsets,
    rim_energy,
    snap_shift,
)

UNIT = 20.0
SIZE = 460


def _normals() -> np.ndarray:
    """The line families' unit normals as ``family_images`` turns them (0°, 60°, 120°)."""
    return np.array([[-math.sin(math.radians(60 * j)), math.cos(math.radians(60 * j))] for j in range(3)])


def _wrap(x: float, p: float) -> float:
    return (x + p / 2) % p - p / 2


def test_consistent_offset_unwraps_a_phase_the_plain_least_squares_gets_wrong() -> None:
    """A translation whose third family's phase wraps round: each phase alone is only known modulo
    the line period, so the three least-squares lands between lines; solved together it is exact."""
    n = _normals()
    p = np.ones(3)
    t_true = np.array([0.5, 0.3])
    deltas = np.array([_wrap(float(nj @ t_true), 1.0) for nj in n])
    naive = np.linalg.lstsq(n, deltas, rcond=None)[0]
    assert np.linalg.norm(naive - t_true) > 0.1
    assert np.allclose(consistent_offset(n, deltas, p), t_true, atol=1e-9)


def test_lattice_shifts_are_translations_of_the_triangle_grid() -> None:
    """0 first, then 6 at one cell edge, 6 at √3, 6 at 2, 12 at √7, 6 at 3: 37 within three cells."""
    shifts = lattice_shifts(3.0)
    assert len(shifts) == 37 and np.allclose(shifts[0], 0)
    lengths = sorted(round(float(np.linalg.norm(s)), 3) for s in shifts)
    assert lengths.count(1.0) == 6 and lengths.count(round(SQRT3, 3)) == 6 and lengths.count(2.0) == 6
    for s in shifts:  # integer steps along (1, 0) and (½, √3/2)
        j = s[1] / (SQRT3 / 2)
        assert abs(j - round(j)) < 1e-9 and abs((s[0] - j / 2) - round(s[0] - j / 2)) < 1e-9


def _grid_view(shift_right_px: float) -> np.ndarray:
    """A synthetic straight-on view: the cell grid's three line families, the right half of the
    picture moved ``shift_right_px`` to the right."""
    out = np.full((SIZE, SIZE), 150, np.uint8)
    c = SIZE / 2
    for half, dx in ((0, 0.0), (1, shift_right_px)):
        img = np.full((SIZE, SIZE), 150, np.uint8)
        for j in range(3):
            a = math.radians(60 * j)
            d = np.array([math.cos(a), math.sin(a)])
            nrm = np.array([-d[1], d[0]])
            for k in range(-14, 15):
                p0 = np.array([c + dx, c]) + nrm * k * UNIT * SQRT3 / 2
                q0, q1 = p0 - d * 600, p0 + d * 600
                cv2.line(img, (round(q0[0]), round(q0[1])), (round(q1[0]), round(q1[1])), 60, 2, cv2.LINE_AA)
        if half == 0:
            out[:, : SIZE // 2] = img[:, : SIZE // 2]
        else:
            out[:, SIZE // 2:] = img[:, SIZE // 2:]
    return out.astype(np.float32)


def test_local_offsets_measure_only_their_own_area() -> None:
    """A small area's weight is kept even when it holds less than a quarter of the board (dropping it
    made every 'local' measurement the whole board's): here the two halves must disagree by the shift."""
    view = _grid_view(0.3 * UNIT)
    fam = family_images(view, SIZE / 2)
    left = local_offsets(fam, SIZE / 2, UNIT, np.array([-5.0, 0.0]), 1.8)
    right = local_offsets(fam, SIZE / 2, UNIT, np.array([5.0, 0.0]), 1.8)
    assert left is not None and right is not None
    assert np.linalg.norm(left) < 0.06 * UNIT
    assert np.allclose(right, [0.3 * UNIT, 0.0], atol=0.06 * UNIT)


def _truth_h(frame: object) -> tuple[np.ndarray, float]:
    labels = frame.labels  # type: ignore[attr-defined]
    side = labels["board"]["side"]
    hx = np.array(labels["board"]["hexagon_px"], float)
    c = hx.mean(axis=0)
    hx9 = c + (hx - c) * 9 / side
    return hx9, float(np.linalg.norm(hx9[0] - hx9[1]) / 9)


def _corner_error_cells(h: np.ndarray, hx9: np.ndarray, cell_px: float) -> float:
    pc = TL.apply_h(h, hexagon_corners(9))
    return min(float(np.linalg.norm(np.roll(pc, k, axis=0) - hx9, axis=1).mean()) for k in range(6)) / cell_px


@pytest.mark.parametrize("seed", [920025, 920044])
def test_locates_boards_the_outline_search_got_wrong(seed: int) -> None:
    """Normal dev pictures the outline-based locator missed: a dark grey board
    on a grey table (its outline a cell off: no board found) and one found a cell off."""
    frame = random_trigon_frame(seed, "normal")
    hx9, cell_px = _truth_h(frame)
    board = TL.locate_trigon(frame.image)
    assert _corner_error_cells(board.homography, hx9, cell_px) < 0.5


def test_the_lattice_is_grown_from_an_outline_a_cell_and_a_half_off() -> None:
    """From the true plate outline with every corner moved about 1.5 cells at random (fixed seed),
    the grid grown ring by ring lands within 0.15 cell (0.05 measured; the outline-based refinement: 0.44)."""
    frame = random_trigon_frame(920029, "normal")
    hx9, cell_px = _truth_h(frame)
    rng = np.random.default_rng(5)
    c = hx9.mean(axis=0)
    plate = c + (hx9 - c) * TL.PLATE_RADIUS / 9 + rng.normal(0, 1.5 * cell_px / 1.4, (6, 2))
    h, score = TL.refine_board(frame.image, plate)
    assert score >= TL.MIN_GRID_SCORE
    assert _corner_error_cells(h, hx9, cell_px) < 0.15


def _board_view(centre_shift: tuple[float, float], size: int = 520, rim_rows: float = 1.0) -> np.ndarray:
    """A synthetic straight-on view of a board with plain cells: the playing hexagon's grid lines
    (three families) clipped to the hexagon translated by ``centre_shift`` cells, a plain rim, the
    board's own edge (a dark line parallel to each side) ``rim_rows`` row heights out, and a plain
    table beyond."""
    c = np.array([size / 2, size / 2]) + np.array(centre_shift) * UNIT
    grid = np.full((size, size), 150, np.uint8)
    for j in range(3):
        a = math.radians(60 * j)
        d = np.array([math.cos(a), math.sin(a)])
        nrm = np.array([-d[1], d[0]])
        for k in range(-14, 15):
            p0 = c + nrm * k * UNIT * SQRT3 / 2
            q0, q1 = p0 - d * 800, p0 + d * 800
            cv2.line(grid, (round(q0[0]), round(q0[1])), (round(q1[0]), round(q1[1])), 60, 2, cv2.LINE_AA)
    hexa = hexagon_corners(9) * UNIT + c
    inside = np.zeros((size, size), np.uint8)
    cv2.fillPoly(inside, [np.round(hexa).astype(np.int32)], 1)
    view = np.where(inside > 0, grid, 150).astype(np.uint8)
    plate = hexagon_corners(9) * UNIT * (9 + rim_rows) / 9 + c  # the board's edge
    table = np.zeros((size, size), np.uint8)
    cv2.fillPoly(table, [np.round(plate).astype(np.int32)], 1)
    view[table == 0] = 100
    cv2.polylines(view, [np.round(plate).astype(np.int32)], True, 40, 3, cv2.LINE_AA)
    return view.astype(np.float32)


@pytest.mark.parametrize("truth", [(0.0, 0.0), (1.0, 0.0), (0.5, SQRT3 / 2)])
@pytest.mark.parametrize("rim_rows", [0.3, 1.0])
def test_registration_ignores_the_boards_edge_on_a_narrow_rim(truth: tuple[float, float], rim_rows: float) -> None:
    """Plain cells (no recess shading) and the board's own edge close outside the playing area (in
    the band measured, or where the next row's line would be): the translation chosen is the true
    one, wherever the fit started."""
    size = 520
    view = _board_view(truth, size, rim_rows)
    shift, _ratio = snap_shift(view, size / 2, UNIT, inside=np.ones((size, size), np.float32))
    assert np.allclose(shift, truth, atol=1e-6)


def test_a_band_beyond_the_pictures_edge_is_no_sign_of_a_rim() -> None:
    size = 520
    view = _board_view((0.0, 0.0), size)
    g = (np.asarray(cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3), np.float32),
         np.asarray(cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3), np.float32))
    seen = rim_energy(g, size / 2, UNIT, 9, np.zeros(2), np.ones((size, size), np.float32))
    blank = rim_energy(g, size / 2, UNIT, 9, np.zeros(2), np.zeros((size, size), np.float32))
    assert seen < 0.5 and blank == 1.0


def _veined_table_picture() -> tuple[np.ndarray, np.ndarray]:
    """A plate of the table's own grey with its triangle grid, on a table of wandering veins."""
    rng = np.random.default_rng(3)
    h, w, unit = 540, 720, 24.0
    img = np.full((h, w, 3), 175, np.uint8)
    for _ in range(60):
        p, a = rng.uniform([0, 0], [w, h]), float(rng.uniform(0, 2 * math.pi))
        pts = []
        for _ in range(40):
            a += float(rng.normal(0, 0.5))
            p = p + 6 * np.array([math.cos(a), math.sin(a)])
            pts.append(p.copy())
        cv2.polylines(img, [np.round(pts).astype(np.int32)], False, (120, 120, 125), 2, cv2.LINE_AA)
    c = np.array([360.0, 270.0])
    plate = hexagon_corners(9) * unit * 1.08 + c
    cv2.fillPoly(img, [np.round(plate).astype(np.int32)], (170, 170, 170))
    grid = img.copy()
    for j in range(3):
        d = np.array([math.cos(math.radians(60 * j)), math.sin(math.radians(60 * j))])
        nrm = np.array([-d[1], d[0]])
        for k in range(-9, 10):
            p0 = c + nrm * k * unit * SQRT3 / 2
            q0, q1 = np.round(p0 - d * 400).astype(int), np.round(p0 + d * 400).astype(int)
            cv2.line(grid, (int(q0[0]), int(q0[1])), (int(q1[0]), int(q1[1])), (110, 110, 110), 2, cv2.LINE_AA)
    inside = np.zeros((h, w), np.uint8)
    cv2.fillPoly(inside, [np.round(hexagon_corners(9) * unit + c).astype(np.int32)], 1)
    img[inside > 0] = grid[inside > 0]
    return img, plate


def test_dense_texture_masks_find_the_plate_on_a_veined_table_of_its_grey() -> None:
    """The masks of dense fine texture cover the plate and little of the veined table: closer to
    the plate than the plain texture mask, whose closing joins the veins to it."""
    from vision.read.trigon.hexagon import DENSE_TEXTURE, candidate_masks

    img, plate = _veined_table_picture()
    pm = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(pm, [np.round(plate).astype(np.int32)], 1)

    def iou(m: np.ndarray) -> float:
        return float(((m > 0) & (pm > 0)).sum() / ((m > 0) | (pm > 0)).sum())

    masks = candidate_masks(img)
    dense = [iou(m) for m in masks[-len(DENSE_TEXTURE):]]
    texture = iou(masks[-len(DENSE_TEXTURE) - 1])
    assert max(dense) >= 0.8 and max(dense) > texture


def _fake_search(monkeypatch: pytest.MonkeyPatch, fits: list[tuple[float, float]],
                 refit: dict[float, tuple[float, float]] | None = None) -> list[np.ndarray]:
    """Outline candidates 0…n−1 whose grid fit (``refine_board``) gives ``fits[i]`` = (homography
    x offset, score); a fit from an outline a fitted lattice implies gives ``refit[x offset]``.
    Returns the outlines ``refine_board`` was called with."""
    plates = [np.asarray(hexagon_corners(1) * (100 + 40 * i) + 300, np.float64) for i in range(len(fits))]
    calls: list[np.ndarray] = []

    def h_at(x: float) -> np.ndarray:
        return np.array([[10.0, 0, x], [0, 10.0, 300.0], [0, 0, 1]])

    def refine(_gray: np.ndarray, plate: np.ndarray) -> tuple[np.ndarray, float]:
        calls.append(plate)
        for p, (x, score) in zip(plates, fits, strict=True):
            if np.allclose(p, plate):
                return h_at(x), score
        x0 = float(TL.apply_h(np.linalg.inv(h_at(0.0)), plate.mean(axis=0)[None])[0, 0]) * 10
        x, score = (refit or {}).get(round(x0), (x0, -1.0))
        return h_at(x), score

    monkeypatch.setattr(TL, "candidate_hexagons", lambda _small, _n: [p.copy() for p in plates])
    monkeypatch.setattr(TL, "refine_board", refine)
    return calls


def _x_offset(board: TL.TrigonBoard) -> float:
    return float(TL.apply_h(board.homography, np.zeros((1, 2)))[0, 0])


def test_a_clear_outline_ends_the_search_before_any_refit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first clear grid is the board: a later outline's higher score does not pick the
    registration (among clear grids one a cell off can score higher), and nothing is refitted."""
    calls = _fake_search(monkeypatch, [(300.0, 0.5), (320.0, 2.2), (340.0, 2.5)], refit={300: (305.0, 2.6)})
    board = TL.locate_trigon(np.zeros((540, 720, 3), np.uint8))
    assert board.score == pytest.approx(2.2) and _x_offset(board) == pytest.approx(320.0)
    assert len(calls) == 2


def test_without_a_clear_outline_the_fits_are_refitted_clearest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """No outline gives a clear grid (a wrong one scores 1.1, above the bar to be a board): refitted
    from their own lattices, the clearest fit first, the one that becomes clear is the board."""
    calls = _fake_search(monkeypatch, [(300.0, 0.6), (320.0, 1.1)], refit={320: (321.0, 0.9), 300: (305.0, 2.3)})
    board = TL.locate_trigon(np.zeros((540, 720, 3), np.uint8))
    assert board.score == pytest.approx(2.3) and _x_offset(board) == pytest.approx(305.0)
    assert len(calls) == 4


def test_a_grid_not_yet_clear_is_fitted_again_from_its_own_outline(monkeypatch: pytest.MonkeyPatch) -> None:
    """An outline too far off gives a grid below the bar; fitted again from the outline its lattice
    implies, and again, the grid becomes clear and the board is found there."""
    calls = _fake_search(monkeypatch, [(300.0, 0.6)], refit={300: (310.0, 1.2), 310: (312.0, 2.4)})
    board = TL.locate_trigon(np.zeros((540, 720, 3), np.uint8))
    assert board.score == pytest.approx(2.4) and _x_offset(board) == pytest.approx(312.0)
    assert len(calls) == 1 + TL.REFIT_PASSES


def test_the_search_keeps_to_its_budget_of_refits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many outlines, none clear: every outline is fitted once and at most ``MAX_REFITS`` refits
    follow; nothing clear enough is no board."""
    calls = _fake_search(monkeypatch, [(300.0 + 10 * i, 0.5) for i in range(8)])
    with pytest.raises(BoardNotLocatedError):
        TL.locate_trigon(np.zeros((540, 720, 3), np.uint8), max_candidates=8)
    assert len(calls) == 8 + TL.MAX_REFITS
