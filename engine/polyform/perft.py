"""Perft: the number of move sequences of a given length (passes forced by the rules count as one
ply), the standard check of a move generator against an independent one."""

from __future__ import annotations

from .position import Position


def perft(pos: Position, colour: int, depth: int) -> int:
    """Leaf count of the move tree of ``depth`` plies from ``pos`` with ``colour`` to move.

    A colour with no move makes one forced pass (a ply); a position where no colour can move
    counts 0 at any depth ≥ 1. ``next`` colour is cyclic, without skipping colours that are out.
    """
    if depth == 0:
        return 1
    n = pos.colours
    nxt = (colour + 1) % n
    if depth == 1:
        count = pos.count_legal(colour)
        if count:
            return count
        return 1 if any(pos.has_legal(c) for c in range(n)) else 0
    moves = pos.legal_ids(colour)
    if not moves:
        if not any(pos.has_legal(c) for c in range(n)):
            return 0
        return perft(pos, nxt, depth - 1)
    total = 0
    if depth == 2 and pos.others_unaffected(colour, nxt):
        # the next colour's moves after each of ours are its moves now minus those sharing a cell
        # with ours: one & and bit_count per leaf parent, no position copied
        after = pos.legal_set(nxt)
        before = after.bit_count()
        conflicting = pos.table.conflicting
        for p in moves:
            k = before - (after & conflicting(p)).bit_count()
            if k:
                total += k
            else:  # the next colour must pass, or the game is over
                child = pos.copy()
                child.play(colour, p)
                total += perft(child, nxt, 1)
        return total
    for p in moves:
        child = pos.copy()
        child.play(colour, p)
        total += perft(child, nxt, depth - 1)
    return total
