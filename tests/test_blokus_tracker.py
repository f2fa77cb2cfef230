"""The rest tracker follows Blokus Classic and Duo (``vision.track.blokus_follower``): short games of
the engine's own random legal moves, rendered by ``lab/render/blokus.py`` with one fixed camera and
an arm reaching in for every piece, are followed move for move (K-L1…K-L4) with no false event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion_api.cli import main
from engine.core.events import EventMeta
from engine.core.header import Header
from engine.core.session import Session
from lab.render.blokus import BlokusGameFrames, blokus_game_frames
from vision.read.blokus.reading import BlokusReading, BlokusSquare
from vision.track.blokus_follower import BlokusFollower, square_at, square_name, turned
from vision.track.observer import Frame
from vision.track.picture_readers import oracle_reader, real_reader
from vision.track.rest_tracker import RestTracker

FPS = 8.0
#: (game, seed, players, moves, share of moves after a wrong piece laid and taken back); the seeds
#: give boards turned by different quarter turns
GAMES = [("blokus", 1, 4, 6, 0.0), ("blokus", 4, 2, 5, 0.0), ("blokus_duo", 2, 2, 5, 0.0), ("blokus", 7, 3, 5, 0.5)]


@pytest.fixture(scope="module")
def games() -> dict[tuple[str, int], BlokusGameFrames]:
    return {(g, s): blokus_game_frames(s, g, p, m, takeback=tb) for g, s, p, m, tb in GAMES}


def _follow(g: BlokusGameFrames, reader: Any) -> list[dict[str, Any]]:
    tracker = RestTracker(g.header, reader)
    out: list[dict[str, Any]] = []
    for i, image in enumerate(g.frames):
        out.extend(o.to_json() for o in tracker.feed(i, i / FPS, image))
    return out


def _check_exact(g: BlokusGameFrames, lines: list[dict[str, Any]]) -> None:
    """Every piece placed as played; each wrong piece reported once as illegal, then cleared; nothing else."""
    truth = [(ev.colour, ",".join(ev.cells)) for ev, _ in g.moves]
    got = [(ln["colour"], ln["cells"]) for ln in lines if ln["type"] == "place"]
    assert got == truth
    expected = sorted([(f, "place") for _, f in g.moves] + [(f, "illegal") for _, _, f in g.wrong])
    kinds = [ln["type"] for ln in lines if ln["type"] != "cleared"]
    assert kinds == [k for _, k in expected]  # no undo or correct, no other illegal report
    assert sum(ln["type"] == "cleared" for ln in lines) == len(g.wrong)
    reported = [(ln["colour"], ln["cells"]) for ln in lines if ln["type"] == "illegal"]
    assert reported == [(colour, ",".join(cells)) for colour, cells, _ in g.wrong]


@pytest.mark.parametrize(("game", "seed"), [(g, s) for g, s, _, _, _ in GAMES])
def test_oracle_readings_are_followed_exactly(games: dict[tuple[str, int], BlokusGameFrames], game: str,
                                              seed: int) -> None:
    g = games[(game, seed)]
    assert len(g.moves) >= 5
    _check_exact(g, _follow(g, oracle_reader(game, lambda i: g.labels[i] if 0 <= i < len(g.labels) else None)))


@pytest.mark.parametrize(("game", "seed"), [pytest.param(g, s, marks=[pytest.mark.slow] if p == 4 else [])
                                            for g, s, p, _, _ in GAMES])
def test_the_real_reader_is_followed_exactly(games: dict[tuple[str, int], BlokusGameFrames], game: str,
                                             seed: int) -> None:
    g = games[(game, seed)]
    _check_exact(g, _follow(g, real_reader(game)))


def test_the_board_is_read_turned_in_the_picture(games: dict[tuple[str, int], BlokusGameFrames]) -> None:
    """The seeds above show the board under more than one quarter turn (else the frame search is untested)."""
    turns = set()
    for game, seed, _, _, _ in GAMES:
        g = games[(game, seed)]
        f = BlokusFollower()
        session = Session(g.header)
        at = g.moves[0][1]  # the first piece at rest
        reading = oracle_reader(game, lambda i: g.labels[i])(Frame(at, 9.0, g.frames[at]))  # noqa: B023
        kinds = [d.kind for d in f.decide(session, reading, Frame(at, 9.0, g.frames[at]), EventMeta())]
        assert kinds == ["place"]
        turns.add(f.turns)
    assert len(turns) >= 2


def test_quarter_turns_and_names_agree() -> None:
    for n in (14, 20):
        for col, row in ((0, 0), (3, 7), (n - 1, 2)):
            assert square_at(square_name(col, row, n), n) == (col, row)
            assert turned(*turned(col, row, n, 1), n, 3) == (col, row)
            assert turned(col, row, n, 4) == (col, row)
        assert turned(0, 0, n, 1) == (n - 1, 0)  # the top-left corner goes to the top-right


def _reading(game: str, cells: dict[str, str]) -> BlokusReading:
    return BlokusReading(game, (), tuple(BlokusSquare(c, col, 0.99) for c, col in cells.items()), 1.0)


def test_a_first_piece_off_every_start_is_reported_then_cleared_K_L2() -> None:
    header = Header(game="blokus_duo", players=("A", "B"))
    session = Session(header)
    f = BlokusFollower()

    def look(cells: dict[str, str], t: float) -> list[str]:
        return [d.kind for d in f.decide(session, _reading("blokus_duo", cells), Frame(0, t, np.zeros((1, 1, 3))),
                                         EventMeta(ts=t))]

    bad = {"g7": "purple", "h7": "purple"}  # the middle of the board: no start square under any turn
    assert look(bad, 1.0) == []
    assert look(bad, 1.3) == ["illegal"]
    assert f.turns is None
    assert look({}, 2.0) == ["cleared"]
    # purple's piece on the start square of the picture's bottom-left quarter: the board is turned
    assert look({"e5": "purple", "e4": "purple"}, 3.0) == ["place"]
    assert f.turns is not None and f.turns != 0
    assert {c["cell"] for c in session.state.board_json()["cells"]} == {"e10", "d10"}


def test_companion_replay_follows_a_blokus_frame_folder(games: dict[tuple[str, int], BlokusGameFrames],
                                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    g = games[("blokus_duo", 2)]
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, image in enumerate(g.frames):
        cv2.imwrite(str(folder / f"frame_{i:04d}.jpg"), image)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(x) + "\n" for x in g.labels), encoding="utf-8")
    record = tmp_path / "game.jsonl"
    code = main(["replay", "--game", "blokus_duo", "--players", "2", str(folder), "--fps", str(FPS),
                 "--labels", str(labels), "--record", str(record), "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    lines = [json.loads(x) for x in cap.out.splitlines()]
    assert lines[-1]["summary"] is True
    _check_exact(g, lines[:-1])
    assert all({"frame", "ts", "score", "totals"} <= set(ln) for ln in lines[:-1])
    assert main(["check", str(record)]) == 0


def test_serve_follows_a_blokus_game_from_its_frames(games: dict[tuple[str, int], BlokusGameFrames],
                                                     tmp_path: Path) -> None:
    """``serve --game blokus_duo --source video:…``: the table's source runs the tracker ``tracker_for``
    picks (the real square reader) and the phone's event list shows every piece."""
    import time

    from fastapi.testclient import TestClient

    from companion_api.app import create_app
    from companion_api.settings import Settings
    from companion_api.table import SourceContext, TableSource
    from companion_api.tracker_source import TrackerSource

    g = games[("blokus_duo", 2)]

    def make(ctx: SourceContext) -> TableSource:
        frames = ((i, i / FPS, image) for i, image in enumerate(g.frames))
        return TrackerSource("test", ctx, pace=False, frames=frames)

    app = create_app(Settings(game="blokus_duo", players=["P1", "P2"], db=tmp_path / "t.sqlite3"),
                     source_factory=make)
    with TestClient(app) as c:
        viewer = app.state.tokens.viewer
        deadline = time.monotonic() + 60
        events: list[dict[str, Any]] = []
        while len(events) < len(g.moves) and time.monotonic() < deadline:
            time.sleep(0.1)
            events = c.get("/api/events", params={"token": viewer}).json()["events"]
        assert app.state.table.source_error is None
    assert [(e["colour"], e["cells"]) for e in events] == [(ev.colour, ",".join(ev.cells)) for ev, _ in g.moves]
    assert all(e["legal"] for e in events)


