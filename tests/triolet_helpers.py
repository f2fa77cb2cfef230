"""Shared helpers of the Triolet tests: positions, events, a brute-force placement enumerator,
and the random-game driver (from ``engine.triolet.selfplay``) with the tile-conservation check."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator, Mapping
from itertools import combinations, permutations
from pathlib import Path

from engine.core import Event, Header
from engine.triolet import Place, PlacedTile, TrioletState
from engine.triolet.board import COL_OF, INDEX, NAMES, ROW_OF, SIZE, SQUARES
from engine.triolet.runs import EMPTY
from engine.triolet.selfplay import RackTile, RandomGame, play_random_game, triolet_header

__all__ = ["RandomGame", "brute_force_placements", "header", "play_random_game", "position", "pt",
           "random_position", "run_cli", "tile_set"]


def header(players: int = 2, first_player: int = 0) -> Header:
    return triolet_header(players, first_player)


def pt(square: str, value: int, wild: bool = False) -> PlacedTile:
    return PlacedTile(square, value, wild)


def position(board: Mapping[str, int | tuple[int, bool]], *, players: int = 2, player: int = 0,
             opening: bool = False) -> TrioletState:
    """A position with ``board`` tiles (``{"H8": 11, "I8": (3, True)}`` – a tuple marks a wild)."""
    tiles = [PlacedTile(sq, v[0], v[1]) if isinstance(v, tuple) else PlacedTile(sq, v) for sq, v in board.items()]
    return TrioletState.from_board(header(players), tiles, player=player, opening=opening)


def tile_set(event: Place) -> frozenset[tuple[str, int, bool]]:
    return frozenset((t.square, t.value, t.wild) for t in event.tiles)


def _near_squares(state: TrioletState, reach: int) -> list[int]:
    if state.board_empty:
        c = INDEX["H8"]
        return [s for s in range(SQUARES) if abs(ROW_OF[s] - ROW_OF[c]) + abs(COL_OF[s] - COL_OF[c]) <= 2]
    occupied = [s for s in range(SQUARES) if state.values[s] != EMPTY]
    return [s for s in range(SQUARES) if state.values[s] == EMPTY
            and any(abs(ROW_OF[s] - ROW_OF[o]) + abs(COL_OF[s] - COL_OF[o]) <= reach for o in occupied)]


def candidate_square_sets(state: TrioletState, reach: int = 3, span: int = 4) -> Iterator[tuple[int, ...]]:
    """Every set of 1–3 empty squares near tiles lying in one row or column within ``span`` squares
    (gaps included, so ``check`` sees and rejects broken lines too)."""
    near = set(_near_squares(state, reach))
    for s in sorted(near):
        yield (s,)
    for horizontal in (True, False):
        step = 1 if horizontal else SIZE
        for s in sorted(near):
            pos = COL_OF[s] if horizontal else ROW_OF[s]
            others = [s + j * step for j in range(1, span) if pos + j < SIZE and s + j * step in near]
            for o in others:
                yield (s, o)
            for a, b in combinations(others, 2):
                yield (s, a, b)


def brute_force_placements(state: TrioletState, rack: tuple[RackTile, ...]) -> set[frozenset[tuple[str, int, bool]]]:
    """The placements ``check`` accepts among every candidate square set and rack assignment."""
    found: set[frozenset[tuple[str, int, bool]]] = set()
    seat = state.player
    for squares in candidate_square_sets(state):
        k = len(squares)
        for labels in set(permutations(rack, k)):
            options: list[list[tuple[int, bool]]] = [
                [(v, True) for v in range(16)] if t == "W" else [(int(t), False)] for t in labels
            ]
            for combo in _product(options):
                ev = Place(player=seat, tiles=tuple(PlacedTile(NAMES[s], v, w)
                                                    for s, (v, w) in zip(squares, combo, strict=True)))
                if state.check(ev).legal:
                    found.add(tile_set(ev))
    return found


def _product(options: list[list[tuple[int, bool]]]) -> Iterator[tuple[tuple[int, bool], ...]]:
    if not options:
        yield ()
        return
    for head in options[0]:
        for rest in _product(options[1:]):
            yield (head, *rest)


def random_position(seed: int, players: int = 2, events: int = 20) -> tuple[TrioletState, tuple[RackTile, ...]]:
    """The position after ``events`` events of a random game, and the real rack of the player to move."""
    captured: list[tuple[TrioletState, tuple[RackTile, ...]]] = []

    def hook(state: TrioletState, racks: list[list[RackTile]], _bag: list[RackTile], _ev: Event) -> None:
        if state.end_rule is None:
            captured.append((state.copy(), tuple(racks[state.player])))

    play_random_game(random.Random(seed), players, max_events=events, on_step=hook)
    return captured[-1]


ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``companion ARGS`` in a fresh interpreter (exit code, stdout and stderr as a user sees them)."""
    code = "import sys; from companion_api.cli import main; raise SystemExit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd or ROOT, capture_output=True,
                          text=True, timeout=120)
