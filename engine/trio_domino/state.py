"""Trio Domino (``trio_domino``): the game state and its options.

Option ``topsy_turvy`` (D-V1, default false). Totals: without it, each player's total is the sum
of the tiles left on their stand when the round ends (points against; lowest wins); with it, the
sum of the tiles they laid (highest wins).
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.core.errors import OptionsError
from engine.core.events import Event
from engine.core.header import Header
from engine.core.lattice import Cell
from engine.core.registry import register
from engine.core.verdict import ScoreItem
from engine.tritiles.events import parse_tile_event
from engine.tritiles.state import TileGameState
from engine.tritiles.table import Table
from engine.tritiles.tiles import Tile, Values

from .events import Place
from .scoring import hexagon_items, laid_items, remaining_items


@register
class TrioDominoState(TileGameState):
    """One round of Trio Domino."""

    GAME_ID = "trio_domino"
    TITLE = "Trio Domino"
    PLACE = Place
    DEAL: ClassVar[dict[int, int]] = {2: 10, 3: 8, 4: 8}
    MAX_DRAWS = 2
    DRAW_PENALTY = 0
    PASS_PENALTY = 0
    NEW_FIELDS = True
    RULE_TILES = "D-B1"
    RULE_DEAL = "D-B2"
    RULE_OPEN = "D-P1"
    RULE_ORIGIN = "D-B1"
    RULE_MATCH = "D-P1"
    RULE_DRAW = "D-P2"
    RULE_OUT = "D-E1"
    RULE_BLOCKED = "D-E2"
    OPTIONS: ClassVar[dict[str, Any]] = {"topsy_turvy": False}

    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        return parse_tile_event(obj, header, Place, lambda o: cls.parse_event(o, header))

    def _read_options(self, options: dict[str, Any]) -> dict[str, Any]:
        out = super()._read_options(options)
        if not isinstance(out["topsy_turvy"], bool):
            raise OptionsError(f'option "topsy_turvy" must be true or false, not {out["topsy_turvy"]!r}')
        return out

    @property
    def topsy_turvy(self) -> bool:
        return bool(self.options["topsy_turvy"])

    def _score_first_tile(self, tile: Tile, cell: Cell, values: Values, *, new_field: bool) -> list[ScoreItem]:
        return laid_items(tile, cell, self.topsy_turvy, first=True)

    def _score_place(self, table: Table, cell: Cell, values: Values, tile: Tile) -> list[ScoreItem]:
        return laid_items(tile, cell, self.topsy_turvy, first=False) + hexagon_items(table, cell, values)

    def _reveal_items(self, p: int, tiles: tuple[Tile, ...]) -> list[ScoreItem]:
        assert self.end_rule is not None
        return remaining_items(tiles, self.end_rule, self.topsy_turvy)

    def _winners(self) -> tuple[int, ...]:
        """Lowest total (points left on the stand) wins; ``topsy_turvy``: highest. Ties share."""
        best = max(self.scores) if self.topsy_turvy else min(self.scores)
        return tuple(s for s in range(self.n) if self.scores[s] == best)

    def status_json(self) -> dict[str, Any]:
        out = super().status_json()
        out["fields"] = len(self.tables)
        if self.new_field_for is not None:
            out["new_field_for"] = self.new_field_for
        return out

    def summary_json(self) -> dict[str, Any]:
        out = super().summary_json()
        out["fields"] = len(self.tables)
        out["lowest_wins"] = not self.topsy_turvy
        return out
