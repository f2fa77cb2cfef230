"""Triolet record lines (INTERFACES §1): parsing, bad input (EventFormatError), canonical JSON round trip."""

from __future__ import annotations

from typing import Any

import pytest
from triolet_helpers import header

from engine.core import Correct, EventFormatError, Exchange, Pass, Reveal, Undo, dump_record, parse_record
from engine.triolet import Place, PlacedTile, parse_event, place


def parse(obj: dict[str, Any]) -> Any:
    return parse_event(obj, header())


def test_place_event_with_a_wild_round_trips() -> None:
    obj = {"type": "place", "player": 1, "tiles": [{"square": "I7", "value": 4, "wild": True},
                                                   {"square": "J7", "value": 2}], "ts": 3.5, "source": "vision"}
    ev = parse(obj)
    assert ev == Place(player=1, tiles=(PlacedTile("I7", 4, True), PlacedTile("J7", 2)))
    assert ev.to_json() == obj


def test_square_names_are_case_insensitive_and_canonical_T_B1() -> None:
    ev = parse({"type": "place", "player": 0, "tiles": [{"square": "h8", "value": 1}]})
    assert ev.tiles[0].square == "H8"


def test_shared_events_parse() -> None:
    assert parse({"type": "pass", "player": 0}) == Pass(player=0)
    assert parse({"type": "exchange", "player": 1, "count": 2}) == Exchange(player=1, count=2)
    assert parse({"type": "reveal", "player": 1, "values": [5, 7]}) == Reveal(player=1, values=(5, 7))
    assert parse({"type": "undo", "seq": 2}) == Undo(player=None, seq=2)
    fixed = parse({"type": "correct", "seq": 1, "event": {"type": "place", "player": 0,
                                                          "tiles": [{"square": "H8", "value": 2}]}})
    assert fixed == Correct(player=None, seq=1, event=place(0, ("H8", 2)))


@pytest.mark.parametrize(("obj", "message"), [
    ({"type": "place", "player": 0}, 'missing field "tiles"'),
    ({"type": "place", "tiles": [{"square": "H8", "value": 1}]}, 'missing field "player"'),
    ({"type": "place", "player": 0, "tiles": []}, "at least 1"),
    ({"type": "place", "player": 0, "tiles": [{"square": "P8", "value": 1}]}, 'unknown square "P8"'),
    ({"type": "place", "player": 0, "tiles": [{"square": "H16", "value": 1}]}, 'unknown square "H16"'),
    ({"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 16}]}, "at most 15"),
    ({"type": "place", "player": 0, "tiles": [{"square": "H8", "value": -1}]}, "at least 0"),
    ({"type": "place", "player": 0, "tiles": [{"square": "H8", "value": "7"}]}, "whole number"),
    ({"type": "place", "player": 0, "tiles": [{"square": "H8"}]}, 'missing field "value"'),
    ({"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 1, "wild": "yes"}]}, "true or false"),
    ({"type": "place", "player": 0, "tiles": ["H8"]}, "JSON object"),
    ({"type": "place", "player": 0, "tiles": [{"square": "H8", "value": 1}, {"square": "H8", "value": 2}]},
     "H8 is named twice"),
    ({"type": "place", "player": 2, "tiles": [{"square": "H8", "value": 1}]}, '"player" is 2'),
    ({"type": "exchange", "player": 0}, 'missing field "count"'),
    ({"type": "reveal", "player": 0, "values": [16]}, "at most 15"),
    ({"type": "reveal", "player": 0, "tiles": ["0-1-2"]}, '"values"'),
    ({"type": "draw", "player": 0, "count": 1}, 'unknown event type "draw"'),
])
def test_malformed_events_are_format_errors(obj: dict[str, Any], message: str) -> None:
    with pytest.raises(EventFormatError, match=message):
        parse(obj)


def test_record_round_trip() -> None:
    events = [place(0, ("H8", 11), ("I8", 3)), Exchange(player=1, count=3), place(0, ("I7", 4, True)),
              Pass(player=1), Reveal(player=0, values=(5, 0))]
    text = dump_record(header(), events)
    record, problems = parse_record(text.splitlines())
    assert problems == [] and record is not None and record.events == events
    assert dump_record(record.header, record.events) == text
