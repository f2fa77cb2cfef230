"""Reading and writing records (INTERFACES §1): every bad line is reported with its number."""

from __future__ import annotations

import json

from core_helpers import Add, header

from engine.core import dump_record, parse_record
from engine.core.events import EventMeta

HEADER = json.dumps({"format": "table-companion/1", "game": "test_counter", "players": ["A", "B"]})


def test_round_trip_keeps_events_and_metadata() -> None:
    events = [Add(player=0, value=3, meta=EventMeta(ts=1.5, source="vision", frame=12)), Add(player=1, value=4)]
    text = dump_record(header(), events)
    record, problems = parse_record(text.splitlines())
    assert problems == [] and record is not None
    assert record.events == events
    assert record.events[0].meta.frame == 12
    assert dump_record(record.header, record.events) == text


def test_each_bad_line_is_reported_with_its_number() -> None:
    lines = [
        HEADER,
        '{"type": "place", "player": 0, "value": 3}',
        '{"type": "place", "player": 0, "value": ',
        '{"type": "place", "value": 3}',
        '{"type": "place", "player": 5, "value": 3}',
        '[1, 2]',
        '{"player": 1}',
        '{"type": "place", "player": 1, "value": true}',
    ]
    record, problems = parse_record(lines)
    assert record is not None and len(record.lines) == 1
    assert [p.line for p in problems] == [3, 4, 5, 6, 7, 8]
    text = [str(p) for p in problems]
    assert "not valid JSON" in text[0]
    assert 'missing field "player"' in text[1]
    assert "at most 1" in text[2]
    assert "JSON object" in text[3]
    assert '"type"' in text[4]
    assert "whole number" in text[5]


def test_bad_headers_stop_reading() -> None:
    for first, expect in [
        ("", "empty"),
        ('{"format": "other/2", "game": "test_counter", "players": ["A"]}', "format"),
        ('{"format": "table-companion/1", "game": "chess", "players": ["A"]}', "unknown game"),
        ('{"format": "table-companion/1", "game": "test_counter", "players": []}', "at least 1"),
    ]:
        record, problems = parse_record([first] if first else [])
        assert record is None and len(problems) == 1 and expect in str(problems[0]), (first, problems)
