"""Blokus SGF (``.blksgf``) text as a record: the main line's nodes read in order, each node's
moves as events, every bad node named by its line. Each game supplies how the root node reads
as a header and how a node's properties read as its events."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from engine.core.errors import EngineError
from engine.core.events import Event
from engine.core.header import Header
from engine.core.record import Record, RecordError, RecordLine, RecordProblem, read_record_text

from .events import PolyformPass, PolyformPlace
from .notation import join_move
from .sgf_text import SgfNode, SgfSyntaxError, escape, parse_main_line

V = TypeVar("V")


def player_keys(players: int) -> tuple[str, ...]:
    """The SGF properties naming the players: ``PB``/``PW`` for two players, else ``P1``…"""
    return ("PB", "PW") if players == 2 else tuple(f"P{i + 1}" for i in range(players))


def record_of_sgf(text: str, source: str, header_of: Callable[[SgfNode], tuple[Header, V]],
                  events_of: Callable[[SgfNode, V], list[Event]]) -> Record:
    """The record held by Blokus SGF text; bad input raises ``RecordError`` naming the line.

    ``header_of`` reads the root node as a header and the game's variant (or rules);
    ``events_of`` reads one node's moves given that variant.
    """
    try:
        nodes = parse_main_line(text)
    except SgfSyntaxError as exc:
        raise RecordError([RecordProblem(exc.line, str(exc))], source) from None
    if not nodes:
        raise RecordError([RecordProblem(1, "the SGF holds no node")], source)
    root = nodes[0]
    try:
        header, variant = header_of(root)
    except EngineError as exc:
        raise RecordError([RecordProblem(root.line, str(exc))], source) from None
    lines: list[RecordLine] = []
    problems: list[RecordProblem] = []
    for node in nodes:
        try:
            events = events_of(node, variant)
        except (EngineError, ValueError) as exc:
            problems.append(RecordProblem(node.line, str(exc)))
            continue
        for ev in events:
            lines.append(RecordLine(seq=len(lines) + 1, line=node.line, event=ev))
    if problems:
        raise RecordError(problems, source)
    return Record(header=header, lines=lines)


def load_sgf(path: str | Path, loads: Callable[[str, str], Record]) -> Record:
    """Read a ``.blksgf`` file with the game's ``loads`` (the only I/O of the readers)."""
    p = Path(path)
    return loads(read_record_text(p), str(p))


def root_properties(sgf_name: str, players: Iterable[str]) -> list[str]:
    """The root node's properties: the game, the format, and the players' names."""
    names = list(players)
    root = [f"GM[{sgf_name}]", "FF[4]", "CA[UTF-8]", "AP[Table Companion]"]
    root.extend(f"{k}[{escape(name)}]" for k, name in zip(player_keys(len(names)), names, strict=True))
    return root


def sgf_of_events(root: list[str], events: Iterable[Event], place: type[PolyformPlace], pass_: type[PolyformPass],
                  key_of: Callable[[str], str]) -> str:
    """Blokus SGF text: the root properties, then one node per placed piece (``key_of`` gives the
    move property of a colour); passes are left out, as Pentobi records none."""
    out = ["(;" + "".join(root)]
    for ev in events:
        if isinstance(ev, place):
            out.append(f";{key_of(ev.colour)}[{join_move(ev.cells)}]")
        elif not isinstance(ev, pass_):
            raise EngineError(f"a Blokus SGF holds only placed pieces, not {ev.type} events")
    return "\n".join(out) + ")\n"
