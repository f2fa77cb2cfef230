"""Trigon picture reader: geometry (B-B1, B-B2), colours and names on rendered boards, no-board error,
game-aware checks (B-B5, B-L3)."""

from __future__ import annotations

import numpy as np
import pytest
from othersreader_helpers import cell_accuracy, trigon_frame

from vision.locate import BoardNotLocatedError
from vision.read.trigon import read_trigon
from vision.read.trigon.colours import HUES, _verdict, prototype_hue
from vision.read.trigon.geometry import board_cells, cell_name, hexagon_corners, is_up
from vision.read.trigon.sanity import edge_groups, sanity_penalties


def test_b_b1_b_b2_board_cells_and_names() -> None:
    """B-B1: 486 / 384 triangles, rows 35 / 31 wide; B-B2: names and up parity."""
    assert len(board_cells(9)) == 486 and len(board_cells(8)) == 384
    assert max(x for x, _ in board_cells(9)) == 34 and max(x for x, _ in board_cells(8)) == 30
    assert cell_name((17, 3), 9) == "r15"
    assert cell_name((26, 0), 9) == "aa18"
    assert is_up((17, 3), 9)  # x + row = 17 + 15 even
    assert not is_up((17, 3), 8) if (17, 3) in board_cells(8) else True
    assert np.allclose(np.linalg.norm(hexagon_corners(9), axis=1), 9.0)


def test_piece_hues_match_the_renderer_colours() -> None:
    """The hue table sits within 25° of the rendered plastic colours."""
    from lab.render.styles import TRIGON_COLOURS

    for name, shades in TRIGON_COLOURS.items():
        for rgb in shades:
            gap = abs((prototype_hue(rgb) - HUES[name] + 180) % 360 - 180)
            assert gap < 25, (name, rgb)


def test_colour_verdicts() -> None:
    assert _verdict(3.0, 0.0).colour is None
    assert _verdict(40.0, -80.0).colour == "blue"
    assert _verdict(40.0, 88.0).colour == "yellow"
    assert _verdict(40.0, 30.0).colour == "red"
    assert _verdict(40.0, 150.0).colour == "green"


def test_b_l3_edge_groups_larger_than_a_piece_lose_confidence() -> None:
    """B-B5/B-L3: a colour's pieces never share an edge, so an edge-connected group > 6 is a misread."""
    cells = board_cells(9)
    row = [i for i, c in enumerate(cells) if c[1] == 8][:8]
    colours: list[str | None] = [None] * len(cells)
    for i in row:
        colours[i] = "red"
    assert [len(g) for g in edge_groups(colours)] == [8]
    pen = sanity_penalties(colours)
    assert set(pen) == set(row) and all(v < 1 for v in pen.values())
    for i in row[6:]:
        colours[i] = None
    assert sanity_penalties(colours) == {}


@pytest.mark.slow
def test_reads_rendered_boards_cell_by_cell() -> None:
    """Rendered easy boards: located, ≥ 95 % of all triangles right (B-B2 names in the view frame)."""
    located = 0
    accs = []
    for seed in (0, 2, 3):
        image, labels = trigon_frame(seed)
        try:
            r = read_trigon(image, variant=labels["variant"])
        except BoardNotLocatedError:
            continue
        located += 1
        accs.append(cell_accuracy({c.cell: c.colour for c in r.cells}, labels))
        assert len(r.corners_px) == 6
    assert located >= 2
    assert min(accs) >= 0.95, accs


def test_no_board_raises() -> None:
    """A picture with no board: BoardNotLocatedError (``companion read`` exits 3)."""
    rng = np.random.default_rng(5)
    noise = cv2_blur((rng.random((480, 640, 3)) * 255).astype(np.uint8))
    with pytest.raises(BoardNotLocatedError):
        read_trigon(noise)


def test_unknown_variant_is_bad_input() -> None:
    with pytest.raises(ValueError, match="variant"):
        read_trigon(np.zeros((10, 10, 3), np.uint8), variant="hexagon")


def cv2_blur(img: np.ndarray) -> np.ndarray:
    import cv2

    return np.asarray(cv2.GaussianBlur(img, (0, 0), 3))
