"""The simulated tables: ``sim-lite`` (engine-only, ``lab.sim.table``) plays real, legal games; ``sim``
(``lab.sim.live``) is the renderer's game followed by the vision tracker.

Triolet: dealt from a real bag (T-B3/T-B4), racks refilled (T-E2), exchanges only with ≥ 5 in the
bag (T-E1), ending by T-E3/T-E4 with every rack revealed (T-E5).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import api_helpers as h
import pytest
from fastapi.testclient import TestClient

from companion_api.board_picture import decode_png
from companion_api.store import Store
from companion_api.table import SourceContext, TableSource
from engine.core import Header, Session
from engine.core.record import parse_event_line
from lab.sim.table import SimulatedTable, TileSet


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


# -- the default simulated table: renderer + vision tracker (lab/sim/live.py) ------------


def _run_table(db: Path, placements: int, sources: list[Any], timeout: float = 60.0,
               game: str = "triolet") -> list[dict[str, Any]]:
    """Run the live simulated table (unpaced) until ``placements`` legal ones stand (placed, not
    taken back); its events."""
    from companion_api.app import create_app
    from lab.sim.live import LiveSimSource

    def make(ctx: SourceContext) -> TableSource:
        src = LiveSimSource(ctx)
        src.pace = False  # as fast as the machine goes: the test checks what is read, not the pace
        sources.append(src)
        return src

    app = create_app(h.settings(db, game=game, players=["Ana", "Ben"]), source_factory=make)
    with TestClient(app) as c:
        tok = {"token": app.state.tokens.viewer}
        deadline = time.monotonic() + timeout
        while True:
            got = c.get("/api/events", params=tok).json()["events"]
            kept = sum(1 for e in got if e["type"] == "place") - sum(1 for e in got if e["type"] == "undo")
            if kept >= placements:
                return list(got)
            assert time.monotonic() < deadline, got
            time.sleep(0.1)


@pytest.mark.slow
def test_live_sim_tracker_logs_the_rendered_game_and_resumes_T_P1(tmp_path: Path) -> None:
    """The tracker's committed placements are the renderer's truth (players in the table's seats,
    squares in the tracker's view); evidence crops are PNGs; a restart resumes at the checkpoint."""
    from lab.evaluate.videos import same_placement, to_view, view_turns

    db = tmp_path / "live.sqlite3"
    sources: list[Any] = []
    first = _run_table(db, 3, sources)
    store = Store(db)
    row = store.latest_game(unfinished_only=True, game="triolet")
    assert row is not None and row.source_state is not None and row.source_state["seed"] == sources[0].seed
    place1 = next(e for e in first if e["type"] == "place")
    pics = store.evidence(row.id, place1["seq"])
    store.close()
    assert place1["source"] == "vision" and pics is not None and pics[0] and pics[1]
    before, after = decode_png(pics[0]), decode_png(pics[1])
    assert before.shape == after.shape and (before != after).any()  # the crops show the new tile

    second = _run_table(db, 5, sources)  # resumes the same game from the checkpoint
    assert second[: len(first)] == first and sources[1].start_frame == row.source_state["frame"] + 1
    g = sources[1].render_game
    q = view_turns(g.last_labels)
    header = Header(game="triolet", players=("Ana", "Ben"))
    session = Session(header)
    for e in second:
        obj = {k: v for k, v in e.items() if k in ("type", "player", "tiles", "seq", "event", "count", "values")}
        if e["type"] == "illegal":
            obj["type"] = e["attempt"]
        if e["type"] in ("undo", "correct"):  # a take-back the players made (docs/serve.md: `target`)
            obj["seq"] = e["target"]
        session.submit(parse_event_line(obj, header))
    placed = [ev for s, ev in session.effective_events() if ev.type == "place" and session.entries[s - 1].verdict.legal]
    truth = [dataclasses.replace(e, player=(e.player - g.truth_header.first_player) % 2)
             for e in g.truth if e.type == "place"]
    assert len(placed) >= 5
    for t, got in zip(truth, placed, strict=False):
        assert same_placement(to_view(t, q), got), (t.to_json(), got.to_json())
    assert all(e.get("evidence") == str(e["seq"]) for e in second if e["type"] == "place" and e["source"] == "vision")


@pytest.mark.slow
@pytest.mark.parametrize("game", ["trio_domino", "trigon"])
def test_live_sim_follows_the_other_games_with_their_readers(tmp_path: Path, game: str) -> None:
    """``--source sim`` for Trio Domino and Trigon: the rest tracker reads the rendered table with the
    game's own reader; its placements are the renderer's, in order, with evidence crops."""
    from lab.sim.live import check_reader

    check_reader(game)  # the game's reader and its models load
    sources: list[Any] = []
    got = _run_table(tmp_path / "live.sqlite3", 3, sources, timeout=120.0, game=game)
    places = [e for e in got if e["type"] == "place"]
    assert len(places) >= 3 and all(e["source"] == "vision" for e in places)
    truth = [e for e in sources[0].render_game.truth if e.type == "place"]
    if game == "trigon":  # cells are named in the view frame: the colours take turns as in the truth
        assert [e["colour"] for e in places[:3]] == [t.colour for t in truth[:3]]
    else:  # the lattice is the tracker's own: each placement matches the tiles it touches (D-P1)
        assert all(e["cell"] in ([0, 0], [1, 0]) for e in places[:1]) and all(e["field"] == 0 for e in places)
    store = Store(tmp_path / "live.sqlite3")
    row = store.latest_game(unfinished_only=True, game=game)
    assert row is not None
    pics = store.evidence(row.id, places[0]["seq"])
    store.close()
    assert pics is not None and pics[0] and pics[1]


def test_sim_falls_back_to_sim_lite_when_the_tracker_cannot_start(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from companion_api.sources import SourceSpec, build_source, choose_source, parse_source
    from lab.sim import live as live_sim

    def missing(game: str) -> None:
        raise live_sim.ReaderUnavailable("the Triolet reader cannot run: model file missing")

    monkeypatch.setattr(live_sim, "check_reader", missing)
    assert choose_source(parse_source("sim"), 1.0, "triolet") == SourceSpec("sim-lite")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "model file missing" in err and "using sim-lite" in err
    assert choose_source(parse_source("sim-lite"), 1.0, "triolet") == SourceSpec("sim-lite")
    assert choose_source(parse_source("camera:0"), 1.0, "triolet") == SourceSpec("camera", "0")
    assert capsys.readouterr().err == ""  # only sim falls back
    monkeypatch.setattr(live_sim, "check_reader", lambda game: None)
    assert choose_source(parse_source("sim"), 1.0, "triolet") == SourceSpec("sim")
    assert choose_source(parse_source("sim"), 40.0, "triolet") == SourceSpec("sim-lite")  # too fast to render
    assert callable(build_source(SourceSpec("sim-lite"))) and callable(build_source(SourceSpec("sim")))
