"""What the Blokus Classic/Duo and Trigon engine benchmarks share: reading the reference
fixtures, summarising timings, timing a replay and perft, and the perft table."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table
from engine.core import Header, Session
from engine.core.events import Event
from engine.polyform import Position, perft

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"


def read_fixture(game: str, name: str) -> list[dict[str, Any]]:
    """The JSON lines of ``tests/fixtures/<game>/<name>``; missing data is a ``CliError``."""
    path = FIXTURES / game / name
    if not path.exists():
        raise CliError(f"{path}: reference data not found (the {game} benchmark needs the test fixtures)")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def first(rows: list[dict[str, Any]], count: int | None) -> list[dict[str, Any]]:
    """The first ``count`` rows (all of them when ``count`` is ``None``)."""
    return rows if count is None else rows[:count]


def setup_seconds(build: Callable[[], object]) -> float:
    """Wall seconds taken by ``build`` (building the placement tables before timing)."""
    t0 = time.perf_counter()
    build()
    return time.perf_counter() - t0


def ms_stats(samples: list[float]) -> tuple[float, float, float]:
    """Median, p95 and max of durations in seconds, as milliseconds."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1e3, p95 * 1e3, max(ordered) * 1e3


def add_replay(replay: dict[str, tuple[int, float]], variant: str, header: Header, events: Sequence[Event]) -> None:
    """Replay the events through a fresh ``Session`` and add (events, seconds) to the variant's total."""
    t = time.perf_counter()
    session = Session(header)
    for ev in events:
        session.submit(ev)
    n, s = replay.get(variant, (0, 0.0))
    replay[variant] = (n + len(events), s + time.perf_counter() - t)


def timed_perft(pos: Position, colour: int, depth: int) -> tuple[int, float, float]:
    """Perft nodes, wall seconds and CPU seconds."""
    t, cpu = time.perf_counter(), time.process_time()
    nodes = perft(pos, colour, depth)
    return nodes, time.perf_counter() - t, time.process_time() - cpu


def perft_table(title: str, rows: dict[str, tuple[int, float, float, int]]) -> str:
    """The perft table: per row label (nodes, wall s, CPU s, positions) with nodes per second."""
    out: list[list[Any]] = [[label, k, n, s, u, n / s if s else 0.0, n / u if u else 0.0]
                            for label, (n, s, u, k) in rows.items()]
    return format_table(["positions", "count", "perft(2) nodes", "wall s", "CPU s", "nodes/s wall", "nodes/s CPU"],
                        out, title=title)
