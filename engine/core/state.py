"""The interface every game's state implements (python-chess's ``Board`` + ``variant`` model)."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from .errors import IllegalEventError
from .events import Event
from .header import Header
from .verdict import Verdict


@dataclass(frozen=True)
class Turn:
    """Who acts next. ``colour`` is set in games where colours, not seats, take turns (Trigon)."""

    player: int | None
    replay: bool = False
    colour: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "replay": self.replay}
        if self.colour is not None:
            out["colour"] = self.colour
        return out


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the deciding rule, the winners (seats), the final totals."""

    end_rule: str
    winners: tuple[int, ...]
    totals: tuple[int, ...]
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"ended": True, "end_rule": self.end_rule, "winner": list(self.winners),
                "totals": list(self.totals)}


class GameState(ABC):
    """A position of one game with its turn flow. ``check`` never changes state; ``apply`` does.

    Subclasses register themselves with :func:`engine.core.registry.register` and implement the
    abstract methods. The default ``apply`` checks first, so an illegal event can never change state.
    """

    GAME_ID: ClassVar[str]
    TITLE: ClassVar[str]

    def __init__(self, header: Header) -> None:
        self.header = header

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def new(cls, header: Header) -> Self:
        """The starting position for a header (validating its players and options)."""
        return cls(header)

    @classmethod
    @abstractmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        """Parse one record line into an event, raising ``EventFormatError`` on bad input."""

    # -- rules ----------------------------------------------------------------------------------
    @abstractmethod
    def check(self, event: Event) -> Verdict:
        """Judge ``event`` in this position without changing anything."""

    @abstractmethod
    def _push(self, event: Event, verdict: Verdict) -> None:
        """Change the state for a legal event whose verdict is ``verdict``."""

    def apply(self, event: Event) -> Verdict:
        """Play ``event``; raise ``IllegalEventError`` (state unchanged) if it is illegal."""
        verdict = self.check(event)
        if not verdict.legal:
            raise IllegalEventError(verdict)
        self._push(event, verdict)
        return verdict

    @abstractmethod
    def to_move(self) -> Turn:
        """Who acts next (meaningless once the game has ended)."""

    @abstractmethod
    def totals(self) -> list[int]:
        """Scores per seat (Trigon: per colour, INTERFACES §2) as they stand now."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result once the game has ended, else ``None``."""

    def is_over(self) -> bool:
        return self.outcome() is not None

    def legal_placements(self, hand: Any = None) -> Iterator[Event]:
        """Every legal placement for the side to move (with ``hand``: its rack or tiles)."""
        raise NotImplementedError(f"{self.GAME_ID} has no placement generator")

    @classmethod
    def parse_hand(cls, text: str) -> Any:
        """Parse a ``--rack``/``--hand`` argument for :meth:`legal_placements`."""
        raise NotImplementedError(f"{cls.GAME_ID} takes no hand")

    # -- presentation -----------------------------------------------------------------------------
    def status_json(self) -> dict[str, Any]:
        """Game-specific fields added to each legal event's check line (e.g. ``bag``)."""
        return {}

    def summary_json(self) -> dict[str, Any]:
        """Game-specific fields added to the summary line (e.g. ``player_totals``)."""
        return {}

    def board_json(self) -> dict[str, Any]:
        """What lies on the table, for the API and the phone page."""
        return {}

    def copy(self) -> Self:
        """An independent copy of this position."""
        return copy.deepcopy(self)
