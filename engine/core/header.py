"""The header line of a game record: which game, who plays, with which options."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import EventFormatError
from .fields import get_int, get_list, get_str

RECORD_FORMAT = "table-companion/1"


@dataclass(frozen=True)
class Header:
    """Line 1 of a record (INTERFACES §1)."""

    game: str
    players: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    first_player: int = 0
    format: str = RECORD_FORMAT
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Header:
        fmt = get_str(obj, "format")
        if fmt != RECORD_FORMAT:
            raise EventFormatError(f'"format" is {fmt!r}; this version reads {RECORD_FORMAT!r}')
        game = get_str(obj, "game")
        raw_players = get_list(obj, "players", min_len=1, max_len=6)
        if not all(isinstance(p, str) for p in raw_players):
            raise EventFormatError('"players" must be a list of names')
        options = obj.get("options", {})
        if not isinstance(options, dict):
            raise EventFormatError(f'"options" must be a JSON object, not {options!r}')
        first = get_int(obj, "first_player", lo=0, hi=len(raw_players) - 1, default=0)
        known = {"format", "game", "players", "options", "first_player"}
        extra = {k: v for k, v in obj.items() if k not in known}
        return Header(game=game, players=tuple(raw_players), options=dict(options), first_player=first,
                      format=fmt, extra=extra)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": self.format,
            "game": self.game,
            "players": list(self.players),
            "options": dict(self.options),
            "first_player": self.first_player,
        }
        out.update(self.extra)
        return out
