"""Triominos (``triominos``): the game state, its options and its end of round.

Options: ``edition`` (``"rulebook"`` default, ``"pressman"``: M-P2 triple bonus, M-E1 ends at once),
``target`` (M-E3 score that ends the game over several rounds; default 400: reported, a record is
one round).
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
from engine.tritiles.state import NextTurn, TileGameState
from engine.tritiles.table import Table
from engine.tritiles.tiles import Tile, Values, tile_rank, tile_sum

from .events import Place
from .scoring import GOING_OUT_BONUS, blocked_items, opening_items, placement_items

EDITIONS = ("rulebook", "pressman")


@register
class TriominosState(TileGameState):
    """One round of Triominos."""

    GAME_ID = "triominos"
    TITLE = "Triominos"
    PLACE = Place
    DEAL: ClassVar[dict[int, int]] = {2: 9, 3: 7, 4: 7, 5: 6, 6: 6}
    MAX_DRAWS = 3
    DRAW_PENALTY = -5
    PASS_PENALTY = -10
    NEW_FIELDS = False
    RULE_TILES = "M-B1"
    RULE_DEAL = "M-B4"
    RULE_OPEN = "M-P2"
    RULE_ORIGIN = "M-B3"
    RULE_MATCH = "M-P1"
    RULE_DRAW = "M-S2"
    RULE_OUT = "M-E1"
    RULE_BLOCKED = "M-E2"
    OPTIONS: ClassVar[dict[str, Any]] = {"edition": "rulebook", "target": 400}

    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        return parse_tile_event(obj, header, Place, lambda o: cls.parse_event(o, header))

    def _read_options(self, options: dict[str, Any]) -> dict[str, Any]:
        out = super()._read_options(options)
        if out["edition"] not in EDITIONS:
            raise OptionsError(f'option "edition" is {out["edition"]!r}; expected one of {", ".join(EDITIONS)}')
        target = out["target"]
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise OptionsError(f'option "target" must be a positive whole number, not {target!r}')
        return out

    @property
    def pressman(self) -> bool:
        return bool(self.options["edition"] == "pressman")

    # -- scoring hooks ----------------------------------------------------------------------------
    def _score_first_tile(self, tile: Tile, cell: Cell, values: Values, *, new_field: bool) -> list[ScoreItem]:
        return opening_items(tile, cell, self.pressman)

    def _score_place(self, table: Table, cell: Cell, values: Values, tile: Tile) -> list[ScoreItem]:
        return placement_items(table, cell, values)

    def _going_out(self, p: int, nxt: NextTurn) -> None:
        """M-E1: the last round starts (``pressman``: the round ends at once with the +25)."""
        nxt.out_player = p
        if self.pressman:
            nxt.end_rule = self.RULE_OUT
            nxt.items.append(ScoreItem("end_bonus", GOING_OUT_BONUS, "M-E1",
                                       detail="first out (pressman: the round ends at once)"))
        else:
            nxt.last_round_left = self.n - 1

    def _last_round_over(self, nxt: NextTurn) -> None:
        nxt.end_rule = self.RULE_OUT
        nxt.items.append(ScoreItem("end_bonus", GOING_OUT_BONUS, "M-E1", player=nxt.out_player,
                                   detail=f"{self.name(nxt.out_player)} went out first; the last round is over"))

    def _reveal_items(self, p: int, tiles: tuple[Tile, ...]) -> list[ScoreItem]:
        total = sum(tile_sum(t) for t in tiles)
        if self.end_rule == self.RULE_OUT:
            return [ScoreItem("remaining", total, "M-E1", player=self.out_player,
                              detail=f"{self.name(p)} still holds {total}")]
        missing = [s for s in self.reveals_pending() if s != p]
        if missing:
            return []
        hand_totals = {s: sum(tile_sum(t) for t in ts) for s, ts in self.revealed.items()}
        hand_totals[p] = total
        return blocked_items(hand_totals)

    def _winners(self) -> tuple[int, ...]:
        """Highest round total; a tie goes to the player holding the highest tile (M-E3)."""
        best = max(self.scores)
        tied = [s for s in range(self.n) if self.scores[s] == best]
        if len(tied) == 1:
            return tuple(tied)
        held = {s: max((tile_rank(t) for t in self.revealed.get(s, ())), default=None) for s in tied}
        ranks = [r for r in held.values() if r is not None]
        if not ranks:
            return tuple(tied)
        top = max(ranks)
        return tuple(s for s in tied if held[s] == top)

    # -- presentation ------------------------------------------------------------------------------
    def status_json(self) -> dict[str, Any]:
        out = super().status_json()
        if self.last_round_left is not None and self.end_rule is None:
            out["last_round"] = {"out": self.out_player, "turns_left": self.last_round_left}
        return out

    def summary_json(self) -> dict[str, Any]:
        out = super().summary_json()
        target = int(self.options["target"])
        out["edition"] = self.options["edition"]
        out["target"] = target
        out["target_reached"] = [s for s in range(self.n) if self.scores[s] >= target]
        return out
