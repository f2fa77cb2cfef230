"""The ``companion`` command line. Each subcommand lives in its own module of this package; other
packages add commands through ``companion_api.plugins`` (the lab's ``render`` and ``bench``).

Exit codes (INTERFACES): 0 success, 2 bad usage or bad input (one line on stderr), 3 no board.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..plugins import command_registrars
from . import calibrate, check, export, hub, moves, read, replay, serve, tokens
from .common import CliError, missing_subcommand

#: Subcommand modules, in the order ``companion --help`` lists them (the plugged-in commands, e.g.
#: the lab's ``render`` and ``bench``, follow). Each defines ``register(subparsers)`` which adds its
#: parser and sets ``func`` (returning an exit code).
COMMAND_MODULES = (check, moves, export, read, replay, serve, hub, tokens, calibrate)


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit code 2 (as argparse does, without the usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"companion: {message} (see: {self.prog} --help)\n")
        raise SystemExit(2)


def printable(text: str) -> str:
    """``text`` on one line with control characters (a NUL, a newline read from a file) escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="companion", description="Table Companion: reads, referees and scores table games.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(sub)
    for register in command_registrars():
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        err = missing_subcommand(parser, "a command")
        sys.stderr.write(f"companion: {printable(str(err))}\n")
        return err.code
    try:
        code = int(args.func(args))
    except CliError as exc:
        sys.stderr.write(f"companion {args.command}: {printable(str(exc))}\n")
        return exc.code
    except KeyboardInterrupt:
        sys.stderr.write("companion: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: one clear line (the traceback with COMPANION_DEBUG=1), never lost quietly
        if os.environ.get("COMPANION_DEBUG"):
            raise
        sys.stderr.write(f"companion {args.command}: internal error ({type(exc).__name__}: {exc}); "
                         "run again with COMPANION_DEBUG=1 for the traceback and please report it\n")
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
