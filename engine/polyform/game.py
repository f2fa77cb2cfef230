"""The turn flow every game of the Blokus family shares, as a base class the games subclass.

Colours move in a fixed play order; a colour with no legal placement is skipped (an explicit
``pass`` for it is accepted too); the game ends when no colour can place a piece, and the best
seat total wins. ``cursor`` is the colour whose turn comes next in strict rotation; the colour to
move is the first from there that can move. A game supplies its own rule ids, its event classes,
how a placement is judged and scored, who places a colour's piece and how seats add up.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Protocol, Self

from engine.core.events import Event, Pass
from engine.core.state import GameState, Outcome, Turn
from engine.core.verdict import Reason, ScoreItem, Verdict

from .events import ColourVariant, PolyformPass, PolyformPlace, colour_index
from .judgement import Judgement
from .position import Position


class PolyformVariant(ColourVariant, Protocol):
    """What the turn flow reads of a variant: its id, colours in play order, their seats and
    the number of players."""

    @property
    def players(self) -> int: ...


class PolyformBoard(Protocol):
    """What the turn flow reads of a board: cell names, its side and the cells of a bit set."""

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def side(self) -> int: ...

    def cells_of(self, mask: int) -> list[int]: ...


class PolyformGame(GameState):
    """A Blokus-family game in progress; subclasses set the rule ids and the hooks below."""

    #: the rule of the play order, passes and turns (K-L4, B-L4)
    TURN_RULE: ClassVar[str] = ""
    #: the rule ending the game (K-S2, B-S2)
    END_RULE: ClassVar[str] = ""
    #: the rule saying which seat plays a colour (K-V1, B-V1)
    SEAT_RULE: ClassVar[str] = ""
    PLACE: ClassVar[type[PolyformPlace]] = PolyformPlace
    PASS: ClassVar[type[PolyformPass]] = PolyformPass

    variant: PolyformVariant
    board: PolyformBoard
    pos: Position
    cursor: int
    _mover: int | None
    _mover_known: bool

    def _start_turns(self) -> None:
        """Nobody has moved yet: the first colour in play order is next."""
        self.cursor = 0
        self._mover = None
        self._mover_known = False

    # -- hooks -----------------------------------------------------------------------------------
    def seat_of(self, colour: int) -> int:
        """The seat placing the colour's next piece."""
        raise NotImplementedError

    def _judge(self, colour: int, cells: tuple[str, ...]) -> Judgement:
        """The colour's placement on the named cells, judged against the game's rules."""
        raise NotImplementedError

    def _colour_score(self, colour: int) -> int:
        """The colour's official score if the game ended now."""
        raise NotImplementedError

    def _placement_items(self, colour: int, placement: int, event: PolyformPlace) -> tuple[ScoreItem, ...]:
        """The score items of a legal placement."""
        raise NotImplementedError

    def player_totals(self) -> list[int]:
        """Score per seat."""
        raise NotImplementedError

    def _wrong_seat(self, event: PolyformPlace | PolyformPass, seat: int) -> Reason:
        """Why the event's player may not place or pass for the colour named (``seat`` does)."""
        return Reason(self.SEAT_RULE, "not_your_turn",
                      f"{event.colour} is played by player {seat}, not {event.player} ({self.variant.id})")

    def _legal_cell_numbers(self, colour: int) -> list[tuple[int, ...]]:
        """The cell numbers of every legal placement of the colour, sorted."""
        table = self.pos.table
        return sorted(table.cells[i] for i in self.pos.legal_ids(colour))

    def _copy_extra(self, new: Self) -> None:
        """Copy what a subclass keeps besides the shared state."""

    # -- turn flow -------------------------------------------------------------------------------
    @property
    def colours(self) -> int:
        return len(self.variant.colour_names)

    def can_move(self, colour: int) -> bool:
        """Whether the colour has a legal placement."""
        return self.pos.has_legal(colour)

    def mover(self) -> int | None:
        """The colour to move (skipping colours that cannot), or ``None`` once no colour can."""
        if not self._mover_known:
            self._mover = None
            for k in range(self.colours):
                c = (self.cursor + k) % self.colours
                if self.can_move(c):
                    self._mover = c
                    break
            self._mover_known = True
        return self._mover

    def skipped(self) -> list[int]:
        """Colours whose turn comes before the mover's but which cannot move (they pass)."""
        mover = self.mover()
        out = []
        for k in range(self.colours):
            c = (self.cursor + k) % self.colours
            if c == mover:
                break
            out.append(c)
        return out

    def to_move(self) -> Turn:
        c = self.mover()
        if c is None:
            return Turn(player=None)
        return Turn(player=self.seat_of(c), colour=self.variant.colour_names[c])

    # -- judging ---------------------------------------------------------------------------------
    def check(self, event: Event) -> Verdict:
        event = self._with_colour(event)
        if isinstance(event, self.PLACE | self.PASS):
            c = colour_index(self.variant, event.colour)
            seat = self.seat_of(c)
            if event.player is not None and event.player != seat:
                return Verdict.illegal(event.player, self._wrong_seat(event, seat))
            if isinstance(event, self.PLACE):
                return self._check_place(event, c, seat)
            assert isinstance(event, self.PASS)
            return self._check_pass(event, c, seat)
        if isinstance(event, Pass):
            return Verdict.illegal(event.player, Reason(self.TURN_RULE, "pass_needs_colour",
                                                        "this player has several colours: the pass must name one"))
        return Verdict.illegal(event.player, Reason(self.TURN_RULE, "unsupported_event",
                                                    f"a {self.GAME_ID} game has no {event.type} events"))

    def _with_colour(self, event: Event) -> Event:
        """A plain pass by a seat owning one colour, as that colour's pass."""
        if isinstance(event, Pass) and not isinstance(event, self.PASS) and event.player is not None:
            owned = self.variant.colours_of(event.player)
            if len(owned) == 1:
                return self.PASS(player=event.player, colour=self.variant.colour_names[owned[0]], meta=event.meta)
        return event

    def _check_place(self, event: PolyformPlace, c: int, seat: int) -> Verdict:
        mover = self.mover()
        if mover is None:
            over = Reason(self.END_RULE, "game_over",
                          f"the game is over: no colour can place a piece ({self.END_RULE})")
            return Verdict.illegal(seat, over, *self._judge(c, event.cells).reasons)
        if c != mover:
            return Verdict.illegal(seat, self._not_your_turn(c, mover))
        judged = self._judge(c, event.cells)
        if not judged.legal:
            return Verdict.illegal(seat, *judged.reasons)
        assert judged.placement is not None
        return Verdict(legal=True, player=seat, breakdown=self._placement_items(c, judged.placement, event))

    def _check_pass(self, event: PolyformPass, c: int, seat: int) -> Verdict:
        mover = self.mover()
        if c == mover:
            n = self.pos.count_legal(c)
            return Verdict.illegal(seat, Reason(
                self.TURN_RULE, "pass_with_legal_move",
                f"{event.colour} can still place a piece ({n} legal placement{'s' if n != 1 else ''}); "
                f"a colour must play if it can"))
        if mover is None or c in self.skipped():
            return Verdict(legal=True, player=seat)
        return Verdict.illegal(seat, self._not_your_turn(c, mover))

    def _not_your_turn(self, colour: int, mover: int) -> Reason:
        names = self.variant.colour_names
        text = f"it is {names[mover]}'s turn, not {names[colour]}'s"
        skipped = [names[s] for s in self.skipped()]
        if skipped:
            text += f" ({', '.join(skipped)} cannot move and {'is' if len(skipped) == 1 else 'are'} skipped)"
        return Reason(self.TURN_RULE, "not_your_turn", text)

    def _push(self, event: Event, verdict: Verdict) -> None:
        event = self._with_colour(event)
        if isinstance(event, self.PLACE):
            c = colour_index(self.variant, event.colour)
            judged = self._judge(c, event.cells)
            assert judged.placement is not None
            self.pos.play(c, judged.placement)
        elif isinstance(event, self.PASS):
            c = colour_index(self.variant, event.colour)
        else:  # pragma: no cover - check() rejects everything else
            raise TypeError(event)
        self.cursor = (c + 1) % self.colours
        self._mover_known = False

    # -- results ---------------------------------------------------------------------------------
    def totals(self) -> list[int]:
        """Official score per colour in play order, as if the game ended now."""
        return [self._colour_score(c) for c in range(self.colours)]

    def outcome(self) -> Outcome | None:
        if self.mover() is not None:
            return None
        scores = self.player_totals()
        best = max(scores)
        winners = tuple(s for s, v in enumerate(scores) if v == best)
        return Outcome(end_rule=self.END_RULE, winners=winners, totals=tuple(self.totals()),
                       detail="no colour can place a piece")

    # -- generation ------------------------------------------------------------------------------
    def legal_placements(self, hand: Any = None) -> Iterator[Event]:
        """Every legal placement of the colour to move, in the canonical order of their cells."""
        c = self.mover()
        if c is None:
            return
        names = self.board.names
        colour = self.variant.colour_names[c]
        seat = self.seat_of(c)
        for placement in self._legal_cell_numbers(c):
            yield self.PLACE(player=seat, colour=colour, cells=tuple(names[i] for i in placement))

    # -- presentation ----------------------------------------------------------------------------
    def status_json(self) -> dict[str, Any]:
        """``skipped``: colours that cannot move and pass before the next mover, if any."""
        if self.mover() is None:
            return {}
        skipped = self.skipped()
        return {"skipped": [self.variant.colour_names[c] for c in skipped]} if skipped else {}

    def board_json(self) -> dict[str, Any]:
        names = self.variant.colour_names
        cells = [{"cell": self.board.names[i], "colour": names[c]}
                 for c in range(self.colours) for i in self.board.cells_of(self.pos.own[c])]
        return {"variant": self.variant.id, "side": self.board.side, "cells": cells}

    def copy(self) -> Self:
        new = self.__class__.__new__(self.__class__)
        new.header = self.header
        new.variant = self.variant
        new.board = self.board
        new.pos = self.pos.copy()
        new.cursor = self.cursor
        new._mover = self._mover
        new._mover_known = self._mover_known
        self._copy_extra(new)
        return new
