"""``companion bench read --game triolet`` goes on past a reader failure: the frame counts as not
located, the seed is named, and the run exits 1 so that a bug is not averaged away; any other bug
in a command ends in one line and exit 1, not a traceback."""

from __future__ import annotations

from typing import Any

import pytest

from companion_api.cli import main
from vision.read.triolet import reader


def test_bench_read_counts_a_reader_failure_and_goes_on(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    real = reader.read_triolet
    calls: list[int] = []

    def flaky(image: Any, *a: Any, **kw: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise IndexError("lattice coordinates overflowed")
        return real(image, *a, **kw)

    monkeypatch.setattr(reader, "read_triolet", flaky)  # the bench imports it when it runs
    code = main(["bench", "read", "--game", "triolet", "--frames", "2", "--rows", "normal", "--seed", "800050"])
    out, err = capsys.readouterr()
    assert code == 1
    assert len(calls) == 2  # the second frame was still read
    assert "normal seed 900050: the reader failed (IndexError: lattice coordinates overflowed)" in err
    assert "failed on 1 frame(s)" in out and "900050" in out
    row = next(line for line in out.splitlines() if line.startswith("normal"))
    assert row.split()[2] in ("50.00", "0.00")  # the failed frame is not located
    causes = [line for line in out.splitlines() if line.startswith("normal")][1].split()
    assert int(causes[1]) >= 1 and int(causes[2]) >= 1  # imperfect, and first of all not located
    normal = [line.split() for line in out.splitlines() if line.startswith("normal")]
    sizes = normal[2:-4]  # frames by the size of a square in the picture: the two frames, one not located
    assert sum(int(r[-3]) for r in sizes) == 2
    assert sum(int(r[-3]) * float(r[-2]) for r in sizes) <= 100.0 + 1e-6
    stages = normal[-4]
    reliability = normal[-3:]  # the one board read: its answers by confidence band, all of them counted
    assert [r[1] for r in reliability] == ["≥0.9", "0.6–0.9", "<0.6"]
    assert sum(int(r[2]) for r in reliability) > 0 and all(int(r[3]) <= int(r[2]) for r in reliability)
    assert stages[1] == "1"  # per-stage times of the one board read
    locate, rectify, feats, classify, consistency, total = (float(v.replace(",", "")) for v in stages[2:])
    assert min(locate, rectify, feats, classify, consistency) > 0.0
    assert locate + rectify + feats + classify + consistency <= total + 0.5
    assert any(line.startswith("machine: ") and "CPUs" in line and "OpenCV" in line for line in out.splitlines())


def test_cli_reports_an_internal_error_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A bug inside a command ends with one line and exit 1, not a traceback (COMPANION_DEBUG=1
    shows it)."""
    monkeypatch.delenv("COMPANION_DEBUG", raising=False)
    argv = ["bench", "read", "--game", "triolet", "--frames", "1", "--rows", "normal", "--calibration", "truth"]
    # a bug outside the reader
    monkeypatch.setattr("lab.bench.read.render_with_timeout", lambda *a, **kw: 1 / 0)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "companion bench: internal error (ZeroDivisionError" in err and "Traceback" not in err
    monkeypatch.setenv("COMPANION_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main(argv)
