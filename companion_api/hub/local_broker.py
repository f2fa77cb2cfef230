"""A throwaway ``mosquitto`` on a loopback port, for benchmarks and tests (never the system service).

It writes its own config (``listener PORT 127.0.0.1``, no persistence; anonymous, or TLS and
passwords when given) in a temporary folder and can be stopped and started again on the same
port, like a broker going away and coming back.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

#: Where Debian's ``mosquitto`` package puts the broker.
CANDIDATES = ("mosquitto", "/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


def find_mosquitto() -> str | None:
    """The ``mosquitto`` executable, or ``None`` when it is not installed."""
    for name in CANDIDATES:
        path = shutil.which(name) or (name if Path(name).is_file() else None)
        if path:
            return path
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalBroker:
    """``mosquitto`` listening on ``127.0.0.1:port``; use as a context manager."""

    def __init__(self, port: int | None = None, executable: str | None = None,
                 tls: tuple[Path, Path] | None = None, users: dict[str, str] | None = None) -> None:
        """``tls``: (certificate, key) files of a TLS listener; ``users``: name → password (no anonymous)."""
        exe = executable or find_mosquitto()
        if exe is None:
            raise FileNotFoundError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.executable = exe
        self.port = port or free_port()
        self._dir = tempfile.TemporaryDirectory(prefix="companion-mqtt-")
        self.tls = tls is not None
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", "max_queued_messages 100000"]
        if os.name == "posix" and os.geteuid() == 0:
            lines.append("user root")  # else it drops to 'mosquitto', who cannot read this folder
        if tls is not None:
            lines += [f"certfile {tls[0]}", f"keyfile {tls[1]}"]
        if users:
            passwd = Path(self._dir.name) / "passwd"
            tool = shutil.which("mosquitto_passwd") or str(Path(exe).parent.parent / "bin" / "mosquitto_passwd")
            for i, (name, password) in enumerate(users.items()):
                subprocess.run([tool, "-b", *(["-c"] if i == 0 else []), str(passwd), name, password], check=True,
                               capture_output=True)
            lines += ["allow_anonymous false", f"password_file {passwd}"]
        else:
            lines.append("allow_anonymous true")
        self.config = Path(self._dir.name) / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.log = Path(self._dir.name) / "mosquitto.log"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        """Start the broker and wait until it accepts connections."""
        with open(self.log, "ab") as log:
            self._proc = subprocess.Popen([self.executable, "-c", str(self.config)], stdout=log, stderr=log,
                                          stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            if self._proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.log.read_text(errors='replace')[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError("mosquitto did not start listening") from None
                time.sleep(0.05)

    def stop(self) -> None:
        """Stop the broker (what it held in memory is gone, as after a power cut of the broker)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def __enter__(self) -> LocalBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._dir.cleanup()