def test_a_camera_moved_round_the_table_keeps_the_game_K_B1() -> None:
    """The picture's frame turns a quarter (the camera moved to the next side): the pieces laid are
    found under the new turn, nothing is reported, and the next piece is named as the engine names it."""
    header = Header(game="blokus_duo", players=("A", "B"))
    session = Session(header)
    f = BlokusFollower()

    def seen_from(turns: int, engine: dict[str, str]) -> BlokusReading:
        view = {}
        for name, colour in engine.items():
            col, row = turned(*square_at(name, 14), 14, 4 - turns)
            view[square_name(col, row, 14)] = colour
        return _reading("blokus_duo", view)

    def look(reading: BlokusReading, t: float) -> list[str]:
        return [d.kind for d in f.decide(session, reading, Frame(0, t, np.zeros((1, 1, 3))), EventMeta(ts=t))]

    board = {"e10": "purple", "d10": "purple"}
    assert look(seen_from(0, board), 1.0) == ["place"] and f.turns == 0
    board |= {"j5": "orange", "j4": "orange"}
    assert look(seen_from(0, board), 2.0) == ["place"]
    for t in (3.0, 3.5, 4.0):  # the camera moved: the same board, turned
        assert look(seen_from(1, board), t) == []
    assert f.turns == 1
    board |= {"f9": "purple", "f8": "purple", "f7": "purple"}
    assert look(seen_from(1, board), 5.0) == ["place"]
    assert {c["cell"] for c in session.state.board_json()["cells"] if c["colour"] == "purple"} == \
        {"e10", "d10", "f9", "f8", "f7"}
