"""Exceptions raised by the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .verdict import Verdict


class EngineError(Exception):
    """Base class of every engine error."""


class UnknownGameError(EngineError, KeyError):
    """No game is registered under that id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


class EventFormatError(EngineError, ValueError):
    """An event (or header) is not well-formed: a missing field, a bad type, an unknown square.

    This is bad *input*, not a broken rule: breaking a rule is an illegal event with reasons.
    """


class OptionsError(EventFormatError):
    """A game header names options the game does not know or values it cannot take."""


class IllegalEventError(EngineError, ValueError):
    """``apply`` was asked to play an event that ``check`` rejects."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        text = "; ".join(f"{r.message} ({r.rule})" for r in verdict.reasons) or "illegal event"
        super().__init__(text)
