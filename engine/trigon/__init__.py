"""Blokus Trigon (game id ``trigon``): board, pieces, legality, turn order and scoring (RULES.md B-*)."""

from .events import TrigonPass, TrigonPlace
from .state import TrigonState
from .variants import COLOURS, VARIANTS, Rules

__all__ = ["COLOURS", "VARIANTS", "Rules", "TrigonPass", "TrigonPlace", "TrigonState"]
