"""The one Triolet random-game driver (``engine.triolet.selfplay``) and the simulated table that
records it (``lab.sim.driver``): a stop rule, a cap, seat names, and the table's steps being the
driver's events."""

from __future__ import annotations

import random

from engine.triolet.events import Place
from engine.triolet.selfplay import play_random_game
from lab.sim.driver import play_game


def test_selfplay_stop_rule_and_names() -> None:
    seen: list[int] = []

    def stop(state: object) -> bool:
        return len(seen) >= 7

    game = play_random_game(random.Random(3), 3, max_events=None, on_step=lambda *a: seen.append(1), stop=stop,
                            names=("X", "Y", "Z"))
    assert len(game.events) == 7 and not game.finished and game.header.players == ("X", "Y", "Z")


def test_selfplay_without_cap_finishes_by_the_rules() -> None:
    game = play_random_game(random.Random(11), 2, max_events=None, exchange_chance=0.0)
    assert game.finished and [e.type for e in game.events[-2:]] == ["reveal", "reveal"]


def test_sim_table_records_the_engine_driver() -> None:
    sim = play_game("triolet", 5, players=2, max_tiles=12)
    direct = play_random_game(random.Random(5), 2, max_events=None, exchange_chance=0.0, greedy_chance=0.5,
                              stop=lambda st: len(st.board_json()["tiles"]) >= 12, stuck_rounds=6,
                              names=("P1", "P2"))
    assert [s.event for s in sim.steps] == direct.events
    assert len(sim.steps[-1].board["tiles"]) >= 12 > len(sim.steps[-2].board["tiles"])
    for step in sim.steps:
        assert bool(step.placed) == isinstance(step.event, Place)
