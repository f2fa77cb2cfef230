"""Board corners and colour references (RULES T-B2, B-B1), the fit check and the locate hook."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest
from calib_helpers import TRIGON_PIECES, TRIOLET_BGR, photo_of, rotation_quad, trigon_board, triolet_photo
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.board_colours import bgr_to_lab, colour_warnings, delta_e, sample_board_colours
from calibration.board_geometry import CornersError, order_corners, trigon_cells, triolet_squares
from calibration.fit import fit_report, profile_fits
from vision.locate import BoardNotLocatedError
from vision.locate import corners as board_corners
from vision.locate.corners import NoBoardFound, locate_board


def _lab(bgr: tuple[int, int, int]) -> np.ndarray:
    lab: np.ndarray = bgr_to_lab(np.array([bgr], np.float64))[0]
    return lab


def test_calib_corners_ordered_clockwise_from_top_left() -> None:
    """INTERFACES §3: clockwise from the corner nearest the image's top-left."""
    quad = order_corners([[960, 640], [350, 600], [905, 140], [420, 110]])
    assert quad == [(420.0, 110.0), (905.0, 140.0), (960.0, 640.0), (350.0, 600.0)]
    with pytest.raises(CornersError, match="convex"):
        order_corners([[0, 0], [100, 0], [50, 10], [50, 100]])
    with pytest.raises(CornersError, match="expected 4 corners"):
        order_corners([[0, 0], [100, 0], [100, 100]])


def test_calib_board_geometry_counts() -> None:
    """T-B1: 225 squares, H8 in the middle; B-B1: 486 Trigon cells."""
    squares = dict(triolet_squares())
    assert len(squares) == 225 and squares["H8"] == (7.5, 7.5) and squares["A1"] == (0.5, 0.5)
    cells = trigon_cells()
    assert len(cells) == 486
    names = {n for n, _c, _u in cells}
    assert {"r15", "r4", "j12", "j7", "z12", "z7", "ai10", "a9"} <= names  # B-B4 starting points, widest rows


def test_calib_triolet_colours_sampled_from_photo() -> None:
    """T-B2 special squares: double yellow, triple red, replay orange, read back within ΔE 3."""
    image, corners = triolet_photo(noise=2.0)
    board = sample_board_colours("triolet", image, corners)
    assert board.game == "triolet" and board.image_size == (1280, 720)
    assert [tuple(map(round, c)) for c in board.corners_px] == [tuple(map(round, c)) for c in corners]
    for kind in ("base", "double", "triple", "replay"):
        ref = board.colours[kind]
        assert float(delta_e(np.asarray(ref.lab), _lab(TRIOLET_BGR[kind]))) < 3.0, kind
    assert set(board.colours["triple"].cells) == {"E2", "K2", "E14", "K14", "B5", "N5", "B11", "N11"}
    assert "H8" not in board.colours["double"].cells and "H8" not in board.colours["base"].cells
    assert len(board.colours["base"].points_px) == 225 - 25
    assert colour_warnings(board) == []


def test_calib_wrong_corners_give_a_warning() -> None:
    """Corners off the board: the special squares no longer stand out."""
    image, corners = triolet_photo()
    shifted = corners.copy()
    shifted[:, 0] = shifted[:, 0] * 0.25 + 40  # a narrow strip at the image's left: table, not board
    board = sample_board_colours("triolet", image, shifted)
    assert colour_warnings(board)


