"""Fixing a game by tapping the board: /api/board, /api/board/cell, /api/board/accept, /api/board/undo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import api_helpers as h
import pytest
from fastapi.testclient import TestClient

from companion_api.app import create_app
from companion_api.board_watch import CellDiff, Watch
from engine.core.record import parse_event_line


def _client(tmp_path: Path, game: str = "triolet") -> tuple[TestClient, dict[str, str], dict[str, str]]:
    app = create_app(h.settings(tmp_path / "b.sqlite3", game=game, players=["Ana", "Ben"]), use_source=False)
    client = TestClient(app)
    client.__enter__()
    tokens = app.state.tokens
    return client, {"Authorization": f"Bearer {tokens.table}"}, {"Authorization": f"Bearer {tokens.viewer}"}


@pytest.fixture
def triolet(tmp_path: Path) -> Any:
    client, table, viewer = _client(tmp_path)
    yield client, table, viewer
    client.__exit__(None, None, None)


def _table(client: TestClient) -> Any:
    return client.app.state.table  # type: ignore[attr-defined]


def _place(client: TestClient, auth: dict[str, str], player: int, *tiles: tuple[str, int]) -> dict[str, Any]:
    body = {"type": "place", "player": player, "tiles": [{"square": s, "value": v} for s, v in tiles]}
    res = client.post("/api/events", json=body, headers=auth)
    assert res.status_code == 201, res.text
    out: dict[str, Any] = res.json()
    return out


def test_a_misread_fixed_by_a_tap_then_accepted(triolet: Any) -> None:
    client, auth, viewer = triolet
    table = _table(client)
    _place(client, auth, 0, ("H8", 11), ("I8", 3))
    # the camera reads Ben's new tile on H9 as a wild (it is a 1) and a 3 on H10: 11 + 1 + 3 = 15
    table.set_watch(Watch.of("differs", (CellDiff("H9", None, {"value": None, "wild": True}),
                                         CellDiff("H10", None, {"value": 3, "wild": False}))))
    board = client.get("/api/board", headers=viewer).json()
    assert board["layout"] == "squares" and board["size"] == 15
    assert {c["cell"]: c["seq"] for c in board["cells"]} == {"H8": 1, "I8": 1}
    assert [c["cell"] for c in board["watch"]["cells"]] == ["H9", "H10"]
    # accepting now is refused: the wild's value is unknown
    res = client.post("/api/board/accept", headers=auth)
    assert res.status_code == 409 and "H9" in res.json()["detail"]
    tap = client.post("/api/board/cell", json={"cell": "h9", "set": {"value": 1, "wild": False}}, headers=auth)
    assert tap.status_code == 200, tap.text
    assert tap.json()["done"] == "override"
    shown = {c["cell"]: c for c in tap.json()["board"]["watch"]["cells"]}
    assert shown["H9"]["fix"] == {"value": 1, "wild": False} and shown["H10"]["fixed"] is False
    res = client.post("/api/board/accept", headers=auth)
    assert res.status_code == 201, res.text
    move = res.json()
    assert move["type"] == "place" and move["player"] == 1 and move["seq"] == 2
    assert sorted((t["square"], t["value"]) for t in move["tiles"]) == [("H10", 3), ("H9", 1)]
    assert client.get("/api/game", headers=viewer).json()["watch"]["status"] == "ok"
    assert client.get("/api/events", headers=viewer).json()["events"][-1]["source"] == "manual"


def test_an_override_lasts_until_the_camera_sees_something_else(triolet: Any) -> None:
    client, auth, viewer = triolet
    table = _table(client)
    table.set_watch(Watch.of("differs", (CellDiff("H8", None, {"value": 7, "wild": False}),)))
    client.post("/api/board/cell", json={"cell": "H8", "set": {"value": 1, "wild": False}}, headers=auth)
    assert client.get("/api/board", headers=viewer).json()["watch"]["cells"][0]["fix"] == {"value": 1, "wild": False}
    table.set_watch(Watch.of("differs", (CellDiff("H8", None, {"value": 9, "wild": False}),)))
    cell = client.get("/api/board", headers=viewer).json()["watch"]["cells"][0]
    assert cell["fixed"] is False and cell["fix"] is None


def test_an_illegal_accept_is_logged_as_illegal_with_reasons(triolet: Any) -> None:
    client, auth, _ = triolet
    table = _table(client)
    # the first move must cover the centre square: two tiles far from it are refused by the rules
    table.set_watch(Watch.of("differs", (CellDiff("A1", None, {"value": 5, "wild": False}),)))
    res = client.post("/api/board/accept", headers=auth)
    assert res.status_code == 201
    out = res.json()
    assert out["type"] == "illegal" and out["reasons"] and out["reasons"][0]["rule"].startswith("T-")
    assert table.watch.status == "differs"  # still differing: nothing was added to the record


def test_a_tap_on_a_committed_tile_corrects_its_move(triolet: Any) -> None:
    client, auth, viewer = triolet
    _place(client, auth, 0, ("H8", 11), ("I8", 3))
    res = client.post("/api/board/cell", json={"cell": "I8", "set": {"value": 4, "wild": False}}, headers=auth)
    assert res.status_code == 200, res.text
    ev = res.json()["event"]
    assert res.json()["done"] == "correct" and ev["type"] == "correct" and ev["target"] == 1
    game = client.get("/api/game", headers=viewer).json()
    assert {t["square"]: t["value"] for t in game["board"]["tiles"]} == {"H8": 11, "I8": 4}
    assert game["totals"][0] == 11 * 2 + 4
    # a wild declared as 2
    res = client.post("/api/board/cell", json={"cell": "I8", "set": {"value": 2, "wild": True}}, headers=auth)
    assert res.status_code == 200
    tiles = client.get("/api/game", headers=viewer).json()["board"]["tiles"]
    assert {"square": "I8", "value": 2, "wild": True} in tiles
    # clearing one tile of two drops it from the move; the last one cannot be cleared
    assert client.post("/api/board/cell", json={"cell": "I8", "set": None}, headers=auth).status_code == 200
    res = client.post("/api/board/cell", json={"cell": "H8", "set": None}, headers=auth)
    assert res.status_code == 409 and "undo the move instead" in res.json()["detail"]
    # the same value again is no change
    res = client.post("/api/board/cell", json={"cell": "H8", "set": {"value": 11, "wild": False}}, headers=auth)
    assert res.status_code == 409 and "already holds a 11" in res.json()["detail"]


def test_taps_and_accept_need_the_table_token_and_sane_input(triolet: Any) -> None:
    client, auth, viewer = triolet
    body = {"cell": "H8", "set": {"value": 3, "wild": False}}
    assert client.post("/api/board/cell", json=body, headers=viewer).status_code == 403
    assert client.post("/api/board/cell", json=body).status_code == 401
    assert client.post("/api/board/accept", headers=viewer).status_code == 403
    assert client.post("/api/board/undo", headers=viewer).status_code == 403
    res = client.post("/api/board/cell", json={"cell": "H8", "set": {"value": 16}}, headers=auth)
    assert res.status_code == 422 and res.json()["detail"] == '"value" must be a whole number 0-15'
    res = client.post("/api/board/cell", json={"cell": "H8", "set": {"value": 3}}, headers=auth)
    assert res.status_code == 409 and "put the tile down" in res.json()["detail"]
    res = client.post("/api/board/accept", headers=auth)
    assert res.status_code == 409 and "nothing to accept" in res.json()["detail"]


def test_undo_takes_back_the_last_move_standing(triolet: Any) -> None:
    client, auth, viewer = triolet
    assert client.post("/api/board/undo", headers=auth).status_code == 409
    _place(client, auth, 0, ("H8", 11))
    _place(client, auth, 1, ("H9", 2))
    res = client.post("/api/board/undo", headers=auth)
    assert res.status_code == 201 and res.json()["type"] == "undo" and res.json()["target"] == 2
    res = client.post("/api/board/undo", headers=auth)
    assert res.json()["target"] == 1
    game = client.get("/api/game", headers=viewer).json()
    assert game["board"]["tiles"] == [] and game["totals"] == [0, 0]
    assert client.post("/api/board/undo", json={"seq": 1}, headers=auth).status_code == 409


def test_trigon_accepts_a_piece_and_refuses_a_cell_correction(tmp_path: Path) -> None:
    client, auth, viewer = _client(tmp_path, "trigon")
    try:
        table = _table(client)
        legal = next(iter(table._state_copy().legal_placements()))  # a legal opening for blue
        cells = legal.to_json()["cells"].split(",")
        table.set_watch(Watch.of("differs", tuple(CellDiff(c, None, {"colour": "blue"}) for c in cells)))
        board = client.get("/api/board", headers=viewer).json()
        assert board["layout"] == "colours" and board["colours"][0] == "blue"
        res = client.post("/api/board/accept", headers=auth)
        assert res.status_code == 201 and res.json()["type"] == "place", res.text
        assert parse_event_line(res.json(), table.header).to_json()["colour"] == "blue"
        res = client.post("/api/board/cell", json={"cell": cells[0], "set": {"colour": "red"}}, headers=auth)
        assert res.status_code == 409 and "undo the move instead" in res.json()["detail"]
        res = client.post("/api/board/cell", json={"cell": cells[0], "set": {"colour": "pink"}}, headers=auth)
        assert res.status_code == 422
    finally:
        client.__exit__(None, None, None)


@pytest.mark.parametrize("game", ["triominos", "trio_domino"])
def test_tile_games_accept_one_tile(tmp_path: Path, game: str) -> None:
    client, auth, viewer = _client(tmp_path, game)
    try:
        table = _table(client)
        table.set_watch(Watch.of("differs", (CellDiff("0,0", None, {"values": [5, 5, 5]}),
                                             CellDiff("1,0", None, {"values": [1, 2, 3]}))))
        res = client.post("/api/board/accept", headers=auth)
        assert res.status_code == 409 and "a move lays one" in res.json()["detail"]
        client.post("/api/board/cell", json={"cell": "1,0", "set": None}, headers=auth)
        res = client.post("/api/board/accept", headers=auth)
        assert res.status_code == 201 and res.json()["type"] == "place", res.text
        board = client.get("/api/board", headers=viewer).json()
        assert board["layout"] == "tiles" and board["cells"][0]["record"]["values"] == [5, 5, 5]
        assert board["cells"][0]["seq"] == 1
    finally:
        client.__exit__(None, None, None)


def test_an_override_survives_a_new_confidence_of_the_same_reading(triolet: Any) -> None:
    client, auth, viewer = triolet
    table = _table(client)
    table.set_watch(Watch.of("differs", (CellDiff("H8", None, {"value": 7, "wild": False, "confidence": 0.61}),)))
    client.post("/api/board/cell", json={"cell": "H8", "set": {"value": 1, "wild": False}}, headers=auth)
    table.set_watch(Watch.of("differs", (CellDiff("H8", None, {"value": 7, "wild": False, "confidence": 0.64}),)))
    assert client.get("/api/board", headers=viewer).json()["watch"]["cells"][0]["fixed"] is True


def test_saying_the_record_is_right_tells_the_tracker(triolet: Any) -> None:
    """The camera sees a 7 where the record has an 11 (a persistent misread): tapping H8 as the 11
    the record holds tells the table's source that the record is right there; a tap that disagrees
    with the record does not."""
    client, auth, _viewer = triolet
    table = _table(client)
    _place(client, auth, 0, ("H8", 11), ("I8", 3))
    told: list[list[str]] = []

    class Source:
        def trust_record(self, cells: list[str]) -> None:
            told.append(cells)

    table._source = Source()
    table.set_watch(Watch.of("differs", (CellDiff("H8", {"value": 11, "wild": False}, {"value": 7, "wild": False}),)))
    tap = client.post("/api/board/cell", json={"cell": "H8", "set": {"value": 11, "wild": False}}, headers=auth)
    assert tap.status_code == 200, tap.text
    assert tap.json()["tracker_told"] is True and told == [["H8"]]
    assert len(client.get("/api/events", headers=auth).json()["events"]) == 1  # no correction: the record stands
