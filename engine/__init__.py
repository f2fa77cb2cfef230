"""Pure game rules for Table Companion: no I/O, no OpenCV, no third-party packages.

``engine.get_game("triolet")`` returns a game's state class; ``state.check(event)`` judges an
event and ``state.apply(event)`` plays it.
"""

from .core import (
    Event,
    GameState,
    Header,
    IllegalEventError,
    Outcome,
    Reason,
    ScoreItem,
    Session,
    Turn,
    Verdict,
    game_ids,
    get_game,
    load_record,
    parse_record,
)

__all__ = [
    "Event", "GameState", "Header", "IllegalEventError", "Outcome", "Reason", "ScoreItem", "Session",
    "Turn", "Verdict", "game_ids", "get_game", "load_record", "parse_record",
]
