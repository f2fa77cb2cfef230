"""The Blokus Classic and Duo game states: turn order, passes, the end and the totals (K-L4, K-S1, K-S2)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Self

from engine.core.events import Event, Pass
from engine.core.header import Header
from engine.core.registry import register
from engine.core.state import GameState, Outcome, Turn
from engine.core.verdict import Reason, ScoreItem, Verdict
from engine.polyform.position import Position

from .board import SquareBoard, square_board
from .events import BlokusPass, BlokusPlace, colour_index, parse_blokus_event
from .legality import judge_placement
from .pieces import PIECE_COUNT, placement_table
from .scoring import colour_score, placement_items
from .variants import Variant, variant_of

END_RULE = "K-S2"
TURN_RULE = "K-L4"


class _BlokusGame(GameState):
    """A Blokus Classic or Duo game in progress.

    Colours move in play order (K-L4); a colour with no legal move is skipped (an explicit
    ``pass`` for it is accepted too). ``cursor`` is the colour whose turn comes next in strict
    rotation; the colour to move is the first from there that can move.
    """

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.variant: Variant = variant_of(header)
        self.board: SquareBoard = square_board(self.variant.side)
        starts = tuple(1 << self.board.index_of_name[s] for s in self.variant.starts)
        self.pos = Position(placement_table(self.variant.side), self.variant.colours, starts)
        self.cursor = 0
        self._mover: int | None = None
        self._mover_known = False

    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        return parse_blokus_event(obj, header)

    # -- turn flow -------------------------------------------------------------------------------
    @property
    def colours(self) -> int:
        return self.variant.colours

    def seat_of(self, colour: int) -> int:
        """The seat placing the colour's next piece; a shared colour (classic_3 green) goes round
        the players piece by piece: its 1st, 4th, 7th… piece by seat 0, its 2nd, 5th… by seat 1 (K-V1)."""
        owner = self.variant.owner[colour]
        if owner is not None:
            return owner
        placed = PIECE_COUNT - self.pos.unused[colour].bit_count()
        return placed % self.variant.players

    def mover(self) -> int | None:
        """The colour to move (skipping colours that cannot), or ``None`` once no colour can (K-S2)."""
        if not self._mover_known:
            self._mover = None
            for k in range(self.colours):
                c = (self.cursor + k) % self.colours
                if self.pos.has_legal(c):
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
        if isinstance(event, BlokusPlace | BlokusPass):
            c = colour_index(self.variant, event.colour)
            seat = self.seat_of(c)
            if event.player is not None and event.player != seat:
                return Verdict.illegal(event.player, Reason(
                    "K-V1", "not_your_turn",
                    f"{event.colour}'s next piece is placed by player {seat}, not {event.player} ({self.variant.id})"))
            if isinstance(event, BlokusPlace):
                return self._check_place(event, c, seat)
            return self._check_pass(event, c, seat)
        if isinstance(event, Pass):
            return Verdict.illegal(event.player, Reason(TURN_RULE, "pass_needs_colour",
                                                        "this player has several colours: the pass must name one"))
        return Verdict.illegal(event.player, Reason(TURN_RULE, "unsupported_event",
                                                    f"a {self.GAME_ID} game has no {event.type} events"))

    def _with_colour(self, event: Event) -> Event:
        """A plain pass by a seat owning one colour, as that colour's pass."""
        if isinstance(event, Pass) and not isinstance(event, BlokusPass) and event.player is not None:
            owned = self.variant.colours_of(event.player)
            if len(owned) == 1:
                return BlokusPass(player=event.player, colour=self.variant.colour_names[owned[0]], meta=event.meta)
        return event

    def _judge(self, colour: int, cells: tuple[str, ...]) -> Any:
        return judge_placement(self.pos, self.board, self.variant.colour_names, colour, cells)

    def _check_place(self, event: BlokusPlace, c: int, seat: int) -> Verdict:
        mover = self.mover()
        if mover is None:
            over = Reason(END_RULE, "game_over", "the game is over: no colour can place a piece (K-S2)")
            return Verdict.illegal(seat, over, *self._judge(c, event.cells).reasons)
        if c != mover:
            return Verdict.illegal(seat, self._not_your_turn(c, mover))
        judged = self._judge(c, event.cells)
        if not judged.legal:
            return Verdict.illegal(seat, *judged.reasons)
        items = placement_items(self.pos, c, judged.placement, event.cells)
        if c in self.variant.unscored:
            items = tuple(ScoreItem(i.kind, 0, i.rule, i.cells, detail=f"{i.detail}; "
                                    f"{event.colour} counts for nobody ({self.variant.id}, K-V1)") for i in items)
        return Verdict(legal=True, player=seat, breakdown=items)

    def _check_pass(self, event: BlokusPass, c: int, seat: int) -> Verdict:
        mover = self.mover()
        if c == mover:
            n = self.pos.count_legal(c)
            return Verdict.illegal(seat, Reason(
                TURN_RULE, "pass_with_legal_move",
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
        return Reason(TURN_RULE, "not_your_turn", text)

    def _push(self, event: Event, verdict: Verdict) -> None:
        event = self._with_colour(event)
        if isinstance(event, BlokusPlace):
            c = colour_index(self.variant, event.colour)
            judged = self._judge(c, event.cells)
            assert judged.placement is not None
            self.pos.play(c, judged.placement)
        elif isinstance(event, BlokusPass):
            c = colour_index(self.variant, event.colour)
        else:  # pragma: no cover - check() rejects everything else
            raise TypeError(event)
        self.cursor = (c + 1) % self.colours
        self._mover_known = False

    # -- results ---------------------------------------------------------------------------------
    def totals(self) -> list[int]:
        """Official score per colour in play order, as if the game ended now (K-S1)."""
        return [colour_score(self.pos, c) for c in range(self.colours)]

    def player_totals(self) -> list[int]:
        """Score per seat: the sum of the colours it owns; a shared colour counts for nobody (K-S1, K-V1)."""
        per_colour = self.totals()
        seats = [0] * self.variant.players
        for c, s in enumerate(self.variant.owner):
            if s is not None:
                seats[s] += per_colour[c]
        return seats

    def outcome(self) -> Outcome | None:
        if self.mover() is not None:
            return None
        scores = self.player_totals()
        best = max(scores)
        winners = tuple(s for s, v in enumerate(scores) if v == best)
        return Outcome(end_rule=END_RULE, winners=winners, totals=tuple(self.totals()),
                       detail="no colour can place a piece")

    # -- generation ------------------------------------------------------------------------------
    def legal_placements(self, hand: Any = None) -> Iterator[Event]:
        """Every legal placement of the colour to move, in K-B4 order of their squares."""
        c = self.mover()
        if c is None:
            return
        table = self.pos.table
        names = self.board.names
        colour = self.variant.colour_names[c]
        seat = self.seat_of(c)
        for placement in sorted(table.cells[i] for i in self.pos.legal_ids(c)):
            yield BlokusPlace(player=seat, colour=colour, cells=tuple(names[i] for i in placement))

    # -- presentation ----------------------------------------------------------------------------
    def status_json(self) -> dict[str, Any]:
        """``skipped``: colours that cannot move and pass before the next mover (K-L4), if any."""
        if self.mover() is None:
            return {}
        skipped = self.skipped()
        return {"skipped": [self.variant.colour_names[c] for c in skipped]} if skipped else {}

    def summary_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variant": self.variant.id, "colours": list(self.variant.colour_names)}
        if self.variant.players != self.colours:
            out["player_totals"] = self.player_totals()
        return out

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
        return new


@register
class BlokusState(_BlokusGame):
    """Blokus Classic on the 20 × 20 board (variants classic, classic_2, classic_3)."""

    GAME_ID = "blokus"
    TITLE = "Blokus"


@register
class BlokusDuoState(_BlokusGame):
    """Blokus Duo on the 14 × 14 board (variant duo)."""

    GAME_ID = "blokus_duo"
    TITLE = "Blokus Duo"
