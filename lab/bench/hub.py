"""``companion bench hub`` — many tables on one scoreboard: commit-to-scoreboard latency and hub CPU.

Starts a throwaway ``mosquitto`` on a loopback port and ``companion hub`` as its own process, then
runs ``--tables`` lightweight tables in this process. Each one replays a game the engine-only
simulated table (sim-lite) played beforehand, through the real table side of the hub (event bus →
outbox in its own SQLite file → publisher thread → MQTT QoS 1, state retained), one move every
``--pace`` seconds, staggered so the moves are spread evenly. A move's commit time is stamped when
it is committed; the bench reads the hub's scoreboard stream (``/api/stream``) and takes
``receipt − commit`` of every ``move`` message. The hub's CPU time comes from ``/proc`` over the
measured window. Running the engine live for 100 tables would need far more than one machine's
CPU, and it is the hub that is measured, so the games are played once before the clock starts.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table, machine_line

MAX_TABLES = 500
MAX_SECONDS = 300.0
#: Seconds of moves before the clock starts (connections settle, first states retained).
WARMUP_S = 3.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", type=int, default=100, help=f"simulated tables (1-{MAX_TABLES}, default 100)")
    p.add_argument("--seconds", type=float, default=20.0, help=f"how long to measure (max {MAX_SECONDS:g}, default 20)")
    p.add_argument("--pace", type=float, default=1.0,
                   help="seconds between two moves at one table (default 1: a fast game, sim-lite at speed 3)")
    p.add_argument("--games", type=int, default=2, help="distinct sim-lite games the tables replay (1-8, default 2)")


def run(args: argparse.Namespace) -> int:
    from companion_api.hub.local_broker import LocalBroker, find_mosquitto

    if not 1 <= args.tables <= MAX_TABLES:
        raise CliError(f"--tables {args.tables}: must be 1-{MAX_TABLES}")
    if not 0 < args.seconds <= MAX_SECONDS:
        raise CliError(f"--seconds {args.seconds}: must be above 0 and at most {MAX_SECONDS:g}")
    if not args.pace >= 0.05:
        raise CliError(f"--pace {args.pace}: must be at least 0.05 s")
    if not 1 <= args.games <= 8:
        raise CliError(f"--games {args.games}: must be 1-8")
    if find_mosquitto() is None:
        raise CliError("mosquitto is not installed (Debian: apt-get install mosquitto)")
    print(f"playing {args.games} sim-lite game(s) to replay…", file=sys.stderr, flush=True)
    games = [record_game(seed) for seed in range(1, args.games + 1)]
    with tempfile.TemporaryDirectory(prefix="bench-hub-") as tmp, LocalBroker() as mqtt:
        hub, base = _start_hub(mqtt.url)
        try:
            result = _measure(Path(tmp), mqtt.port, base, hub.pid, games, args.tables, args.pace, args.seconds)
        finally:
            hub.send_signal(signal.SIGTERM)
            try:
                hub.wait(10)
            except subprocess.TimeoutExpired:
                hub.kill()
                hub.wait()
    lat = sorted(result["latencies"])
    cpu = result["hub_cpu_s"] / result["window_s"] if result["hub_cpu_s"] is not None else float("nan")
    rows = [[args.tables, args.pace, result["committed"], len(lat), result["missing"], _pct(lat, 50), _pct(lat, 99),
             lat[-1] if lat else float("nan"), cpu * 100.0, cpu * 1000.0 / args.tables]]
    print(format_table(["tables", "pace s", "moves", "on board", "missing", "p50 ms", "p99 ms", "max ms",
                        "hub CPU %", "CPU ms/s per table"], rows,
                       title=f"commit-to-scoreboard latency and hub CPU, {args.seconds:g} s, mosquitto on loopback"))
    print(machine_line())
    return 0 if lat else 1


# -- the games ---------------------------------------------------------------------------------------
def record_game(seed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """A whole sim-lite triolet game: per move, the event message and the state after it."""
    from companion_api.events_bus import EventBus, Message
    from companion_api.sources import build_source, parse_source
    from companion_api.store import Store
    from companion_api.table import Table, header_for

    moves: list[tuple[dict[str, Any], dict[str, Any]]] = []
    pending: list[dict[str, Any]] = []
    done = threading.Event()

    def listen(msg: Message) -> None:
        if msg.event == "state" and pending:
            moves.append((pending.pop(), msg.data))
            if msg.data.get("ended"):
                done.set()
        elif msg.event not in ("state", "game") and msg.id is not None:
            pending.append(msg.data)

    with tempfile.TemporaryDirectory(prefix="bench-hub-game-") as tmp:
        store, bus = Store(Path(tmp) / "g.sqlite3"), EventBus()
        bus.add_listener(listen)
        table = Table(store, bus, build_source(parse_source("sim-lite"), 10_000.0), header_for("triolet", ["A", "B"]),
                      seed=seed)
        table.start()
        done.wait(120)
        table.stop()
        store.close()
    if not moves:
        raise CliError("the simulated table played no move")
    return moves


class ReplayTable:
    """A table that commits a recorded game's moves one by one (new game after the last), on its bus."""

    def __init__(self, moves: list[tuple[dict[str, Any], dict[str, Any]]], bus: Any) -> None:
        self.moves = moves
        self.bus = bus
        self.game_id = 1
        self._done: list[dict[str, Any]] = []
        self._state: dict[str, Any] = {**moves[0][1], "seq": 0, "id": 1}
        self._lock = threading.Lock()

    def commit(self) -> None:
        from companion_api.events_bus import Message

        with self._lock:
            if len(self._done) == len(self.moves):
                self.game_id += 1
                self._done = []
                self._state = {**self.moves[0][1], "seq": 0, "id": self.game_id}
                self.bus.publish(Message("game", 0, self._state, self.game_id))
            event, state = self.moves[len(self._done)]
            event = {**event, "at": time.time()}
            self._done.append(event)
            self._state = {**state, "id": self.game_id}
            self.bus.publish(Message(event["type"], event["seq"], event, self.game_id))
            self.bus.publish(Message("state", None, self._state, self.game_id))

    def events(self, since: int = 0) -> tuple[int, list[dict[str, Any]]]:
        with self._lock:
            return self.game_id, list(self._done[since:])

    def game_json(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._state)


