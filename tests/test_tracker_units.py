"""Building blocks of the tracker: frames, cell names across re-locations, joint readings,
light-independent change detection and the hand/arm test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.track.appearance import AppearanceConfig, change_map, observe
from vision.track.candidates import joint_readings
from vision.track.cover import find_cover
from vision.track.layout import TRIOLET_LAYOUT, align_fix, best_rotation, corner_shift, rotate_cell
from vision.track.observer import EMPTY, BoardFix, CellRead

CORNERS = [[100.0, 60.0], [520.0, 70.0], [530.0, 480.0], [90.0, 470.0]]


@settings(derandomize=True, max_examples=60)
@given(st.integers(0, 14), st.integers(0, 14), st.integers(0, 3))
def test_cell_names_follow_the_board_when_its_frame_turns_T_B1(col: int, row: int, q: int) -> None:
    """A cell keeps its place on the board: the turned fix maps its new name to the same pixels."""
    fix = BoardFix.from_corners(CORNERS)
    turned = fix.rotated(q)
    name = TRIOLET_LAYOUT.name(col, row)
    new = rotate_cell(TRIOLET_LAYOUT, name, q)
    c2, r2 = TRIOLET_LAYOUT.position(new)

    def centre(f: BoardFix, c: int, r: int) -> np.ndarray:
        p = f.homography @ np.array([c + 0.5, r + 0.5, 1.0])
        return np.asarray(p[:2] / p[2])

    assert np.allclose(centre(fix, col, row), centre(turned, c2, r2), atol=1e-6)
    assert best_rotation(fix.corners_array(), turned.corners_array()) == q


def test_align_fix_keeps_the_first_frame() -> None:
    fix = BoardFix.from_corners(CORNERS)
    shifted = BoardFix.from_corners(np.asarray(CORNERS) + 5.0)
    seen_turned = shifted.rotated(1)  # a locator that starts from another corner
    aligned = align_fix(seen_turned, fix)
    assert np.allclose(aligned.corners_array(), shifted.corners_array())
    assert corner_shift(aligned, fix) == pytest.approx(np.hypot(5, 5) / fix.square_px())


def test_joint_readings_come_by_decreasing_probability() -> None:
    a = CellRead("H8", (("11", 0.6), ("1", 0.3), (EMPTY, 0.1)))
    b = CellRead("I8", (("3", 0.5), ("8", 0.45), (EMPTY, 0.05)))
    got = list(joint_readings([a, b]))
    probs = [p for _c, p in got]
    assert probs == sorted(probs, reverse=True)
    assert len(got) == 4
    assert got[0][0] == (("H8", "11"), ("I8", "3"))
    assert abs(sum(probs) - 1.0) < 1e-9  # empty is excluded and the rest renormalised


def _board_image(tiles: dict[tuple[int, int], int], gain: tuple[float, float, float] = (1, 1, 1),
                 ramp: float = 0.0, hand: bool = False) -> np.ndarray:
    """A flat synthetic board (green squares, grid lines), ivory tiles with a dark bar, light applied."""
    img = np.full((540, 620, 3), (60, 90, 120), np.uint8)
    x0, y0, s = 85, 45, 30
    img[y0:y0 + 15 * s, x0:x0 + 15 * s] = (70, 140, 60)
    for i in range(16):
        img[y0 + i * s, x0:x0 + 15 * s] = (40, 60, 40)
        img[y0:y0 + 15 * s, x0 + i * s] = (40, 60, 40)
    for (c, r), v in tiles.items():
        xa, ya = x0 + c * s + 3, y0 + r * s + 3
        img[ya:ya + s - 6, xa:xa + s - 6] = (200, 225, 235)
        img[ya + 6:ya + 18, xa + 8 + v:xa + 11 + v] = (30, 30, 30)
    out = img.astype(np.float32) * np.array(gain, np.float32)
    out *= (1.0 + ramp * np.linspace(-1, 1, img.shape[1], dtype=np.float32))[None, :, None]
    if hand:
        out[250:300, 0:330] = (120, 150, 200)
    return np.clip(out, 0, 255).astype(np.uint8)


FIX = BoardFix.from_corners([[85, 45], [535, 45], [535, 495], [85, 495]])
CFG = AppearanceConfig()


def test_a_new_tile_changes_its_cell_only() -> None:
    before = observe(_board_image({(7, 7): 4}), FIX, CFG)
    after = observe(_board_image({(7, 7): 4, (8, 7): 9}), FIX, CFG)
    cm = change_map(after, before)
    changed = {TRIOLET_LAYOUT.name(int(c), int(r)) for r, c in zip(*np.nonzero(cm.playing(2, 15)), strict=True)}
    assert changed == {"I8"}


def test_light_changes_change_no_cell() -> None:
    tiles = {(7, 7): 4, (8, 7): 9, (3, 12): 2}
    before = observe(_board_image(tiles), FIX, CFG)
    after = observe(_board_image(tiles, gain=(0.75, 0.85, 1.1), ramp=0.2), FIX, CFG)
    assert not change_map(after, before).changed.any()


def test_an_arm_from_the_edge_covers_the_board_a_tile_does_not() -> None:
    ref = observe(_board_image({(7, 7): 4}), FIX, CFG)
    arm = observe(_board_image({(7, 7): 4}, hand=True), FIX, CFG)
    tile = observe(_board_image({(7, 7): 4, (0, 7): 3}), FIX, CFG)  # a tile on the edge square A8
    cm = change_map(arm, ref)
    assert find_cover(cm.changed, arm.valid, 2, 15).covered
    cm = change_map(tile, ref)
    assert cm.changed.any()
    assert not find_cover(cm.changed, tile.valid, 2, 15).covered


def test_a_located_board_off_by_whole_squares_snaps_to_the_window_nearest_the_old_fix() -> None:
    """The locator may pick the wrong 15×15 window of the lattice; a nudge moves less than a square."""
    import numpy as np

    from vision.track.layout import corner_shift, snap_to_lattice
    from vision.track.observer import BoardFix

    old = BoardFix.from_corners([(340, 54), (941, 31), (980, 641), (352, 667)])
    nudged_h = old.homography @ np.array([[1, 0, 0.3], [0, 1, -0.2], [0, 0, 1]], np.float64)
    unit = np.array([[0, 0, 1], [15, 0, 1], [15, 15, 1], [0, 15, 1]], np.float64)

    def fix_of(h: np.ndarray) -> BoardFix:
        c = unit @ h.T
        return BoardFix.from_corners(c[:, :2] / c[:, 2:3])

    truth = fix_of(nudged_h)
    wrong_window = fix_of(nudged_h @ np.array([[1, 0, 3], [0, 1, -1], [0, 0, 1]], np.float64))
    assert corner_shift(wrong_window, old) > 2.5
    snapped = snap_to_lattice(wrong_window, old)
    assert corner_shift(snapped, truth) < 1e-4
    assert snap_to_lattice(truth, old) is truth  # already the nearest window: unchanged
