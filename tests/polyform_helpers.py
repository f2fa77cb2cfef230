"""Shared helpers of the Blokus Classic/Duo and Trigon tests: reading a game's reference fixtures."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


@cache
def fixture_lines(game: str, name: str) -> tuple[dict[str, Any], ...]:
    """The JSON lines of ``tests/fixtures/<game>/<name>``, read once."""
    with (FIXTURES / game / name).open(encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


class Fixtures:
    """One game's reference fixtures: its games, probes and perft lines."""

    def __init__(self, game: str) -> None:
        self.game = game

    def games(self) -> tuple[dict[str, Any], ...]:
        return fixture_lines(self.game, "games.jsonl")

    def probes(self) -> tuple[dict[str, Any], ...]:
        return fixture_lines(self.game, "probes.jsonl")

    def perft_lines(self) -> tuple[dict[str, Any], ...]:
        return fixture_lines(self.game, "perft.jsonl")
