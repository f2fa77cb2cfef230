"""Shared helpers for the Triominos / Trio Domino tests (area ``tritiles``): headers, laying a list
of tiles turn by turn, hand-built positions, and a snapshot of everything a state holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core import Draw, Header, Pass, Reveal, Verdict
from engine.core.lattice import Cell
from engine.core.registry import get_game
from engine.tritiles import ALL_TILES, TileGameState, tile_name, tile_of
from engine.tritiles.tiles import Values

Lay = tuple[Cell, Values]

# Hand-built positions, found by a small search over corner numbers so that every tile is one of the
# 56, each used once, and every tile shares a side with the ones before it. The last tile of each
# list is the one under test. (M-P1, M-S1)

#: The last tile, on [0, -1], fills the middle of three hexagons at once (+70).
HEX3: list[Lay] = [
    ((0, 0), (0, 1, 4)), ((-1, 0), (4, 0, 0)), ((1, 0), (1, 0, 0)), ((-1, -1), (2, 0, 0)),
    ((1, -1), (3, 0, 0)), ((-2, -1), (0, 1, 2)), ((2, -1), (0, 3, 4)), ((-2, -2), (2, 2, 1)),
    ((2, -2), (4, 4, 3)), ((-1, -2), (2, 2, 3)), ((1, -2), (3, 3, 4)), ((0, -2), (3, 3, 2)),
    ((0, -1), (0, 2, 3)),
]
#: The last tile, on [0, -1], completes two hexagons (+60).
HEX2: list[Lay] = [
    ((0, 0), (0, 1, 4)), ((-1, 0), (4, 4, 0)), ((1, 0), (1, 0, 0)), ((-1, -1), (5, 0, 4)),
    ((1, -1), (0, 0, 0)), ((-2, -1), (4, 4, 5)), ((-2, -2), (5, 5, 4)), ((-1, -2), (5, 5, 5)),
    ((0, -2), (5, 0, 5)), ((0, -1), (0, 5, 0)),
]
#: The last tile, on [0, -1], completes one hexagon (+50).
HEX1: list[Lay] = [
    ((0, 0), (0, 1, 4)), ((-1, 0), (4, 5, 0)), ((1, 0), (1, 0, 0)), ((-1, -1), (5, 0, 5)),
    ((1, -1), (0, 0, 0)), ((0, -1), (0, 5, 0)),
]
#: A chain round a gap; the last tile, on [0, 1], shares one side with [0, 0] and its bottom corner
#: touches the tile on [1, 2]: a bridge (+40).
BRIDGE: list[Lay] = [
    ((0, 0), (1, 4, 5)), ((1, 0), (4, 1, 3)), ((2, 0), (3, 4, 4)), ((2, 1), (4, 4, 4)), ((3, 1), (4, 1, 4)),
    ((3, 2), (1, 4, 1)), ((2, 2), (4, 1, 2)), ((1, 2), (2, 4, 4)), ((0, 1), (4, 5, 4)),
]


def header(game: str, players: int = 2, first: int = 0, **options: Any) -> Header:
    return Header(game=game, players=tuple(f"P{i}" for i in range(players)), options=options, first_player=first)


def new_state(game: str, players: int = 2, first: int = 0, **options: Any) -> TileGameState:
    state = get_game(game).new(header(game, players, first, **options))
    assert isinstance(state, TileGameState)
    return state


def place(state: TileGameState, cell: Cell, values: Values, field: int = 0, player: int | None = None) -> Any:
    """A place event for ``state``'s game, by the player to move unless told."""
    return state.PLACE(player=state.current if player is None else player, cell=cell, values=values, field=field)


def lay(state: TileGameState, tiles: Sequence[Lay], field: int = 0) -> list[Verdict]:
    """Lay ``tiles`` in order, each by the player to move; every one must be legal."""
    return [state.apply(place(state, cell, values, field)) for cell, values in tiles]


def drain_pile(state: TileGameState) -> None:
    """Players draw (the most a turn allows) and pass until the pile is empty."""
    while state.pile > 0:
        p = state.current
        while state.pile > 0 and state.draws < state.MAX_DRAWS:
            state.apply(Draw(player=p, count=1))
        state.apply(Pass(player=p))


def unseen_tiles(state: TileGameState) -> list[str]:
    """Names of tiles neither on the table nor revealed, in set order."""
    shown = {t for ts in state.revealed.values() for t in ts}
    return [tile_name(t) for t in ALL_TILES if t not in state.played and t not in shown]


def reveal_any(state: TileGameState, seat: int, names: Sequence[str] | None = None) -> Verdict:
    """Reveal ``names`` (default: the first unseen tiles) for ``seat``, as many as it holds."""
    tiles = list(names) if names is not None else unseen_tiles(state)[: state.hands[seat]]
    return state.apply(Reveal(player=seat, tiles=tuple(tiles)))


def snapshot(state: TileGameState) -> tuple[Any, ...]:
    """Everything the state holds, comparable with ``==`` (to show an event changed nothing)."""
    return (
        [dict(t.cells) for t in state.tables], [dict(t.corners) for t in state.tables],
        [set(t.open_cells) for t in state.tables], dict(state.played), list(state.hands), state.pile,
        list(state.scores), state.current, state.draws, state.passes, state.new_field_for, state.out_player,
        state.last_round_left, state.end_rule, dict(state.revealed),
    )


def kinds(verdict: Verdict) -> dict[str, int]:
    """Points by breakdown kind (own items only)."""
    out: dict[str, int] = {}
    for item in verdict.breakdown:
        if item.player is None or item.player == verdict.player:
            out[item.kind] = out.get(item.kind, 0) + item.points
    return out


def tile_of_lay(lay_: Lay) -> str:
    t = tile_of(lay_[1])
    assert t is not None
    return tile_name(t)
