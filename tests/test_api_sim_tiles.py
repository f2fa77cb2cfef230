"""``sim-lite`` plays whole Triominos and Trio Domino rounds with real hands: the header's seat opens
(M-P2), draws and passes as the rules allow (M-S2, D-P2), the round ends (M-E1/M-E2, D-E1/D-E2)
and every hand left is revealed."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_api_sim import play

from engine.core import Header


@pytest.mark.parametrize("game", ["triominos", "trio_domino"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sim_lite_plays_a_whole_round_of_triangle_tiles(tmp_path: Path, game: str, seed: int) -> None:
    header = Header(game=game, players=("Ana", "Ben", "Chloé"), first_player=1)
    session, sim, kinds = play(header, tmp_path, seed)  # every event is asserted legal
    outcome = session.outcome()
    assert outcome is not None, kinds[-5:]
    assert session.entries[0].event.player == 1 and kinds[0] == "place"
    assert kinds.count("place") > 10
    status = session.state.status_json()
    hands = [len(h) for h in sim.sim.racks]
    assert status["pile"] == len(sim.sim.bag) and status["hand_sizes"] == hands
    assert kinds.count("reveal") == sum(1 for n in hands if n)
    assert session.summary_json().get("reveals_pending", []) == []


def test_sim_lite_tile_rounds_repeat_with_the_seed(tmp_path: Path) -> None:
    header = Header(game="triominos", players=("Ana", "Ben"))
    runs = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        session = play(header, tmp_path / name, 7)[0]
        runs.append([{k: v for k, v in e.event.to_json().items() if k != "ts"} for e in session.entries])
    assert runs[0] == runs[1] and len(runs[0]) > 10
