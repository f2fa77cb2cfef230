"""``companion bench TARGET`` — speed and accuracy benchmarks that print tables.

Each target lives in ``lab.bench.<target>`` and defines ``add_arguments(parser)`` and
``run(args) -> int``; ``bench_targets()`` lists them.
"""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import Any

from companion_api.cli.common import missing_subcommand


def bench_targets() -> dict[str, tuple[ModuleType, str]]:
    """Benchmark targets: the module (``add_arguments(parser)``, ``run(args) -> int``) and what it measures.

    Imported when the parser is built, not with this module: the benchmarks use the CLI's helpers."""
    from lab.bench import camera, decide, engine, hostile, hub, live, read, real, render, replay, serve

    return {
        "engine": (engine, "rules engine: events checked and placements generated per second"),
        "read": (read, "reading boards from rendered pictures: accuracy by difficulty, ms per frame"),
        "decide": (decide, "the Triolet reader's rules alone, paired on kept evidence: boards gained and lost"),
        "replay": (replay, "following rendered game videos: moves recovered, false/missed events, latency"),
        "live": (live, "the live loop on game videos with a busy core: moves exact or held, false placements; --soak"),
        "serve": (serve, "live updates: latency from event commit to receipt on concurrent SSE clients"),
        "camera": (camera, "the phone as the camera: moves scored, hand-leaves-to-phone latency over WS /api/camera"),
        "render": (render, "synthetic renderer: frames rendered per second"),
        "real": (real, "the square Blokus reader on labelled photographs (and renders): located, squares, perfect; "
                       "the tile reader (--game triominos|trio_domino): tiles found, invented, corner values"),
        "hub": (hub, "a club's tables on one scoreboard: commit-to-scoreboard latency and hub CPU per table"),
        "hostile": (hostile, "hostile input: fuzzed bodies, 100 MB without a token, idle sockets, picture bombs"),
    }


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="run a benchmark and print its table",
                       description="Benchmarks print tables; figures depend on the machine, so compare ratios.")
    targets = p.add_subparsers(dest="target", metavar="TARGET", parser_class=type(p))
    for name, (module, help_text) in bench_targets().items():
        tp = targets.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(tp)
        tp.set_defaults(func=module.run)

    def no_target(_args: argparse.Namespace) -> int:
        raise missing_subcommand(p, "a benchmark")

    p.set_defaults(func=no_target)
