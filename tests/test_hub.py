"""The club hub (INTERFACES §6): the board's dedupe and catch-up logic, the table's outbox, bad
command lines, and a table and the hub meeting through a real mosquitto (in-process apps)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hub_helpers import broker, disagreement, wait_until

from companion_api.app import create_app
from companion_api.cli import main
from companion_api.hub.app import create_hub_app
from companion_api.hub.board import Board
from companion_api.hub.broker import BrokerConfig, HubLink
from companion_api.hub.outbox import Outbox
from companion_api.settings import Settings


def ev(seq: int, total: int = 0) -> bytes:
    return json.dumps({"type": "place", "seq": seq, "totals": [total, 0]}).encode()


def state(game_id: int, seq: int) -> bytes:
    return json.dumps({"id": game_id, "seq": seq, "totals": [seq, 0], "players": ["A", "B"], "board": {}}).encode()


# -- the board -------------------------------------------------------------------------------------
def test_board_keeps_each_seq_once_in_order() -> None:
    board = Board()
    for seq in (1, 2, 2, 3, 1):
        board.on_event("c", "t", ev(seq), game_id=1, now=10.0)
    events = board.events("t")
    assert events is not None and [e["seq"] for e in events] == [1, 2, 3]
    assert board.duplicates == 2


def test_board_starts_over_on_a_newer_game_and_drops_an_older_one() -> None:
    board = Board()
    board.on_event("c", "t", ev(1), game_id=4, now=1.0)
    board.on_event("c", "t", ev(2), game_id=4, now=1.0)
    board.on_state("c", "t", state(5, 0), now=2.0)  # a new game began
    assert board.events("t") == []
    assert board.on_event("c", "t", ev(3), game_id=4, now=3.0) is None  # late event of game 4
    board.on_event("c", "t", ev(1), game_id=5, now=4.0)
    assert [e["seq"] for e in board.events("t") or []] == [1]
    assert board.tables(now=4.0)[0]["state"]["id"] == 5
    board.on_event("c", "t", ev(1), game_id=6, now=5.0)  # the next game's first move before its state
    assert board.tables(now=5.0)[0]["last_event"]["seq"] == 1 and board.events("t") == [json.loads(ev(1))]
    board.on_state("c", "t", state(1, 0), now=6.0)  # the table's database was replaced: its word counts
    assert board.events("t") == [] and board.tables(now=6.0)[0]["state"]["id"] == 1


def test_board_asks_for_what_it_misses_at_most_every_few_seconds() -> None:
    asks: list[tuple[str, str, int, int]] = []
    board = Board(ask=lambda *a: asks.append(a), ask_every=2.0)
    board.on_event("c", "t", ev(1), game_id=1, now=0.0)
    assert asks == []
    board.on_event("c", "t", ev(3), game_id=1, now=0.5)  # seq 2 is missing
    assert asks == [("c", "t", 1, 1)]
    board.on_state("c", "t", state(1, 5), now=1.0)  # still missing, asked recently
    assert len(asks) == 1
    board.tick(now=3.0)
    assert asks[-1] == ("c", "t", 1, 1)
    for seq in (2, 4, 5):
        board.on_event("c", "t", ev(seq), game_id=1, now=3.5)
    board.tick(now=9.0)
    assert len(asks) == 2  # nothing missing any more


def test_board_marks_a_quiet_table_and_wakes_it() -> None:
    board = Board(quiet_after=60.0)
    board.on_state("c", "t", state(1, 0), now=100.0)
    assert board.tick(now=150.0) == []
    changed = board.tick(now=161.0)
    assert [c["quiet"] for c in changed] == [True]
    board.on_event("c", "t", ev(1), game_id=1, now=170.0)
    assert board.tables(now=170.0)[0]["quiet"] is False


def test_board_ignores_junk_and_needs_the_club_when_a_name_repeats() -> None:
    board = Board()
    assert board.on_state("c", "t", b"not json", now=1.0) is None
    assert board.on_event("c", "t", b'{"seq": "x"}', game_id=1, now=1.0) is None
    assert board.events("t") is None
    board.on_event("a", "t", ev(1), game_id=1, now=1.0)
    board.on_event("b", "t", ev(1), game_id=1, now=1.0)
    with pytest.raises(LookupError, match="several clubs"):
        board.events("t")
    assert board.events("t", "b") is not None


# -- the outbox ------------------------------------------------------------------------------------
def test_outbox_keeps_unacknowledged_events_across_reopening(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    box = Outbox(db)
    for seq in (1, 2, 3):
        box.add(7, seq, json.dumps({"seq": seq}))
    box.add(7, 2, "again")  # the same event twice is kept once
    rows = box.pending()
    assert [(r.game_id, r.seq) for r in rows] == [(7, 1), (7, 2), (7, 3)]
    box.acknowledge([rows[0].id])
    box.close()
    again = Outbox(db)
    assert [r.seq for r in again.pending()] == [2, 3]
    assert [r.seq for r in again.pending(after=rows[1].id)] == [3]
    assert len(again) == 2
    again.close()


# -- command lines ---------------------------------------------------------------------------------
def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line in this process (the bad options fail before anything starts)."""
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(("args", "words"), [
    (("serve", "--hub", "http://x:1883", "--table", "t1"), "mqtt://"),
    (("serve", "--hub", "mqtt://x:1883"), "--table"),
    (("serve", "--table", "t1"), "--hub"),
    (("serve", "--hub", "mqtt://x:1883", "--table", "a/b"), "'/'"),
    (("serve", "--hub", "mqtt://ann:secret@x:1883", "--table", "t1"), "COMPANION_MQTT_PASSWORD"),
    (("hub", "--broker", "mqtt://x:99999"), "port"),
    (("hub", "--broker", "mqtt://x", "--club", "a+b"), "'+'"),
    (("hub", "--broker", "mqtt://x", "--tls-ca", "/nonexistent/ca.pem"), "no such file"),
])
def test_bad_hub_options_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               args: tuple[str, ...], words: str) -> None:
    if args[0] == "serve":
        args = (*args, "--db", str(tmp_path / "t.sqlite3"), "--source", "sim-lite")
    code, _, err = cli(capsys, *args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], err
    assert "secret" not in err


