"""The Blokus followers catch up with pieces laid while the board was not seen (the reader lost the
board, a hand stayed): once a reading shows them, every piece is committed in play order, each
colour's pieces in an order the rules allow (K-L3, K-L4; Trigon B-L3, B-L4), with no illegal report."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.core.events import EventMeta
from engine.core.session import Session
from lab.render.povray.blokus_game import game_header, random_game
from vision.read.blokus.reading import BlokusReading, BlokusSquare
from vision.read.trigon.reading import TrigonCell, TrigonReading
from vision.track.blokus_follower import BlokusFollower
from vision.track.follower import committed_places
from vision.track.observer import Frame
from vision.track.piece_follower import PieceFollower
from vision.track.trigon_follower import TrigonFollower


def _reading(game: str, cells: dict[str, str]) -> Any:
    if game == "trigon":
        return TrigonReading("trigon", (), tuple(TrigonCell(c, col, 0.99) for c, col in cells.items()), 1.0)
    return BlokusReading(game, (), tuple(BlokusSquare(c, col, 0.99) for c, col in cells.items()), 1.0)


@pytest.mark.parametrize(("game", "seed", "seen", "hidden"), [
    ("blokus_duo", 2, 1, 9), ("blokus", 1, 2, 10), ("trigon", 1, 4, 10), ("blokus_duo", 5, 0, 7)])
def test_pieces_laid_unseen_are_all_committed_when_the_board_is_seen_again(game: str, seed: int, seen: int,
                                                                           hidden: int) -> None:
    header = game_header(game)
    moves = random_game(header, seed, seen + hidden)
    assert len(moves) == seen + hidden
    session = Session(header)
    follower: PieceFollower = TrigonFollower() if game == "trigon" else BlokusFollower()
    board: dict[str, str] = {}
    t = 0.0

    def look() -> list[str]:
        nonlocal t
        t += 1.0
        return [d.kind for d in follower.decide(session, _reading(game, board), Frame(0, t, np.zeros((1, 1, 3))),
                                                EventMeta(ts=t))]

    for ev in moves[:seen]:  # followed move by move
        board |= {c: ev.colour for c in ev.cells}
        assert look() == ["place"]
    for ev in moves[seen:]:  # laid while the board was not found
        board |= {c: ev.colour for c in ev.cells}
    assert look() == ["place"] * hidden
    got = [ev for _seq, ev in committed_places(session, type(moves[0]))]
    assert [ev.colour for ev in got] == [ev.colour for ev in moves]
    assert {(ev.colour, ev.cells) for ev in got} == {(ev.colour, tuple(ev.cells)) for ev in moves}
    assert look() == []  # nothing more to do
