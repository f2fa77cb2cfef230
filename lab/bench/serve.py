"""``companion bench serve`` — latency of live updates: event commit to receipt on N SSE clients.

Starts ``companion serve`` (simulated table, temporary database) on a free loopback port, opens
``--clients`` concurrent ``/api/stream`` connections with httpx, and for every event message
received takes ``receipt time − commit time`` (the message's ``at`` field, same clock). When the
simulated game ends, a new one is started so events keep coming. Bounded in clients and seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table

MAX_CLIENTS = 500
MAX_SECONDS = 120.0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--clients", type=int, default=50, help=f"concurrent SSE clients (1-{MAX_CLIENTS}, default 50)")
    p.add_argument("--seconds", type=float, default=10.0, help=f"how long to measure (max {MAX_SECONDS:g}, default 10)")
    p.add_argument("--speed", type=float, default=10.0,
                   help="simulated table pace (10 = a move about every 0.3 s, default 10)")
    p.add_argument("--game", default="triolet", help="game the simulated table plays (default triolet)")
    p.add_argument("--source", default="sim-lite",
                   help="table source (default sim-lite: the engine-only simulated table, fast enough to load "
                        "the server; sim = renderer + tracker)")


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.clients <= MAX_CLIENTS:
        raise CliError(f"--clients {args.clients}: must be 1-{MAX_CLIENTS}")
    if not 0 < args.seconds <= MAX_SECONDS:
        raise CliError(f"--seconds {args.seconds}: must be above 0 and at most {MAX_SECONDS:g}")
    if not args.speed > 0:
        raise CliError(f"--speed {args.speed}: must be above 0")
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        proc, base, viewer, table = _start_server(Path(tmp) / "bench.sqlite3", args.speed, args.game, args.source)
        try:
            result = asyncio.run(_measure(base, viewer, table, args.clients, args.seconds))
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    lat = sorted(result["latencies"])
    rows = [[args.clients, result["connected"], result["events"], len(lat), _pct(lat, 50), _pct(lat, 99),
             lat[-1] if lat else float("nan"), result["gaps"]]]
    print(format_table(["clients", "connected", "events", "messages", "p50 ms", "p99 ms", "max ms", "gaps"], rows,
                       title=f"SSE commit-to-receipt latency, {args.seconds:g} s, loopback, speed {args.speed:g}"))
    return 0 if lat else 1


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, round(q / 100 * (len(values) - 1))))
    return values[k]


def _start_server(db: Path, speed: float, game: str, source: str) -> tuple[subprocess.Popen[str], str, str, str]:
    code = "import sys; from companion_api.cli import main; sys.exit(main(sys.argv[1:]))"
    cmd = [sys.executable, "-c", code, "serve", "--db", str(db), "--port", "0", "--speed", str(speed),
           "--game", game, "--source", source, "--host", "127.0.0.1", "--no-qr"]  # loopback: a benchmark, not a table
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert proc.stdout is not None and proc.stderr is not None
    viewer_line, table_line = proc.stdout.readline(), proc.stdout.readline()
    m = re.fullmatch(r"viewer: (http://[^/]+)/\?token=(\S+)\n", viewer_line)
    t = re.fullmatch(r"table token: (\S+)\n", table_line)
    if not (m and t):
        proc.kill()
        raise CliError(f"companion serve did not start: {proc.stderr.read().strip()[-300:]}")
    return proc, m.group(1), m.group(2), t.group(1)


async def _measure(base: str, viewer: str, table: str, clients: int, seconds: float) -> dict[str, Any]:
    import httpx

    latencies: list[float] = []
    connected = 0
    gaps = 0
    ready = asyncio.Event()
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    timeout = httpx.Timeout(10.0, read=None)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as http:
        deadline = time.monotonic() + 15
        while True:
            try:
                if (await http.get("/api/game", params={"token": viewer})).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise CliError("companion serve does not answer")
            await asyncio.sleep(0.05)

        async def client(n: int) -> None:
            nonlocal connected, gaps
            last_seq = 0
            counted = False
            async with http.stream("GET", "/api/stream", params={"token": viewer}) as r:
                event = ""
                async for line in r.aiter_lines():
                    if stop.is_set():
                        return
                    if line.startswith("event:"):
                        event = line[6:].strip()
                        continue
                    if not line.startswith("data:"):
                        continue
                    now = time.time()
                    data = json.loads(line[5:])
                    if event == "state":
                        if not counted:
                            counted = True
                            connected += 1
                            if connected == clients:
                                ready.set()
                        if n == 0 and data.get("status") == "finished":
                            await http.post("/api/games", params={"token": table})  # keep events coming
                    elif event == "game":
                        last_seq = 0
                    elif "seq" in data:
                        if last_seq and data["seq"] != last_seq + 1:
                            gaps += 1
                        last_seq = int(data["seq"])
                        if ready.is_set() and data.get("at"):
                            latencies.append((now - float(data["at"])) * 1000.0)

        tasks = [asyncio.create_task(client(i)) for i in range(clients)]
        with contextlib.suppress(TimeoutError):  # measure whoever connected
            await asyncio.wait_for(ready.wait(), timeout=30)
        await asyncio.sleep(seconds)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    events = len(latencies) // max(1, connected)
    return {"latencies": latencies, "connected": connected, "events": events, "gaps": gaps}
