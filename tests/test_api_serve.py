"""``companion serve`` as a process: start-up lines, bad arguments (exit 2), kill -9 mid-game, and the
default simulated table (renderer + vision tracker)."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_process import companion, stop


def start(db: Path, *extra: str) -> tuple[subprocess.Popen[str], str, str, str]:
    """Start ``serve`` on a free port; returns the process, base URL, viewer and table tokens."""
    local = () if "--host" in extra else ("--host", "127.0.0.1")
    proc = companion("serve", "--db", str(db), "--port", "0", *local, *extra)
    assert proc.stdout is not None
    viewer_line = proc.stdout.readline()
    table_line = proc.stdout.readline()
    m = re.fullmatch(r"viewer: (http://127\.0\.0\.1:\d+)/\?token=(\S+)\n", viewer_line)
    t = re.fullmatch(r"table token: (\S+)\n", table_line)
    if not (m and t):
        proc.kill()
        raise AssertionError(f"unexpected start-up output: {viewer_line!r} {table_line!r} {proc.stderr.read()!r}")  # type: ignore[union-attr]
    base = m.group(1)
    deadline = time.monotonic() + 15
    while True:
        try:
            if httpx.get(base + "/api/game", params={"token": m.group(2)}, timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "server did not answer"
        time.sleep(0.05)
    return proc, base, m.group(2), t.group(1)


def events(base: str, token: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = httpx.get(base + "/api/events", params={"token": token}, timeout=5).json()["events"]
    return items


def test_kill_9_mid_game_loses_nothing_and_restart_resumes(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    proc, base, viewer, table = start(db, "--source", "sim-lite", "--speed", "40")  # a move about every 75 ms
    try:
        deadline = time.monotonic() + 20
        while len(events(base, viewer)) < 8:
            assert time.monotonic() < deadline, "no moves from the simulated table"
            time.sleep(0.05)
        seen = events(base, viewer)
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    proc2, base2, viewer2, table2 = start(db, "--source", "sim-lite", "--speed", "0.0001")  # resumes, no new moves
    try:
        assert (viewer2, table2) == (viewer, table)  # tokens survive restarts
        after = events(base2, viewer2)
        assert len(after) >= len(seen)
        assert after[: len(seen)] == seen  # same events, verdicts, totals, commit times
        game = httpx.get(base2 + "/api/game", params={"token": viewer2}).json()
        assert game["totals"] == after[-1]["totals"] and game["seq"] == len(after)
        assert game["game"] == "triolet" and game["status"] == "playing"
    finally:
        stop(proc2)
    assert proc2.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises SIGTERM after a clean shutdown


@pytest.mark.slow
def test_default_sim_is_rendered_and_followed_by_the_tracker_and_survives_kill_9(tmp_path: Path) -> None:
    """``companion serve`` with no ``--source``: the renderer's game read by the vision tracker in real
    time; the first placement arrives from the tracker with before/after crops (PNG); kill -9 and a
    restart keep every committed event and resume the same game."""
    db = tmp_path / "live.sqlite3"
    proc, base, viewer, _table = start(db)
    try:
        deadline = time.monotonic() + 40
        while not [e for e in events(base, viewer) if e["type"] == "place"]:
            assert time.monotonic() < deadline, "no placement from the simulated table"
            time.sleep(0.2)
        seen = events(base, viewer)
        first = next(e for e in seen if e["type"] == "place")
        assert first["source"] == "vision" and first["legal"] and first["evidence"] == str(first["seq"])
        assert first["frame"] >= 0 and first["totals"][first["player"]] == first["score"] >= 0
        r = httpx.get(f"{base}/api/events/{first['seq']}/evidence", params={"token": viewer}, timeout=5)
        assert r.status_code == 200 and r.content[:8] == b"\x89PNG\r\n\x1a\n"
        game = httpx.get(base + "/api/game", params={"token": viewer}, timeout=5).json()
        assert game["source"] == "sim" and game["source_error"] is None
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
    finally:
        if proc.poll() is None:
            proc.kill()
    proc2, base2, viewer2, _table2 = start(db)
    try:
        after = events(base2, viewer2)
        assert after[: len(seen)] == seen
        game = httpx.get(base2 + "/api/game", params={"token": viewer2}, timeout=5).json()
        assert game["seq"] >= len(seen) and game["status"] == "playing" and game["source"] == "sim"
    finally:
        stop(proc2)
    assert "resuming" in (proc2.stderr.read() if proc2.stderr else "")  # type: ignore[union-attr]


def test_sim_falls_back_to_sim_lite_when_too_fast(tmp_path: Path) -> None:
    proc = companion("serve", "--db", str(tmp_path / "f.sqlite3"), "--port", "0", "--speed", "40")
    try:
        assert proc.stdout is not None and proc.stdout.readline().startswith("viewer: ")
    finally:
        stop(proc)
    err = proc.stderr.read() if proc.stderr else ""  # type: ignore[union-attr]
    assert "using sim-lite" in err and "--speed 40" in err


def fails(*args: str) -> str:
    proc = companion(*args)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 2, (args, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_bad_arguments_exit_2_with_one_line(tmp_path: Path) -> None:
    assert "no such file" in fails("serve", "--source", "video:/nope/game.mp4", "--db", str(tmp_path / "a.db"))
    assert "camera:N" in fails("serve", "--source", "webcam", "--db", str(tmp_path / "a.db"))
    assert "unknown game" in fails("serve", "--game", "chess", "--db", str(tmp_path / "a.db"))
    assert "1 to 6" in fails("serve", "--players", "9", "--db", str(tmp_path / "a.db"))
    assert "folder" in fails("serve", "--db", str(tmp_path))


def test_bench_serve_prints_a_latency_table() -> None:
    proc = companion("bench", "serve", "--clients", "3", "--seconds", "1.5", "--speed", "40")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    lines = out.splitlines()
    assert lines[1].split()[:6] == ["clients", "connected", "events", "messages", "p50", "ms"]
    row = lines[3].split()
    assert row[0] == "3" and row[1] == "3" and int(row[3].replace(",", "")) > 0


def test_bench_serve_is_bounded() -> None:
    assert "--clients" in fails("bench", "serve", "--clients", "5000")
    assert "--seconds" in fails("bench", "serve", "--seconds", "0")
