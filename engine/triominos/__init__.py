"""Triominos (RULES.md M-*): one field, draws with penalties, bridges and hexagons, a last round."""

from .events import Place
from .state import TriominosState

__all__ = ["Place", "TriominosState"]
