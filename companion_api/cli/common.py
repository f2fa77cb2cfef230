"""Helpers shared by the subcommands: errors with exit codes, JSON output, loading records."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_NO_BOARD = 3


class CliError(Exception):
    """A problem to report on one line of stderr with an exit code (2 unless told)."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


def missing_subcommand(parser: argparse.ArgumentParser, what: str) -> CliError:
    """Print ``parser``'s help on stdout and return the one-line error for a missing ``what``
    (a command, a benchmark…), naming the choices; exit 2 (INTERFACES: bad usage)."""
    parser.print_help(sys.stdout)
    choices: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            choices = list(action.choices)
    return CliError(f"{what} is required: {', '.join(choices)} (see: {parser.prog} --help)")


def emit(obj: Any) -> None:
    """Print one JSON object on its own line."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")) + "\n")


def existing_file(path: str) -> Path:
    """``path`` if it names a readable file, else a ``CliError``."""
    if not path.strip():
        raise CliError("no file named: give a path")
    p = Path(path)
    if not p.exists():
        raise CliError(f"{path}: no such file")
    if p.is_dir():
        raise CliError(f"{path}: is a folder, expected a file")
    return p


def writable_file(path: str, option: str = "") -> Path:
    """``path`` if a file can be written there (its folder exists, it is no folder), else a
    ``CliError`` naming it (after ``option``, e.g. ``--record``): checked before long work."""
    p = Path(path)
    name = f"{option} {path}" if option else path
    if p.is_dir():
        raise CliError(f"{name}: is a folder, expected a file to write")
    if not p.parent.is_dir():
        raise CliError(f"{name}: folder {p.parent} does not exist")
    return p


def seed_number(text: str) -> int:
    """An argparse type: a random seed, a whole number ≥ 0 (the renderer's generators need one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; seeds are 0 or more")
    return value
