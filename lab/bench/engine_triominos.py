"""``companion bench engine --game triominos`` — rules-engine speed on fixed random rounds.

Measures, per player count, events applied per second (check + apply), events judged per second
through a ``Session`` (check lines as JSON), and placements generated per second for a random
7-tile hand at every position before a placement. Trio Domino's benchmark reuses this.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table
from engine.core import Session
from engine.core.registry import get_game
from engine.tritiles import ALL_TILES, TileGameState, TilePlace
from engine.tritiles.random_game import RandomRound, random_round

DEFAULT_GAMES = 30
HAND = 7


def run(args: argparse.Namespace) -> int:
    return run_tritiles(args, "triominos")


def run_tritiles(args: argparse.Namespace, game: str) -> int:
    """Print the benchmark table for ``game`` (``triominos`` or ``trio_domino``)."""
    games = DEFAULT_GAMES if args.games is None else args.games
    if games < 1:
        raise CliError(f"--games must be at least 1, not {games}")
    rows = []
    totals: dict[str, float] = {}
    for players in (2, 3, 4):
        rounds = [random_round(game, players, args.seed * 1000 + players * 100 + i) for i in range(games)]
        stats = measure(game, rounds, random.Random(args.seed))
        for k, v in stats.items():
            totals[k] = totals.get(k, 0.0) + v
        rows.append(row(f"{players} players", games, stats))
    rows.append(row("all", games * 3, totals))
    print(format_table(
        ["rounds", "games", "events", "events/s (apply)", "events/s (session+JSON)", "positions",
         "placements", "placements/s", "hands/s"],
        rows, title=f"engine {game}: fixed random rounds, seed {args.seed}, {HAND}-tile hands"))
    return 0


def row(label: str, games: int, s: dict[str, float]) -> list[Any]:
    return [label, games, int(s["events"]), s["events"] / s["t_apply"], s["events"] / s["t_session"],
            int(s["positions"]), int(s["placements"]), s["placements"] / s["t_gen"], s["positions"] / s["t_gen"]]


def measure(game: str, rounds: list[RandomRound], rng: random.Random) -> dict[str, float]:
    """Timings over ``rounds``: apply, session (with JSON lines), and the placement generator."""
    cls = get_game(game)
    events = sum(len(r.events) for r in rounds)
    start = time.perf_counter()
    for r in rounds:
        state = cls.new(r.header)
        for ev in r.events:
            state.apply(ev)
    t_apply = time.perf_counter() - start

    start = time.perf_counter()
    for r in rounds:
        session = Session(r.header)
        for ev in r.events:
            json.dumps(session.submit(ev).to_json())
    t_session = time.perf_counter() - start

    positions = placements = 0
    t_gen = 0.0
    for r in rounds:
        state = cls.new(r.header)
        assert isinstance(state, TileGameState)
        for ev in r.events:
            if isinstance(ev, TilePlace) and state.tables:
                unplayed = [t for t in ALL_TILES if t not in state.played]
                hand = rng.sample(unplayed, min(HAND, len(unplayed)))
                t0 = time.perf_counter()
                placements += sum(1 for _ in state.legal_placements(hand))
                t_gen += time.perf_counter() - t0
                positions += 1
            state.apply(ev)
    return {"events": events, "t_apply": t_apply, "t_session": t_session, "positions": positions,
            "placements": placements, "t_gen": max(t_gen, 1e-9)}
