"""The simulated players always stop: a Triolet board nobody can place on ends the simulated game."""

from __future__ import annotations

from lab.sim.driver import STUCK_ROUNDS, play_game


def test_a_stuck_triolet_board_stops_the_simulation_instead_of_exchanging_forever() -> None:
    # This seed reaches a board where no rack tile fits while the bag holds ≥ 5 tiles (T-E1 then
    # allows only exchanges); it used to loop for ever inside the renderer's position sampler.
    sim = play_game("triolet", 2119885971, players=2, max_tiles=63)
    assert sim.stuck and not sim.finished
    tail = [e.type for e in sim.events][-STUCK_ROUNDS * 2:]
    assert tail == ["exchange"] * len(tail)


def test_ordinary_games_are_not_marked_stuck() -> None:
    sim = play_game("triolet", 7, players=2, max_tiles=20)
    assert not sim.stuck and len(sim.steps[-1].board["tiles"]) >= 20