# -- the run ------------------------------------------------------------------------------------------
def _start_hub(broker_url: str) -> tuple[subprocess.Popen[str], str]:
    import re

    code = "import sys; from companion_api.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, "hub", "--broker", broker_url, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline()
    m = re.fullmatch(r"scoreboard: (http://[^/]+)/\n", line)
    if m is None:
        proc.kill()
        raise CliError(f"companion hub did not start: {proc.stderr.read().strip()[-300:]}")
    return proc, m.group(1)


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux ``/proc``), or ``None`` elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _measure(tmp: Path, port: int, base: str, hub_pid: int, games: list[Any], n: int, pace: float,
             seconds: float) -> dict[str, Any]:
    import httpx

    from companion_api.events_bus import EventBus
    from companion_api.hub.broker import BrokerConfig
    from companion_api.hub.outbox import Outbox
    from companion_api.hub.publisher import HubPublisher

    broker = BrokerConfig("127.0.0.1", port)
    tables: list[ReplayTable] = []
    publishers: list[HubPublisher] = []
    for i in range(n):
        bus = EventBus()
        table = ReplayTable(games[i % len(games)], bus)
        pub = HubPublisher(table, bus, Outbox(tmp / f"t{i:03d}.sqlite3"), broker, "bench", f"table-{i:03d}")
        pub.start()
        tables.append(table)
        publishers.append(pub)
    for pub in publishers:
        if not pub.connected.wait(30):
            raise CliError("a simulated table could not reach the broker")

    received: dict[tuple[str, int, int], float] = {}  # (table, commit µs, seq) -> latency ms
    measuring = threading.Event()
    stop = threading.Event()

    def read_scoreboard() -> None:
        timeout = httpx.Timeout(10.0, read=None)
        try:
            with httpx.Client(timeout=timeout) as http, http.stream("GET", base + "/api/stream") as r:
                event = ""
                for line in r.iter_lines():
                    if stop.is_set():
                        return
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:") and event == "move":
                        now = time.time()
                        msg = json.loads(line[5:])
                        ev = msg["event"]
                        if measuring.is_set() and ev.get("at"):
                            received[(msg["table"], int(ev["at"] * 1e6), int(ev["seq"]))] = (now - ev["at"]) * 1000.0
        except httpx.HTTPError:
            return  # the hub went away: the moves not seen count as missing

    reader = threading.Thread(target=read_scoreboard, daemon=True)
    reader.start()
    time.sleep(0.5)
    committed: list[tuple[str, int, int]] = []
    start = time.monotonic()
    total = WARMUP_S + seconds
    step = pace / n
    k = 0
    cpu0: float | None = None
    t0 = 0.0
    while True:
        due = start + k * step
        if due - start >= total:
            break
        if due - start >= WARMUP_S and not measuring.is_set():
            cpu0, t0 = _cpu_seconds(hub_pid), time.monotonic()
            measuring.set()
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        table = tables[k % n]
        table.commit()
        if measuring.is_set():
            name = f"table-{k % n:03d}"
            _, done = table.events(0)
            committed.append((name, int(done[-1]["at"] * 1e6), int(done[-1]["seq"])))
        k += 1
    cpu1, t1 = _cpu_seconds(hub_pid), time.monotonic()
    time.sleep(2.0)  # the last moves reach the scoreboard
    stop.set()
    for pub in publishers:
        pub.stop(timeout=1.0)
    latencies = [received[key] for key in committed if key in received]
    missing = len(committed) - len(latencies)
    hub_cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    return {"latencies": latencies, "committed": len(committed), "missing": missing, "hub_cpu_s": hub_cpu,
            "window_s": max(t1 - t0, 1e-9)}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, round(q / 100 * (len(values) - 1))))
    return values[k]
