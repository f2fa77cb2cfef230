"""Loading a game from a record file of any supported format (``.jsonl``, ``.blksgf``)."""

from __future__ import annotations

import importlib
from pathlib import Path

from engine.core import EngineError, Header, Record, RecordError, load_record

from .common import CliError, existing_file

#: Readers for record formats other than ``.jsonl``, by file suffix: module with ``load(path) -> Record``.
FORMAT_READERS = {".blksgf": "engine.blksgf", ".sgf": "engine.blksgf"}


def open_record(path: str) -> Record:
    """The record in ``path``; bad input becomes a one-line ``CliError`` naming the line."""
    p: Path = existing_file(path)
    try:
        reader = FORMAT_READERS.get(p.suffix.lower())
        if reader is not None:
            module = importlib.import_module(reader)
            record: Record = module.load(p)
            return record
        return load_record(p)
    except RecordError as exc:
        raise CliError(str(exc)) from None
    except (EngineError, ValueError) as exc:
        raise CliError(f"{path}: {exc}") from None
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from None


def header_of(record: Record) -> Header:
    return record.header
