"""The Blokus family's score (K-S1, B-S1): −1 per cell of the pieces not placed; +15 once all
pieces are placed, +5 more if the last one placed was the single cell."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.core.verdict import ScoreItem

from .pieces import Piece
from .position import Position

ALL_PLACED_BONUS = 15
MONOMINO_LAST_BONUS = 5


@dataclass(frozen=True)
class PieceSet:
    """A game's piece set as scoring sees it: the pieces, the single cell's number, the rule id
    and the noun for a cell."""

    pieces: Sequence[Piece]
    monomino: int
    rule: str
    noun: str


def colour_score(pos: Position, colour: int, monomino: int) -> int:
    """The colour's official score if the game ended now."""
    if pos.all_placed(colour):
        return ALL_PLACED_BONUS + (MONOMINO_LAST_BONUS if pos.last_piece[colour] == monomino else 0)
    return -pos.cells_left(colour)


def placement_items(pos: Position, colour: int, placement: int, cells: tuple[str, ...],
                    pieces: PieceSet) -> tuple[ScoreItem, ...]:
    """What laying ``placement`` changes in the colour's score, judged before it is laid."""
    piece = pieces.pieces[pos.table.pieces[placement]]
    plural = "s" if piece.size > 1 else ""
    rule = pieces.rule
    items = [ScoreItem("placed", piece.size, rule, cells,
                       detail=f"piece {piece.label}: {piece.size} {pieces.noun}{plural} fewer in hand")]
    if pos.unused[colour] & ~(1 << piece.index) == 0:
        items.append(ScoreItem("end_bonus", ALL_PLACED_BONUS, rule, detail=f"all {len(pieces.pieces)} pieces placed"))
        if piece.index == pieces.monomino:
            items.append(ScoreItem("end_bonus", MONOMINO_LAST_BONUS, rule, detail="the last piece placed was the 1"))
    return tuple(items)
