"""Blokus Classic (game id ``blokus``) and Blokus Duo (``blokus_duo``): board, pieces, legality,
turn order and scoring (RULES.md K-*), on the shared bit-set core of :mod:`engine.polyform`."""

from .events import BlokusPass, BlokusPlace
from .state import BlokusDuoState, BlokusState
from .variants import CLASSIC_COLOURS, DUO_COLOURS, VARIANTS, Variant

__all__ = ["CLASSIC_COLOURS", "DUO_COLOURS", "VARIANTS", "BlokusDuoState", "BlokusPass", "BlokusPlace",
           "BlokusState", "Variant"]
