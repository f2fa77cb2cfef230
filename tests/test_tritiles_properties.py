"""Property tests on seeded random whole rounds of Triominos and Trio Domino (2-4 players):
tiles are conserved (hands + pile + table = 56), no tile lies twice, every laid tile matches all
its neighbours (M-P1, D-P1), illegal events change nothing, records round-trip."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tritiles_helpers import snapshot

from engine.core import Draw, IllegalEventError, Pass, Session, dump_record, parse_record
from engine.core.registry import get_game
from engine.tritiles import ALL_TILES, Table, TileGameState, rotations, tile_of
from engine.tritiles.geometry import cells_at_vertex, edge_neighbours, vertices
from engine.tritiles.random_game import random_round

GAMES = ["triominos", "trio_domino"]
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "triominos": [{}, {"edition": "pressman"}],
    "trio_domino": [{}, {"topsy_turvy": True}],
}


def check_table(table: Table) -> None:
    """Every corner a tile shares with another tile shows the same number; the field hangs together."""
    for cell, values in table.cells.items():
        for v, n in zip(vertices(cell), values, strict=True):
            assert table.corners[v] == n
            for other in cells_at_vertex(v):
                if other in table.cells:
                    k = vertices(other).index(v)
                    assert table.cells[other][k] == n, (cell, other)
        assert len(table.cells) == 1 or any(nb in table.cells for nb in edge_neighbours(cell))


def check_invariants(state: TileGameState, dealt: int) -> None:
    assert state.tile_count() == 56
    laid = [tile_of(v) for t in state.tables for v in t.cells.values()]
    assert None not in laid and len(laid) == len(set(laid)) == len(state.played)
    for table in state.tables:
        check_table(table)
    assert all(h >= 0 for h in state.hands) and state.pile >= 0
    assert sum(state.hands) + state.pile + len(laid) == 56 and dealt > 0


def wrong_events(state: TileGameState, rng: random.Random) -> list[object]:
    """Events that are usually illegal here: wrong player, off-table cells, too many draws, early passes."""
    p = state.current
    other = (p + 1) % state.n
    out: list[object] = [Draw(player=other, count=1),
                         Pass(player=other) if state.draws == 0 else Draw(player=p, count=2)]
    for _ in range(4):
        values = (rng.randrange(6), rng.randrange(6), rng.randrange(6))
        cell = (rng.randrange(-6, 7), rng.randrange(-6, 7))
        fld = rng.randrange(len(state.tables) + 2)
        out.append(state.PLACE(player=rng.choice([p, other]), cell=cell, values=values, field=fld))
    if state.pile > 0 and state.draws < state.MAX_DRAWS:
        out.append(Pass(player=p))
    return out


@settings(derandomize=True, max_examples=60, deadline=None)
@given(game=st.sampled_from(GAMES), players=st.integers(2, 4), seed=st.integers(0, 10**6),
       variant=st.integers(0, 1))
def test_random_rounds_keep_every_invariant(game: str, players: int, seed: int, variant: int) -> None:
    rnd = random_round(game, players, seed, OPTIONS[game][variant])
    state = get_game(game).new(rnd.header)
    assert isinstance(state, TileGameState)
    rng = random.Random(seed)
    illegal = 0
    for ev in rnd.events:
        if state.end_rule is None and rng.random() < 0.3:
            for bad in wrong_events(state, rng):
                verdict = state.check(bad)  # type: ignore[arg-type]
                if verdict.legal:
                    continue
                illegal += 1
                before = snapshot(state)
                with pytest.raises(IllegalEventError):
                    state.apply(bad)  # type: ignore[arg-type]
                assert snapshot(state) == before
        state.apply(ev)
        check_invariants(state, sum(len(h) for h in rnd.dealt))
    assert state.hands == [len(h) for h in rnd.hands]
    assert state.outcome() is not None and state.reveals_pending() == []
    assert illegal > 0


@settings(derandomize=True, max_examples=30, deadline=None)
@given(game=st.sampled_from(GAMES), players=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_records_round_trip_and_recheck_the_same(game: str, players: int, seed: int) -> None:
    rnd = random_round(game, players, seed)
    text = dump_record(rnd.header, rnd.events)
    record, problems = parse_record(text.splitlines())
    assert problems == [] and record is not None
    assert record.header == rnd.header and record.events == rnd.events
    assert dump_record(record.header, record.events) == text
    session = Session(record.header)
    assert all(session.submit(ev).verdict.legal for ev in record.events)
    direct = get_game(game).new(rnd.header)
    for ev in rnd.events:
        direct.apply(ev)
    assert session.state.totals() == direct.totals()
    assert session.summary_json()["ended"] is True


@settings(derandomize=True, max_examples=20, deadline=None)
@given(game=st.sampled_from(GAMES), players=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_generated_placements_are_exactly_the_legal_ones(game: str, players: int, seed: int) -> None:
    """Every placement the generator lists is legal, and no other cell x rotation of the hand is."""
    rnd = random_round(game, players, seed, keep_states=True)
    rng = random.Random(seed)
    states = [s for s in rnd.states if s.end_rule is None and s.new_field_for is None]
    for state in rng.sample(states, min(4, len(states))):
        unplayed = [t for t in ALL_TILES
                    if t not in state.played]
        hand = rng.sample(unplayed, min(6, len(unplayed)))
        listed = {(e.field, e.cell, e.values) for e in state.legal_placements(hand)}  # type: ignore[attr-defined]
        assert all(state.check(state.PLACE(player=state.current, cell=c, values=v, field=f)).legal
                   for f, c, v in listed)
        cells = {(i, c) for i, t in enumerate(state.tables) for c in t.open_cells}
        cells |= {(i, nb) for i, t in enumerate(state.tables) for c in t.cells for nb in edge_neighbours(c)}
        for f, c in cells:
            for tile in hand:
                for v in rotations(tile):
                    legal = state.check(state.PLACE(player=state.current, cell=c, values=v, field=f)).legal
                    assert legal == ((f, c, v) in listed)
        assert state.can_place(hand) == bool(listed)
