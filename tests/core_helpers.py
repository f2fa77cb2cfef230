"""A tiny game registered only for tests of the engine core (not one of the four real games)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core import (
    Event,
    GameState,
    Header,
    Outcome,
    Pass,
    Reason,
    ScoreItem,
    Turn,
    Verdict,
    register,
)
from engine.core.errors import EventFormatError
from engine.core.events import parse_common, parse_meta
from engine.core.fields import get_int


@dataclass(frozen=True)
class Add(Event):
    """Add ``value`` (0–10) to the player's score; the game ends at 30."""

    TYPE: ClassVar[str] = "place"
    value: int = 0

    def body_json(self) -> dict[str, Any]:
        return {"value": self.value}


@register
class CounterGame(GameState):
    """Players take turns adding 1–9; 0 and 10 are illegal; first to 30 wins."""

    GAME_ID = "test_counter"
    TITLE = "Counter (test game)"

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.scores = [0] * len(header.players)
        self.turn = header.first_player

    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        n = len(header.players)
        common = parse_common(obj, n, lambda o: cls.parse_event(o, header))
        if common is not None:
            return common
        if obj["type"] == "pass":
            return Pass(player=get_int(obj, "player", lo=0, hi=n - 1), meta=parse_meta(obj))
        if obj["type"] == "place":
            return Add(player=get_int(obj, "player", lo=0, hi=n - 1), value=get_int(obj, "value", lo=0, hi=10),
                       meta=parse_meta(obj))
        raise EventFormatError(f"unknown event type {obj['type']!r}")

    def check(self, event: Event) -> Verdict:
        if self.outcome() is not None:
            return Verdict.illegal(event.player, Reason("X-1", "game_over", "the game is over"))
        if event.player != self.turn:
            return Verdict.illegal(event.player, Reason("X-1", "not_your_turn", "not your turn"))
        if isinstance(event, Add):
            if not 1 <= event.value <= 9:
                return Verdict.illegal(event.player, Reason("X-2", "bad_value", f"{event.value} is not 1-9"))
            return Verdict(True, event.player, breakdown=(ScoreItem("add", event.value, "X-2"),))
        if isinstance(event, Pass):
            return Verdict(True, event.player)
        return Verdict.illegal(event.player, Reason("X-1", "unsupported", "unsupported event"))

    def _push(self, event: Event, verdict: Verdict) -> None:
        for seat, pts in enumerate(verdict.points_by_player(len(self.scores))):
            self.scores[seat] += pts
        self.turn = (self.turn + 1) % len(self.scores)

    def to_move(self) -> Turn:
        return Turn(player=self.turn)

    def totals(self) -> list[int]:
        return list(self.scores)

    def outcome(self) -> Outcome | None:
        if max(self.scores) >= 30:
            best = max(self.scores)
            return Outcome("X-3", tuple(i for i, s in enumerate(self.scores) if s == best), tuple(self.scores))
        return None

    def status_json(self) -> dict[str, Any]:
        return {"left": max(0, 30 - max(self.scores))}


def header(players: int = 2) -> Header:
    return Header(game="test_counter", players=tuple(f"P{i}" for i in range(players)))
