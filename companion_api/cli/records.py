"""Loading a game from a record file of any supported format (``.jsonl``, ``.blksgf``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine import blksgf
from engine.core import EngineError, Header, Record, RecordError, load_record

from .common import CliError, existing_file

#: Readers for record formats other than ``.jsonl``, by file suffix.
FORMAT_READERS: dict[str, Callable[[Path], Record]] = {".blksgf": blksgf.load, ".sgf": blksgf.load}


def open_record(path: str) -> Record:
    """The record in ``path``; bad input becomes a one-line ``CliError`` naming the line."""
    p: Path = existing_file(path)
    try:
        reader = FORMAT_READERS.get(p.suffix.lower(), load_record)
        return reader(p)
    except RecordError as exc:
        raise CliError(str(exc)) from None
    except (EngineError, ValueError) as exc:
        raise CliError(f"{path}: {exc}") from None
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None


def header_of(record: Record) -> Header:
    return record.header
