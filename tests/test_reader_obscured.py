"""Squares a hand covers: no grid line shows on their sides, and a tile read there is reported
with low confidence (the issue: a low-confidence cell is reported as such, never guessed silently)."""

from __future__ import annotations

import numpy as np
from render_helpers import quiet_look

from lab.render import random_frame
from lab.render.camera import CameraSpec
from lab.render.hands import HandSpec
from lab.render.holdout import training_pool
from lab.render.triolet import TilePlacement, TrioletScene, render_triolet
from vision.locate import locate_board
from vision.read.triolet.reader import LOW_CONFIDENCE, hand_squares, obscured_squares, read_triolet

TILES = (TilePlacement("H8", 11), TilePlacement("I8", 3), TilePlacement("H7", 4), TilePlacement("B2", 9),
         TilePlacement("M12", 7))


def _frame(hands: tuple[HandSpec, ...]) -> np.ndarray:
    scene = TrioletScene(tiles=TILES, board_scheme="cream_print", square_mm=24.0, table="laminate_grey",
                         hands=hands)
    cam = CameraSpec(1280, 720, 20.0, 0.0, 0.0, 620.0)
    return render_triolet(scene, cam, quiet_look(shadow_strength=0.4), np.random.default_rng(0)).image


def test_reader_obscured_squares_under_a_fist_only() -> None:
    """A fist over the middle of the board (H8 and around it) hides the grid lines there; squares
    far from it, tiles or not, keep theirs."""
    image = _frame((HandSpec(tip_mm=(0.0, 0.0), height_mm=30.0, from_deg=90.0, pose="fist"),))
    covered = obscured_squares(image, locate_board(image, "triolet"))
    assert covered[7, 7]  # H8
    assert not covered[1, 1] and not covered[11, 12]  # B2, M12: tiles in view
    assert covered.sum() < 40
    reading = read_triolet(image)
    for cell in reading.cells:
        if cell.obscured:
            assert cell.confidence < LOW_CONFIDENCE and cell.square in reading.low_confidence
    assert {"B2", "M12"} <= {c.square for c in reading.cells if not c.obscured}


def test_reader_obscured_none_without_a_hand() -> None:
    image = _frame(())
    assert not obscured_squares(image, locate_board(image, "triolet")).any()
    covered, beside = hand_squares(image, locate_board(image, "triolet"))
    assert not covered.any() and not beside.any()
    assert not any(c.obscured for c in read_triolet(image).cells)


def test_reader_obscured_fingertip_beside_the_covered_squares() -> None:
    """(1,800,028) a fingertip across a 9 at D12 (a third of its numeral in view) hides the line
    on one of its sides only, beside squares the hand covers wholly: it is flagged too, and the 9
    read as 5 is reported with low confidence instead of 0.81."""
    fr = random_frame("triolet", 1_800_028, "normal", pool=training_pool(), size=(1280, 720))
    covered = obscured_squares(fr.image, locate_board(fr.image, "triolet"))
    assert covered[11, 3]  # D12
    cell = next(c for c in read_triolet(fr.image).cells if c.square == "D12")
    assert cell.obscured and cell.confidence < LOW_CONFIDENCE


def test_reader_fingertip_at_the_hand_edge_is_not_a_silent_guess() -> None:
    """(4,800,097) a fingertip over the 6 at H7 leaves its grid lines a third to a half in view, so
    the square is not covered; but it borders the covered squares G7 and H6 and two of its sides
    are faint: it lies beside the hand, and the 6 read as 5 at 0.69 is reported below 0.6."""
    fr = random_frame("triolet", 4_800_097, "normal", pool=training_pool(), size=(1280, 720))
    covered, beside = hand_squares(fr.image, locate_board(fr.image, "triolet"))
    assert covered[6, 6] and covered[5, 7]  # G7, H6
    assert beside[6, 7] and not covered[6, 7]  # H7
    assert not (beside & covered).any()
    assert beside.sum() <= covered.sum()  # the edge, not the board
    cell = next(c for c in read_triolet(fr.image).cells if c.square == "H7")
    assert cell.obscured and cell.confidence < LOW_CONFIDENCE
