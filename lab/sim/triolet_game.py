"""Triolet positions taken from simulated legal games (the engine's random-game driver)."""

from __future__ import annotations

from typing import Any


def engine_position(seed: int, n_tiles: int, players: int = 2) -> tuple[list[tuple[str, int, bool]], dict[str, Any]]:
    """The board of a random legal game once about ``n_tiles`` tiles are down, as
    ``(square, value, wild)``, with how to replay it (``play_game`` arguments and the number of
    events)."""
    from lab.sim.driver import play_game

    max_tiles = max(1, n_tiles)
    sim = play_game("triolet", seed, players=players, max_tiles=max_tiles)
    source = {"source": "engine", "game": "triolet", "game_seed": seed, "players": players,
              "max_tiles": max_tiles, "events": len(sim.steps)}
    if not sim.steps:
        return [], source
    tiles = sim.steps[-1].board.get("tiles", [])
    return [(str(t["square"]), int(t["value"]), bool(t.get("wild", False))) for t in tiles], source
