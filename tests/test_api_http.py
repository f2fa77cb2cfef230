"""The companion's HTTP API (INTERFACES §5): every endpoint, tokens (401/403) and clear 422s."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import api_helpers as h
import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from companion_api.app import create_app
from companion_api.store import Tokens


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    """An app with no source running: events come only from the tests."""
    app = create_app(h.settings(tmp_path / "c.sqlite3"), use_source=False)
    with TestClient(app) as c:
        yield c


def tokens(c: TestClient) -> Tokens:
    t: Tokens = c.app.state.tokens  # type: ignore[attr-defined]
    return t


def view(c: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens(c).viewer}"}


def write(c: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens(c).table}"}


def place(c: TestClient, player: int, square: str, value: int) -> Any:
    body = {"type": "place", "player": player, "tiles": [{"square": square, "value": value}]}
    return c.post("/api/events", json=body, headers=write(c))


def test_page_is_served_without_a_token(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert "/static/app.js" in r.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
    assert "cdn" not in r.text.lower() and "https://" not in r.text  # works offline on a LAN


def test_game_state_shape(client: TestClient) -> None:
    g = client.get("/api/game", headers=view(client)).json()
    assert g["game"] == h.GAME and g["players"] == ["P1", "P2"]
    assert g["totals"] == [0, 0] and g["turn"] == {"player": 0, "replay": False, "name": "P1"}
    assert g["status"] == "playing" and g["seq"] == 0 and g["board"] == {"squares": {}}
    assert g["header"]["format"] == "table-companion/1"


@pytest.mark.parametrize("path", ["/api/game", "/api/events", "/api/stream", "/api/pair", "/api/export.jsonl",
                                  "/api/events/1/evidence", "/api/still", "/api/corners"])
def test_reads_need_a_token_401_and_a_good_one_403(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 401 and "token" in r.json()["detail"]
    assert r.headers["www-authenticate"] == "Bearer"
    assert client.get(path, headers={"Authorization": "Bearer nope"}).status_code == 403
    assert client.get(path, params={"token": "nope"}).status_code == 403


@pytest.mark.parametrize("path", ["/api/events", "/api/games", "/api/corners"])
def test_writes_need_the_table_token(client: TestClient, path: str) -> None:
    assert client.post(path, json={}).status_code == 401
    r = client.post(path, json={}, headers=view(client))
    assert r.status_code == 403 and "table token" in r.json()["detail"]
    assert client.post(path, json={}, params={"token": "wrong"}).status_code == 403


def test_token_in_query_or_header_both_read(client: TestClient) -> None:
    t = tokens(client)
    assert client.get("/api/game", params={"token": t.viewer}).status_code == 200
    assert client.get("/api/game", params={"token": t.table}).status_code == 200  # the table token reads too


def test_manual_events_are_judged_scored_and_listed_oldest_first(client: TestClient) -> None:
    r = place(client, 0, "C3", 7)
    assert r.status_code == 201
    ev = r.json()
    assert ev["seq"] == 1 and ev["type"] == "place" and ev["legal"] is True
    assert ev["score"] == 7 and ev["totals"] == [7, 0] and ev["source"] == "manual"
    assert ev["breakdown"] == [{"kind": "tile", "cells": ["C3"], "points": 7, "rule": "X-S"}]
    bad = place(client, 1, "C3", 4).json()  # square taken: illegal, logged, changes nothing
    assert bad["type"] == "illegal" and bad["attempt"] == "place" and bad["legal"] is False
    assert bad["reasons"][0]["code"] == "occupied" and bad["totals"] == [7, 0] and bad["score"] == 0
    place(client, 1, "C4", 2)
    events = client.get("/api/events", headers=view(client)).json()["events"]
    assert [e["seq"] for e in events] == [1, 2, 3]
    since = client.get("/api/events", params={"since": 2}, headers=view(client)).json()["events"]
    assert [e["seq"] for e in since] == [3] and since[0]["totals"] == [7, 2]
    g = client.get("/api/game", headers=view(client)).json()
    assert g["totals"] == [7, 2] and g["turn"]["player"] == 0 and g["seq"] == 3


def test_exchange_pass_undo_and_correct(client: TestClient) -> None:
    place(client, 0, "C3", 7)
    ex = client.post("/api/events", json={"type": "exchange", "player": 1, "count": 2}, headers=write(client)).json()
    assert ex["type"] == "exchange" and ex["legal"] and ex["count"] == 2
    ps = client.post("/api/events", json={"type": "pass", "player": 0}, headers=write(client)).json()
    assert ps["type"] == "illegal" and ps["reasons"][0]["code"] == "must_play"
    fixed = client.post("/api/events", json={"type": "correct", "seq": 1, "event": {
        "type": "place", "player": 0, "tiles": [{"square": "C3", "value": 9}]}}, headers=write(client)).json()
    assert fixed["type"] == "correct" and fixed["target"] == 1 and fixed["totals"] == [9, 0]
    undo = client.post("/api/events", json={"type": "undo", "seq": 1}, headers=write(client)).json()
    assert undo["type"] == "undo" and undo["totals"] == [0, 0]
    events = client.get("/api/events", headers=view(client)).json()["events"]
    assert events[1]["type"] == "illegal"  # the exchange is re-judged now player 0's place is undone


def test_bad_event_bodies_get_a_clear_422(client: TestClient) -> None:
    cases: list[tuple[Any, str]] = [
        ([1, 2], "one JSON object"),
        ({"player": 0}, 'missing field "type"'),
        ({"type": "place", "player": 0, "tiles": [{"square": "Z9", "value": 1}]}, "not a square"),
        ({"type": "exchange", "player": 7, "count": 1}, "player"),
        ({"type": "dance", "player": 0}, "unknown event type"),
        ({"type": "wild", "seq": 1, "square": "C3", "value": 3}, "no event 1"),
        ({"type": "wild", "seq": 1, "square": "C3", "value": 99}, "0-15"),
    ]
    for body, words in cases:
        r = client.post("/api/events", json=body, headers=write(client))
        assert r.status_code == 422, body
        assert isinstance(r.json()["detail"], str) and words in r.json()["detail"], (body, r.json())
    r = client.post("/api/events", content=b"{not json", headers={**write(client), "Content-Type": "application/json"})
    assert r.status_code == 422 and "JSON" in r.json()["detail"]
    assert client.get("/api/events", params={"since": -1}, headers=view(client)).status_code == 422


def test_wild_value_becomes_a_correction(client: TestClient) -> None:
    place(client, 0, "C3", 7)
    r = client.post("/api/events", json={"type": "wild", "seq": 1, "square": "D4", "value": 3}, headers=write(client))
    assert r.status_code == 422 and "nothing on D4" in r.json()["detail"]
    r = client.post("/api/events", json={"type": "wild", "seq": 1, "square": "C3", "value": 3}, headers=write(client))
    # sent on as a correction of event 1 with the declared value (the test game ignores the wild flag)
    assert r.status_code == 201 and r.json()["type"] == "correct" and r.json()["target"] == 1
    assert r.json()["event"]["tiles"][0]["value"] == 3 and r.json()["totals"] == [3, 0]


def test_new_game_starts_over_and_rejects_bad_bodies(client: TestClient) -> None:
    place(client, 0, "C3", 7)
    old = client.get("/api/game", headers=view(client)).json()["id"]
    r = client.post("/api/games", json={"players": ["Ana", "Ben", "Cy"]}, headers=write(client))
    assert r.status_code == 201
    g = r.json()
    assert g["id"] != old and g["players"] == ["Ana", "Ben", "Cy"] and g["totals"] == [0, 0, 0] and g["seq"] == 0
    assert client.get("/api/events", headers=view(client)).json()["events"] == []
    assert client.post("/api/games", headers=write(client)).status_code == 201  # no body: the defaults
    for body, words in [({"game": "chess"}, "unknown game"), ({"players": 9}, "1 to 6"),
                        ({"players": "two"}, "players"), ({"colour": "red"}, "colour")]:
        r = client.post("/api/games", json=body, headers=write(client))
        assert r.status_code == 422 and words in r.json()["detail"], (body, r.json())


def test_evidence_pictures_from_an_observation(client: TestClient) -> None:
    from companion_api.board_picture import png
    from companion_api.table import Observation

    table = client.app.state.table  # type: ignore[attr-defined]
    before = png(np.full((40, 60, 3), 10, np.uint8))
    after = png(np.full((40, 60, 3), 250, np.uint8))
    event = h.TilesGame.parse_event({"type": "place", "player": 0, "tiles": [{"square": "A1", "value": 1}]}, h.header())
    msg = table.submit(Observation(event=event, before_png=before, after_png=after))
    assert msg["evidence"] == "1"
    assert client.get("/api/events/1/evidence", params={"which": "before"}, headers=view(client)).content == before
    assert client.get("/api/events/1/evidence?which=after", headers=view(client)).content == after
    both = client.get("/api/events/1/evidence", headers=view(client))
    assert both.headers["content-type"] == "image/png"
    img = cv2.imdecode(np.frombuffer(both.content, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[1] > 2 * 60 and img[-5, 5].mean() < 50 and img[-5, -5].mean() > 200  # before | after
    game = client.get("/api/game", headers=view(client)).json()["id"]
    r = client.get("/api/events/1/evidence", params={"game": game, "which": "after"}, headers=view(client))
    assert r.content == after and "max-age" in r.headers["cache-control"]
    assert client.get("/api/events/1/evidence", params={"game": game + 1}, headers=view(client)).status_code == 404
    place(client, 1, "B1", 2)
    r = client.get("/api/events/2/evidence", headers=view(client))
    assert r.status_code == 404 and "by hand" in r.json()["detail"]
    assert client.get("/api/events/1/evidence?which=sideways", headers=view(client)).status_code == 422


def test_pair_qr_code_holds_the_viewer_url(client: TestClient) -> None:
    r = client.get("/api/pair", headers=view(client))
    assert r.status_code == 200 and r.content[:8] == b"\x89PNG\r\n\x1a\n"
    url = r.headers["x-pair-url"]
    assert url.endswith("/?token=" + tokens(client).viewer)
    img = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_GRAYSCALE)
    # OpenCV's classic QR decoder misses about 1 in 140 valid codes of random tokens (e.g. the URL
    # ending "n650sFdyF704ZSzo" at level M); its ArUco-based decoder read 1,500 of 1,500. Either counts.
    texts = [detector.detectAndDecode(img)[0] for detector in (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector())]
    assert url in texts


def test_export_jsonl_is_a_record_that_replays_the_same(client: TestClient) -> None:
    from engine.core import Session, parse_record

    place(client, 0, "C3", 7)
    place(client, 0, "C4", 7)  # illegal: kept, so correction seqs stay valid
    place(client, 1, "C4", 5)
    client.post("/api/events", json={"type": "undo", "seq": 1}, headers=write(client))
    r = client.get("/api/export.jsonl", headers=view(client))
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record, problems = parse_record(r.text.splitlines())
    assert not problems and record is not None and len(record.lines) == 4
    session = Session(record.header)
    for line in record.lines:
        session.submit(line.event)
    # with #1 taken back, #2 (player 0 on C4) becomes legal and #3 (C4 again) illegal
    assert session.state.totals() == client.get("/api/game", headers=view(client)).json()["totals"] == [7, 0]
    assert client.get("/api/export.blksgf", headers=view(client)).status_code == 404  # not trigon


def test_still_and_corners(client: TestClient) -> None:
    from companion_api.board_picture import png
    from companion_api.table import Observation

    assert client.get("/api/still", headers=view(client)).status_code == 404
    table = client.app.state.table  # type: ignore[attr-defined]
    table.submit(Observation(event=None, frame_png=png(np.zeros((100, 200, 3), np.uint8))))
    r = client.get("/api/still", headers=view(client))
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert client.get("/api/corners", headers=view(client)).json() == {"corners_px": None}
    body = {"corners": [[10, 10], [190, 12], [188, 90], [12, 88]]}
    r = client.post("/api/corners", json=body, headers=write(client))
    assert r.status_code == 201 and r.json()["image_size"] == [200, 100]
    assert client.get("/api/corners", headers=view(client)).json()["corners_px"][1] == [190, 12]
    r = client.post("/api/corners", json={"corners": [[10, 10], [190, 12], [188, 90]]}, headers=write(client))
    assert r.status_code == 422 and "corners" in r.json()["detail"]
    r = client.post("/api/corners", json={"corners": [[10, 10], [500, 12], [188, 90], [12, 88]]}, headers=write(client))
    assert r.status_code == 422 and "outside" in r.json()["detail"]


def test_openapi_lists_the_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/game", "/api/stream", "/api/events", "/api/events/{seq}/evidence", "/api/games", "/api/pair",
              "/api/export.jsonl"):
        assert p in paths


def test_trigon_exports_blokus_sgf_as_played(tmp_path: Path) -> None:
    """INTERFACES §1: trigon records as .blksgf; corrections applied, illegal attempts left out."""
    from engine.core import get_game

    trigon = get_game("trigon")
    app = create_app(h.settings(tmp_path / "t.sqlite3", game="trigon", players=["Ana", "Ben"]), use_source=False)
    with TestClient(app) as c:
        state = trigon.new(h.header_for_game("trigon"))
        first = next(iter(state.legal_placements(None))).to_json()
        assert c.post("/api/events", json=first, headers=write(c)).status_code == 201
        assert c.post("/api/events", json=first, headers=write(c)).json()["type"] == "illegal"
        r = c.get("/api/export.blksgf", headers=view(c))
        assert r.status_code == 200 and r.text.startswith("(;GM[Blokus Trigon")
        assert r.text.count("\n;") == 1 and first["cells"] in r.text


def test_history_lists_games_and_exports_an_earlier_one(client: TestClient) -> None:
    place(client, 0, "C3", 7)
    first = client.get("/api/game", headers=view(client)).json()["id"]
    client.post("/api/games", json={"players": ["Ana", "Ben"]}, headers=write(client))
    place(client, 0, "A1", 2)
    place(client, 1, "A2", 3)
    games = client.get("/api/games", headers=view(client)).json()["games"]
    assert [(g["id"] == first, g["status"], g["events"], g["current"]) for g in games] == [
        (False, "playing", 2, True), (True, "abandoned", 1, False)]
    assert games[0]["players"] == ["Ana", "Ben"]
    old = client.get("/api/export.jsonl", params={"game": first}, headers=view(client)).text.splitlines()
    assert len(old) == 2 and '"C3"' in old[1]
    assert len(client.get("/api/export.jsonl", headers=view(client)).text.splitlines()) == 3
    assert client.get("/api/export.jsonl", params={"game": 999}, headers=view(client)).status_code == 404
    assert client.get("/api/games").status_code == 401


def test_a_refused_new_game_leaves_the_current_one_playing(client: TestClient) -> None:
    """A header the store cannot keep (a lone surrogate in a name is not UTF-8) is refused with 422,
    and the game being played is not marked abandoned by the attempt."""
    place(client, 0, "C3", 7)
    current = client.get("/api/game", headers=view(client)).json()["id"]
    body = '{"players": ["Ana", "\\ud800"]}'
    r = client.post("/api/games", content=body, headers={**write(client), "Content-Type": "application/json"})
    assert r.status_code == 422 and "detail" in r.json()
    listed = client.get("/api/games", headers=view(client)).json()["games"]
    assert [(g["id"], g["status"], g["current"]) for g in listed] == [(current, "playing", True)]


@pytest.mark.parametrize("path", ["/api/events/99999999999999999999999/evidence",
                                  "/api/events/1/evidence?game=99999999999999999999999",
                                  "/api/export.jsonl?game=99999999999999999999999"])
def test_ids_beyond_the_store_are_a_422_not_a_crash(client: TestClient, path: str) -> None:
    r = client.get(path, headers=view(client))
    assert r.status_code == 422 and "detail" in r.json()
