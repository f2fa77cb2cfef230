"""Synthetic table pictures and game videos with exact truth (``companion render``).

Entry points (see docs/RENDERER.md):

* ``render_triolet(scene, camera, look, rng) -> RenderedFrame`` and
  ``random_triolet_frame(seed, difficulty) -> RenderedFrame``;
* ``render_trigon`` / ``random_trigon_frame``; ``render_triangles`` / ``random_triangles_frame``
  (Triominos, Trio Domino);
* ``random_frame(game, seed, difficulty)`` for any game;
* ``lab.render.video.game_frames(game, seed, ...)``: an iterator of ``(image, labels)`` for a
  whole simulated game, and ``write_game_video`` for MP4 + truth record + per-frame labels.
"""

from __future__ import annotations

from typing import Any

from lab.render.camera import CameraSpec
from lab.render.frame import RenderedFrame
from lab.render.look import LookSpec
from lab.render.styles import StylePool

GAMES = ("triolet", "trigon", "triominos", "trio_domino")


def random_frame(game: str, seed: int, difficulty: str = "normal", pool: StylePool | None = None,
                 size: tuple[int, int] | None = None, **overrides: Any) -> RenderedFrame:
    """One random picture of ``game`` with labels, determined by ``seed``."""
    if game == "triolet":
        from lab.render.triolet_random import random_triolet_frame
        return random_triolet_frame(seed, difficulty, pool, size, **overrides)
    if game == "trigon":
        from lab.render.trigon import random_trigon_frame
        return random_trigon_frame(seed, difficulty, pool, size, **overrides)
    if game in ("triominos", "trio_domino"):
        from lab.render.triangles import random_triangles_frame
        return random_triangles_frame(game, seed, difficulty, pool, size, **overrides)
    raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")


__all__ = ["GAMES", "CameraSpec", "LookSpec", "RenderedFrame", "StylePool", "random_frame"]
