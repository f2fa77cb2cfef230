"""``companion bench engine --game blokus_duo`` — the Blokus benchmark on the Duo board."""

from __future__ import annotations

import argparse

from lab.bench.engine_blokus import run_game


def run(args: argparse.Namespace) -> int:
    return run_game(args, "blokus_duo")
