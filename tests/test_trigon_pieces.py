"""The 22 pieces and their placement tables (B-B5), checked against an independent enumeration of
polyiamonds and the counts of the fixture README."""

from __future__ import annotations

import pytest

from engine.core.lattice import TriLattice
from engine.trigon.board import board_of_side
from engine.trigon.pieces import TRIANGLES_PER_COLOUR, all_pieces, normalise
from engine.trigon.placements import placement_table

#: label → (fixed orientations, placements on side 9, placements on side 8), fixture README §4.
README_COUNTS = {
    "I6": (6, 1188, 912), "L6": (12, 2400, 1848), "V": (6, 1194, 918), "S": (6, 1200, 924),
    "P6": (12, 2388, 1836), "F": (12, 2496, 1932), "W": (6, 1200, 924), "A6": (6, 1248, 966),
    "G": (12, 2496, 1932), "Y": (12, 2400, 1848), "X": (3, 600, 462), "O": (1, 217, 169),
    "I5": (6, 1242, 960), "L5": (12, 2496, 1932), "C5": (6, 1302, 1014), "P5": (12, 2496, 1932),
    "I4": (6, 1296, 1008), "C4": (6, 1302, 1014), "A4": (2, 432, 336), "I3": (6, 1350, 1056),
    "2": (3, 702, 552), "1": (2, 486, 384),
}
#: README §4 example placements on the side-9 board, each covering r15.
README_EXAMPLES = {
    "I6": "m15,n15,o15,p15,q15,r15", "L6": "n14,n15,o15,p15,q15,r15", "V": "o14,p14,p15,q15,r15,s15",
    "S": "n14,o14,p14,p15,q15,r15", "P6": "n15,o15,p15,q15,r15,o16", "F": "o14,p14,q14,p15,q15,r15",
    "W": "o15,p15,q15,r15,s15,q16", "A6": "o15,p15,q15,r15,p16,q16", "G": "o14,p14,q14,r14,q15,r15",
    "Y": "o14,p14,o15,p15,q15,r15", "X": "p14,o15,p15,q15,r15,q16", "O": "p14,q14,r14,p15,q15,r15",
    "I5": "n15,o15,p15,q15,r15", "L5": "o14,p14,p15,q15,r15", "C5": "p14,q14,p15,q15,r15",
    "P5": "o15,p15,q15,r15,q16", "I4": "o15,p15,q15,r15", "C4": "p14,p15,q15,r15", "A4": "p15,q15,r15,q16",
    "I3": "p15,q15,r15", "2": "q15,r15", "1": "r15",
}


def _fixed_polyiamonds(n_max: int) -> dict[int, set[frozenset[tuple[int, int]]]]:
    """Every fixed polyiamond up to ``n_max`` triangles, grown cell by cell (independent of the engine)."""
    lat = TriLattice(0)
    out = {1: {normalise(frozenset({(0, 0)})), normalise(frozenset({(1, 0)}))}}
    for n in range(2, n_max + 1):
        grown = set()
        for shape in out[n - 1]:
            for cell in shape:
                for nb in lat.edge_neighbours(cell):
                    if nb not in shape:
                        grown.add(normalise(shape | {nb}))
        out[n] = grown
    return out


def test_piece_set_b_b5() -> None:
    """B-B5: 22 pieces, 110 triangles, sizes 12×6, 4×5, 3×4, 1×3, 1×2, 1×1; 155 fixed orientations."""
    pieces = all_pieces()
    assert len(pieces) == 22 and TRIANGLES_PER_COLOUR == 110
    sizes = [p.size for p in pieces]
    assert [sizes.count(k) for k in (6, 5, 4, 3, 2, 1)] == [12, 4, 3, 1, 1, 1]
    assert {p.label: len(p.orientations) for p in pieces} == {k: v[0] for k, v in README_COUNTS.items()}
    assert sum(len(p.orientations) for p in pieces) == 155


def test_orientations_are_exactly_the_fixed_polyiamonds() -> None:
    """The computed orientations of the 22 pieces are all fixed polyiamonds of 1–6 triangles (2, 3, 6,
    14, 36, 94 of them), each once: rotations and reflections neither miss nor merge shapes."""
    fixed = _fixed_polyiamonds(6)
    assert [len(fixed[n]) for n in range(1, 7)] == [2, 3, 6, 14, 36, 94]
    ours = [o for p in all_pieces() for o in p.orientations]
    assert len(ours) == len(set(ours))
    assert set(ours) == set().union(*fixed.values())


def test_orientations_closed_under_rotation() -> None:
    """Each piece's orientation set is one class: every orientation reaches all the others."""
    from engine.trigon.pieces import orientations

    for p in all_pieces():
        for o in p.orientations:
            assert set(orientations(o)) == set(p.orientations)


@pytest.mark.parametrize(("side", "total", "column"), [(9, 32131, 1), (8, 24859, 2)])
def test_placement_counts(side: int, total: int, column: int) -> None:
    """Placements per piece on each empty board (README §4): 32131 on side 9, 24859 on side 8."""
    table = placement_table(side)
    assert len(table) == total == len(set(table.masks))
    labels = [p.label for p in all_pieces()]
    assert dict(zip(labels, table.count_by_piece(), strict=True)) == {k: v[column] for k, v in README_COUNTS.items()}


def test_readme_examples_are_placements_of_their_piece() -> None:
    """Each README example cell list is a placement of the labelled piece (B-B5, B-B6)."""
    table = placement_table(9)
    b = board_of_side(9)
    labels = [p.label for p in all_pieces()]
    for label, move in README_EXAMPLES.items():
        mask = b.mask_of([b.index_of_name[n] for n in move.split(",")])
        assert labels[table.pieces[table.index_of_mask[mask]]] == label


def test_rings() -> None:
    """Edge and corner rings of a placement: outside it, disjoint, and the union of its cells' neighbours."""
    table = placement_table(9)
    b = table.board
    for p in range(0, len(table), 997):
        m = table.masks[p]
        edge = corner = 0
        for c in b.cells_of(m):
            edge |= b.edge_masks[c]
            corner |= b.corner_masks[c]
        assert table.edge_rings[p] == edge & ~m
        assert table.corner_rings[p] == corner & ~m & ~edge
