"""``companion check RECORD`` — adjudicate every event of a record (INTERFACES §2)."""

from __future__ import annotations

import argparse
from typing import Any

from engine.core import Session

from .common import emit
from .people import EventTable, add_format
from .records import open_record


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="adjudicate a game record: legality, score and totals of every event",
        description="Prints one JSON line per event (legal or not, with reasons and score breakdown), "
        "then a summary line. Reads .jsonl records, and .blksgf for the Blokus games (trigon, blokus, blokus_duo).",
    )
    p.add_argument("record", help="the game record (.jsonl, or .blksgf for the Blokus games)")
    add_format(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    record = open_record(args.record)
    session = Session(record.header)
    table = EventTable(record.header) if getattr(args, "format", "jsonl") == "table" else None
    for line in record.lines:
        entry = session.submit(line.event)
        if table is None:
            emit(entry.to_json())
        else:
            table.add({**line.event.to_json(), **entry.to_json()})
    if table is None:
        emit(session.summary_json())
    else:
        table.print(session.summary_json())
    return 0
