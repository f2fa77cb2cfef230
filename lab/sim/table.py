"""The engine-only simulated table (``--source sim-lite``): a real game played by the engine's generator.

The fallback for slow machines, and for when the vision tracker cannot start (the default ``sim`` is
the renderer watched by the tracker, ``lab.sim.live``). This module plays the game itself: it deals
tiles from a real shuffled bag, picks legal placements with ``state.legal_placements(rack)``,
exchanges or passes when it must, reveals the racks at the end, and draws simple top-down pictures
of the board as evidence. Triominos and Trio Domino are played the same way with real hands dealt
from the 56 tiles: the seat the header names opens (M-P2: the deal is arranged so that it holds the
best opening tile), players lay a fitting tile or draw, pass when they must, and reveal at the end.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from companion_api.board_picture import BoardPicture, crop_around, png
from companion_api.table import Observation, SourceContext, TableView
from engine.core import Draw, Event, EventMeta, Exchange, GameState, Header, Pass, Reveal, get_game

#: Triolet's tiles (RULES T-B3): value -> count, plus 2 wilds ("W").
TRIOLET_TILES: dict[int, int] = {0: 9, 1: 9, 2: 8, 3: 8, 4: 7, 5: 8, 6: 6, 7: 6, 8: 4, 9: 4, 10: 3, 11: 3,
                                 12: 2, 13: 2, 14: 1, 15: 1}
WILD = "W"

#: Placements looked at per turn when each must be judged with ``check`` (no scored generator).
CANDIDATES = 300
#: Placements looked at per turn from a generator that scores them itself.
SCORED_CANDIDATES = 20_000
#: Exchanges in a row (per player) after which the simulated players give up on a blocked board.
STUCK_ROUNDS = 4

Tile = int | str

#: Games played with triangle tiles from hands (``engine.tritiles``).
TILE_GAMES = ("triominos", "trio_domino")


@dataclass(frozen=True)
class TileSet:
    """A rack game's tiles: values with counts, wilds, rack size, tiles set aside unseen (T-B4)."""

    counts: dict[int, int]
    wilds: int = 2
    rack: int = 3
    unseen: int = 3
    board_size: int = 15

    def bag(self) -> list[Tile]:
        tiles: list[Tile] = [v for v, n in sorted(self.counts.items()) for _ in range(n)]
        return tiles + [WILD] * self.wilds


TILESETS: dict[str, TileSet] = {"triolet": TileSet(TRIOLET_TILES)}


@dataclass
class SimState:
    """The simulated players' private tiles (the engine only knows rack sizes)."""

    bag: list[Tile]
    racks: list[list[Tile]]
    board: dict[str, list[Any]] = field(default_factory=dict)  # square -> [value, wild]
    revealed: list[int] = field(default_factory=list)
    exchanges_in_row: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"bag": list(self.bag), "racks": [list(r) for r in self.racks], "board": dict(self.board),
                "revealed": list(self.revealed), "exchanges_in_row": self.exchanges_in_row}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> SimState:
        return SimState(bag=list(obj["bag"]), racks=[list(r) for r in obj["racks"]], board=dict(obj["board"]),
                        revealed=list(obj.get("revealed", [])), exchanges_in_row=int(obj.get("exchanges_in_row", 0)))


