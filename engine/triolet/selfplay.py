"""Random legal games dealt from a real shuffled bag: for property tests and the engine benchmark.

The driver knows every rack (the engine only knows rack sizes), picks generator moves, and
exchanges or passes when T-E1 says so, then has every player reveal at the end (T-E5).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.core.events import Event, Exchange, Pass, Reveal
from engine.core.header import Header

from .events import Place
from .state import EXCHANGE_MIN_BAG, TrioletState
from .tiles import RACK_SIZE, UNSEEN, WILD, full_set

RackTile = int | str
#: Called after every applied event: (state, racks, bag tiles, event).
StepHook = Callable[[TrioletState, list[list[RackTile]], list[RackTile], Event], None]
#: Asked before every turn: whether the game stops there (unfinished).
StopRule = Callable[[TrioletState], bool]


@dataclass
class RandomGame:
    """A finished (or capped) random game: its header, events and what the driver saw."""

    header: Header
    events: list[Event] = field(default_factory=list)
    finished: bool = False
    #: stopped because nobody placed a tile for ``stuck_rounds`` rounds of exchanges
    stuck: bool = False
    generator_calls: int = 0
    placements_generated: int = 0
    generator_seconds: float = 0.0
    generator_cpu_seconds: float = 0.0


def triolet_header(players: int, first_player: int = 0, names: tuple[str, ...] | None = None) -> Header:
    """A plain Triolet header for ``players`` seats (named A, B, … unless ``names`` are given)."""
    return Header(game="triolet", players=names or tuple("ABCD"[:players]), options={}, first_player=first_player)


def rack_points(rack: list[RackTile]) -> tuple[int, ...]:
    """Point values of a rack as a reveal states them (a wild is 0, T-E5)."""
    return tuple(0 if t == WILD else int(t) for t in rack)


def take(rack: list[RackTile], event: Place) -> None:
    """Remove the placed tiles from the rack that played them."""
    for t in event.tiles:
        rack.remove(WILD if t.wild else t.value)


def play_random_game(rng: random.Random, players: int = 2, *, max_events: int | None = 400,
                     exchange_chance: float = 0.05, greedy_chance: float = 0.5,
                     on_step: StepHook | None = None, stop: StopRule | None = None,
                     stuck_rounds: int | None = None, names: tuple[str, ...] | None = None) -> RandomGame:
    """Play one random legal game; ``rng`` decides the deal and every choice.

    A player who can place does so (the best-scoring placement with ``greedy_chance``, else any),
    unless it exchanges instead with ``exchange_chance``; one who cannot exchanges while the bag
    allows it (T-E1), else passes. The game ends by the rules (every seat then reveals, T-E5), after
    ``max_events`` events (``None``: no cap), when ``stop`` says so before a turn, or after
    ``stuck_rounds`` rounds of exchanges with no placement (``stuck``)."""
    header = triolet_header(players, rng.randrange(players), names)
    state = TrioletState.new(header)
    bag: list[RackTile] = full_set()
    rng.shuffle(bag)
    del bag[:UNSEEN]
    racks = [[bag.pop() for _ in range(RACK_SIZE)] for _ in range(players)]
    game = RandomGame(header)
    idle = 0  # turns in a row without a placement

    def play(event: Event) -> None:
        state.apply(event)
        game.events.append(event)
        if on_step is not None:
            on_step(state, racks, bag, event)

    while max_events is None or len(game.events) < max_events:
        if stop is not None and stop(state):
            break
        if state.end_rule is not None:
            for seat in range(players):
                play(Reveal(player=seat, values=rack_points(racks[seat])))
            game.finished = True
            break
        seat = state.player
        rack = racks[seat]
        t0, c0 = time.perf_counter(), time.process_time()
        moves = list(state.generate_with_scores(tuple(rack)))
        game.generator_seconds += time.perf_counter() - t0
        game.generator_cpu_seconds += time.process_time() - c0
        game.generator_calls += 1
        game.placements_generated += len(moves)
        can_exchange = len(bag) >= EXCHANGE_MIN_BAG and bool(rack)
        if moves and not (can_exchange and exchange_chance > 0 and rng.random() < exchange_chance):
            if rng.random() < greedy_chance:
                best = max(score for _ev, score in moves)
                event = rng.choice([ev for ev, score in moves if score == best])
            else:
                event = rng.choice(moves)[0]
            take(rack, event)
            for _ in range(min(len(event.tiles), len(bag))):
                rack.append(bag.pop())
            play(event)
            idle = 0
        elif can_exchange:
            if stuck_rounds is not None and idle >= stuck_rounds * players:
                game.stuck = True
                break
            count = rng.randint(1, len(rack))
            rng.shuffle(rack)
            returned = [rack.pop() for _ in range(count)]
            rack.extend(bag.pop() for _ in range(count))
            bag.extend(returned)
            rng.shuffle(bag)
            play(Exchange(player=seat, count=count))
            idle += 1
        else:
            play(Pass(player=seat))
    return game
