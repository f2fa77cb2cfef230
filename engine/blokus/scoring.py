"""Scores (K-S1): −1 per square not placed; +15 for all 21 pieces, +5 more if the 1 came last."""

from __future__ import annotations

from engine.core.verdict import ScoreItem
from engine.polyform.position import Position

from .pieces import MONOMINO, PIECE_COUNT, all_pieces

ALL_PLACED_BONUS = 15
MONOMINO_LAST_BONUS = 5


def colour_score(pos: Position, colour: int) -> int:
    """The colour's official score if the game ended now (K-S1)."""
    if pos.all_placed(colour):
        return ALL_PLACED_BONUS + (MONOMINO_LAST_BONUS if pos.last_piece[colour] == MONOMINO else 0)
    return -pos.cells_left(colour)


def placement_items(pos: Position, colour: int, placement: int, cells: tuple[str, ...]) -> tuple[ScoreItem, ...]:
    """What laying ``placement`` changes in the colour's score, judged before it is laid."""
    piece = all_pieces()[pos.table.pieces[placement]]
    plural = "s" if piece.size > 1 else ""
    items = [ScoreItem("placed", piece.size, "K-S1", cells,
                       detail=f"piece {piece.label}: {piece.size} square{plural} fewer in hand")]
    if pos.unused[colour] & ~(1 << piece.index) == 0:
        items.append(ScoreItem("end_bonus", ALL_PLACED_BONUS, "K-S1", detail=f"all {PIECE_COUNT} pieces placed"))
        if piece.index == MONOMINO:
            items.append(ScoreItem("end_bonus", MONOMINO_LAST_BONUS, "K-S1", detail="the last piece placed was the 1"))
    return tuple(items)
