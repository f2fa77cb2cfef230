"""Property tests on random legal games dealt from a real bag (fixed seeds, hypothesis derandomized)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from triolet_helpers import brute_force_placements, play_random_game, random_position, tile_set

from engine.core import Event, Exchange, IllegalEventError, Pass, Reveal, Session, dump_record, parse_record
from engine.triolet import Place, PlacedTile, TrioletState, generate
from engine.triolet.board import NAMES, NEIGHBOURS, SQUARES
from engine.triolet.runs import EMPTY
from engine.triolet.selfplay import RackTile

GAMES = settings(derandomize=True, max_examples=12, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


def random_probes(state: TrioletState, rng: random.Random, n: int) -> list[Event]:
    """Events of every kind around the tiles on the board: mostly illegal, some legal."""
    near = [s for s in range(SQUARES) if any(state.values[m] != EMPTY for m in NEIGHBOURS[s])] or [112]
    seat = state.player if state.end_rule is None else 0
    probes: list[Event] = [Pass(player=seat), Exchange(player=seat, count=3), Reveal(player=seat, values=(1, 2)),
                           Place(player=(seat + 1) % state.players, tiles=(PlacedTile(NAMES[near[0]], 0),))]
    for _ in range(n):
        s = rng.choice(near)
        step = rng.choice((1, 15))
        k = rng.randint(1, 3)
        squares = [s + j * step for j in range(k) if s + j * step < SQUARES]
        tiles = tuple(PlacedTile(NAMES[q], rng.randint(0, 15), rng.random() < 0.1) for q in squares)
        probes.append(Place(player=seat, tiles=tiles))
    return probes


@GAMES
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_illegal_events_change_nothing_and_tiles_are_conserved(seed: int, players: int) -> None:
    """At every step: an illegal event leaves the position untouched; bag + racks + board + 3 unseen = 83
    (T-B3, T-B4, T-E2); the engine's bag and rack sizes match the real ones."""
    rng = random.Random(seed ^ 0x5EED)
    steps = 0

    def hook(state: TrioletState, racks: list[list[RackTile]], bag: list[RackTile], _ev: Event) -> None:
        nonlocal steps
        steps += 1
        assert state.tiles_accounted() == 83
        assert state.bag == len(bag) and state.racks == [len(r) for r in racks]
        assert state.on_board == sum(1 for v in state.values if v != EMPTY)
        if steps % 4:
            return
        before = state.snapshot()
        for probe in random_probes(state, rng, 12):
            verdict = state.check(probe)
            assert state.snapshot() == before
            if not verdict.legal:
                assert verdict.reasons and verdict.score == 0
                try:
                    state.apply(probe)
                except IllegalEventError:
                    pass
                else:
                    raise AssertionError("apply accepted an illegal event")
                assert state.snapshot() == before

    game = play_random_game(random.Random(seed), players, max_events=250, on_step=hook)
    assert steps == len(game.events) > 0


@GAMES
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4))
def test_totals_are_the_sum_of_breakdowns_and_records_round_trip(seed: int, players: int) -> None:
    """Totals = sum of every breakdown item (T-S*, T-E3/T-E4 via ScoreItem.player); dump/parse keeps
    every event, and re-checking the parsed record gives the same check lines."""
    game = play_random_game(random.Random(seed), players, max_events=250)
    session = Session(game.header)
    sums = [0] * players
    lines = []
    for ev in game.events:
        entry = session.submit(ev)
        assert entry.verdict.legal
        for seat, d in enumerate(entry.verdict.points_by_player(players)):
            sums[seat] += d
        assert entry.totals == sums
        assert entry.verdict.score == sum(i.points for i in entry.verdict.breakdown
                                          if i.player in (None, entry.verdict.player))
        lines.append(entry.to_json())
    if game.finished:
        state = session.state
        assert isinstance(state, TrioletState)
        assert state.outcome() is not None and state.reveals_pending() == []
    text = dump_record(game.header, game.events)
    record, problems = parse_record(text.splitlines())
    assert not problems and record is not None
    assert record.header == game.header and record.events == game.events
    again = Session(record.header)
    assert [again.submit(ev).to_json() for ev in record.events] == lines


RACKS = st.lists(st.one_of(st.integers(0, 15), st.just("W")), min_size=1, max_size=3).filter(
    lambda r: r.count("W") <= 1)


@settings(derandomize=True, max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), events=st.integers(0, 60), players=st.integers(2, 4), rack=RACKS)
def test_generator_gives_exactly_what_check_accepts(seed: int, events: int, players: int,
                                                    rack: list[int | str]) -> None:
    """Every candidate square set of 1–3 squares in a line near the tiles, with every assignment of the
    rack (a wild tried at 0–15), judged by ``check``: the accepted ones are the generator's output."""
    if events == 0:
        state = TrioletState.new(random_position(seed, players, 1)[0].header)
    else:
        state = random_position(seed, players, events)[0]
    tiles = tuple(rack[: state.racks[state.player]])
    generated = list(generate(state, tiles))
    keys = [tile_set(ev) for ev, _items in generated]
    assert len(keys) == len(set(keys)), "the generator repeats a placement"
    assert set(keys) == brute_force_placements(state, tiles)
    for ev, items in generated[:40]:
        verdict = state.check(ev)
        assert verdict.legal and verdict.breakdown == items