def test_a_password_without_a_user_is_refused_and_never_printed(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COMPANION_MQTT_PASSWORD", "hunter2")
    monkeypatch.delenv("COMPANION_MQTT_USERNAME", raising=False)
    code, out, err = cli(capsys, "hub", "--broker", "mqtt://x")
    assert code == 2 and "user name" in err and "hunter2" not in err + out


def test_the_password_file_is_read_and_never_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from companion_api.hub.broker import broker_from_args

    secret = tmp_path / "pw"
    secret.write_text("hunter2\n", encoding="utf-8")
    monkeypatch.setenv("COMPANION_MQTT_USERNAME", "ann")
    args = argparse.Namespace(mqtt_username=None, mqtt_password_file=str(secret), tls_ca=None)
    config = broker_from_args("mqtts://broker.club", args, "--broker")
    assert (config.username, config.password, config.tls, config.port) == ("ann", "hunter2", True, 8883)
    assert "hunter2" not in repr(config)


def test_broker_config_never_shows_the_password() -> None:
    config = BrokerConfig("h", 1883, username="ann", password="hunter2")
    assert "hunter2" not in repr(config) and "hunter2" not in config.url


# -- a table and the hub through mosquitto -----------------------------------------------------------
def table_settings(db: Path, port: int, name: str, speed: float) -> Settings:
    link = HubLink(broker=BrokerConfig("127.0.0.1", port), table=name, club="club")
    return Settings(source="sim-lite", db=db, speed=speed, seed=3, hub=link)


def hub_view(hub: TestClient, name: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]] | None]:
    entry = next((t for t in hub.get("/api/tables").json()["tables"] if t["table"] == name), None)
    got = hub.get(f"/api/tables/{name}/events")
    return entry, got.json()["events"] if got.status_code == 200 else None


def agreement(table: TestClient, hub: TestClient, name: str) -> str | None:
    token = table.app.state.tokens.viewer  # type: ignore[attr-defined]
    game = table.get("/api/game", params={"token": token}).json()
    events = table.get("/api/events", params={"token": token}).json()["events"]
    return disagreement(game, events, *hub_view(hub, name))


