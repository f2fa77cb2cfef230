"""Scores (B-S1): −1 per triangle not placed; +15 for all 22 pieces, +5 more if the 1 came last."""

from __future__ import annotations

from engine.core.verdict import ScoreItem

from .pieces import MONOMINO, PIECE_COUNT, all_pieces
from .position import Position

ALL_PLACED_BONUS = 15
MONOMINO_LAST_BONUS = 5


def colour_score(pos: Position, colour: int) -> int:
    """The colour's official score if the game ended now (B-S1)."""
    if pos.all_placed(colour):
        return ALL_PLACED_BONUS + (MONOMINO_LAST_BONUS if pos.ended_with_monomino(colour) else 0)
    return -pos.triangles_left(colour)


def placement_items(pos: Position, colour: int, placement: int, cells: tuple[str, ...]) -> tuple[ScoreItem, ...]:
    """What laying ``placement`` changes in the colour's score, judged before it is laid."""
    piece = all_pieces()[pos.table.pieces[placement]]
    plural = "s" if piece.size > 1 else ""
    items = [ScoreItem("placed", piece.size, "B-S1", cells,
                       detail=f"piece {piece.label}: {piece.size} triangle{plural} fewer in hand")]
    left_after = pos.unused[colour] & ~(1 << piece.index)
    if left_after == 0:
        items.append(ScoreItem("end_bonus", ALL_PLACED_BONUS, "B-S1", detail=f"all {PIECE_COUNT} pieces placed"))
        if piece.index == MONOMINO:
            items.append(ScoreItem("end_bonus", MONOMINO_LAST_BONUS, "B-S1", detail="the last piece placed was the 1"))
    return tuple(items)
