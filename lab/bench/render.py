"""``companion bench render`` — synthetic renderer speed: frames rendered per second."""

from __future__ import annotations

import argparse

from lab.cli.render import _pool, add_render_arguments, bench


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_render_arguments(p)
    p.add_argument("--count", type=int, default=10, help="frames to render per size")


def run(args: argparse.Namespace) -> int:
    from companion_api.cli.common import CliError

    if args.count < 1:
        raise CliError(f"--count must be at least 1, got {args.count}")
    return bench(args.game, args.seed, args.difficulty, args.size, args.count, _pool(args.exclude_style))
