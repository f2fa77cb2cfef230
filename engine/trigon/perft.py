"""Perft on Trigon positions: the shared :func:`engine.polyform.perft.perft`."""

from __future__ import annotations

from engine.polyform.perft import perft

__all__ = ["perft"]
