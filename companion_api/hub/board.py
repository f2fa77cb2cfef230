"""The hub's picture of a club's tables, built only from what the broker delivers.

Each table is known by its club and name. Its latest state (the table's ``/api/game`` object,
from the retained ``state`` topic) is kept as is; its events are kept by seq for the current game,
each once (a second copy of a seq is dropped). An event of a newer game (a larger game id) starts
the table's list over, an event of an older one is dropped; a state naming another game than the
one held starts the list over whatever its id (it is the table's latest word, retained). When a
table's state names a seq the hub has not got, or a seq is missing below one it has, the hub asks
the table to send its events again (:attr:`Board.ask`), at most once per ``ask_every`` seconds.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: ``ask(club, table, game_id, since)``: request the events after ``since`` again.
Ask = Callable[[str, str, int, int], None]


@dataclass
class TableCard:
    """What the hub holds of one table."""

    club: str
    name: str
    state: dict[str, Any] | None = None
    game_id: int | None = None
    events: dict[int, dict[str, Any]] = field(default_factory=dict)
    upto: int = 0  # every seq 1..upto is held
    last_seen: float = 0.0
    quiet: bool = False
    asked: float = float("-inf")

    def adopt(self, game_id: int) -> bool:
        """Whether something of game ``game_id`` belongs here (a newer game starts the list over)."""
        if self.game_id is None or game_id > self.game_id:
            self.game_id, self.events, self.upto = game_id, {}, 0
            return True
        return game_id == self.game_id

    def last_event(self) -> dict[str, Any] | None:
        return self.events[max(self.events)] if self.events else None

    def missing(self) -> bool:
        """Whether some seq of the current game has not arrived."""
        if self.events and max(self.events) > self.upto:
            return True
        state = self.state
        return bool(state is not None and state.get("id") == self.game_id and int(state.get("seq", 0)) > self.upto)

    def to_json(self, now: float, full: bool = True) -> dict[str, Any]:
        """The ``GET /api/tables`` entry; ``full=False`` leaves the board out (live messages)."""
        state = self.state
        if state is not None and not full:
            state = {k: v for k, v in state.items() if k not in ("board", "header")}
        return {"table": self.name, "club": self.club, "state": state, "last_seen": round(self.last_seen, 3),
                "quiet": self.quiet, "last_event": self.last_event()}


class Board:
    """Every table heard of; thread-safe (fed by the MQTT client's thread, read by the web app)."""

    def __init__(self, quiet_after: float = 90.0, ask: Ask | None = None, ask_every: float = 2.0) -> None:
        self.quiet_after = quiet_after
        self.ask = ask
        self.ask_every = ask_every
        self._lock = threading.Lock()
        self._cards: dict[tuple[str, str], TableCard] = {}
        #: duplicates dropped so far (a measure of catch-up traffic)
        self.duplicates = 0

    def _card(self, club: str, name: str, now: float) -> TableCard:
        card = self._cards.get((club, name))
        if card is None:
            card = self._cards[(club, name)] = TableCard(club, name)
        card.last_seen = now
        return card

    def on_state(self, club: str, name: str, payload: bytes, now: float | None = None) -> dict[str, Any] | None:
        """Take a table's state; the live card to show, or ``None`` if it was not a usable state."""
        state = _object(payload)
        if state is None or not isinstance(state.get("seq"), int) or not isinstance(state.get("id"), int):
            return None
        now = time.time() if now is None else now
        with self._lock:
            card = self._card(club, name, now)
            card.quiet = False
            if state["id"] != card.game_id:  # the state is the table's own word: even a smaller id
                card.game_id, card.events, card.upto = state["id"], {}, 0  # (its database was replaced)
            card.state = state
            ask = self._due(card, now)
            out = card.to_json(now, full=False)
        self._ask(ask)
        return out

    def on_event(self, club: str, name: str, payload: bytes, game_id: int | None,
                 now: float | None = None) -> dict[str, Any] | None:
        """Take one event; the live message ``{table, club, event}``, or ``None`` for a duplicate or junk."""
        event = _object(payload)
        if event is None or not isinstance(event.get("seq"), int) or event["seq"] < 1:
            return None
        now = time.time() if now is None else now
        with self._lock:
            card = self._card(club, name, now)
            card.quiet = False
            if game_id is None:  # a publisher without the game property: the state's game
                game_id = card.game_id if card.game_id is not None else 0
            if not card.adopt(game_id):
                return None
            seq = event["seq"]
            if seq in card.events:
                self.duplicates += 1
                return None
            card.events[seq] = event
            while card.upto + 1 in card.events:
                card.upto += 1
            ask = self._due(card, now)
        self._ask(ask)
        return {"table": name, "club": club, "event": event}

    def _due(self, card: TableCard, now: float) -> tuple[str, str, int, int] | None:
        """The resend request to make for ``card`` now, if any (marked as made)."""
        if self.ask is None or card.game_id is None or not card.missing() or now - card.asked < self.ask_every:
            return None
        card.asked = now
        return card.club, card.name, card.game_id, card.upto

    def _ask(self, ask: tuple[str, str, int, int] | None) -> None:
        """Send a request outside the lock (publishing may wait on the MQTT client)."""
        if ask is not None and self.ask is not None:
            self.ask(*ask)

    def tick(self, now: float | None = None) -> list[dict[str, Any]]:
        """Mark tables gone quiet, ask again for what is still missing; the cards that changed."""
        now = time.time() if now is None else now
        changed = []
        asks = []
        with self._lock:
            for card in self._cards.values():
                asks.append(self._due(card, now))
                quiet = now - card.last_seen > self.quiet_after
                if quiet != card.quiet:
                    card.quiet = quiet
                    changed.append(card.to_json(now, full=False))
        for ask in asks:
            self._ask(ask)
        return changed

    def tables(self, now: float | None = None, full: bool = True) -> list[dict[str, Any]]:
        """Every table, by club then name."""
        now = time.time() if now is None else now
        with self._lock:
            return [self._cards[k].to_json(now, full) for k in sorted(self._cards)]

    def events(self, name: str, club: str | None = None) -> list[dict[str, Any]] | None:
        """A table's events by seq (``None``: no such table); ``LookupError`` if the name is in several clubs."""
        with self._lock:
            keys = [k for k in self._cards if k[1] == name and (club is None or k[0] == club)]
            if not keys:
                return None
            if len(keys) > 1:
                clubs = ", ".join(sorted(k[0] for k in keys))
                raise LookupError(f"tables named {name!r} play in several clubs ({clubs}); add ?club=CLUB")
            card = self._cards[keys[0]]
            return [card.events[s] for s in sorted(card.events)]


def _object(payload: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    return obj if isinstance(obj, dict) else None
