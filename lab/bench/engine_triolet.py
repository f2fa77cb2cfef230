"""``companion bench engine --game triolet`` — Triolet engine speed on fixed random games.

Plays ``--games`` random legal games (seeded by ``--seed``) dealt from a real bag, timing the
placement generator on every turn; then replays every event through a fresh ``Session``
(check + apply), timing that. Prints events checked and placements generated per second, by
wall clock and by this process's CPU time (steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import random
import time

from companion_api.cli.common import seed_number
from companion_api.cli.text_table import format_table
from engine.core import Session
from engine.triolet.selfplay import play_random_game

DEFAULT_GAMES = 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options when this module is used as its own target (``companion bench engine`` adds the shared ones)."""
    p.add_argument("--games", type=int, default=DEFAULT_GAMES, help="how many random games to measure")
    p.add_argument("--seed", type=seed_number, default=1, help="seed of the random games")


def run(args: argparse.Namespace) -> int:
    games = args.games if getattr(args, "games", None) else DEFAULT_GAMES
    seed = getattr(args, "seed", 1)
    rng = random.Random(seed)
    played = []
    for n in range(games):
        played.append(play_random_game(random.Random(rng.getrandbits(64)), players=2 + n % 3))
    calls = sum(g.generator_calls for g in played)
    placements = sum(g.placements_generated for g in played)
    gen_seconds = sum(g.generator_seconds for g in played)
    gen_cpu = sum(g.generator_cpu_seconds for g in played)

    events = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for g in played:
        session = Session(g.header)
        for ev in g.events:
            session.submit(ev)
        events += len(g.events)
    check_seconds = time.perf_counter() - t0
    check_cpu = time.process_time() - c0

    finished = sum(1 for g in played if g.finished)
    rows = [
        ["events checked (Session: check + apply)", events, check_seconds, check_cpu,
         _rate(events, check_seconds), _rate(events, check_cpu)],
        ["placements generated (with scores)", placements, gen_seconds, gen_cpu,
         _rate(placements, gen_seconds), _rate(placements, gen_cpu)],
        ["generator calls (one per turn)", calls, gen_seconds, gen_cpu,
         _rate(calls, gen_seconds), _rate(calls, gen_cpu)],
    ]
    title = (f"Triolet engine: {games} random games (2–4 players, seed {seed}), "
             f"{finished} played to the end, {events} events")
    print(format_table(["measure", "count", "wall s", "cpu s", "per wall second", "per cpu second"], rows, title=title))
    return 0


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else 0.0