def test_calib_trigon_grey_and_piece_colours() -> None:
    pieces = {"blue": ["r15", "q15", "s15", "r16"], "red": ["j12", "j11", "k12"], "yellow": ["z7", "y7", "aa7", "z8"]}
    flat, board_corners = trigon_board(pieces=pieces)
    dst = rotation_quad((640.0, 360.0), (170.0, 295.0), 12.0, 0.85)
    image = photo_of(flat, board_corners, dst, noise=2.0)
    board = sample_board_colours("trigon", image, dst)
    assert float(delta_e(np.asarray(board.colours["board"].lab), _lab((178, 180, 182)))) < 3.0
    for colour, cells in pieces.items():
        ref = board.colours[colour]
        assert set(ref.cells) == set(cells), colour
        assert float(delta_e(np.asarray(ref.lab), _lab(TRIGON_PIECES[colour]))) < 5.0
    assert "green" not in board.colours
    assert colour_warnings(board) == []
    assert profile_fits(board, image)


def test_calib_profile_fits_same_board_and_not_a_moved_one() -> None:
    image, corners = triolet_photo()
    board = sample_board_colours("triolet", image, corners)
    report = fit_report(board, image)
    assert report.fits and report.colour_share > 0.95 and report.sides_matching == report.sides_checked == 4
    noisy, _ = triolet_photo(corners, seed=3, noise=6.0)
    assert profile_fits(board, noisy)
    nudged, _ = triolet_photo(corners + np.array([12.0, 5.0]))  # about a third of a square
    assert not profile_fits(board, nudged)
    moved, _ = triolet_photo(corners + np.array([33.0, 0.0]))  # about one square
    assert not profile_fits(board, moved)
    rotated, _ = triolet_photo(np.roll(corners, 1, axis=0) * 0.9 + 40)
    assert not profile_fits(board, rotated)


def test_calib_profile_fits_with_tiles_on_some_squares() -> None:
    """Mid-game: light tiles cover a fifth of the board, the board has not moved."""
    image, corners = triolet_photo()
    board = sample_board_colours("triolet", image, corners)
    covered = image.copy()
    for ref in board.colours.values():
        for x, y in ref.points_px[::5]:
            covered[int(y) - 12:int(y) + 12, int(x) - 12:int(x) + 12] = (235, 240, 245)
    assert profile_fits(board, covered)


def test_calib_locate_orders_the_locators_corners(monkeypatch: pytest.MonkeyPatch) -> None:
    """The located corners come back in INTERFACES §3 order; a locator's refusal is ``NoBoardFound``
    with its reason."""

    calls: list[tuple[Any, str]] = []

    def fake_locate(image: Any, game: str) -> Any:
        calls.append((image.shape, game))
        if image.max() == 0:
            raise BoardNotLocatedError("no board visible in the picture")
        return types.SimpleNamespace(corners_px=[[900, 600], [100, 620], [110, 90], [880, 80]])

    monkeypatch.setattr(board_corners, "locate_triolet", fake_locate)
    corners = locate_board("triolet", np.full((720, 1280, 3), 9, np.uint8))
    assert corners == [(110.0, 90.0), (880.0, 80.0), (900.0, 600.0), (100.0, 620.0)]
    assert calls == [((720, 1280, 3), "triolet")]
    with pytest.raises(NoBoardFound, match="no board visible"):
        locate_board("triolet", np.zeros((720, 1280, 3), np.uint8))


def test_calib_locate_hook_trigon_uses_the_trigon_reader() -> None:
    """Trigon boards are found by ``vision.read.trigon.locate`` (a blank picture holds none)."""
    with pytest.raises(NoBoardFound):
        locate_board("trigon", np.full((360, 640, 3), 128, np.uint8))


