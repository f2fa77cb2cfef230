"""``companion moves RECORD`` — the legal placements for the side to move (INTERFACES §2b)."""

from __future__ import annotations

import argparse
from typing import Any

from engine.core import EngineError, Session

from .common import CliError, emit
from .people import add_format, print_moves
from .records import open_record


def register(sub: Any) -> None:
    p = sub.add_parser(
        "moves",
        help="list the legal placements for the player or colour to move after a record",
        description="Prints one place event per line, then {\"count\": N}. Triolet needs --rack, "
        "Triominos and Trio Domino need --hand.",
    )
    p.add_argument("record", help="the game record (.jsonl, or .blksgf for the Blokus games)")
    p.add_argument("--count", action="store_true", help="print only the count")
    p.add_argument("--rack", help="Triolet rack, e.g. 3,5,W (W = a wild; every declared value is tried)")
    p.add_argument("--hand", help="Triominos/Trio Domino hand, e.g. 0-1-2,3-3-5")
    add_format(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    record = open_record(args.record)
    session = Session(record.header)
    for line in record.lines:
        session.submit(line.event)
    state = session.state
    hand_text = args.rack if args.rack is not None else args.hand
    try:
        hand = state.parse_hand(hand_text) if hand_text is not None else None
    except NotImplementedError:
        raise CliError(f"{record.header.game} takes no --rack/--hand") from None
    except (EngineError, ValueError) as exc:
        raise CliError(f"bad {'--rack' if args.rack is not None else '--hand'}: {exc}") from None
    if state.is_over():
        placements: list[Any] = []
    else:
        try:
            placements = list(state.legal_placements(hand))
        except (EngineError, ValueError) as exc:
            raise CliError(str(exc)) from None
    if getattr(args, "format", "jsonl") == "table":
        turn = None if state.is_over() else state.to_move().to_json()
        print_moves(record.header, turn, [ev.to_json() for ev in placements], args.count)
        return 0
    if not args.count:
        for ev in placements:
            emit(ev.to_json())
    emit({"count": len(placements)})
    return 0
