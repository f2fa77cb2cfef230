"""The built-in simulated table (stand-in for renderer + tracker): real, legal games at the table.

Triolet: dealt from a real bag (T-B3/T-B4), racks refilled (T-E2), exchanges only with ≥ 5 in the
bag (T-E1), ending by T-E3/T-E4 with every rack revealed (T-E5).
"""

from __future__ import annotations

from pathlib import Path

import api_helpers as h
import pytest

from companion_api.board_picture import decode_png
from companion_api.sim_table import SimulatedTable, TileSet
from companion_api.store import Store
from companion_api.table import SourceContext
from engine.core import Header, Session


def play(header: Header, tmp_path: Path, seed: int, tiles: TileSet | None = None,
         limit: int = 400) -> tuple[Session, SimulatedTable, list[str]]:
    store = Store(tmp_path / f"sim{seed}.sqlite3")
    gid = store.create_game(header.to_json())
    sim = SimulatedTable(SourceContext(gid, header, None, seed, store), interval=0, tiles=tiles)
    session = Session(header)
    kinds: list[str] = []
    for _ in range(limit):
        obs = sim.step(session.state.copy())
        if obs is None:
            break
        assert obs.event is not None and obs.on_commit is not None
        entry = session.submit(obs.event)
        obs.on_commit(entry.seq, entry.verdict.legal)
        assert entry.verdict.legal, entry.to_json()
        kinds.append(obs.event.type)
        if header.game == "triolet" and obs.event.type != "reveal":
            status = session.state.status_json()
            assert status["bag"] == len(sim.sim.bag)
            assert status["rack_sizes"] == [len(r) for r in sim.sim.racks]
    store.close()
    return session, sim, kinds


def _triolet() -> bool:
    try:
        import engine

        engine.get_game("triolet")
    except Exception:
        return False
    return True


@pytest.mark.skipif(not _triolet(), reason="the Triolet engine is not importable")
@pytest.mark.parametrize("seed", [1, 2])
def test_sim_plays_a_whole_legal_triolet_game_T_E3_T_E5(tmp_path: Path, seed: int) -> None:
    header = Header(game="triolet", players=("Ana", "Ben"))
    session, sim, kinds = play(header, tmp_path, seed)
    outcome = session.outcome()
    assert outcome is not None and outcome.end_rule in ("T-E3", "T-E4")
    assert kinds.count("reveal") == 2 and kinds[-2:] == ["reveal", "reveal"]
    assert kinds.count("place") > 20
    assert sim.sim.bag == [] or outcome.end_rule == "T-E4"


def test_sim_games_differ_by_seed_and_repeat_with_it(tmp_path: Path) -> None:
    runs = []
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        (tmp_path / name).mkdir()
        runs.append(play(h.header(), tmp_path / name, seed, h.TILES))
    a = runs[0]
    events = [[e.event for e in run[0].entries] for run in runs]  # events compare without their time stamps
    assert events[0] == events[1] and events[0] != events[2]
    assert a[0].outcome() is not None and a[2].count("reveal") == 2  # X-E ends it; both racks revealed


def test_sim_evidence_shows_the_new_tile(tmp_path: Path) -> None:
    store = Store(tmp_path / "e.sqlite3")
    header = h.header()
    sim = SimulatedTable(SourceContext(store.create_game(header.to_json()), header, None, 3, store),
                         interval=0, tiles=h.TILES)
    obs = sim.step(Session(header).state)
    assert obs is not None and obs.before_png and obs.after_png and obs.frame_png
    before, after = decode_png(obs.before_png), decode_png(obs.after_png)
    assert before.shape == after.shape and (before != after).any()
    store.close()


def test_sim_stops_on_a_blocked_board_instead_of_exchanging_forever(tmp_path: Path) -> None:
    """T-E1 forbids passing with ≥ 5 in the bag; when nothing fits the simulated players give up."""
    blocked = TileSet(counts={9: 40}, wilds=0, rack=3, unseen=3, board_size=5)
    header = h.header()

    class Full(h.TilesGame):  # every square taken: no placement fits
        def legal_placements(self, hand: object = None):  # type: ignore[no-untyped-def,override]
            return iter(())

    store = Store(tmp_path / "b.sqlite3")
    sim = SimulatedTable(SourceContext(store.create_game(header.to_json()), header, None, 1, store),
                         interval=0, tiles=blocked)
    state = Full(header)
    steps = 0
    while (obs := sim.step(state)) is not None:
        assert obs.event is not None and obs.event.type == "exchange" and obs.on_commit is not None
        state.apply(obs.event)
        obs.on_commit(steps + 1, True)
        steps += 1
        assert steps < 100
    assert steps == 8  # STUCK_ROUNDS × 2 players
    store.close()
