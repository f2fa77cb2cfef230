"""Shared helpers of the trigon tests: the Pentobi reference fixtures and records built from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyform_helpers import Fixtures

from engine.core import Header
from engine.core.events import Event
from engine.trigon import TrigonPass, TrigonPlace, TrigonState
from engine.trigon.notation import canonical_cells
from engine.trigon.variants import COLOURS, VARIANTS

FIXTURES = Path(__file__).parent / "fixtures" / "trigon"
PLAYERS = {"trigon": 4, "trigon_2": 2, "trigon_3": 3, "teams": 4, "solo": 1}


_FIXTURES = Fixtures("trigon")
games = _FIXTURES.games
probes = _FIXTURES.probes
perft_lines = _FIXTURES.perft_lines


def fixture_options(variant: str) -> dict[str, Any]:
    """Options under which Pentobi's games are legal: its trigon_2 does not use B-L6."""
    options: dict[str, Any] = {"variant": variant}
    if variant == "trigon_2":
        options["symmetric_start"] = False
    return options


def header(variant: str, **options: Any) -> Header:
    opts = fixture_options(variant) if variant in ("trigon", "trigon_2", "trigon_3") else {"variant": variant}
    opts.update(options)
    names = tuple(f"P{i}" for i in range(PLAYERS[variant]))
    return Header(game="trigon", players=names, options=opts)


def colour_name(number: int) -> str:
    """Fixture colour 1–4 as a name."""
    return COLOURS[number - 1]


def place(variant: str, colour: int | str, move: str) -> TrigonPlace:
    name = colour if isinstance(colour, str) else colour_name(colour)
    seat = VARIANTS[variant].owner[COLOURS.index(name)]
    return TrigonPlace(player=seat, colour=name, cells=canonical_cells(move.split(",")))


def pass_(variant: str, colour: int | str) -> TrigonPass:
    name = colour if isinstance(colour, str) else colour_name(colour)
    return TrigonPass(player=VARIANTS[variant].owner[COLOURS.index(name)], colour=name)


def game_events(game: dict[str, Any], *, passes: bool = True) -> list[Event]:
    """The events of a fixture game; ``passes=False`` leaves the engine to skip blocked colours."""
    out: list[Event] = []
    for ply in game["plies"]:
        if "move" in ply:
            out.append(place(game["variant"], ply["colour"], ply["move"]))
        elif passes:
            out.append(pass_(game["variant"], ply["colour"]))
    return out


def state_after(variant: str, moves: list[dict[str, Any]], **options: Any) -> TrigonState:
    """The position after the placed pieces of a probe or perft line (passes skipped by the engine)."""
    state = TrigonState.new(header(variant, **options))
    for mv in moves:
        state.apply(place(variant, mv["colour"], mv["move"]))
    return state


def reply_class(codes: set[str]) -> str:
    """Pentobi's GTP reply for a set of reason codes (fixture README §6.2)."""
    if not codes:
        return "="
    if codes & {"off_board", "not_a_piece"}:
        return "? invalid move"
    if "piece_used" in codes:
        return "? piece already played"
    return "? illegal move"
