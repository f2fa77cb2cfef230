"""``companion bench engine --game trio_domino`` — rules-engine speed on fixed random rounds
(the same measurements as Triominos: events applied/judged per second, placements per second)."""

from __future__ import annotations

import argparse

from lab.bench.engine_triominos import run_tritiles


def run(args: argparse.Namespace) -> int:
    return run_tritiles(args, "trio_domino")
