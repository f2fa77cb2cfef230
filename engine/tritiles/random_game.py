"""Seeded random whole rounds with real hands, for tests, example records and benchmarks.

The players deal from a shuffled set, open by M-P2 (highest triple, else highest tile), lay a
random fitting tile when they can (sometimes the one touching most tiles, which closes hexagons),
else draw, else pass; closing a hexagon in Trio Domino usually opens a new field; at the end every
player still holding tiles reveals them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engine.core.events import Draw, Event, Pass, Reveal
from engine.core.header import Header
from engine.core.registry import get_game

from .events import TilePlace
from .state import TileGameState
from .tiles import ALL_TILES, Tile, is_triple, tile_name, tile_of, tile_rank


@dataclass
class RandomRound:
    """A generated round: its header, its events, and the hands as dealt and as left at the end."""

    header: Header
    events: list[Event]
    dealt: list[list[Tile]]
    hands: list[list[Tile]]
    states: list[TileGameState] = field(default_factory=list)


def opener(hands: list[list[Tile]]) -> tuple[int, Tile]:
    """M-P2: the seat holding the highest triple opens with it; with no triple, the highest tile."""
    triples = [(tile_rank(t), s, t) for s, h in enumerate(hands) for t in h if is_triple(t)]
    pool = triples or [(tile_rank(t), s, t) for s, h in enumerate(hands) for t in h]
    _, seat, tile = max(pool)
    return seat, tile


def random_round(game_id: str, players: int, seed: int, options: dict[str, Any] | None = None, *,
                 keep_states: bool = False, greedy: float = 0.5, new_field: float = 0.8,
                 voluntary_draw: float = 0.05) -> RandomRound:
    """Play one random round of ``game_id`` with ``players`` seats from ``seed``."""
    rng = random.Random(seed)
    cls = get_game(game_id)
    assert issubclass(cls, TileGameState)
    deck = list(ALL_TILES)
    rng.shuffle(deck)
    size = cls.DEAL[players]
    hands = [deck[i * size:(i + 1) * size] for i in range(players)]
    pile = deck[players * size:]
    dealt = [list(h) for h in hands]
    first, opening = opener(hands)
    header = Header(game=game_id, players=tuple(f"P{i + 1}" for i in range(players)),
                    options=dict(options or {}), first_player=first)
    state = cls.new(header)
    events: list[Event] = []
    states: list[TileGameState] = []

    def play(ev: Event) -> None:
        state.apply(ev)
        events.append(ev)
        if isinstance(ev, TilePlace):
            tile = tile_of(ev.values)
            assert tile is not None
            hands[ev.player or 0].remove(tile)
        elif isinstance(ev, Draw):
            hands[ev.player or 0].append(pile.pop())
        if keep_states:
            states.append(state.copy())

    rot = opening
    play(cls.PLACE(player=first, cell=(0, 0), values=rot, field=0))
    while state.end_rule is None:
        bonus = state.new_field_for
        if bonus is not None and hands[bonus] and rng.random() < new_field:
            tile = rng.choice(hands[bonus])
            play(cls.PLACE(player=bonus, cell=rng.choice([(0, 0), (1, 0)]), values=tile,
                           field=len(state.tables)))
            continue
        p = state.current
        moves = list(state.legal_placements(hands[p]))
        may_draw = state.pile > 0 and state.draws < cls.MAX_DRAWS
        if moves and not (may_draw and rng.random() < voluntary_draw):
            if rng.random() < greedy:
                def contact(ev: Event) -> int:
                    assert isinstance(ev, TilePlace)
                    return len(state.tables[ev.field].occupied_edge_neighbours(ev.cell))
                best = max(contact(m) for m in moves)
                moves = [m for m in moves if contact(m) == best]
            play(rng.choice(moves))
        elif may_draw:
            play(Draw(player=p, count=1))
        else:
            play(Pass(player=p))
    for seat in range(players):
        if hands[seat]:
            play(Reveal(player=seat, tiles=tuple(tile_name(t) for t in sorted(hands[seat]))))
    return RandomRound(header=header, events=events, dealt=dealt, hands=hands, states=states)
