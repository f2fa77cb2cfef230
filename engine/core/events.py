"""Events as frozen values with canonical JSON forms.

Every game shares the non-placing events defined here; each game adds its own ``place`` event
(and may reuse ``Pass``/``Draw``/...). Events compare by what happened at the table, never by
their metadata (time stamp, source, confidence).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .errors import EventFormatError
from .fields import check_int, get_int, get_list, get_object

META_KEYS = ("ts", "source", "confidence", "frame", "evidence")


#: Longest evidence id (a file name or a frame number in practice).
MAX_EVIDENCE_ID = 200


@dataclass(frozen=True)
class EventMeta:
    """Where an event came from: optional on every event (INTERFACES §1)."""

    ts: float | None = None
    source: str | None = None
    confidence: float | None = None
    frame: int | None = None
    evidence: str | None = None

    @staticmethod
    def from_json(obj: dict[str, Any]) -> EventMeta:
        def num(key: str, lo: float, hi: float) -> float | None:
            v = obj.get(key)
            if v is None:
                return None
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise EventFormatError(f'"{key}" must be a number, not {v!r}')
            if not (math.isfinite(v) and lo <= v <= hi):
                span = f"from {lo:g} to {hi:g}" if math.isfinite(hi) else f"of {lo:g} or more"
                raise EventFormatError(f'"{key}" is {v}; expected a number {span}')
            return float(v)

        source = obj.get("source")
        if source is not None and source not in ("vision", "manual"):
            raise EventFormatError(f'"source" is {source!r}; expected vision or manual')
        frame = obj.get("frame")
        if frame is not None:
            frame = check_int(frame, '"frame"', lo=0)
        evidence = obj.get("evidence")
        if evidence is not None and not isinstance(evidence, str | int):
            raise EventFormatError(f'"evidence" must be an id, not {evidence!r}')
        if evidence is not None and len(str(evidence)) > MAX_EVIDENCE_ID:
            raise EventFormatError(f'"evidence" is an id of at most {MAX_EVIDENCE_ID} characters')
        return EventMeta(
            ts=num("ts", 0.0, math.inf),
            source=source,
            confidence=num("confidence", 0.0, 1.0),
            frame=frame,
            evidence=None if evidence is None else str(evidence),
        )

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in META_KEYS if getattr(self, k) is not None}


@dataclass(frozen=True)
class Event:
    """Base of every event. ``player`` is the seat (0-based) the event is attributed to."""

    TYPE: ClassVar[str] = "event"
    player: int | None
    meta: EventMeta = field(default=EventMeta(), compare=False, kw_only=True)

    @property
    def type(self) -> str:
        return self.TYPE

    def body_json(self) -> dict[str, Any]:
        """Fields specific to this event type (after ``type`` and ``player``)."""
        return {}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        if self.player is not None:
            out["player"] = self.player
        out.update(self.body_json())
        out.update(self.meta.to_json())
        return out


@dataclass(frozen=True)
class Pass(Event):
    """The player to move does nothing this turn."""

    TYPE: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Exchange(Event):
    """Swap ``count`` rack tiles with the bag (Triolet T-E1)."""

    TYPE: ClassVar[str] = "exchange"
    count: int = 1

    def body_json(self) -> dict[str, Any]:
        return {"count": self.count}


@dataclass(frozen=True)
class Draw(Event):
    """Draw ``count`` tiles from the pile instead of placing (Triominos, Trio Domino)."""

    TYPE: ClassVar[str] = "draw"
    count: int = 1

    def body_json(self) -> dict[str, Any]:
        return {"count": self.count}


@dataclass(frozen=True)
class Reveal(Event):
    """At the end, a player declares what is left in hand.

    ``values`` are point values (Triolet); ``tiles`` are tile names like ``"0-1-2"`` (triangle games).
    """

    TYPE: ClassVar[str] = "reveal"
    values: tuple[int, ...] | None = None
    tiles: tuple[str, ...] | None = None

    def body_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.values is not None:
            out["values"] = list(self.values)
        if self.tiles is not None:
            out["tiles"] = list(self.tiles)
        return out


@dataclass(frozen=True)
class Correct(Event):
    """Replace the event at ``seq`` by ``event`` (a correction is a new line, never an edit)."""

    TYPE: ClassVar[str] = "correct"
    seq: int = 0
    event: Event | None = None

    def body_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "event": None if self.event is None else self.event.to_json()}


@dataclass(frozen=True)
class Undo(Event):
    """Take back the event at ``seq``."""

    TYPE: ClassVar[str] = "undo"
    seq: int = 0

    def body_json(self) -> dict[str, Any]:
        return {"seq": self.seq}


def parse_meta(obj: dict[str, Any]) -> EventMeta:
    """The optional metadata of an event object."""
    return EventMeta.from_json(obj)


def parse_common(obj: dict[str, Any], players: int, parse_inner: Any) -> Event | None:
    """Parse the event types shared by every game, or return ``None`` for a game-specific type.

    ``parse_inner`` parses the event nested in a ``correct``.
    """
    kind = obj.get("type")
    meta = parse_meta(obj)
    if kind == "correct":
        seq = get_int(obj, "seq", lo=1)
        inner = get_object(obj, "event")
        return Correct(player=_opt_player(obj, players), seq=seq, event=parse_inner(dict(inner)), meta=meta)
    if kind == "undo":
        return Undo(player=_opt_player(obj, players), seq=get_int(obj, "seq", lo=1), meta=meta)
    if kind == "reveal":
        player = get_int(obj, "player", lo=0, hi=players - 1)
        values = tiles = None
        if "values" in obj:
            values = tuple(check_int(v, '"values" item', lo=0, hi=15) for v in get_list(obj, "values"))
        if "tiles" in obj:
            raw = get_list(obj, "tiles")
            if not all(isinstance(t, str) for t in raw):
                raise EventFormatError('"tiles" must be a list of tile names like "0-1-2"')
            tiles = tuple(raw)
        if values is None and tiles is None:
            raise EventFormatError('a reveal needs "values" or "tiles"')
        return Reveal(player=player, values=values, tiles=tiles, meta=meta)
    return None


def _opt_player(obj: dict[str, Any], players: int) -> int | None:
    """The optional seat of a correction or undo (``null`` reads as not given)."""
    if obj.get("player") is None:
        return None
    value: int | None = get_int(obj, "player", lo=0, hi=players - 1, default=None)
    return value
