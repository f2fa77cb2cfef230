"""Game records (``.jsonl``, INTERFACES §1): reading with line-numbered problems, and writing."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import EngineError, EventFormatError
from .events import Event
from .header import Header
from .jsonsafe import JsonInputError, loads_strict
from .registry import get_game


@dataclass(frozen=True)
class RecordProblem:
    """One bad line of a record: its 1-based line number and what is wrong with it."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class RecordError(EventFormatError):
    """A record could not be read; ``problems`` lists every bad line found."""

    def __init__(self, problems: list[RecordProblem], source: str = "record") -> None:
        self.problems = problems
        self.source = source
        first = problems[0] if problems else RecordProblem(0, "empty")
        more = len(problems) - 1
        tail = f" (and {more} more bad line{'s' if more > 1 else ''})" if more > 0 else ""
        super().__init__(f"{source} {first}{tail}")


@dataclass(frozen=True)
class RecordLine:
    """An event as read from a record: its sequence number (1 = first event) and file line."""

    seq: int
    line: int
    event: Event


@dataclass
class Record:
    """A header and its events, in play order."""

    header: Header
    lines: list[RecordLine] = field(default_factory=list)

    @property
    def events(self) -> list[Event]:
        return [rl.event for rl in self.lines]


def parse_event_line(obj: Any, header: Header) -> Event:
    """One event object of a record, for the header's game."""
    if not isinstance(obj, dict):
        raise EventFormatError("an event must be a JSON object")
    if "type" not in obj:
        raise EventFormatError('missing field "type"')
    return get_game(header.game).parse_event(obj, header)


def parse_header(obj: Any) -> Header:
    """The header object, validated against its game (players, options)."""
    if not isinstance(obj, dict):
        raise EventFormatError("the header must be a JSON object")
    header = Header.from_json(obj)
    get_game(header.game).new(header)  # validates players and options
    return header


def parse_record(lines: Iterable[str]) -> tuple[Record | None, list[RecordProblem]]:
    """Parse record text line by line; never raises on bad input, returns every problem found."""
    problems: list[RecordProblem] = []
    record: Record | None = None
    seq = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            obj = loads_strict(text, non_finite=True)  # fields name their own bad numbers
        except JsonInputError as exc:
            problems.append(RecordProblem(number, str(exc)))
            if record is None:
                return None, problems
            continue
        try:
            if record is None:
                record = Record(parse_header(obj))
                continue
            event = parse_event_line(obj, record.header)
        except (EngineError, ValueError, TypeError) as exc:
            problems.append(RecordProblem(number, str(exc) if record else f"bad header: {exc}"))
            if record is None:
                return None, problems
            continue
        seq += 1
        record.lines.append(RecordLine(seq=seq, line=number, event=event))
    if record is None and not problems:
        problems.append(RecordProblem(1, "the record is empty: line 1 must be the header"))
    return record, problems


#: Largest record file read (bytes): a long game's record is tens of kilobytes.
MAX_RECORD_BYTES = 32 * 1024 * 1024


def read_record_text(path: str | Path) -> str:
    """The text of a record file; ``RecordError`` for one that is not UTF-8 or is larger than
    ``MAX_RECORD_BYTES`` (a device or a stray file; never read whole)."""
    p = Path(path)
    with p.open("rb") as fh:
        data = fh.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError([RecordProblem(1, f"larger than {MAX_RECORD_BYTES // (1024 * 1024)} MB: "
                                            "not a game record")], str(p))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError([RecordProblem(1, f"not UTF-8 text ({exc.reason})")], str(p)) from None


def load_record(path: str | Path) -> Record:
    """Read a record file; raise ``RecordError`` naming every bad line."""
    p = Path(path)
    text = read_record_text(p)
    record, problems = parse_record(text.splitlines())
    if problems or record is None:
        raise RecordError(problems, str(p))
    return record


def dump_record(header: Header, events: Iterable[Event]) -> str:
    """The ``.jsonl`` text of a record."""
    out = [json.dumps(header.to_json(), ensure_ascii=False)]
    out.extend(json.dumps(e.to_json(), ensure_ascii=False) for e in events)
    return "\n".join(out) + "\n"


def write_record(path: str | Path, header: Header, events: Iterable[Event]) -> None:
    """Write a record file (UTF-8, one JSON object per line)."""
    Path(path).write_text(dump_record(header, events), encoding="utf-8")
