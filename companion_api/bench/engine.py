"""``companion bench engine --game G`` — rules-engine speed on fixed random games.

Each game's benchmark lives in ``companion_api.bench.engine_<game>`` with ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib

from engine.core.registry import BUILTIN_MODULES

from ..cli.common import CliError, seed_number


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, choices=list(BUILTIN_MODULES), help="which game's engine")
    p.add_argument("--games", type=int, default=None, help="how many random games to measure (game default)")
    p.add_argument("--seed", type=seed_number, default=1, help="seed of the random games")


def run(args: argparse.Namespace) -> int:
    try:
        module = importlib.import_module(f"companion_api.bench.engine_{args.game}")
    except ModuleNotFoundError:
        raise CliError(f"no engine benchmark for {args.game} yet") from None
    code: int = module.run(args)
    return code