def test_a_table_scores_through_an_outage_and_the_hub_catches_up(tmp_path: Path) -> None:
    """The broker is down when the table starts: events wait in the outbox; once it is up they all
    reach the hub, in order, each once, and the outbox empties."""
    mqtt = broker()
    db = tmp_path / "t1.sqlite3"
    try:
        with TestClient(create_app(table_settings(db, mqtt.port, "t1", speed=60))) as table:
            token = table.app.state.tokens.viewer  # type: ignore[attr-defined]
            deadline = time.monotonic() + 20
            while table.get("/api/game", params={"token": token}).json()["seq"] < 6:
                assert time.monotonic() < deadline, "the table did not score without its broker"
                time.sleep(0.05)
            box = Outbox(db)
            assert len(box) >= 6  # every event so far waits for the broker
            mqtt.start()
            with TestClient(create_hub_app(BrokerConfig("127.0.0.1", mqtt.port), club="club")) as hub:
                wait_until(lambda: agreement(table, hub, "t1"), timeout=30)
                wait_until(lambda: None if len(box) == 0 else f"{len(box)} events still in the outbox", timeout=10)
                entry, _ = hub_view(hub, "t1")
                assert entry is not None and entry["club"] == "club" and entry["last_seen"] > time.time() - 30
            box.close()
    finally:
        mqtt.stop()


def test_a_restarted_hub_rebuilds_from_retained_states_and_resends(tmp_path: Path) -> None:
    """A hub started after the game ended sees it whole: the retained state, then the events the
    table sends again when the hub asks for what it misses."""
    mqtt = broker()
    settings = table_settings(tmp_path / "t.sqlite3", mqtt.port, "late", speed=3000)
    with mqtt, TestClient(create_app(settings)) as table:
        token = table.app.state.tokens.viewer  # type: ignore[attr-defined]
        deadline = time.monotonic() + 40
        while not table.get("/api/game", params={"token": token}).json()["ended"]:
            assert time.monotonic() < deadline, "the simulated game did not end"
            time.sleep(0.1)
        time.sleep(0.5)
        with TestClient(create_hub_app(BrokerConfig("127.0.0.1", mqtt.port))) as hub:
            wait_until(lambda: agreement(table, hub, "late"), timeout=20)
            page = hub.get("/")
            assert page.status_code == 200 and "/static/hub.js" in page.text
            assert hub.get("/api/tables/nobody/events").status_code == 404
            assert hub.post("/api/tables").status_code == 405  # read-only


def test_a_table_that_stops_is_shown_gone_quiet_and_one_that_idles_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion_api.hub import publisher

    monkeypatch.setattr(publisher, "HEARTBEAT_S", 0.3)
    mqtt = broker()

    def quiet(hub: TestClient) -> bool | None:
        entry, _ = hub_view(hub, "idle")
        return None if entry is None else bool(entry["quiet"])

    with mqtt, TestClient(create_hub_app(BrokerConfig("127.0.0.1", mqtt.port), quiet_after=1.5)) as hub:
        with TestClient(create_app(table_settings(tmp_path / "t.sqlite3", mqtt.port, "idle", speed=3000))) as table:
            token = table.app.state.tokens.viewer  # type: ignore[attr-defined]
            deadline = time.monotonic() + 40
            while not table.get("/api/game", params={"token": token}).json()["ended"]:
                assert time.monotonic() < deadline, "the simulated game did not end"
                time.sleep(0.1)
            time.sleep(2.5)  # no move for longer than quiet_after, but the table still speaks
            assert quiet(hub) is False
        wait_until(lambda: None if quiet(hub) else "the stopped table is not shown as gone quiet", timeout=8)


