"""Games are found by id through this registry (like python-chess's variant lookup)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .errors import UnknownGameError
from .state import GameState

_GAMES: dict[str, type[GameState]] = {}


def _triolet() -> None:
    import engine.triolet  # noqa: F401


def _trigon() -> None:
    import engine.trigon  # noqa: F401


def _triominos() -> None:
    import engine.triominos  # noqa: F401


def _trio_domino() -> None:
    import engine.trio_domino  # noqa: F401


def _blokus() -> None:
    import engine.blokus  # noqa: F401


#: The built-in games, in the order they are listed, each with the import that registers it
#: (a game's package is loaded the first time it is asked for).
BUILTIN_MODULES: dict[str, Callable[[], None]] = {
    "triolet": _triolet,
    "trigon": _trigon,
    "triominos": _triominos,
    "trio_domino": _trio_domino,
    "blokus": _blokus,
    "blokus_duo": _blokus,
}

G = TypeVar("G", bound=type[GameState])


def register(cls: G) -> G:
    """Class decorator: make ``cls`` available under ``cls.GAME_ID``."""
    _GAMES[cls.GAME_ID] = cls
    return cls


def get_game(game_id: str) -> type[GameState]:
    """The state class of a game id (``"triolet"``, ``"trigon"``, ``"blokus"``, ``"blokus_duo"``, …)."""
    if game_id not in _GAMES and game_id in BUILTIN_MODULES:
        BUILTIN_MODULES[game_id]()
    try:
        return _GAMES[game_id]
    except KeyError:
        known = ", ".join(BUILTIN_MODULES)
        raise UnknownGameError(f"unknown game {game_id!r}; known games: {known}") from None


def game_ids() -> list[str]:
    """Ids of every game that can be loaded."""
    return list(dict.fromkeys([*BUILTIN_MODULES, *_GAMES]))
