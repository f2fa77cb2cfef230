"""Trio Domino (RULES.md D-*): several fields, at most two draws, a hexagon opens a new field,
the lowest points left on the stand win (or ``topsy_turvy``: laid tiles score, highest wins)."""

from .events import Place
from .state import TrioDominoState

__all__ = ["Place", "TrioDominoState"]