# -- the publisher, against a stand-in MQTT client -------------------------------------------------
class FakeClient:
    """Records what the publisher hands to MQTT; mids count up from 1."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any], bool, int, Any]] = []

    def publish(self, topic: str, payload: str, qos: int = 0, retain: bool = False, properties: Any = None) -> Any:
        from types import SimpleNamespace

        self.sent.append((topic, json.loads(payload), retain, len(self.sent) + 1, properties))
        return SimpleNamespace(mid=len(self.sent))

    def __getattr__(self, name: str) -> Any:  # connect_async, loop_start, subscribe, disconnect, loop_stop
        return lambda *a, **k: None


class FakeTable:
    def __init__(self) -> None:
        self.game_id = 1
        self.done: list[dict[str, Any]] = []

    def events(self, since: int = 0) -> tuple[int, list[dict[str, Any]]]:
        return self.game_id, self.done[since:]

    def game_json(self) -> dict[str, Any]:
        return {"id": self.game_id, "seq": len(self.done), "totals": [len(self.done), 0]}


def test_the_publisher_sends_in_commit_order_keeps_the_unacknowledged_and_resends(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from companion_api.events_bus import EventBus, Message
    from companion_api.hub.publisher import HubPublisher

    ok = SimpleNamespace(is_failure=False)
    db = tmp_path / "t.sqlite3"
    table, bus = FakeTable(), EventBus()

    def commit() -> None:
        ev_ = {"type": "place", "seq": len(table.done) + 1, "totals": [len(table.done) + 1, 0]}
        table.done.append(ev_)
        bus.publish(Message("place", ev_["seq"], ev_, 1))
        bus.publish(Message("state", None, table.game_json(), 1))

    def publisher() -> tuple[HubPublisher, FakeClient]:
        pub = HubPublisher(table, bus, Outbox(db), BrokerConfig("127.0.0.1", 1), "club", "t1")
        fake = FakeClient()
        pub._client = fake
        pub.start()
        return pub, fake

    def sent_when(fake: FakeClient, n: int) -> list[tuple[str, dict[str, Any], bool, int, Any]]:
        wait_until(lambda: None if len(fake.sent) >= n else f"{len(fake.sent)} of {n} sent", timeout=5, step=0.02)
        time.sleep(0.1)
        return list(fake.sent)

    pub, fake = publisher()
    for _ in range(3):
        commit()  # the broker is not reached yet: kept, not sent
    time.sleep(0.2)
    assert fake.sent == [] and len(pub.outbox) == 3
    pub._on_connect(fake, None, None, ok, None)
    sent = sent_when(fake, 4)
    assert [(t, p["seq"], r) for t, p, r, _, _ in sent] == [
        ("tc/club/t1/events", 1, False), ("tc/club/t1/events", 2, False), ("tc/club/t1/events", 3, False),
        ("tc/club/t1/state", 3, True)]
    assert sent[0][4].UserProperty == [("game_id", "1")]
    pub._on_publish(fake, None, 1, ok, None)
    pub._on_publish(fake, None, 2, ok, None)
    pub._on_publish(fake, None, 4, ok, None)  # the state's PUBACK: nothing to forget
    wait_until(lambda: None if len(pub.outbox) == 1 else f"{len(pub.outbox)} rows", timeout=5, step=0.02)
    pub._on_disconnect(fake, None, None, ok, None)
    commit()
    commit()  # scored during the outage
    time.sleep(0.2)
    assert len(fake.sent) == 4
    pub.stop()

    again, fake2 = publisher()  # serve restarted: what the broker never acknowledged goes out in order
    again._on_connect(fake2, None, None, ok, None)
    sent = sent_when(fake2, 4)
    assert [(t.rsplit("/", 1)[1], p["seq"]) for t, p, _, _, _ in sent] == [
        ("events", 3), ("events", 4), ("events", 5), ("state", 5)]
    again._on_message(fake2, None, SimpleNamespace(payload=b'{"game_id": 1, "since": 3}'))
    sent = sent_when(fake2, 6)
    assert [(t.rsplit("/", 1)[1], p["seq"]) for t, p, _, _, _ in sent[4:6]] == [("events", 4), ("events", 5)]
    again._on_message(fake2, None, SimpleNamespace(payload=b"junk"))  # ignored
    again.stop()


# -- TLS and passwords ---------------------------------------------------------------------------------
def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (its own CA) and its key, made with the openssl command."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.fail("the openssl command is missing (.ci/run installs it with mosquitto)")
    cert, key = folder / "broker.crt", folder / "broker.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


def test_tables_and_hub_log_in_over_tls_and_a_wrong_password_is_refused(tmp_path: Path) -> None:
    from companion_api.hub.local_broker import LocalBroker

    broker()  # fails clearly when mosquitto is missing
    cert, key = self_signed(tmp_path)
    mqtt = LocalBroker(tls=(cert, key), users={"t1": "table-secret", "scoreboard": "hub-secret"})

    def login(user: str, password: str) -> BrokerConfig:
        return BrokerConfig("127.0.0.1", mqtt.port, tls=True, tls_ca=cert, username=user, password=password)

    settings = Settings(source="sim-lite", db=tmp_path / "t.sqlite3", speed=3000, seed=3,
                        hub=HubLink(broker=login("t1", "table-secret"), table="t1", club="club"))
    with mqtt, TestClient(create_app(settings)) as table:
        with TestClient(create_hub_app(login("scoreboard", "hub-secret"))) as hub:
            wait_until(lambda: agreement(table, hub, "t1"), timeout=30)
        with TestClient(create_hub_app(login("scoreboard", "wrong"))) as intruder:
            client = intruder.app.state.client  # type: ignore[attr-defined]
            wait_until(lambda: None if client.error else "no refusal yet", timeout=10)
            assert "refused" in client.error and "wrong" not in client.error
            assert intruder.get("/api/tables").json() == {"tables": []}
