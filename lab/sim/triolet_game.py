"""Triolet positions taken from simulated legal games (when the engine is installed)."""

from __future__ import annotations

from typing import Any


def engine_position(seed: int, n_tiles: int, players: int = 2
                    ) -> tuple[list[tuple[str, int, bool]], dict[str, Any]] | None:
    """The board of a random legal game once about ``n_tiles`` tiles are down, as
    ``(square, value, wild)``, with how to replay it (``play_game`` arguments and the number of
    events); ``None`` if the Triolet engine is not available."""
    try:
        from engine.core.registry import get_game
        get_game("triolet")
    except Exception:  # the engine is written by someone else and may be missing
        return None
    from lab.sim.driver import play_game

    max_tiles = max(1, n_tiles)
    sim = play_game("triolet", seed, players=players, max_tiles=max_tiles)
    source = {"source": "engine", "game": "triolet", "game_seed": seed, "players": players,
              "max_tiles": max_tiles, "events": len(sim.steps)}
    if not sim.steps:
        return [], source
    tiles = sim.steps[-1].board.get("tiles", [])
    return [(str(t["square"]), int(t["value"]), bool(t.get("wild", False))) for t in tiles], source
