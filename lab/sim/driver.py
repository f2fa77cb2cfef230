"""A simulated table: deals real tiles, lets random or greedy players choose among the engine's
``legal_placements(hand)``, and records every event with the table's contents after it.

Works through the public engine API (``Session``-compatible events, ``board_json``); racks and
hands are kept here because the engines only know their sizes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engine.core.events import Event, Reveal
from engine.core.header import Header
from engine.core.registry import get_game
from engine.core.state import GameState
from engine.triolet.events import Place

VARIANT_PLAYERS = {"trigon": 4, "trigon_2": 2, "trigon_3": 3}


@dataclass
class SimStep:
    """One event of the game and the table right after it (``board`` = ``state.board_json()``)."""

    event: Event
    board: dict[str, Any]
    placed: list[Any] = field(default_factory=list)  # what this event put on the table


@dataclass
class SimGame:
    """A whole simulated game."""

    header: Header
    steps: list[SimStep] = field(default_factory=list)
    finished: bool = False
    #: the game stopped because nobody could place for many rounds while the bag still held ≥ 5
    #: tiles (the rules then only allow exchanges, T-E1, so a real table would give up too)
    stuck: bool = False

    @property
    def events(self) -> list[Event]:
        return [s.event for s in self.steps]


#: rounds of exchanges without any placement after which a simulated Triolet game is abandoned
STUCK_ROUNDS = 6


def _pick(rng: random.Random, state: GameState, moves: list[Event], greedy: bool) -> Event:
    if not greedy or len(moves) == 1:
        return rng.choice(moves)
    sample = moves if len(moves) <= 40 else rng.sample(moves, 40)
    scored = [(state.check(m).score, i) for i, m in enumerate(sample)]
    best = max(s for s, _ in scored)
    return sample[rng.choice([i for s, i in scored if s == best])]


def play_game(game: str, seed: int, players: int = 2, greedy: float = 0.5, max_events: int | None = None,
              variant: str | None = None, max_tiles: int | None = None) -> SimGame:
    """Play one game of ``game`` from ``seed`` (deterministic); stop early after ``max_events``
    events or (Triolet) once ``max_tiles`` tiles lie on the board."""
    rng = random.Random(seed)
    if game == "triolet":
        return _triolet(rng, players, greedy, max_events, max_tiles)
    if game == "trigon":
        return _trigon(rng, variant or "trigon", greedy, max_events)
    if game in ("triominos", "trio_domino"):
        return _tiles(rng, game, players, greedy, max_events)
    raise ValueError(f"unknown game {game!r}")


def _triolet(rng: random.Random, players: int, greedy: float, max_events: int | None,
             max_tiles: int | None = None) -> SimGame:
    """The engine's random-game driver (``engine.triolet.selfplay``), the table recorded after each
    event; exchanges only when no placement is possible, a stuck board abandoned (``STUCK_ROUNDS``)."""
    from engine.triolet.selfplay import play_random_game

    steps: list[SimStep] = []

    def record(state: Any, _racks: Any, _bag: Any, ev: Event) -> None:
        placed = [t.to_json() for t in ev.tiles] if isinstance(ev, Place) else []
        steps.append(SimStep(ev, state.board_json(), placed))

    def enough_tiles(_state: Any) -> bool:
        return max_tiles is not None and bool(steps) and len(steps[-1].board.get("tiles", [])) >= max_tiles

    game = play_random_game(rng, players, max_events=max_events, exchange_chance=0.0, greedy_chance=greedy,
                            on_step=record, stop=enough_tiles, stuck_rounds=STUCK_ROUNDS,
                            names=tuple(f"P{i + 1}" for i in range(players)))
    return SimGame(game.header, steps, game.finished, game.stuck)


def _trigon(rng: random.Random, variant: str, greedy: float, max_events: int | None) -> SimGame:
    players = VARIANT_PLAYERS.get(variant, 4)
    header = Header(game="trigon", players=tuple(f"P{i + 1}" for i in range(players)),
                    options={"variant": variant}, first_player=0)
    cls = get_game("trigon")
    state = cls.new(header)
    sim = SimGame(header)
    while max_events is None or len(sim.steps) < max_events:
        if state.outcome() is not None:
            sim.finished = True
            break
        turn = state.to_move()
        if turn.colour is None:
            sim.finished = True
            break
        moves = list(state.legal_placements())
        if not moves:
            ev = cls.parse_event({"type": "pass", "colour": turn.colour}, header)
            placed: list[Any] = []
        else:
            if rng.random() < greedy:  # big pieces first
                big = max(len(m.cells) for m in moves)  # type: ignore[attr-defined]
                moves = [m for m in moves if len(m.cells) == big]  # type: ignore[attr-defined]
            ev = rng.choice(moves)
            placed = [{"colour": ev.colour, "cells": list(ev.cells)}]  # type: ignore[attr-defined]
        state.apply(ev)
        sim.steps.append(SimStep(ev, state.board_json(), placed))
    return sim


def _tiles(rng: random.Random, game: str, players: int, greedy: float, max_events: int | None) -> SimGame:
    from lab.sim.triangle_position import all_tiles

    cls = get_game(game)
    deal = {"triominos": {2: 9, 3: 7, 4: 7, 5: 6, 6: 6}, "trio_domino": {2: 10, 3: 8, 4: 8}}[game][players]
    deck = all_tiles()
    rng.shuffle(deck)
    hands = [deck[i * deal:(i + 1) * deal] for i in range(players)]
    pile = deck[players * deal:]
    # M-P2: the highest triple opens, else the highest total
    triples = [(t[0], s, t) for s, h in enumerate(hands) for t in h if t[0] == t[2]]
    pool = triples or [(sum(t), s, t) for s, h in enumerate(hands) for t in h]
    _, first, tile = max(pool)
    header = Header(game=game, players=tuple(f"P{i + 1}" for i in range(players)), options={}, first_player=first)
    state = cls.new(header)
    sim = SimGame(header)

    def name(t: tuple[int, int, int]) -> str:
        return f"{t[0]}-{t[1]}-{t[2]}"

    def play(ev: Event) -> None:
        state.apply(ev)
        placed: list[Any] = []
        if ev.type == "place":
            vals = tuple(sorted(ev.values))  # type: ignore[attr-defined]
            hands[ev.player or 0].remove(vals)
            placed = [{"field": getattr(ev, "field", 0), "cell": list(ev.cell), "values": list(ev.values)}]  # type: ignore[attr-defined]
        elif ev.type == "draw":
            hands[ev.player or 0].append(pile.pop())
        sim.steps.append(SimStep(ev, state.board_json(), placed))

    def place_obj(p: int, cell: tuple[int, int], values: tuple[int, int, int], fld: int) -> Event:
        obj: dict[str, Any] = {"type": "place", "player": p, "cell": list(cell), "values": list(values)}
        if game == "trio_domino":
            obj["field"] = fld
        return cls.parse_event(obj, header)

    play(place_obj(first, (0, 0), tile, 0))
    while max_events is None or len(sim.steps) < max_events:
        if getattr(state, "end_rule", None) is not None or state.outcome() is not None:
            break
        bonus = getattr(state, "new_field_for", None)
        if bonus is not None and hands[bonus] and rng.random() < 0.8:
            t = rng.choice(hands[bonus])
            ev = place_obj(bonus, rng.choice([(0, 0), (1, 0)]), t, len(state.board_json().get("fields", [])))
            if state.check(ev).legal:
                play(ev)
                continue
        p = state.to_move().player
        assert p is not None
        moves = list(state.legal_placements(cls.parse_hand(",".join(name(t) for t in hands[p])))) if hands[p] else []
        draw = cls.parse_event({"type": "draw", "player": p, "count": 1}, header)
        if moves:
            play(_pick(rng, state, moves, rng.random() < greedy))
        elif pile and state.check(draw).legal:
            play(draw)
        else:
            play(cls.parse_event({"type": "pass", "player": p}, header))
    else:
        return sim
    for seat in range(players):
        if hands[seat]:
            ev = Reveal(player=seat, tiles=tuple(name(t) for t in sorted(hands[seat])))
            if state.check(ev).legal:
                play(ev)
    sim.finished = True
    return sim
