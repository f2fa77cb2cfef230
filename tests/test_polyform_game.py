"""The turn flow Blokus Classic, Duo and Trigon share (engine.polyform.game): each game's own rule
ids in its answers (K-L4/K-S2 for Classic and Duo, B-L4/B-S2 for Trigon), passes, copies, and the
legal placements it lists being legal."""

from __future__ import annotations

import pytest
from blokus_helpers import header as blokus_header
from trigon_helpers import header as trigon_header

from engine.blokus import BlokusDuoState, BlokusState
from engine.core.events import Pass
from engine.core.header import Header
from engine.polyform.events import PolyformPass, PolyformPlace
from engine.polyform.game import PolyformGame
from engine.trigon import TrigonState

#: (state class, header, turn rule, a variant where seat 0 owns two colours)
GAMES = [
    (BlokusState, blokus_header("classic"), "K-L4", blokus_header("classic_2")),
    (BlokusDuoState, blokus_header("duo"), "K-L4", None),
    (TrigonState, trigon_header("trigon"), "B-L4", trigon_header("trigon_2")),
]
IDS = ["blokus", "blokus_duo", "trigon"]


@pytest.mark.parametrize(("cls", "head", "turn_rule", "two_colours"), GAMES, ids=IDS)
def test_shared_flow_speaks_each_games_rules(cls: type[PolyformGame], head: Header, turn_rule: str,
                                             two_colours: Header | None) -> None:
    state = cls.new(head)
    assert isinstance(state, PolyformGame)
    first, second = state.variant.colour_names[:2]
    # the first colour can move: its pass is refused under the game's turn rule
    verdict = state.check(state.PASS(player=0, colour=first))
    assert not verdict.legal
    assert [(r.rule, r.code) for r in verdict.reasons] == [(turn_rule, "pass_with_legal_move")]
    # a plain pass by the seat owning the first colour is read as that colour's pass
    assert state.check(Pass(player=0)) == verdict
    # the second colour placing before the first: not its turn
    move = next(iter(cls.new(head).legal_placements()))
    assert isinstance(move, PolyformPlace)
    early = state.check(state.PLACE(player=state.seat_of(1), colour=second, cells=move.cells))
    assert [(r.rule, r.code) for r in early.reasons] == [(turn_rule, "not_your_turn")]
    if two_colours is not None:
        both = cls.new(two_colours)
        refused = both.check(Pass(player=0))
        assert [(r.rule, r.code) for r in refused.reasons] == [(turn_rule, "pass_needs_colour")]


@pytest.mark.parametrize(("cls", "head", "turn_rule", "two_colours"), GAMES, ids=IDS)
def test_listed_placements_are_legal_and_copies_are_independent(
        cls: type[PolyformGame], head: Header, turn_rule: str, two_colours: Header | None) -> None:
    state = cls.new(head)
    moves = list(state.legal_placements())
    assert moves and len(moves) == state.pos.count_legal(0)
    assert all(state.check(m).legal for m in moves[:: max(1, len(moves) // 25)])
    copy = state.copy()
    assert copy.apply(moves[0]).legal
    assert copy.mover() == 1 and state.mover() == 0
    assert state.pos.own[0] == 0 and copy.pos.own[0] != 0
    # once the first colour has moved, the second may pass only if it cannot move
    assert not copy.check(cls.PASS(player=copy.seat_of(1), colour=copy.variant.colour_names[1])).legal
    assert isinstance(cls.PASS(player=0, colour="blue"), PolyformPass)
