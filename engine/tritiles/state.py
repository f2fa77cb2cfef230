"""The turn flow both triangle-tile games share: deal, draws, passes, placing, going out, reveals.

A round is one record (INTERFACES §1). The camera cannot see hands, so the state tracks the pile
and every hand's *size*; the hands' contents become known only through ``reveal`` events at the end.
Each game subclass names its rules (ids, limits, penalties) and scores placements and the end.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.core.errors import OptionsError
from engine.core.events import Correct, Draw, Event, Pass, Reveal, Undo
from engine.core.header import Header
from engine.core.lattice import Cell
from engine.core.state import GameState, Outcome, Turn
from engine.core.verdict import Reason, ScoreItem, Verdict

from .events import TilePlace
from .geometry import ORIGIN_CELLS, cell_text
from .hand import field_placements, opening_placements
from .matching import matching_reasons
from .shapes import hexagons_closed
from .table import Table
from .tiles import ALL_TILES, Tile, Values, parse_tile_name, tile_name, tile_of, tile_sum

#: Stable code of an event by the wrong player (INTERFACES §2).
NOT_YOUR_TURN = "not_your_turn"


@dataclass
class NextTurn:
    """What a legal event leads to: the turn bookkeeping after it and any end-of-round score items."""

    current: int
    draws: int
    passes: int
    new_field_for: int | None
    out_player: int | None
    last_round_left: int | None
    end_rule: str | None
    items: list[ScoreItem] = field(default_factory=list)


class TileGameState(GameState):
    """Shared state of Triominos and Trio Domino (one round)."""

    PLACE: ClassVar[type[TilePlace]]
    #: Hand size at the deal by number of players (M-B4, D-B2).
    DEAL: ClassVar[dict[int, int]]
    MAX_DRAWS: ClassVar[int]
    DRAW_PENALTY: ClassVar[int]
    PASS_PENALTY: ClassVar[int]
    #: Whether closing a hexagon lets the same player open a new field (D-P3).
    NEW_FIELDS: ClassVar[bool] = False
    # Rule ids cited by the shared flow.
    RULE_TILES: ClassVar[str]
    RULE_DEAL: ClassVar[str]
    RULE_OPEN: ClassVar[str]
    RULE_ORIGIN: ClassVar[str]
    RULE_MATCH: ClassVar[str]
    RULE_DRAW: ClassVar[str]
    RULE_OUT: ClassVar[str]
    RULE_BLOCKED: ClassVar[str]
    RULE_NEW_FIELD: ClassVar[str] = "D-P3"
    OPTIONS: ClassVar[dict[str, Any]] = {}

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        n = len(header.players)
        if n not in self.DEAL:
            counts = sorted(self.DEAL)
            raise OptionsError(f"{self.TITLE} is played by {counts[0]}-{counts[-1]} players, not {n} "
                               f"({self.RULE_DEAL})")
        self.options = self._read_options(dict(header.options))
        self.n = n
        self.tables: list[Table] = []
        #: Every tile laid, with its field and cell.
        self.played: dict[Tile, tuple[int, Cell]] = {}
        self.hands: list[int] = [self.DEAL[n]] * n
        self.pile: int = len(ALL_TILES) - n * self.DEAL[n]
        self.scores: list[int] = [0] * n
        self.current: int = header.first_player
        self.draws: int = 0
        self.passes: int = 0
        self.new_field_for: int | None = None
        self.out_player: int | None = None
        self.last_round_left: int | None = None
        self.end_rule: str | None = None
        self.revealed: dict[int, tuple[Tile, ...]] = {}

    # -- options ------------------------------------------------------------------------------------
    def _read_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The header's options with defaults filled in; unknown names or bad values raise."""
        unknown = sorted(set(options) - set(self.OPTIONS))
        if unknown:
            known = ", ".join(self.OPTIONS) or "none"
            raise OptionsError(f"unknown option {unknown[0]!r} for {self.GAME_ID}; known options: {known}")
        out = dict(self.OPTIONS)
        out.update(options)
        return out

    # -- naming -------------------------------------------------------------------------------------
    def name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < self.n:
            return f"player {seat}"
        return self.header.players[seat]

    # -- rules --------------------------------------------------------------------------------------
    def check(self, event: Event) -> Verdict:
        p = event.player
        if isinstance(event, Reveal):
            return self._check_reveal(event)
        if isinstance(event, Correct | Undo):
            return Verdict.illegal(p, Reason("I-1", "amendment_outside_session",
                                             "corrections and undos are handled by the session log"))
        if self.end_rule is not None:
            return Verdict.illegal(p, Reason(self.end_rule, "round_over",
                                             f"the round is over ({self.end_rule}); only reveals follow"))
        if isinstance(event, TilePlace):
            return self._check_place(event)
        if not isinstance(event, Draw | Pass):
            return Verdict.illegal(p, Reason(self.RULE_DRAW, "unsupported_event",
                                             f"{self.TITLE} has no {event.type} events"))
        if not self.tables:
            return Verdict.illegal(p, Reason(self.RULE_OPEN, "opening_first",
                                             f"{self.name(self.current)} opens the round by laying a tile"))
        if p != self.current:
            return Verdict.illegal(p, self._not_your_turn(p))
        if isinstance(event, Draw):
            return self._check_draw(event)
        return self._check_pass(event)

    def _not_your_turn(self, p: int | None) -> Reason:
        rule = self.RULE_OPEN if not self.tables else self.RULE_DRAW
        return Reason(rule, NOT_YOUR_TURN, f"it is {self.name(self.current)}'s turn, not {self.name(p)}'s")

    def _check_draw(self, event: Draw) -> Verdict:
        p = event.player
        if event.count != 1:
            return Verdict.illegal(p, Reason(self.RULE_DRAW, "draw_one_at_a_time",
                                             f"a draw event takes one tile (count 1), not {event.count}"))
        if self.pile == 0:
            return Verdict.illegal(p, Reason(self.RULE_DRAW, "pile_empty",
                                             "the pile is empty: place a tile or pass"))
        if self.draws >= self.MAX_DRAWS:
            return Verdict.illegal(p, Reason(self.RULE_DRAW, "too_many_draws",
                                             f"at most {self.MAX_DRAWS} draws a turn: place a tile or pass"))
        items = []
        if self.DRAW_PENALTY:
            items.append(ScoreItem("draw_penalty", self.DRAW_PENALTY, self.RULE_DRAW,
                                   detail=f"draw {self.draws + 1} of {self.MAX_DRAWS} this turn"))
        return Verdict(True, p, breakdown=tuple(items))

    def _check_pass(self, event: Pass) -> Verdict:
        p = event.player
        if self.draws < self.MAX_DRAWS and self.pile > 0:
            return Verdict.illegal(p, Reason(
                self.RULE_DRAW, "must_draw_first",
                f"a pass needs {self.MAX_DRAWS} draws this turn or an empty pile "
                f"(drawn {self.draws}, pile {self.pile}): draw a tile"))
        items = []
        if self.PASS_PENALTY:
            items.append(ScoreItem("pass_penalty", self.PASS_PENALTY, self.RULE_DRAW,
                                   detail="pile empty" if self.pile == 0 else f"no tile laid after {self.draws} draws"))
        nxt = self._after(p, placed=False, went_out=False, closed=0, bonus=False)
        items.extend(nxt.items)
        return Verdict(True, p, breakdown=tuple(items))

    def _check_place(self, event: TilePlace) -> Verdict:
        p = event.player
        assert p is not None
        fld, cell, values = event.field, event.cell, event.values
        bonus = (self.NEW_FIELDS and self.new_field_for is not None and p == self.new_field_for
                 and fld == len(self.tables))
        if not bonus and p != self.current:
            reason = self._not_your_turn(p)
            if p == self.new_field_for and fld > len(self.tables):
                reason = self._field_reason(fld)
            elif p == self.new_field_for:
                reason = Reason(self.RULE_NEW_FIELD, NOT_YOUR_TURN,
                                f"after closing a hexagon {self.name(p)} may only open field {len(self.tables)}; "
                                f"otherwise it is {self.name(self.current)}'s turn")
            return Verdict.illegal(p, reason)
        tile = tile_of(values)
        if tile is None:
            a, b, c = values
            return Verdict.illegal(p, Reason(
                self.RULE_TILES, "not_a_tile",
                f"no tile shows {a}, {b}, {c} clockwise: a tile's numbers ascend clockwise and tiles are "
                "never turned over", (cell,)))
        if tile in self.played:
            where_f, where_c = self.played[tile]
            at = cell_text(where_c) + (f" of field {where_f}" if self.NEW_FIELDS else "")
            return Verdict.illegal(p, Reason(self.RULE_TILES, "tile_already_played",
                                             f"{tile_name(tile)} already lies at {at}; each tile exists once",
                                             (where_c,)))
        if fld > len(self.tables) or (fld == len(self.tables) and self.tables and not bonus):
            return Verdict.illegal(p, self._field_reason(fld))
        items: list[ScoreItem]
        closed = 0
        if fld == len(self.tables):
            if cell not in ORIGIN_CELLS:
                return Verdict.illegal(p, Reason(
                    self.RULE_ORIGIN, "not_at_origin",
                    f"a field's first tile lies on [0, 0] (pointing up) or [1, 0] (pointing down), "
                    f"not on {cell_text(cell)}", (cell,)))
            items = self._score_first_tile(tile, cell, values, new_field=bool(self.tables))
        else:
            table = self.tables[fld]
            reasons = matching_reasons(table, cell, values, self.RULE_MATCH)
            if reasons:
                return Verdict.illegal(p, *reasons)
            closed = len(hexagons_closed(table, cell))
            items = self._score_place(table, cell, values, tile)
        nxt = self._after(p, placed=True, went_out=self.hands[p] == 1, closed=closed, bonus=bonus)
        items.extend(nxt.items)
        return Verdict(True, p, breakdown=tuple(items))

    def _field_reason(self, fld: int) -> Reason:
        """Why field ``fld`` cannot take a tile now (only Trio Domino has more than one field)."""
        count = len(self.tables)
        if not self.NEW_FIELDS:
            return Reason(self.RULE_MATCH, "one_field", "Triominos is played on one field (field 0)")
        if fld > count:
            fields = ("there is no field yet", "there is one field, number 0")[count] if count <= 1 \
                else f"there are {count} fields, numbered 0-{count - 1}"
            return Reason(self.RULE_NEW_FIELD, "unknown_field", f"{fields}; a new field takes number {count}")
        return Reason(self.RULE_NEW_FIELD, "new_field_needs_hexagon",
                      "a new field may be opened only by the player who has just closed a hexagon, "
                      "as their very next tile")

    # -- turn bookkeeping -----------------------------------------------------------------------------
    def _after(self, p: int | None, *, placed: bool, went_out: bool, closed: int, bonus: bool) -> NextTurn:
        """The turn state after a legal place or pass by ``p`` (pure: used by check and _push)."""
        assert p is not None
        nxt = NextTurn(current=self.current, draws=0, passes=self.passes, new_field_for=None,
                       out_player=self.out_player, last_round_left=self.last_round_left, end_rule=None)
        if not bonus:
            nxt.current = (p + 1) % self.n
        if placed:
            nxt.passes = 0
        else:
            nxt.passes = self._passes_after_pass()
        if went_out and self.out_player is None:
            self._going_out(p, nxt)
        elif self.last_round_left is not None and not bonus:
            nxt.last_round_left = self.last_round_left - 1
            if nxt.last_round_left == 0:
                self._last_round_over(nxt)
        if nxt.end_rule is None and not placed and nxt.passes >= self.n:
            nxt.end_rule = self.RULE_BLOCKED
        if nxt.end_rule is None and self.NEW_FIELDS and placed and closed and not bonus:
            nxt.new_field_for = p
        return nxt

    def _passes_after_pass(self) -> int:
        """The count of passes toward a blocked round after one more pass.

        Only passes made with the pile empty count (M-E2; D-E2 "blocked as for Triominos",
        INTERFACES §1): while tiles remain, a player who passed after drawing may still draw again.
        """
        return self.passes + 1 if self.pile == 0 else 0

    def _going_out(self, p: int, nxt: NextTurn) -> None:
        """``p`` has laid their last tile: start the last round or end the round (game rules)."""
        nxt.out_player = p
        nxt.end_rule = self.RULE_OUT

    def _last_round_over(self, nxt: NextTurn) -> None:
        """Every other player has had their last turn."""
        nxt.end_rule = self.RULE_OUT

    def _push(self, event: Event, verdict: Verdict) -> None:
        for seat, pts in enumerate(verdict.points_by_player(self.n)):
            self.scores[seat] += pts
        p = event.player
        assert p is not None
        if isinstance(event, Reveal):
            assert event.tiles is not None
            self.revealed[p] = tuple(parse_tile_name(t) for t in event.tiles)
            return
        if isinstance(event, Draw):
            self.new_field_for = None
            self.hands[p] += 1
            self.pile -= 1
            self.draws += 1
            return
        placed = isinstance(event, TilePlace)
        bonus = False
        closed = 0
        went_out = False
        if isinstance(event, TilePlace):
            bonus = self.NEW_FIELDS and self.new_field_for == p and event.field == len(self.tables)
            tile = tile_of(event.values)
            assert tile is not None
            if event.field == len(self.tables):
                self.tables.append(Table())
            table = self.tables[event.field]
            closed = len(hexagons_closed(table, event.cell)) if table.cells else 0
            went_out = self.hands[p] == 1
            nxt = self._after(p, placed=True, went_out=went_out, closed=closed, bonus=bonus)
            table.place(event.cell, event.values)
            self.played[tile] = (event.field, event.cell)
            self.hands[p] -= 1
        else:
            nxt = self._after(p, placed=placed, went_out=False, closed=0, bonus=False)
        self.current = nxt.current
        self.draws = nxt.draws
        self.passes = nxt.passes
        self.new_field_for = nxt.new_field_for
        self.out_player = nxt.out_player
        self.last_round_left = nxt.last_round_left
        self.end_rule = nxt.end_rule

    # -- reveals --------------------------------------------------------------------------------------
    def _check_reveal(self, event: Reveal) -> Verdict:
        p = event.player
        assert p is not None and event.tiles is not None
        if self.end_rule is None:
            return Verdict.illegal(p, Reason(self.RULE_OUT, "reveal_before_end",
                                             "hands are revealed only once the round has ended"))
        if p in self.revealed:
            return Verdict.illegal(p, Reason(self.end_rule, "already_revealed",
                                             f"{self.name(p)} has already revealed their tiles"))
        tiles = [parse_tile_name(t) for t in event.tiles]
        if len(tiles) != self.hands[p]:
            return Verdict.illegal(p, Reason(
                self.end_rule, "reveal_count",
                f"{self.name(p)} holds {self.hands[p]} tile(s) by the count of deal, draws and "
                f"placements, but the reveal names {len(tiles)}"))
        seen: set[Tile] = set()
        shown = {t for ts in self.revealed.values() for t in ts}
        for t in tiles:
            where = ("on the table" if t in self.played else "revealed by another player" if t in shown
                     else "named twice" if t in seen else None)
            if where is not None:
                return Verdict.illegal(p, Reason(self.RULE_TILES, "tile_already_seen",
                                                 f"{tile_name(t)} is already {where}; each tile exists once"))
            seen.add(t)
        return Verdict(True, p, breakdown=tuple(self._reveal_items(p, tuple(tiles))))

    def reveals_pending(self) -> list[int]:
        """Seats that still hold tiles and have not revealed them (after the end)."""
        if self.end_rule is None:
            return []
        return [s for s in range(self.n) if self.hands[s] > 0 and s not in self.revealed]

    # -- game-specific hooks --------------------------------------------------------------------------
    def _score_first_tile(self, tile: Tile, cell: Cell, values: Values, *, new_field: bool) -> list[ScoreItem]:
        """Score of the opening tile (or of a new field's first tile)."""
        return []

    def _score_place(self, table: Table, cell: Cell, values: Values, tile: Tile) -> list[ScoreItem]:
        """Score of a matching tile laid on a field."""
        return []

    def _reveal_items(self, p: int, tiles: tuple[Tile, ...]) -> list[ScoreItem]:
        """Score items a legal reveal causes (it has not been recorded yet)."""
        return []

    def _winners(self) -> tuple[int, ...]:
        """The round's winners once it has ended."""
        best = max(self.scores)
        return tuple(s for s in range(self.n) if self.scores[s] == best)

    # -- queries --------------------------------------------------------------------------------------
    def to_move(self) -> Turn:
        if self.end_rule is not None:
            missing = self.reveals_pending()
            return Turn(player=missing[0] if missing else None)
        return Turn(player=self.current)

    def totals(self) -> list[int]:
        return list(self.scores)

    def outcome(self) -> Outcome | None:
        if self.end_rule is None:
            return None
        detail = "waiting for reveals from " + ", ".join(self.name(s) for s in self.reveals_pending()) \
            if self.reveals_pending() else ""
        return Outcome(self.end_rule, self._winners(), tuple(self.scores), detail)

    def tile_count(self) -> int:
        """Tiles in hands + pile + on the table: always 56."""
        return sum(self.hands) + self.pile + len(self.played)

    @classmethod
    def parse_hand(cls, text: str) -> list[Tile]:
        from .hand import parse_hand

        return parse_hand(text)

    def legal_placements(self, hand: Any = None) -> Iterator[Event]:
        """Every legal placement of the player to move with ``hand`` (a list of tiles)."""
        if hand is None:
            raise ValueError(f"{self.TITLE} needs the hand of the player to move: --hand 0-1-2,3-3-5")
        tiles: Sequence[Tile] = list(hand)
        for t in tiles:
            if t in self.played:
                fld, cell = self.played[t]
                raise ValueError(f"{tile_name(t)} is already on the table at {cell_text(cell)}")
        if self.end_rule is not None:
            return
        p = self.current
        if not self.tables:
            spots = opening_placements(tiles)
        else:
            spots = (s for i, table in enumerate(self.tables) for s in field_placements(table, tiles, i))
        for fld, cell, values in spots:
            yield self.PLACE(player=p, cell=cell, values=values, field=fld)

    def can_place(self, hand: Sequence[Tile]) -> bool:
        """Whether the player to move could lay any tile of ``hand`` (the "cannot play" check)."""
        return next(iter(self.legal_placements(hand)), None) is not None

    # -- presentation ---------------------------------------------------------------------------------
    def status_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pile": self.pile, "hand_sizes": list(self.hands), "draws": self.draws}
        if self.end_rule is not None:
            out["reveals_pending"] = self.reveals_pending()
        return out

    def summary_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pile": self.pile, "hand_sizes": list(self.hands)}
        if self.end_rule is not None:
            out["reveals_pending"] = self.reveals_pending()
        return out

    def board_json(self) -> dict[str, Any]:
        return {"fields": [
            {"field": i, "tiles": [{"cell": list(c), "values": list(v), "tile": tile_name(tile_of(v) or (0, 0, 0))}
                                   for c, v in t.cells.items()]}
            for i, t in enumerate(self.tables)]}

    def tile_sum_of(self, tiles: Sequence[Tile]) -> int:
        return sum(tile_sum(t) for t in tiles)
