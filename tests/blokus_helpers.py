"""Shared helpers of the Blokus Classic/Duo tests: the independent engine's fixtures, positions built from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from polyform_helpers import Fixtures

from engine.blokus import VARIANTS
from engine.blokus.board import square_board
from engine.blokus.pieces import placement_table
from engine.core import Header
from engine.polyform import Position
from engine.polyform.notation import canonical_cells

FIXTURES = Path(__file__).parent / "fixtures" / "blokus"


_FIXTURES = Fixtures("blokus")
games = _FIXTURES.games
probes = _FIXTURES.probes
perft_lines = _FIXTURES.perft_lines


def header(variant: str) -> Header:
    v = VARIANTS[variant]
    return Header(game=v.game, players=tuple(f"P{i}" for i in range(v.players)), options={"variant": variant})


def colour_name(variant: str, number: int) -> str:
    """Fixture colour 1–4 as a name of the variant."""
    return VARIANTS[variant].colour_names[number - 1]


def place_json(variant: str, number: int, move: str) -> dict[str, Any]:
    """A record line placing ``move`` for fixture colour ``number`` (the seat left to the engine)."""
    return {"type": "place", "colour": colour_name(variant, number), "cells": move}


def start_position(variant: str) -> Position:
    v = VARIANTS[variant]
    board = square_board(v.side)
    starts = tuple(1 << board.index_of_name[s] for s in v.starts)
    return Position(placement_table(v.side), v.colours, starts)


def placement_of(variant: str, move: str) -> int:
    """The placement number of a move string on the variant's board."""
    v = VARIANTS[variant]
    board = square_board(v.side)
    mask = 0
    for name in canonical_cells(move.split(",")):
        mask |= 1 << board.index_of_name[name]
    return placement_table(v.side).index_of_mask[mask]


def position_after(variant: str, moves: list[dict[str, Any]]) -> Position:
    """The board after the placed pieces ``moves`` (``{"colour", "move"}``), built without turn checks."""
    pos = start_position(variant)
    for mv in moves:
        pos.play(mv["colour"] - 1, placement_of(variant, mv["move"]))
    return pos


def move_string(variant: str, mask: int) -> str:
    return ",".join(square_board(VARIANTS[variant].side).names_of(mask))


def reply_class(codes: list[str]) -> str:
    """The independent engine's reply for a list of reason codes (first reason decides)."""
    if not codes:
        return "="
    if codes[0] in ("off_board", "not_a_piece"):
        return "? invalid move"
    if "piece_used" in codes:
        return "? piece already played"
    return "? illegal move"