def test_calib_board_colours_through_lens_distortion() -> None:
    """With a camera profile, squares are found on the distorted picture where the lens put them."""
    from calib_helpers import CAMERA

    from calibration.camera import CameraCalibration
    from calibration.profile import Profile
    from calibration.undistort import Undistorter

    camera = CameraCalibration(
        camera_matrix=((CAMERA.fx, 0.0, CAMERA.cx), (0.0, CAMERA.fy, CAMERA.cy), (0.0, 0.0, 1.0)),
        dist_coeffs=CAMERA.dist, image_size=(1280, 720), rms_px=0.0, images_used=0)
    und = Undistorter(camera)
    ideal_corners = np.array([[300.0, 70.0], [1010.0, 85.0], [1060.0, 660.0], [240.0, 650.0]])
    ideal, _ = triolet_photo(ideal_corners)
    # The raw (distorted) picture: each raw pixel shows the ideal pixel it undistorts to.
    grid = np.stack(np.meshgrid(np.arange(1280.0), np.arange(720.0)), axis=-1).reshape(-1, 2)
    src = und.undistort_points(grid).reshape(720, 1280, 2).astype(np.float32)
    import cv2

    raw = cv2.remap(ideal, src[..., 0], src[..., 1], cv2.INTER_LINEAR)
    raw_corners = und.distort_points(ideal_corners)
    with_lens = sample_board_colours("triolet", raw, raw_corners, und)
    without = sample_board_colours("triolet", raw, raw_corners)
    for kind in ("double", "triple", "replay"):
        assert float(delta_e(np.asarray(with_lens.colours[kind].lab), _lab(TRIOLET_BGR[kind]))) < 3.0, kind
    assert with_lens.colours["triple"].spread < 2.0
    shift = np.linalg.norm(np.asarray(with_lens.colours["base"].points_px)
                           - np.asarray(without.colours["base"].points_px), axis=1)
    assert shift.max() > 5.0  # the lens bends the grid by several pixels here
    assert profile_fits(Profile(camera=camera, board=with_lens), raw)


def test_calib_rectified_board_has_specials_where_rules_put_them() -> None:
    """T-B1/T-B2 on the top-down view: E2 triple, H1 replay, D8 double, A1 base."""
    from calibration.rectify import rectify_board

    image, corners = triolet_photo()
    board = sample_board_colours("triolet", image, corners)
    top = rectify_board(image, board, px_per_unit=20)
    assert top.shape[:2] == (300, 300)

    def at(square: str) -> np.ndarray:
        col, row = ord(square[0]) - ord("A"), int(square[1:]) - 1
        pixel: np.ndarray = top[row * 20 + 10, col * 20 + 10].astype(np.float64)
        return pixel

    for square, kind in (("E2", "triple"), ("H1", "replay"), ("D8", "double"), ("A1", "base"), ("O15", "base")):
        assert float(delta_e(bgr_to_lab(at(square)[None])[0], _lab(TRIOLET_BGR[kind]))) < 4.0, square


def test_calib_profile_fits_under_other_light() -> None:
    """Dimmer, warmer light: the board still fits; the same light on a moved board does not."""
    image, corners = triolet_photo()
    board = sample_board_colours("triolet", image, corners)
    lamp = np.array([0.55, 0.7, 0.85])  # BGR gains: dimmer and warmer

    def relit(img: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.clip(img * lamp, 0, 255).astype(np.uint8)
        return out

    assert profile_fits(board, relit(image))
    moved, _ = triolet_photo(corners + np.array([33.0, 0.0]))
    assert not profile_fits(board, relit(moved))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    cx=st.floats(300, 900), cy=st.floats(250, 450), half=st.floats(60, 240), angle=st.floats(-40, 40),
    squeeze=st.floats(0.5, 1.0), perm=st.permutations(range(4)),
)
def test_calib_corner_order_ignores_input_order(cx: float, cy: float, half: float, angle: float, squeeze: float,
                                                perm: list[int]) -> None:
    """INTERFACES §3 order comes out whatever order the corners go in, and it runs clockwise."""
    quad = rotation_quad((cx, cy), (half, half * 0.8), angle, squeeze)
    ordered = order_corners(quad)
    assert order_corners(quad[list(perm)]) == ordered
    pts = np.asarray(ordered)
    assert int(np.argmin(np.hypot(pts[:, 0], pts[:, 1]))) == 0
    u, v = pts[1] - pts[0], pts[2] - pts[1]
    assert u[0] * v[1] - u[1] * v[0] > 0  # clockwise on screen (y down)
