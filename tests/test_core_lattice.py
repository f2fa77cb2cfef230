"""The shared triangular lattice (B-B3, M-B2, M-B3) against the neighbour lists the rules spell out."""

from __future__ import annotations

import pytest

from engine.core.lattice import TriLattice


@pytest.mark.parametrize("parity", [0, 1])
def test_neighbours_match_the_rules(parity: int) -> None:
    lat = TriLattice(parity)
    for x in range(-3, 4):
        for y in range(-3, 4):
            c = (x, y)
            up = lat.is_up(c)
            d = 1 if up else -1  # the row across the horizontal edge, y downward
            assert set(lat.edge_neighbours(c)) == {(x - 1, y), (x + 1, y), (x, y + d)}
            expected = {(x - 2, y), (x + 2, y), (x - 1, y - d), (x, y - d), (x + 1, y - d),
                        (x - 2, y + d), (x - 1, y + d), (x + 1, y + d), (x + 2, y + d)}
            assert set(lat.corner_neighbours(c)) == expected
            for n in lat.edge_neighbours(c):
                assert len(lat.shared_vertices(c, n)) == 2 and lat.is_up(n) != up
            for n in lat.corner_neighbours(c):
                assert len(lat.shared_vertices(c, n)) == 1


def test_vertices_are_clockwise_from_the_apex() -> None:
    lat = TriLattice(0)
    for cell in [(0, 0), (1, 0)]:
        pts = [lat.vertex_xy(v) for v in lat.vertices(cell)]
        (ax, ay), (bx, by), (cx, cy) = pts
        cross = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        assert cross > 0  # clockwise on screen (y downward)
    assert lat.vertices((0, 0))[0] == (0, 0)  # up: apex on top
    assert lat.vertices((1, 0))[0] == (1, 1)  # down: apex at the bottom


def test_six_cells_share_each_vertex() -> None:
    lat = TriLattice(0)
    cells = lat.cells_at_vertex((0, 0))
    assert len(set(cells)) == 6
    assert all((0, 0) in lat.vertices(c) for c in cells)
    assert sum(lat.is_up(c) for c in cells) == 3
    with pytest.raises(ValueError):
        lat.cells_at_vertex((1, 0))
