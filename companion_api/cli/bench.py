"""``companion bench TARGET`` — speed and accuracy benchmarks that print tables.

Each target lives in ``companion_api.bench.<target>`` and defines ``add_arguments(parser)`` and
``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from .common import missing_subcommand

#: Benchmark targets and what they measure.
TARGETS = {
    "engine": "rules engine: events checked and placements generated per second",
    "read": "reading boards from rendered pictures: accuracy by difficulty, ms per frame",
    "decide": "the Triolet reader's rules alone, paired on kept evidence: boards gained and lost",
    "replay": "following rendered game videos: moves recovered, false/missed events, latency",
    "live": "the live loop on game videos with a busy core: moves exact or held, false placements; --soak",
    "serve": "live updates: latency from event commit to receipt on concurrent SSE clients",
    "render": "synthetic renderer: frames rendered per second",
}


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="run a benchmark and print its table",
                       description="Benchmarks print tables; figures depend on the machine, so compare ratios.")
    targets = p.add_subparsers(dest="target", metavar="TARGET", parser_class=type(p))
    for name, help_text in TARGETS.items():
        try:
            module = importlib.import_module(f"companion_api.bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"companion_api.bench.{name}":
                continue
            raise
        tp = targets.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(tp)
        tp.set_defaults(func=module.run)

    def no_target(_args: argparse.Namespace) -> int:
        raise missing_subcommand(p, "a benchmark")

    p.set_defaults(func=no_target)
