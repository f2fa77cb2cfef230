"""The Blokus Classic and Duo game states: turn order, passes, the end and the totals (K-L4, K-S1, K-S2).

The turn flow is the Blokus family's (:class:`engine.polyform.game.PolyformGame`); this adds what is
Classic and Duo's own: a shared colour placed by the players in turn and scored for nobody (K-V1).
"""

from __future__ import annotations

from typing import Any

from engine.core.events import Event
from engine.core.header import Header
from engine.core.registry import register
from engine.core.verdict import Reason, ScoreItem
from engine.polyform.events import PolyformPass, PolyformPlace
from engine.polyform.game import PolyformGame
from engine.polyform.judgement import Judgement
from engine.polyform.position import Position

from .board import SquareBoard, square_board
from .events import BlokusPass, BlokusPlace, parse_blokus_event
from .legality import judge_placement
from .pieces import PIECE_COUNT, placement_table
from .scoring import colour_score, placement_items
from .variants import Variant, variant_of

END_RULE = "K-S2"
TURN_RULE = "K-L4"


class _BlokusGame(PolyformGame):
    """A Blokus Classic or Duo game in progress.

    Colours move in play order (K-L4); a colour with no legal move is skipped (an explicit
    ``pass`` for it is accepted too). ``cursor`` is the colour whose turn comes next in strict
    rotation; the colour to move is the first from there that can move.
    """

    TURN_RULE = TURN_RULE
    END_RULE = END_RULE
    SEAT_RULE = "K-V1"
    PLACE = BlokusPlace
    PASS = BlokusPass

    variant: Variant
    board: SquareBoard

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.variant = variant_of(header)
        self.board = square_board(self.variant.side)
        starts = tuple(1 << self.board.index_of_name[s] for s in self.variant.starts)
        self.pos = Position(placement_table(self.variant.side), self.variant.colours, starts)
        self._start_turns()

    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        return parse_blokus_event(obj, header)

    def seat_of(self, colour: int) -> int:
        """The seat placing the colour's next piece; a shared colour (classic_3 green) goes round
        the players piece by piece: its 1st, 4th, 7th… piece by seat 0, its 2nd, 5th… by seat 1 (K-V1)."""
        owner = self.variant.owner[colour]
        if owner is not None:
            return owner
        placed = PIECE_COUNT - self.pos.unused[colour].bit_count()
        return placed % self.variant.players

    def _wrong_seat(self, event: PolyformPlace | PolyformPass, seat: int) -> Reason:
        return Reason("K-V1", "not_your_turn",
                      f"{event.colour}'s next piece is placed by player {seat}, not {event.player} ({self.variant.id})")

    def _judge(self, colour: int, cells: tuple[str, ...]) -> Judgement:
        return judge_placement(self.pos, self.board, self.variant.colour_names, colour, cells)

    def _colour_score(self, colour: int) -> int:
        """Official score of the colour, as if the game ended now (K-S1)."""
        return colour_score(self.pos, colour)

    def _placement_items(self, colour: int, placement: int, event: PolyformPlace) -> tuple[ScoreItem, ...]:
        items = placement_items(self.pos, colour, placement, event.cells)
        if colour in self.variant.unscored:
            items = tuple(ScoreItem(i.kind, 0, i.rule, i.cells, detail=f"{i.detail}; "
                                    f"{event.colour} counts for nobody ({self.variant.id}, K-V1)") for i in items)
        return items

    def player_totals(self) -> list[int]:
        """Score per seat: the sum of the colours it owns; a shared colour counts for nobody (K-S1, K-V1)."""
        per_colour = self.totals()
        seats = [0] * self.variant.players
        for c, s in enumerate(self.variant.owner):
            if s is not None:
                seats[s] += per_colour[c]
        return seats

    def summary_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variant": self.variant.id, "colours": list(self.variant.colour_names)}
        if self.variant.players != self.colours:
            out["player_totals"] = self.player_totals()
        return out


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
