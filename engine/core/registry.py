"""Games are found by id through this registry (like python-chess's variant lookup)."""

from __future__ import annotations

import importlib
from typing import TypeVar

from .errors import UnknownGameError
from .state import GameState

_GAMES: dict[str, type[GameState]] = {}

#: Modules that register the built-in games when imported, in the order games are listed.
BUILTIN_MODULES = {
    "triolet": "engine.triolet",
    "trigon": "engine.trigon",
    "triominos": "engine.triominos",
    "trio_domino": "engine.trio_domino",
    "blokus": "engine.blokus",
    "blokus_duo": "engine.blokus",
}

G = TypeVar("G", bound=type[GameState])


def register(cls: G) -> G:
    """Class decorator: make ``cls`` available under ``cls.GAME_ID``."""
    _GAMES[cls.GAME_ID] = cls
    return cls


def get_game(game_id: str) -> type[GameState]:
    """The state class of a game id (``"triolet"``, ``"trigon"``, ``"blokus"``, ``"blokus_duo"``, …)."""
    if game_id not in _GAMES and game_id in BUILTIN_MODULES:
        importlib.import_module(BUILTIN_MODULES[game_id])
    try:
        return _GAMES[game_id]
    except KeyError:
        known = ", ".join(BUILTIN_MODULES)
        raise UnknownGameError(f"unknown game {game_id!r}; known games: {known}") from None


def game_ids() -> list[str]:
    """Ids of every game that can be loaded."""
    return list(dict.fromkeys([*BUILTIN_MODULES, *_GAMES]))
