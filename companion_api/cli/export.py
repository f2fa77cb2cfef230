"""``companion export RECORD --format blksgf|jsonl [--out FILE]`` — write a record in another format.

The record is judged first (corrections and undos applied); only its legal game events are
written. Illegal events are left out with a note on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.core import EngineError, Session, dump_record
from engine.core.events import Event

from .common import CliError
from .records import open_record

FORMATS = ("blksgf", "jsonl")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "export",
        help="write a game record as Blokus SGF (trigon, blokus, blokus_duo) or as .jsonl",
        description="Judges the record, then writes its legal events (after corrections and undos) in the "
        "chosen format: blksgf (Blokus SGF of trigon, blokus and blokus_duo games, as Pentobi reads it) "
        "or jsonl (INTERFACES §1).",
    )
    p.add_argument("record", help="the game record (.jsonl, or .blksgf for the Blokus games)")
    p.add_argument("--format", required=True, choices=FORMATS, help="output format")
    p.add_argument("--out", help="file to write (default: standard output)")
    p.set_defaults(func=run)


def legal_events(session: Session) -> tuple[list[Event], list[int]]:
    """The effective events whose verdict is legal, and the seqs of those left out."""
    verdicts = {e.seq: e.verdict.legal for e in session.entries}
    kept: list[Event] = []
    dropped: list[int] = []
    for seq, event in session.effective_events():
        if verdicts.get(seq, False):
            kept.append(event)
        else:
            dropped.append(seq)
    return kept, dropped


def run(args: argparse.Namespace) -> int:
    record = open_record(args.record)
    session = Session(record.header)
    for line in record.lines:
        session.submit(line.event)
    events, dropped = legal_events(session)
    if dropped:
        sys.stderr.write(f"companion export: left out illegal event(s) {', '.join(map(str, dropped))}\n")
    if args.format == "blksgf":
        from engine.blksgf import GAMES, dumps

        if record.header.game not in GAMES:
            raise CliError(f"blksgf holds Blokus games ({', '.join(GAMES)}); {args.record} is a "
                           f"{record.header.game} record")

        try:
            text = dumps(record.header, events)
        except (EngineError, ValueError) as exc:
            raise CliError(str(exc)) from None
    else:
        text = dump_record(record.header, events)
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CliError(f"{args.out}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return 0
