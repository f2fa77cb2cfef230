"""Blokus SGF files (``.blksgf``) of every Blokus game, as Pentobi writes them.

Reading picks the game by the root's ``GM`` (``Blokus Trigon…`` → ``trigon``; ``Blokus``,
``Blokus Two-Player``, ``Blokus Three-Player``, ``Blokus Duo`` → ``blokus``/``blokus_duo``);
writing by the record's game id.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from engine.blokus import sgf as blokus_sgf
from engine.core.errors import EngineError
from engine.core.events import Event
from engine.core.header import Header
from engine.core.record import Record, RecordError, RecordProblem, read_record_text
from engine.polyform.sgf_text import SgfSyntaxError, root_game_name
from engine.trigon import sgf as trigon_sgf

#: Game ids that Blokus SGF can hold.
GAMES = ("trigon", "blokus", "blokus_duo")


def loads(text: str, source: str = "SGF") -> Record:
    """The record held by Blokus SGF text of any Blokus game; bad input raises ``RecordError``."""
    try:
        game = root_game_name(text)
    except SgfSyntaxError as exc:
        raise RecordError([RecordProblem(exc.line, str(exc))], source) from None
    if game in blokus_sgf.VARIANT_OF_GAME_NAME:
        return blokus_sgf.loads(text, source)
    if game in trigon_sgf.VARIANT_OF_GAME_NAME:
        return trigon_sgf.loads(text, source)
    known = ", ".join([*blokus_sgf.VARIANT_OF_GAME_NAME, *trigon_sgf.VARIANT_OF_GAME_NAME])
    raise RecordError([RecordProblem(1, f"GM[{game}] is not a Blokus game; expected one of {known}")], source)


def load(path: str | Path) -> Record:
    """Read a ``.blksgf`` file of any Blokus game."""
    p = Path(path)
    return loads(read_record_text(p), str(p))


def dumps(header: Header, events: Iterable[Event]) -> str:
    """Blokus SGF text of a trigon, blokus or blokus_duo game."""
    if header.game == "trigon":
        return trigon_sgf.dumps(header, events)
    if header.game in ("blokus", "blokus_duo"):
        return blokus_sgf.dumps(header, events)
    raise EngineError(f"Blokus SGF holds {', '.join(GAMES)} games, not {header.game}")