class SimulatedTable:
    """A :class:`~companion_api.table.TableSource` that plays a whole game at a steady pace."""

    def __init__(self, ctx: SourceContext, interval: float = 3.0, tiles: TileSet | None = None) -> None:
        self.header: Header = ctx.header
        self.interval = interval
        self.tiles = tiles if tiles is not None else TILESETS.get(ctx.header.game)
        self.game = get_game(ctx.header.game)
        self.rng = random.Random(ctx.seed * 1_000_003 + ctx.game_id)
        row = ctx.store.game(ctx.game_id)
        self.created = row.created if row is not None else time.time()
        players = len(ctx.header.players)
        if ctx.checkpoint is not None:
            self.sim = SimState.from_json(ctx.checkpoint)
        elif ctx.header.game in TILE_GAMES:
            self.sim = self._deal_hands(players)
        elif self.tiles is not None:
            bag = self.tiles.bag()
            self.rng.shuffle(bag)
            del bag[: self.tiles.unseen]
            racks = [[bag.pop() for _ in range(self.tiles.rack)] for _ in range(players)]
            self.sim = SimState(bag=bag, racks=racks)
        else:
            self.sim = SimState(bag=[], racks=[[] for _ in range(players)])
        size = self.tiles.board_size if self.tiles is not None else 15
        self.picture = BoardPicture(size)

    # -- the source --------------------------------------------------------------------------
    def observations(self, view: TableView) -> Iterator[Observation]:
        if self.tiles is not None:
            yield Observation(event=None, frame_png=png(self.picture.draw(self.sim.board)))
        while view.sleep(self.interval):
            state = view.state()
            obs = self.step(state)
            if obs is None:
                return
            yield obs

    def step(self, state: GameState) -> Observation | None:
        """The next thing that happens at the table, or ``None`` when the game is over."""
        if self.header.game in TILE_GAMES:
            return self._tile_turn(state)
        if state.outcome() is not None:
            return self._reveal(state)
        if self.tiles is None:
            return self._generic(state)
        player = state.to_move().player
        if player is None:
            return None
        rack = self.sim.racks[player]
        after = SimState.from_json(self.sim.to_json())
        event = self._best_placement(state, rack)
        placed: list[tuple[str, Any, bool]] = []
        if event is not None:
            for t in event.to_json().get("tiles", []):
                wild = bool(t.get("wild"))
                after.racks[player].remove(WILD if wild else int(t["value"]))
                after.board[str(t["square"])] = [t["value"], wild]
                placed.append((str(t["square"]), t["value"], wild))
            for _ in range(min(len(placed), len(after.bag))):
                after.racks[player].append(after.bag.pop())
            after.exchanges_in_row = 0
        else:
            if self.sim.exchanges_in_row >= STUCK_ROUNDS * len(self.sim.racks):
                return None  # blocked board: nobody can place and T-E1 forbids passing; the players stop
            event = self._exchange_or_pass(state, player, after)
            if event is None:
                return None
        return self._observation(event, after, [p[0] for p in placed])

    # -- choices -----------------------------------------------------------------------------
    def _meta(self) -> EventMeta:
        return EventMeta(ts=round(time.time() - self.created, 3), source="vision")

    def _best_placement(self, state: GameState, rack: list[Tile]) -> Event | None:
        if not rack:
            return None
        hand = self.game.parse_hand(",".join(str(t) for t in rack))
        scored_generator = getattr(state, "generate_with_scores", None)
        moves: list[tuple[Event, int]]
        if callable(scored_generator):
            moves = list(itertools.islice(scored_generator(hand), SCORED_CANDIDATES))
        else:
            moves = []
            for ev in itertools.islice(state.legal_placements(hand), CANDIDATES):
                verdict = state.check(ev)
                if verdict.legal:
                    moves.append((ev, verdict.score))
        if not moves:
            return None
        if self.rng.random() < 0.5:  # greedy half the time, like the engine's random self-play
            best = max(score for _ev, score in moves)
            event = self.rng.choice([ev for ev, score in moves if score == best])
        else:
            event = self.rng.choice(moves)[0]
        return _with_meta(event, self._meta())

    def _exchange_or_pass(self, state: GameState, player: int, after: SimState) -> Event | None:
        rack = after.racks[player]
        if rack and len(after.bag) >= 5:
            count = self.rng.randint(1, len(rack))
            ev: Event = Exchange(player=player, count=count, meta=self._meta())
            if state.check(ev).legal:
                after.exchanges_in_row += 1
                back = [rack.pop(self.rng.randrange(len(rack))) for _ in range(count)]
                rack.extend(after.bag.pop() for _ in range(count))
                after.bag.extend(back)
                self.rng.shuffle(after.bag)
                return ev
        ev = Pass(player=player, meta=self._meta())
        return ev if state.check(ev).legal else None

    def _reveal(self, state: GameState) -> Observation | None:
        for p, rack in enumerate(self.sim.racks):
            if p in self.sim.revealed:
                continue
            after = SimState.from_json(self.sim.to_json())
            after.revealed.append(p)
            values = tuple(0 if t == WILD else int(t) for t in rack)
            ev = Reveal(player=p, values=values, meta=self._meta())
            if state.check(ev).legal:
                return self._observation(ev, after, [], pictures=False)
            self.sim.revealed.append(p)  # the engine wants no reveal from this player
        return None

    # -- triangle tiles (Triominos, Trio Domino) -----------------------------------------------
    def _deal_hands(self, players: int) -> SimState:
        """Shuffle the 56 tiles and deal; the header's first player gets the hand with the best opener."""
        from engine.tritiles.random_game import opener
        from engine.tritiles.tiles import ALL_TILES, tile_name

        deck = list(ALL_TILES)
        self.rng.shuffle(deck)
        size = int(getattr(self.game, "DEAL", {}).get(players, 7))
        hands = [deck[i * size:(i + 1) * size] for i in range(players)]
        best, _tile = opener(hands)
        first = self.header.first_player
        hands[first], hands[best] = hands[best], hands[first]
        return SimState(bag=[tile_name(t) for t in deck[players * size:]],
                        racks=[[tile_name(t) for t in h] for h in hands])

    def _tile_turn(self, state: GameState) -> Observation | None:
        """Lay a fitting tile (the opener first), else draw, else pass; reveals once the round is over."""
        from engine.tritiles.random_game import opener
        from engine.tritiles.tiles import parse_tile_name, tile_name, tile_of

        if state.outcome() is not None or getattr(state, "end_rule", None) is not None:
            return self._reveal_tiles(state)
        after = SimState.from_json(self.sim.to_json())
        place_cls = getattr(self.game, "PLACE", None)
        fields = state.board_json().get("fields", [])
        bonus = getattr(state, "new_field_for", None)
        if bonus is not None and after.racks[bonus] and place_cls is not None and self.rng.random() < 0.8:
            tile = parse_tile_name(str(self.rng.choice(after.racks[bonus])))
            ev: Event = place_cls(player=bonus, cell=(0, 0), values=tile, field=len(fields), meta=self._meta())
            if state.check(ev).legal:
                after.racks[bonus].remove(tile_name(tile))
                return self._observation(ev, after, [])
        player = state.to_move().player
        if player is None:
            return None
        hand = [parse_tile_name(str(t)) for t in after.racks[player]]
        event: Event | None = None
        if not fields and hand and place_cls is not None:  # the opening (M-P2)
            _seat, tile = opener([hand])
            event = place_cls(player=player, cell=(0, 0), values=tile, field=0, meta=self._meta())
        elif hand:
            moves = list(itertools.islice(state.legal_placements(hand), CANDIDATES))
            if moves:
                event = _with_meta(self.rng.choice(moves), self._meta())
        if event is not None and state.check(event).legal:
            values = tile_of(event.to_json()["values"])
            if values is not None:
                after.racks[player].remove(tile_name(values))
            return self._observation(event, after, [])
        draw = Draw(player=player, count=1, meta=self._meta())
        if after.bag and state.check(draw).legal:
            after.racks[player].append(after.bag.pop())
            return self._observation(draw, after, [])
        ev = Pass(player=player, meta=self._meta())
        return self._observation(ev, after, []) if state.check(ev).legal else None

    def _reveal_tiles(self, state: GameState) -> Observation | None:
        for p, hand in enumerate(self.sim.racks):
            if p in self.sim.revealed:
                continue
            after = SimState.from_json(self.sim.to_json())
            after.revealed.append(p)
            ev = Reveal(player=p, tiles=tuple(sorted(str(t) for t in hand)), meta=self._meta())
            if hand and state.check(ev).legal:
                return self._observation(ev, after, [], pictures=False)
            self.sim.revealed.append(p)  # nothing to reveal, or the engine wants no reveal from this player
        return None

    def _generic(self, state: GameState) -> Observation | None:
        """Games without a tile set here: any legal placement, else a pass."""
        try:
            options = list(itertools.islice(state.legal_placements(None), CANDIDATES))
        except NotImplementedError:
            options = []
        legal = [ev for ev in options if state.check(ev).legal]
        if legal:
            return self._observation(_with_meta(self.rng.choice(legal), self._meta()), self.sim, [])
        turn = state.to_move()
        ev = Pass(player=turn.player, meta=self._meta())
        return self._observation(ev, self.sim, [], pictures=False) if state.check(ev).legal else None

    def _observation(self, event: Event, after: SimState, squares: list[str],
                     pictures: bool = True) -> Observation:
        def commit(seq: int, legal: bool) -> None:
            if legal:
                self.sim = after

        if self.tiles is None:  # no drawing for this game's board yet: no pictures
            return Observation(event=event, checkpoint=after.to_json(), on_commit=commit)
        before_img = self.picture.draw(self.sim.board)
        after_img = self.picture.draw(after.board, highlight=set(squares))
        region = crop_around(squares, self.picture.size)

        return Observation(
            event=event,
            before_png=png(self.picture.crop(before_img, region)) if pictures else None,
            after_png=png(self.picture.crop(after_img, region)) if pictures else None,
            frame_png=png(after_img),
            checkpoint=after.to_json(),
            on_commit=commit,
        )


def _with_meta(event: Event, meta: EventMeta) -> Event:
    """``event`` with ``meta`` (events are frozen dataclasses)."""
    import dataclasses

    return dataclasses.replace(event, meta=meta)
