"""The shared bit-set core (engine.polyform): the placement sets kept move by move agree with the
rules checked placement by placement from the cells, and perft's bulk count of the last ply agrees
with playing every move, on Blokus Classic, Duo and Trigon positions (random games, fixed seeds)."""

from __future__ import annotations

import random

import pytest
from blokus_helpers import start_position

from engine.polyform import Position, bit_indices, mask_of, perft
from engine.trigon.placements import placement_table as trigon_table
from engine.trigon.position import Position as TrigonPosition


def _positions(variant: str) -> Position:
    if variant == "trigon":
        return TrigonPosition(trigon_table(9), 4)
    if variant == "trigon_2_symmetric":
        return TrigonPosition(trigon_table(9), 4, partner=(None, None, 0, 1))
    return start_position(variant)


def _legal_by_cells(pos: Position, colour: int) -> list[int]:
    """Every placement judged from the cells alone (K-L1..K-L3, B-L1..B-L3)."""
    table = pos.table
    board = table.board
    own = pos.own[colour]
    edge_of_own = 0
    corner_of_own = 0
    for c in bit_indices(own):
        edge_of_own |= board.edge_masks[c]
        corner_of_own |= board.corner_masks[c]
    out = []
    for i, m in enumerate(table.masks):
        if not pos.unused[colour] >> table.pieces[i] & 1 or m & pos.occupied:
            continue
        first = own == 0  # the first piece covers a starting cell; later ones an own corner, no own side
        if (first and m & pos.allowed_starts(colour)) or (not first and not m & edge_of_own and m & corner_of_own):
            out.append(i)
    return out


def _naive_perft(pos: Position, colour: int, depth: int) -> int:
    if depth == 0:
        return 1
    n = pos.colours
    moves = pos.legal_ids(colour)
    if not moves:
        if not any(pos.has_legal(c) for c in range(n)):
            return 0
        return _naive_perft(pos, (colour + 1) % n, depth - 1)
    if depth == 1:
        return len(moves)
    total = 0
    for p in moves:
        child = pos.copy()
        child.play(colour, p)
        total += _naive_perft(child, (colour + 1) % n, depth - 1)
    return total


def test_bit_indices() -> None:
    rng = random.Random(7)
    for _ in range(200):
        members = sorted(rng.sample(range(5000), rng.randrange(0, 40)))
        assert bit_indices(mask_of(members)) == members


@pytest.mark.parametrize("variant", ["classic", "classic_3", "duo", "trigon", "trigon_2_symmetric"])
def test_legal_sets_match_the_rules_and_perft_matches_playing_out(variant: str) -> None:
    rng = random.Random(53)
    pos = _positions(variant)
    n = pos.colours
    colour = 0
    checked = 0
    for ply in range(200):
        if ply % 20 == 0 or ply == 1:
            for c in range(n):
                assert pos.legal_ids(c) == _legal_by_cells(pos, c), (variant, ply, c)
        if ply % 7 == 2:
            depth = 2
            assert perft(pos, colour, depth) == _naive_perft(pos, colour, depth), (variant, ply)
            checked += 1
        if not any(pos.has_legal(c) for c in range(n)):
            break
        moves = pos.legal_ids(colour)
        if moves:
            pos.play(colour, rng.choice(moves))
        colour = (colour + 1) % n
    assert checked >= 3
