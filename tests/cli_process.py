"""The ``companion`` command run as its own process, for tests of ``serve`` and ``hub``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CODE = "import sys; from companion_api.cli import main; sys.exit(main(sys.argv[1:]))"


def companion(*args: str, **kw: Any) -> subprocess.Popen[str]:
    """``companion ARGS`` from this checkout, unbuffered, its stdout and stderr piped as text."""
    return subprocess.Popen([sys.executable, "-c", CODE, *args], cwd=ROOT, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def stop(proc: subprocess.Popen[str]) -> None:
    """SIGTERM, then SIGKILL if it has not ended within 10 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
