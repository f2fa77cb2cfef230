"""``companion bench engine --game G`` — rules-engine speed on fixed random games.

Each game's benchmark lives in ``lab.bench.engine_<game>`` with ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from companion_api.cli.common import CliError, seed_number
from engine.core.registry import BUILTIN_MODULES


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, choices=list(BUILTIN_MODULES), help="which game's engine")
    p.add_argument("--games", type=int, default=None, help="how many random games to measure (game default)")
    p.add_argument("--seed", type=seed_number, default=1, help="seed of the random games")


def _benches() -> dict[str, Callable[[argparse.Namespace], int]]:
    """Each game's engine benchmark."""
    from lab.bench import (
        engine_blokus,
        engine_blokus_duo,
        engine_trigon,
        engine_trio_domino,
        engine_triolet,
        engine_triominos,
    )

    return {"triolet": engine_triolet.run, "trigon": engine_trigon.run, "triominos": engine_triominos.run,
            "trio_domino": engine_trio_domino.run, "blokus": engine_blokus.run, "blokus_duo": engine_blokus_duo.run}


def run(args: argparse.Namespace) -> int:
    bench = _benches().get(args.game)
    if bench is None:
        raise CliError(f"no engine benchmark for {args.game} yet")
    return bench(args)
