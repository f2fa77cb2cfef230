"""The Triolet game state: board, scores, bag and rack sizes, turn order and the end (T-S7, T-E1–T-E5).

The camera never sees the racks, so the state knows only how many tiles each rack holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Self

from engine.core.errors import OptionsError
from engine.core.events import Event, Exchange, Pass, Reveal
from engine.core.header import Header
from engine.core.registry import register
from engine.core.state import GameState, Outcome, Turn
from engine.core.verdict import Reason, ScoreItem, Verdict

from .board import CENTRE, INDEX, NAMES, REPLAY_SQUARES, SQUARES
from .events import Place, PlacedTile, parse_event
from .rules import (
    Tile,
    block_reasons,
    contact_reasons,
    count_reasons,
    geometry_reasons,
    run_reasons,
    wild_reasons,
)
from .runs import EMPTY
from .scoring import score_placement
from .tiles import MAX_VALUE, RACK_SIZE, UNSEEN, VALUE_COUNTS, WILDS, initial_bag

MIN_PLAYERS = 2
MAX_PLAYERS = 4
#: T-E1: exchanging needs at least this many tiles in the bag; passing needs fewer.
EXCHANGE_MIN_BAG = 5


@register
class TrioletState(GameState):
    """A Triolet position: what lies on the board, the scores, the bag, and who is to move."""

    GAME_ID = "triolet"
    TITLE = "Triolet"

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        n = len(header.players)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise OptionsError(f"Triolet is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
        if header.options:
            raise OptionsError(f"Triolet has no options; got {', '.join(sorted(header.options))}")
        self.values: list[int] = [EMPTY] * SQUARES
        self.wilds: list[bool] = [False] * SQUARES
        self.board_counts: list[int] = [0] * len(VALUE_COUNTS)
        self.board_wilds = 0
        self.on_board = 0
        self.scores: list[int] = [0] * n
        self.racks: list[int] = [RACK_SIZE] * n
        self.bag = initial_bag(n)
        self.player = header.first_player
        self.replay = False
        #: completed turns; the opening round (T-P5) lasts while fewer than one per player
        self.turns = 0
        #: passes in succession (T-E4)
        self.passes = 0
        self.end_rule: str | None = None
        #: the seat that emptied its rack (T-E3)
        self.ender: int | None = None
        self.revealed: dict[int, tuple[int, ...]] = {}
        #: bumped by every change, so ``apply`` can reuse the verdict ``check`` just gave
        self._version = 0
        self._memo: tuple[Event, int, Verdict] | None = None

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        return parse_event(obj, header)

    @classmethod
    def from_board(cls, header: Header, tiles: Sequence[PlacedTile], *, player: int | None = None,
                   opening: bool = False) -> Self:
        """A mid-game position with ``tiles`` already on the board (for examples and tests).

        The tiles are taken from the bag (racks stay full); the opening round is over unless
        ``opening``; ``player`` (default: the header's first player) is to move.
        """
        state = cls.new(header)
        for t in tiles:
            i = INDEX[t.square]
            if state.values[i] != EMPTY:
                raise ValueError(f"square {t.square} is given twice")
            state._put(i, t.value, t.wild)
        if any(n > VALUE_COUNTS[v] for v, n in enumerate(state.board_counts)) or state.board_wilds > WILDS:
            raise ValueError("more tiles of one value than the game has (T-B3)")
        state.bag -= len(tiles)
        if state.bag < 0:
            raise ValueError("more tiles on the board than the bag can supply")
        state.turns = 0 if opening else len(header.players)
        if player is not None:
            state.player = player
        return state

    def copy(self) -> Self:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name in ("values", "wilds", "board_counts", "scores", "racks"):
            setattr(new, name, list(getattr(self, name)))
        new.revealed = dict(self.revealed)
        return new

    # -- views ----------------------------------------------------------------------------------
    @property
    def players(self) -> int:
        return len(self.header.players)

    @property
    def board_empty(self) -> bool:
        return self.on_board == 0

    @property
    def opening(self) -> bool:
        """Whether the opening round (each player's first turn with its replays) is on (T-P5)."""
        return self.turns < self.players

    def rack_size(self, seat: int) -> int:
        return self.racks[seat]

    def tile_at(self, square: str) -> PlacedTile | None:
        i = INDEX[square]
        if self.values[i] == EMPTY:
            return None
        return PlacedTile(square, self.values[i], self.wilds[i])

    def board_tiles(self) -> list[PlacedTile]:
        """Every tile on the board, in board order."""
        return [PlacedTile(NAMES[i], v, self.wilds[i]) for i, v in enumerate(self.values) if v != EMPTY]

    def tiles_accounted(self) -> int:
        """Bag + racks + board + the 3 unseen tiles: always 83 (T-B3, T-B4, T-E2)."""
        return self.bag + sum(self.racks) + self.on_board + UNSEEN

    def snapshot(self) -> tuple[Any, ...]:
        """Everything that makes up the position, for comparing two states."""
        return (tuple(self.values), tuple(self.wilds), tuple(self.scores), tuple(self.racks), self.bag,
                self.player, self.replay, self.turns, self.passes, self.end_rule, self.ender,
                tuple(sorted(self.revealed.items())))

    def name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < self.players:
            return f"player {seat}"
        return self.header.players[seat]

    # -- rules ----------------------------------------------------------------------------------
    def check(self, event: Event) -> Verdict:
        memo = self._memo
        if memo is not None and memo[0] is event and memo[1] == self._version:
            return memo[2]
        verdict = self._judge(event)
        self._memo = (event, self._version, verdict)
        return verdict

    def _judge(self, event: Event) -> Verdict:
        if isinstance(event, Place):
            return self._check_place(event)
        if isinstance(event, Exchange):
            return self._check_exchange(event)
        if isinstance(event, Pass):
            return self._check_pass(event)
        if isinstance(event, Reveal):
            return self._check_reveal(event)
        return Verdict.illegal(event.player, Reason("T-E1", "unknown_event",
                                                    f"a {event.type} event has no meaning in Triolet"))

    def _turn_reason(self, event: Event) -> Reason | None:
        if self.end_rule is not None:
            return Reason(self.end_rule, "game_over",
                          f"the game is over ({self.end_rule}): only the players' reveals (T-E5) may follow")
        if event.player != self.player:
            rule = "T-S7" if self.replay else "T-E1"
            extra = " (a replay turn)" if self.replay else ""
            return Reason(rule, "not_your_turn",
                          f"it is {self.name(self.player)}'s turn{extra}, not {self.name(event.player)}'s")
        return None

    def placed_tiles(self, event: Place) -> list[Tile]:
        return [(INDEX[t.square], t.value, t.wild) for t in event.tiles]

    @staticmethod
    def _shape_reason(event: Place) -> Reason | None:
        """What ``parse_event`` would have refused, for events built in code rather than read."""
        squares = [t.square for t in event.tiles]
        if not squares:
            return Reason("T-P1", "no_tiles", "a placement puts 1 to 3 tiles on the board")
        unknown = [sq for sq in squares if sq not in INDEX]
        if unknown:
            return Reason("T-B1", "unknown_square", f"unknown square {unknown[0]!r} (squares are A1 to O15)")
        bad = [t for t in event.tiles if not 0 <= t.value <= MAX_VALUE]
        if bad:
            return Reason("T-B3", "bad_value", f"tile values run from 0 to {MAX_VALUE}, not {bad[0].value}",
                          (bad[0].square,))
        if len(set(squares)) < len(squares):
            twice = next(sq for sq in squares if squares.count(sq) > 1)
            return Reason("T-P1", "square_twice", f"square {twice} is named twice in one placement", (twice,))
        return None

    def _check_place(self, event: Place) -> Verdict:
        turn = self._turn_reason(event) or self._shape_reason(event)
        if turn is not None:
            return Verdict.illegal(event.player, turn)
        tiles = self.placed_tiles(event)
        squares = [t[0] for t in tiles]
        reasons = geometry_reasons(self.values, tiles, self.racks[self.player], self.name(self.player))
        if reasons:
            return Verdict.illegal(event.player, *reasons)
        after, wilds_after = self._overlay(tiles)
        reasons = contact_reasons(self.values, squares, self.board_empty)
        reasons += run_reasons(after, wilds_after, squares)
        reasons += block_reasons(after, squares, self.opening)
        reasons += wild_reasons(tiles)
        reasons += count_reasons(self.board_counts, self.board_wilds, tiles)
        if reasons:
            return Verdict.illegal(event.player, *reasons)
        return Verdict(legal=True, player=event.player, breakdown=score_placement(after, wilds_after, squares))

    def _overlay(self, tiles: Sequence[Tile]) -> tuple[list[int], list[bool]]:
        after = list(self.values)
        wilds_after = list(self.wilds)
        for s, v, w in tiles:
            after[s] = v
            wilds_after[s] = w
        return after, wilds_after

    def _check_exchange(self, event: Exchange) -> Verdict:
        turn = self._turn_reason(event)
        if turn is not None:
            return Verdict.illegal(event.player, turn)
        reasons: list[Reason] = []
        if self.bag < EXCHANGE_MIN_BAG:
            reasons.append(Reason("T-E1", "exchange_bag_low",
                                  f"the bag holds {self.bag} tile{'s' if self.bag != 1 else ''}: exchanging needs "
                                  f"at least {EXCHANGE_MIN_BAG}"))
        held = self.racks[self.player]
        if event.count > min(RACK_SIZE, held):
            reasons.append(Reason("T-E1", "exchange_too_many",
                                  f"{self.name(self.player)} holds {held} tile{'s' if held != 1 else ''}: "
                                  f"cannot exchange {event.count} (1 to 3 tiles of the rack)"))
        if reasons:
            return Verdict.illegal(event.player, *reasons)
        return Verdict(legal=True, player=event.player)

    def _check_pass(self, event: Pass) -> Verdict:
        turn = self._turn_reason(event)
        if turn is not None:
            return Verdict.illegal(event.player, turn)
        if self.bag >= EXCHANGE_MIN_BAG:
            return Verdict.illegal(event.player, Reason(
                "T-E1", "pass_not_allowed",
                f"the bag holds {self.bag} tiles: a player may pass only when it holds fewer than "
                f"{EXCHANGE_MIN_BAG} (exchange tiles instead)"))
        return Verdict(legal=True, player=event.player)

    def _check_reveal(self, event: Reveal) -> Verdict:
        seat = event.player
        values = event.values or ()
        if self.end_rule is None or seat is None:
            return Verdict.illegal(seat, Reason("T-E5", "reveal_before_end",
                                                "racks are revealed only once the game is over"))
        if seat in self.revealed:
            return Verdict.illegal(seat, Reason("T-E5", "already_revealed",
                                                f"{self.name(seat)} has already revealed their rack"))
        held = self.racks[seat]
        if len(values) > held:
            return Verdict.illegal(seat, Reason(
                "T-E5", "reveal_too_many",
                f"{self.name(seat)} holds {held} tile{'s' if held != 1 else ''} but revealed {len(values)} values"))
        count_problem = self._reveal_count_reason(values)
        if count_problem is not None:
            return Verdict.illegal(seat, count_problem)
        total = sum(values)
        listed = " + ".join(str(v) for v in values) + (f" = {total}" if len(values) > 1 else "")
        if self.end_rule == "T-E3":
            if seat == self.ender or not values:
                return Verdict(legal=True, player=seat)
            item = ScoreItem("remaining", total, "T-E3", (), player=self.ender,
                             detail=f"{self.name(seat)}'s rack: {listed}, "
                                    f"added to {self.name(self.ender)}")
            return Verdict(legal=True, player=seat, breakdown=(item,))
        if not values:
            return Verdict(legal=True, player=seat)
        item = ScoreItem("remaining", -total, "T-E4", (),
                         detail=f"{self.name(seat)}'s rack: {listed}, subtracted")
        return Verdict(legal=True, player=seat, breakdown=(item,))

    def _reveal_count_reason(self, values: Sequence[int]) -> Reason | None:
        """T-P7 for revealed racks: values cannot outnumber the tiles not on the board (0 may be a wild)."""
        seen = [0] * len(VALUE_COUNTS)
        for vals in self.revealed.values():
            for v in vals:
                seen[v] += 1
        for v in values:
            seen[v] += 1
        for v, n in enumerate(seen):
            left = VALUE_COUNTS[v] - self.board_counts[v] + (WILDS - self.board_wilds if v == 0 else 0)
            if n > left:
                return Reason("T-P7", "reveal_count_exceeded",
                              f"only {left} tile{'s' if left != 1 else ''} worth {v} can still be on the racks, "
                              f"but {n} have been revealed")
        return None

    # -- changing the state ---------------------------------------------------------------------
    def _put(self, i: int, value: int, wild: bool) -> None:
        self.values[i] = value
        self.wilds[i] = wild
        self.on_board += 1
        if wild:
            self.board_wilds += 1
        else:
            self.board_counts[value] += 1

    def _push(self, event: Event, verdict: Verdict) -> None:
        self._version += 1
        self._memo = None
        for seat, delta in enumerate(verdict.points_by_player(self.players)):
            self.scores[seat] += delta
        if isinstance(event, Place):
            self._push_place(event)
        elif isinstance(event, Exchange):
            self.passes = 0
            self._next_turn()
        elif isinstance(event, Pass):
            self.passes += 1
            if self.passes >= self.players:
                self.end_rule = "T-E4"
            else:
                self._next_turn()
        elif isinstance(event, Reveal):
            assert event.player is not None
            self.revealed[event.player] = tuple(event.values or ())

    def _push_place(self, event: Place) -> None:
        tiles = self.placed_tiles(event)
        for s, v, w in tiles:
            self._put(s, v, w)
        seat = self.player
        k = len(tiles)
        drawn = min(k, self.bag)  # T-E2
        self.racks[seat] += drawn - k
        self.bag -= drawn
        self.passes = 0
        if self.bag == 0 and self.racks[seat] == 0:  # T-E3
            self.end_rule = "T-E3"
            self.ender = seat
        elif any(s in REPLAY_SQUARES for s, _v, _w in tiles):  # T-S7
            self.replay = True
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        self.turns += 1
        self.replay = False
        self.player = (self.player + 1) % self.players

    # -- turn and results -----------------------------------------------------------------------
    def to_move(self) -> Turn:
        if self.end_rule is not None:
            return Turn(player=None)
        return Turn(player=self.player, replay=self.replay)

    def totals(self) -> list[int]:
        return list(self.scores)

    def outcome(self) -> Outcome | None:
        if self.end_rule is None:
            return None
        best = max(self.scores)
        winners = tuple(i for i, s in enumerate(self.scores) if s == best)
        return Outcome(self.end_rule, winners, tuple(self.scores))

    def reveals_pending(self) -> list[int]:
        """Seats still holding tiles whose end-of-game reveal (T-E5) has not come yet (none before the end).

        A seat with an empty rack (the one that went out, T-E3) has nothing to reveal; its empty
        reveal is accepted all the same.
        """
        if self.end_rule is None:
            return []
        return [p for p in range(self.players) if p not in self.revealed and self.racks[p] > 0]

    # -- generation -----------------------------------------------------------------------------
    def legal_placements(self, hand: Any = None) -> Iterator[Event]:
        from .generator import generate

        if hand is None:
            raise ValueError("Triolet needs the rack of the player to move, e.g. --rack 3,5,W")
        for event, _items in generate(self, hand):
            yield event

    def generate_with_scores(self, rack: object) -> Iterator[tuple[Place, int]]:
        """Every legal placement of ``rack`` (values and ``"W"``) with the score it earns."""
        from .generator import generate

        for event, items in generate(self, rack):
            yield event, sum(i.points for i in items)

    @classmethod
    def parse_hand(cls, text: str) -> Any:
        from .rack import parse_rack

        return parse_rack(text)

    # -- presentation ---------------------------------------------------------------------------
    def status_json(self) -> dict[str, Any]:
        return {"bag": self.bag, "rack_sizes": list(self.racks)}

    def summary_json(self) -> dict[str, Any]:
        return {"bag": self.bag, "rack_sizes": list(self.racks), "reveals_pending": self.reveals_pending()}

    def board_json(self) -> dict[str, Any]:
        return {
            "size": 15,
            "centre": NAMES[CENTRE],
            "tiles": [t.to_json() for t in self.board_tiles()],
            "bag": self.bag,
            "rack_sizes": list(self.racks),
        }
