"""``companion bench hostile`` — hostile and broken input, measured.

Four tables:
- fuzz: ``--bodies`` seeded hostile bodies (``lab.bench.fuzz``) over every write route
  of an in-process app (Triolet, temporary database): answers by status, 5xx must be 0;
- big body: a real ``companion serve`` gets a 100 MB body with no token, a wrong one and the
  table token: time to the answer and the server's memory before and after;
- idle sockets: ``companion serve`` started with 1,024 open files gets ``--sockets`` connections
  that send half a header; when is a phone served again, against the header timeout;
- bombs: ``companion read`` on a PNG declaring 20000×20000 pixels and a JPEG declaring
  30000×30000, and ``companion check`` on a record with a 400-deep correction: exit code, wall
  time and peak memory of the process.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table, machine_line

CLI = "import sys; from companion_api.cli import main; sys.exit(main(sys.argv[1:]))"
MAX_BODIES = 100_000
BIG_BODY = 100 * 1024 * 1024


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bodies", type=int, default=10_000, help=f"fuzzed bodies (1-{MAX_BODIES}, default 10000)")
    p.add_argument("--sockets", type=int, default=1100, help="idle half-header sockets (default 1100)")
    p.add_argument("--seed", type=int, default=49, help="fuzz seed (default 49)")
    p.add_argument("--only", choices=["fuzz", "body", "sockets", "bombs"], default=None, help="run one table only")


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.bodies <= MAX_BODIES:
        raise CliError(f"--bodies {args.bodies}: must be 1-{MAX_BODIES}")
    if not 1 <= args.sockets <= 5000:
        raise CliError(f"--sockets {args.sockets}: must be 1-5000")
    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        work = Path(tmp)
        if args.only in (None, "fuzz"):
            print(_fuzz_table(work, args.seed, args.bodies) + "\n")
        if args.only in (None, "body"):
            print(_big_body_table(work) + "\n")
        if args.only in (None, "sockets"):
            print(_sockets_table(work, args.sockets) + "\n")
        if args.only in (None, "bombs"):
            print(_bombs_table(work))
    return 0


# -- fuzz --------------------------------------------------------------------------------------
def _fuzz_table(work: Path, seed: int, count: int) -> str:
    from fastapi.testclient import TestClient

    from companion_api.app import create_app
    from companion_api.auth import current_tokens
    from companion_api.settings import Settings
    from lab.bench.fuzz import fuzz_requests

    app = create_app(Settings(game="triolet", players=["Ana", "Ben"], db=work / "fuzz.sqlite3"), use_source=False)
    per_route: dict[str, Counter[int]] = {}
    t0 = time.perf_counter()
    with TestClient(app, raise_server_exceptions=False) as c:
        tokens = current_tokens(app)
        for req in fuzz_requests(seed, count):
            token = {"table": tokens.table, "viewer": tokens.viewer, "wrong": "nope", "none": None}[req.token]
            headers = {"Content-Type": req.content_type} if req.content_type else {}
            if token:
                headers["Authorization"] = f"Bearer {token}"
            status = c.post(req.path, content=req.body, headers=headers).status_code
            per_route.setdefault(req.path, Counter())[status] += 1
    seconds = time.perf_counter() - t0
    rows: list[list[Any]] = []
    everything: Counter[int] = Counter()
    for path, st in [*sorted(per_route.items()), ("all", everything)]:
        rows.append([path, sum(st.values()), sum(v for k, v in st.items() if k < 300),
                     ", ".join(f"{k}×{v}" for k, v in sorted(st.items()) if 400 <= k < 500),
                     sum(v for k, v in st.items() if k >= 500)])
        everything.update(st)
    return format_table(["route", "bodies", "2xx", "4xx", "5xx"], rows,
                        title=f"fuzzed write bodies (seed {seed}, {seconds:.1f} s): 5xx must be 0")


# -- a real server -----------------------------------------------------------------------------
def _start(db: Path, open_files: int | None = None) -> tuple[subprocess.Popen[str], str, str, str]:
    def limit() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    cmd = [sys.executable, "-c", CLI, "serve", "--db", str(db), "--port", "0", "--source", "sim-lite",
           "--speed", "0.01", "--host", "127.0.0.1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert proc.stdout is not None and proc.stderr is not None
    viewer_line, table_line = proc.stdout.readline(), proc.stdout.readline()
    m = re.fullmatch(r"viewer: http://([^/]+)/\?token=(\S+)\n", viewer_line)
    t = re.fullmatch(r"table token: (\S+)\n", table_line)
    if not (m and t):
        proc.kill()
        raise CliError(f"companion serve did not start: {proc.stderr.read().strip()[-300:]}")
    base = m.group(1)
    deadline = time.monotonic() + 30
    while not _get_ok(base, m.group(2), 1.0):
        if time.monotonic() > deadline:
            proc.kill()
            raise CliError("companion serve does not answer")
        time.sleep(0.1)
    return proc, base, m.group(2), t.group(1)


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def _addr(base: str) -> tuple[str, int]:
    host, _, port = base.rpartition(":")
    return host, int(port)


def _get_ok(base: str, token: str, timeout: float) -> bool:
    try:
        with socket.create_connection(_addr(base), timeout=timeout) as s:
            s.sendall(f"GET /api/game HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                      "Connection: close\r\n\r\n".encode())
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _post_big(base: str, token: str | None) -> tuple[str, float]:
    """Send a 100 MB body (as fast as the server takes it) and return the answer's status line and
    the seconds from the end of the headers to the answer."""
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    head = (f"POST /api/events HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\n"
            f"Content-Length: {BIG_BODY}\r\n\r\n").encode()
    s = socket.create_connection(_addr(base), timeout=30)
    stop = threading.Event()

    def pour() -> None:
        chunk = b"x" * (1024 * 1024)
        try:
            for _ in range(BIG_BODY // len(chunk)):
                if stop.is_set():
                    return
                s.sendall(chunk)
        except OSError:
            return

    s.sendall(head)
    t0 = time.perf_counter()
    sender = threading.Thread(target=pour, daemon=True)
    sender.start()
    try:
        answer = s.recv(4096)
    except OSError as exc:
        answer = f"({exc.__class__.__name__})".encode()
    seconds = time.perf_counter() - t0
    stop.set()
    s.close()
    sender.join(5)
    return answer.split(b"\r\n", 1)[0].decode("latin-1"), seconds


def _big_body_table(work: Path) -> str:
    proc, base, _viewer, table = _start(work / "body.sqlite3")
    rows = []
    try:
        for name, token in (("no token", None), ("a wrong token", "nope"), ("the table token", table)):
            before = _rss_mb(proc.pid)
            status, seconds = _post_big(base, token)
            time.sleep(0.3)
            rows.append([name, status, seconds * 1000, before, _rss_mb(proc.pid)])
    finally:
        _stop(proc)
    return format_table(["100 MB body with", "answer", "ms to answer", "server MB before", "after"], rows,
                        title="a 100 MB POST /api/events on companion serve: refused before the body is read")


# -- idle sockets ------------------------------------------------------------------------------
def _sockets_table(work: Path, count: int) -> str:
    from companion_api.connections import HEADER_TIMEOUT, connection_cap, raise_open_files

    raise_open_files()  # this process holds the sockets
    proc, base, viewer, _table = _start(work / "sockets.sqlite3", open_files=1024)
    held: list[socket.socket] = []
    refused = 0
    try:
        t0 = time.monotonic()
        for _ in range(count):
            try:
                s = socket.create_connection(_addr(base), timeout=5)
                s.sendall(b"GET /api/game HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                held.append(s)
            except OSError:
                refused += 1
        opened = time.monotonic() - t0
        served_at = None
        while time.monotonic() - t0 < HEADER_TIMEOUT + 30:
            if _get_ok(base, viewer, 2.0):
                served_at = time.monotonic() - t0
                break
            time.sleep(0.1)
        time.sleep(max(0.0, t0 + opened + HEADER_TIMEOUT + 1.0 - time.monotonic()))  # the last ones are due too
        closed = sum(1 for s in held if _closed(s))
        alive = proc.poll() is None
    finally:
        for s in held:
            s.close()
        err = _stop(proc)
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("companion serve: resuming")
             and not ln.startswith("companion serve: new")]
    served = "never" if served_at is None else f"{served_at:.1f} s"
    after = "-" if served_at is None else f"{max(0.0, served_at - HEADER_TIMEOUT):.1f} s"
    rows = [[count, connection_cap(1024), f"{opened:.1f} s", served, f"{HEADER_TIMEOUT:g} s", after,
             f"{closed} of {len(held)}", "yes" if alive else "no", len(lines)]]
    table = format_table(["sockets", "cap", "opened in", "phone served at", "header timeout", "after it",
                          "closed by server", "alive", "stderr lines"], rows,
                         title="half-header sockets against companion serve with 1,024 open files")
    return table + "".join(f"\n  stderr: {ln[:150]}" for ln in lines[:3])


def _closed(s: socket.socket) -> bool:
    s.settimeout(0.05)
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except (TimeoutError, OSError):
        return False


# -- bombs -------------------------------------------------------------------------------------
#: The CLI, writing its own peak memory (VmHWM: this program's, not the forking parent's, which
#: the kernel's ru_maxrss would carry over the exec) to the file named by ``argv[1]``.
CLI_PEAK = ("import sys; from pathlib import Path; from companion_api.cli import main\n"
            "try:\n    code = main(sys.argv[2:])\nfinally:\n"
            "    hwm = [ln for ln in Path('/proc/self/status').read_text().splitlines() if ln.startswith('VmHWM')]\n"
            "    Path(sys.argv[1]).write_text(hwm[0].split()[1] if hwm else 'nan')\n"
            "sys.exit(code)")


def _timed(argv: list[str], work: Path) -> tuple[int, float, float, str, float]:
    """Run the CLI: exit code, wall seconds, peak memory (MB) of that process, its stderr, and its
    CPU seconds (what the wall time is on an idle machine)."""
    peak_file = work / "peak.txt"
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CLI_PEAK, str(peak_file), *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    try:
        peak = float(peak_file.read_text()) / 1024
    except (OSError, ValueError):
        peak = float("nan")
    return proc.returncode, wall, peak, err, usage.ru_utime + usage.ru_stime


def _bombs_table(work: Path) -> str:
    from lab.bench.fuzz import RECORD_HEADER, jpeg_declaring, png_declaring
    from vision.sources import SourceError, decode_image

    png = work / "bomb.png"
    png.write_bytes(png_declaring(20000, 20000, 1_000_000))
    jpg = work / "bomb.jpg"
    jpg.write_bytes(jpeg_declaring(30000, 30000))
    event: Any = {"type": "pass", "player": 0}
    for _ in range(400):
        event = {"type": "correct", "seq": 1, "event": event}
    rec = work / "deep.jsonl"
    rec.write_text(json.dumps(RECORD_HEADER) + "\n" + json.dumps({"type": "pass", "player": 0}) + "\n"
                   + json.dumps(event) + "\n")
    rows = []
    for name, path, argv in ((f"PNG 20000×20000, {png.stat().st_size // 1024} KB", png, ["read", "--game", "triolet"]),
                             (f"JPEG 30000×30000, {jpg.stat().st_size} B", jpg, ["read", "--game", "triolet"]),
                             ("record, a 400-deep correction", rec, ["check"])):
        code, wall, peak, err, cpu = _timed([*argv, str(path)], work)
        inside = float("nan")
        if path.suffix != ".jsonl":
            t0 = time.perf_counter()
            with contextlib.suppress(SourceError):
                decode_image(path.read_bytes(), path.name)
            inside = (time.perf_counter() - t0) * 1000
        rows.append([name, " ".join(argv[:1]), code, wall, cpu, inside, peak, err.count("\n")])
    junk = work / "junk.png"
    junk.write_bytes(b"not a picture")
    base = _timed(["read", "--game", "triolet", str(junk)], work)  # starting Python and importing the reader
    return format_table(["input", "command", "exit", "wall s", "cpu s", "check ms", "peak MB", "stderr lines"], rows,
                        title=f"refused before decoding or parsing (for scale: companion read on a 13-byte "
                              f"non-picture takes {base[1]:.2f} s wall, {base[4]:.2f} s cpu, {base[2]:.0f} MB)")
