"""The Blokus Trigon game state: turn order, passes, the end and the totals (B-L4, B-S1, B-S2).

The turn flow is the Blokus family's (:class:`engine.polyform.game.PolyformGame`); this adds what is
Trigon's own: each colour has a fixed seat, seats may add up as teams (B-V1), and the rule options
of :mod:`engine.trigon.variants` (B-L5, B-L6).
"""

from __future__ import annotations

from typing import Any

from engine.core.events import Event
from engine.core.header import Header
from engine.core.registry import register
from engine.core.verdict import ScoreItem
from engine.polyform.events import PolyformPlace
from engine.polyform.game import PolyformGame
from engine.polyform.judgement import Judgement

from .board import Board
from .events import TrigonPass, TrigonPlace, parse_trigon_event
from .legality import judge_placement
from .placements import placement_table
from .position import Position
from .scoring import colour_score, placement_items
from .variants import Rules, Variant, rules_of

END_RULE = "B-S2"


@register
class TrigonState(PolyformGame):
    """A Blokus Trigon game in progress.

    Colours move in the order blue, yellow, red, green (B-L4); a colour with no legal move is
    skipped (an explicit ``pass`` for it is accepted too). ``cursor`` is the colour whose turn
    comes next in strict rotation; the colour to move is the first from there that can move.
    """

    GAME_ID = "trigon"
    TITLE = "Blokus Trigon"
    TURN_RULE = "B-L4"
    END_RULE = END_RULE
    SEAT_RULE = "B-V1"
    PLACE = TrigonPlace
    PASS = TrigonPass

    variant: Variant
    board: Board
    pos: Position

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.rules: Rules = rules_of(header)
        self.variant = self.rules.variant
        self.pos = Position(placement_table(self.variant.side), self.variant.colours,
                            alternate_contact=self.rules.alternate_contact, partner=self.rules.partner())
        self.board = self.pos.table.board
        #: colours known to have no legal move; that never changes, as the board only fills up
        self.blocked = [False] * self.variant.colours
        self._start_turns()

    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        return parse_trigon_event(obj, header)

    def seat_of(self, colour: int) -> int:
        """The seat playing the colour (B-V1)."""
        return self.variant.owner[colour]

    def can_move(self, colour: int) -> bool:
        """Whether the colour has a legal placement."""
        if self.blocked[colour]:
            return False
        if self.pos.has_legal(colour):
            return True
        self.blocked[colour] = True
        return False

    def _judge(self, colour: int, cells: tuple[str, ...]) -> Judgement:
        return judge_placement(self.pos, colour, cells)

    def _colour_score(self, colour: int) -> int:
        """Official score of the colour, as if the game ended now (B-S1)."""
        return colour_score(self.pos, colour)

    def _placement_items(self, colour: int, placement: int, event: PolyformPlace) -> tuple[ScoreItem, ...]:
        return placement_items(self.pos, colour, placement, event.cells)

    def _legal_cell_numbers(self, colour: int) -> list[tuple[int, ...]]:
        """The cell numbers of every legal placement of the colour, in B-B6 order."""
        table = self.pos.table
        return sorted(table.cells[table.index_of_mask[m]] for m in self.pos.legal_masks(colour))

    def player_totals(self) -> list[int]:
        """Score per seat: the sum of its colours, or of its team's colours (B-S1, B-V1)."""
        variant = self.variant
        per_colour = self.totals()
        seats = [0] * variant.players
        for c, s in enumerate(variant.owner):
            seats[s] += per_colour[c]
        if variant.teams is not None:
            team_score = {s: sum(seats[m] for m in team) for team in variant.teams for s in team}
            seats = [team_score[s] for s in range(variant.players)]
        return seats

    def summary_json(self) -> dict[str, Any]:
        variant = self.variant
        out: dict[str, Any] = {"variant": variant.id, "colours": list(variant.colour_names)}
        if variant.players == 2 or variant.teams is not None or variant.players == 1:
            out["player_totals"] = self.player_totals()
        if variant.teams is not None:
            out["teams"] = [list(t) for t in variant.teams]
        return out

    def _copy_extra(self, new: TrigonState) -> None:
        new.rules = self.rules
        new.blocked = self.blocked[:]
