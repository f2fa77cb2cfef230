"""Three tables (``companion serve --hub`` processes) and ``companion hub`` meet through mosquitto; the
broker goes away for 20 s and comes back empty. The tables score on, the hub catches up and again
agrees with every table's own ``/api/game``, holding every event once."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_process import companion, stop
from hub_helpers import broker, disagreement, wait_until

TABLES = ("north", "south", "east")
#: Simulated pace: about 0.7 s a move, so a ~50-move game outlasts the outage.
SPEED = "5"
OUTAGE_S = 20.0


def first_line(proc: subprocess.Popen[str], pattern: str) -> re.Match[str]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.fullmatch(pattern, line.rstrip("\n"))
    if m is None:
        proc.kill()
        pytest.fail(f"unexpected start-up line {line!r}; stderr: {proc.stderr.read() if proc.stderr else ''}")
    return m


def unacknowledged(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return int(con.execute("SELECT COUNT(*) FROM hub_outbox").fetchone()[0])


@pytest.mark.slow
def test_three_tables_and_the_hub_agree_before_and_after_a_20_s_broker_outage(tmp_path: Path) -> None:
    mqtt = broker()
    mqtt.start()
    procs: list[subprocess.Popen[str]] = []
    tables: dict[str, tuple[str, str, Path]] = {}
    try:
        for i, name in enumerate(TABLES):  # all start together: imports take seconds on a loaded machine
            procs.append(companion("serve", "--host", "127.0.0.1", "--source", "sim-lite", "--speed", SPEED,
                                   "--seed", str(11 + i), "--port", "0",
                                   "--db", str(tmp_path / f"{name}.sqlite3"), "--hub", mqtt.url,
                                   "--table", name, "--club", "friday"))
        procs.append(companion("hub", "--broker", mqtt.url, "--club", "friday", "--port", "0"))
        for name, proc in zip(TABLES, procs, strict=False):
            m = first_line(proc, r"viewer: (http://127\.0\.0\.1:\d+)/\?token=(\S+)")
            first_line(proc, r"table token: \S+")
            tables[name] = (m.group(1), m.group(2), tmp_path / f"{name}.sqlite3")
        hub = first_line(procs[-1], r"scoreboard: (http://127\.0\.0\.1:\d+)/").group(1)

        def check(name: str) -> str | None:
            base, token, _ = tables[name]
            try:
                game = httpx.get(base + "/api/game", params={"token": token}, timeout=5).json()
                events = httpx.get(base + "/api/events", params={"token": token}, timeout=5).json()["events"]
                listing = httpx.get(hub + "/api/tables", timeout=5).json()["tables"]
                got = httpx.get(f"{hub}/api/tables/{name}/events", timeout=5)
            except httpx.TransportError as exc:
                return f"not answering yet ({exc})"
            entry = next((t for t in listing if t["table"] == name), None)
            hub_events: list[dict[str, Any]] | None = got.json()["events"] if got.status_code == 200 else None
            if game["seq"] < 3:
                return f"{name}: only {game['seq']} events so far"
            why = disagreement(game, events, entry, hub_events)
            return None if why is None else f"{name}: {why}"

        for name in TABLES:
            wait_until(lambda name=name: check(name), timeout=30, step=0.05)  # type: ignore[misc]

        def seq(name: str) -> int:
            base, token, _ = tables[name]
            return int(httpx.get(base + "/api/game", params={"token": token}, timeout=5).json()["seq"])

        mqtt.stop()
        before = {name: seq(name) for name in TABLES}
        time.sleep(OUTAGE_S)
        during = {name: seq(name) for name in TABLES}
        for name in TABLES:  # the tables scored on, keeping what the broker has not acknowledged
            assert during[name] > before[name], f"{name} stopped scoring while the broker was down"
            assert unacknowledged(tables[name][2]) > 0, f"{name} kept nothing in its outbox"
        mqtt.start()
        for name in TABLES:
            wait_until(lambda name=name: check(name), timeout=30, step=0.05)  # type: ignore[misc]
        entries = httpx.get(hub + "/api/tables", timeout=5).json()["tables"]
        assert sorted(t["table"] for t in entries) == sorted(TABLES)
        assert all(t["club"] == "friday" and not t["quiet"] for t in entries)
    finally:
        for proc in procs:
            stop(proc)
        mqtt.stop()


@pytest.mark.slow
def test_bench_hub_prints_its_table_with_every_move_on_the_scoreboard(capsys: pytest.CaptureFixture[str]) -> None:
    from companion_api.cli import main

    broker()  # fails clearly when mosquitto is missing
    assert main(["bench", "hub", "--tables", "5", "--seconds", "2", "--games", "1", "--pace", "0.5"]) == 0
    out = capsys.readouterr().out
    header, _, row = out.splitlines()[1:4]
    cells = dict(zip(re.split(r"\s{2,}", header.strip()), row.split(), strict=True))
    assert cells["tables"] == "5" and int(cells["moves"]) >= 15
    assert cells["missing"] == "0" and cells["on board"] == cells["moves"]
    assert float(cells["p99 ms"]) >= float(cells["p50 ms"]) > 0
