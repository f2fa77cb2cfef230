"""The shared engine core: events, verdicts, game states, the registry, records and sessions."""

from .errors import EngineError, EventFormatError, IllegalEventError, OptionsError, UnknownGameError
from .events import Correct, Draw, Event, EventMeta, Exchange, Pass, Reveal, Undo
from .header import RECORD_FORMAT, Header
from .record import Record, RecordError, RecordLine, RecordProblem, dump_record, load_record, parse_record
from .registry import game_ids, get_game, register
from .session import Entry, Session
from .state import GameState, Outcome, Turn
from .verdict import CellRef, Multiplier, Reason, ScoreItem, Verdict

__all__ = [
    "RECORD_FORMAT", "CellRef", "Correct", "Draw", "EngineError", "Entry", "Event", "EventFormatError",
    "EventMeta", "Exchange", "GameState", "Header", "IllegalEventError", "Multiplier", "OptionsError",
    "Outcome", "Pass", "Reason", "Record", "RecordError", "RecordLine", "RecordProblem", "Reveal",
    "ScoreItem", "Session", "Turn", "Undo", "UnknownGameError", "Verdict", "dump_record", "game_ids",
    "get_game", "load_record", "parse_record", "register",
]
