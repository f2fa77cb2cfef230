"""Scores (K-S1): −1 per square not placed; +15 for all 21 pieces, +5 more if the 1 came last."""

from __future__ import annotations

from engine.core.verdict import ScoreItem
from engine.polyform import scoring as _shared
from engine.polyform.position import Position
from engine.polyform.scoring import ALL_PLACED_BONUS, MONOMINO_LAST_BONUS, PieceSet

from .pieces import MONOMINO, all_pieces

__all__ = ["ALL_PLACED_BONUS", "MONOMINO_LAST_BONUS", "colour_score", "placement_items"]


def colour_score(pos: Position, colour: int) -> int:
    """The colour's official score if the game ended now (K-S1)."""
    return _shared.colour_score(pos, colour, MONOMINO)


def placement_items(pos: Position, colour: int, placement: int, cells: tuple[str, ...]) -> tuple[ScoreItem, ...]:
    """What laying ``placement`` changes in the colour's score, judged before it is laid (K-S1)."""
    return _shared.placement_items(pos, colour, placement, cells, PieceSet(all_pieces(), MONOMINO, "K-S1", "square"))
