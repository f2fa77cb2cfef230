"""The Blokus Trigon game state: turn order, passes, the end and the totals (B-L4, B-S1, B-S2)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Self

from engine.core.events import Event, Pass
from engine.core.header import Header
from engine.core.registry import register
from engine.core.state import GameState, Outcome, Turn
from engine.core.verdict import Reason, Verdict

from .events import TrigonPass, TrigonPlace, colour_index, parse_trigon_event
from .legality import judge_placement
from .placements import placement_table
from .position import Position
from .scoring import colour_score, placement_items
from .variants import Rules, rules_of

END_RULE = "B-S2"


@register
class TrigonState(GameState):
    """A Blokus Trigon game in progress.

    Colours move in the order blue, yellow, red, green (B-L4); a colour with no legal move is
    skipped (an explicit ``pass`` for it is accepted too). ``cursor`` is the colour whose turn
    comes next in strict rotation; the colour to move is the first from there that can move.
    """

    GAME_ID = "trigon"
    TITLE = "Blokus Trigon"

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.rules: Rules = rules_of(header)
        variant = self.rules.variant
        self.pos = Position(placement_table(variant.side), variant.colours,
                            alternate_contact=self.rules.alternate_contact, partner=self.rules.partner())
        self.cursor = 0
        #: colours known to have no legal move; that never changes, as the board only fills up
        self.blocked = [False] * variant.colours
        self._mover: int | None = None
        self._mover_known = False

    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        return parse_trigon_event(obj, header)

    # -- turn flow -------------------------------------------------------------------------------
    @property
    def colours(self) -> int:
        return self.rules.variant.colours

    def can_move(self, colour: int) -> bool:
        """Whether the colour has a legal placement."""
        if self.blocked[colour]:
            return False
        if self.pos.has_legal(colour):
            return True
        self.blocked[colour] = True
        return False

    def mover(self) -> int | None:
        """The colour to move (skipping colours that cannot), or ``None`` once no colour can (B-S2)."""
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
        return Turn(player=self.rules.variant.owner[c], colour=self.rules.variant.colour_names[c])

    # -- judging ---------------------------------------------------------------------------------
    def check(self, event: Event) -> Verdict:
        event = self._with_colour(event)
        if isinstance(event, TrigonPlace | TrigonPass):
            wrong_seat = self._wrong_seat(event)
            if wrong_seat is not None:
                return Verdict.illegal(event.player, wrong_seat)
        if isinstance(event, TrigonPlace):
            return self._check_place(event)
        if isinstance(event, TrigonPass):
            return self._check_pass(event)
        if isinstance(event, Pass):
            return Verdict.illegal(event.player, Reason("B-L4", "pass_needs_colour",
                                                        "this player has several colours: the pass must name one"))
        return Verdict.illegal(event.player, Reason("B-L4", "unsupported_event",
                                                    f"a trigon game has no {event.type} events"))

    def _with_colour(self, event: Event) -> Event:
        """A plain pass by a seat owning one colour, as that colour's pass."""
        if isinstance(event, Pass) and not isinstance(event, TrigonPass) and event.player is not None:
            owned = self.rules.variant.colours_of(event.player)
            if len(owned) == 1:
                return TrigonPass(player=event.player, colour=self.rules.variant.colour_names[owned[0]],
                                  meta=event.meta)
        return event

    def _check_place(self, event: TrigonPlace) -> Verdict:
        c = colour_index(self.rules, event.colour)
        seat = self.rules.variant.owner[c]
        mover = self.mover()
        if mover is None:
            judged = judge_placement(self.pos, c, event.cells)
            over = Reason(END_RULE, "game_over", "the game is over: no colour can place a piece (B-S2)")
            return Verdict.illegal(seat, over, *judged.reasons)
        if c != mover:
            return Verdict.illegal(seat, self._not_your_turn(c, mover))
        judged = judge_placement(self.pos, c, event.cells)
        if not judged.legal:
            return Verdict.illegal(seat, *judged.reasons)
        assert judged.placement is not None
        return Verdict(legal=True, player=seat,
                       breakdown=placement_items(self.pos, c, judged.placement, event.cells))

    def _check_pass(self, event: TrigonPass) -> Verdict:
        c = colour_index(self.rules, event.colour)
        seat = self.rules.variant.owner[c]
        mover = self.mover()
        if c == mover:
            n = self.pos.count_legal(c)
            return Verdict.illegal(seat, Reason(
                "B-L4", "pass_with_legal_move",
                f"{event.colour} can still place a piece ({n} legal placement{'s' if n != 1 else ''}); "
                f"a colour must play if it can"))
        if mover is None or c in self.skipped():
            return Verdict(legal=True, player=seat)
        assert mover is not None
        return Verdict.illegal(seat, self._not_your_turn(c, mover))

    def _wrong_seat(self, event: TrigonPlace | TrigonPass) -> Reason | None:
        """B-V1: the colour named belongs to another seat than the event's player."""
        seat = self.rules.variant.owner[colour_index(self.rules, event.colour)]
        if event.player is None or event.player == seat:
            return None
        return Reason("B-V1", "not_your_turn",
                      f"{event.colour} is played by player {seat}, not {event.player} ({self.rules.variant.id})")

    def _not_your_turn(self, colour: int, mover: int) -> Reason:
        names = self.rules.variant.colour_names
        text = f"it is {names[mover]}'s turn, not {names[colour]}'s"
        skipped = [names[s] for s in self.skipped()]
        if skipped:
            text += f" ({', '.join(skipped)} cannot move and {'is' if len(skipped) == 1 else 'are'} skipped)"
        return Reason("B-L4", "not_your_turn", f"{text}")

    def _push(self, event: Event, verdict: Verdict) -> None:
        event = self._with_colour(event)
        if isinstance(event, TrigonPlace):
            c = colour_index(self.rules, event.colour)
            judged = judge_placement(self.pos, c, event.cells)
            assert judged.placement is not None
            self.pos.play(c, judged.placement)
        elif isinstance(event, TrigonPass):
            c = colour_index(self.rules, event.colour)
        else:  # pragma: no cover - check() rejects everything else
            raise TypeError(event)
        self.cursor = (c + 1) % self.colours
        self._mover_known = False

    # -- results ---------------------------------------------------------------------------------
    def totals(self) -> list[int]:
        """Official score per colour in play order, as if the game ended now (B-S1)."""
        return [colour_score(self.pos, c) for c in range(self.colours)]

    def player_totals(self) -> list[int]:
        """Score per seat: the sum of its colours, or of its team's colours (B-S1, B-V1)."""
        variant = self.rules.variant
        per_colour = self.totals()
        seats = [0] * variant.players
        for c, s in enumerate(variant.owner):
            seats[s] += per_colour[c]
        if variant.teams is not None:
            team_score = {s: sum(seats[m] for m in team) for team in variant.teams for s in team}
            seats = [team_score[s] for s in range(variant.players)]
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
        """Every legal placement of the colour to move, in B-B6 order of their cells."""
        c = self.mover()
        if c is None:
            return
        table = self.pos.table
        names = table.board.names
        colour = self.rules.variant.colour_names[c]
        seat = self.rules.variant.owner[c]
        cells = sorted(table.cells[table.index_of_mask[m]] for m in self.pos.legal_masks(c))
        for placement in cells:
            yield TrigonPlace(player=seat, colour=colour, cells=tuple(names[i] for i in placement))

    # -- presentation ----------------------------------------------------------------------------
    def status_json(self) -> dict[str, Any]:
        """``skipped``: colours that cannot move and pass before the next mover (B-L4), if any."""
        if self.mover() is None:
            return {}
        skipped = self.skipped()
        return {"skipped": [self.rules.variant.colour_names[c] for c in skipped]} if skipped else {}

    def summary_json(self) -> dict[str, Any]:
        variant = self.rules.variant
        out: dict[str, Any] = {"variant": variant.id, "colours": list(variant.colour_names)}
        if variant.players == 2 or variant.teams is not None or variant.players == 1:
            out["player_totals"] = self.player_totals()
        if variant.teams is not None:
            out["teams"] = [list(t) for t in variant.teams]
        return out

    def board_json(self) -> dict[str, Any]:
        board = self.pos.table.board
        names = self.rules.variant.colour_names
        cells = [{"cell": board.names[i], "colour": names[c]}
                 for c in range(self.colours) for i in board.cells_of(self.pos.own[c])]
        return {"variant": self.rules.variant.id, "side": board.side, "cells": cells}

    def copy(self) -> Self:
        new = self.__class__.__new__(self.__class__)
        new.header = self.header
        new.rules = self.rules
        new.pos = self.pos.copy()
        new.cursor = self.cursor
        new.blocked = self.blocked[:]
        new._mover = self._mover
        new._mover_known = self._mover_known
        return new
