"""``companion bench read --against DIR``: this checkout's reader and another checkout's read the
same rendered frames in two worker processes; the table counts the frames both read the same, and
a checkout that is not one, or whose reader breaks, ends in one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion_api.cli import main

FAKE_LOCATE = "class BoardNotLocatedError(Exception):\n    pass\n"


def _fake_checkout(root: Path, reader_body: str) -> Path:
    """A checkout whose Triolet reader is ``reader_body`` (defines ``read_triolet``)."""
    (root / "vision" / "triolet").mkdir(parents=True)
    (root / "vision" / "__init__.py").write_text("")
    (root / "vision" / "triolet" / "__init__.py").write_text("")
    (root / "vision" / "locate.py").write_text(FAKE_LOCATE)
    (root / "vision" / "triolet" / "reader.py").write_text(reader_body)
    return root


def _row(out: str, name: str, table: int = 0) -> list[str]:
    """Row ``name`` of the ``table``-th table (0: timing, 1: both readings scored)."""
    return [line for line in out.splitlines() if line.startswith(name)][table].split()


def test_bench_read_against_counts_frames_read_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Against a reader that finds no board, no frame is read the same (this reader finds the
    board and its tiles); both readers' times are listed, and both readings are scored."""
    other = _fake_checkout(tmp_path / "other", "from vision.locate import BoardNotLocatedError\n"
                                               "def read_triolet(image):\n"
                                               "    raise BoardNotLocatedError('never')\n")
    code = main(["bench", "read", "--game", "triolet", "--frames", "2", "--rows", "normal", "--seed", "4242",
                 "--against", str(other), "--errors"])
    out, err = capsys.readouterr()
    assert code == 0, out
    row = _row(out, "normal")
    assert row[1] == "2" and row[-1] == "0/2"
    assert float(row[2]) > float(row[3]) >= 0.0  # reading a board costs more than giving up at once
    assert "machine: " in out  # timings are only compared on one machine: the table says which
    scored = _row(out, "normal", 1)
    perfect_here = round(float(scored[2]) * 2 / 100)
    assert perfect_here >= 1  # seed 4242's normal frames: this reader reads at least one perfectly
    assert float(scored[3]) == 0.0  # no board found is never perfect
    assert float(scored[4]) > 99.0 and scored[5] == "-"  # no square scored without a board
    assert int(scored[6]) == perfect_here and int(scored[7]) == 0
    assert err.count(": perfect only here") == perfect_here  # --errors names those frames' seeds


def test_bench_read_against_itself_reads_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    """The same checkout on both sides: every frame read the same."""
    here = Path(__file__).resolve().parent.parent
    code = main(["bench", "read", "--game", "triolet", "--frames", "1", "--rows", "held-out", "--seed", "4242",
                 "--against", str(here)])
    out, _ = capsys.readouterr()
    assert code == 0, out
    assert _row(out, "held-out")[-1] == "1/1"
    scored = _row(out, "held-out", 1)
    assert scored[2] == scored[3] and scored[4] == scored[5]  # the same reader scores the same
    assert scored[6] == scored[7] == "0"


def test_bench_read_against_a_folder_that_is_no_checkout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "read", "--game", "triolet", "--frames", "1", "--against", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 2
    assert "no Triolet reader there" in err and "git worktree add" in err
    assert "Traceback" not in err


def test_bench_read_against_a_reader_that_breaks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = _fake_checkout(tmp_path / "other", "def read_triolet(image):\n"
                                               "    raise RuntimeError('lattice overflowed')\n")
    code = main(["bench", "read", "--game", "triolet", "--frames", "1", "--rows", "normal", "--seed", "4242",
                 "--against", str(other)])
    _, err = capsys.readouterr()
    assert code == 1
    assert "the reader stopped" in err and "RuntimeError: lattice overflowed" in err
    assert "Traceback (most recent call last)" not in err.splitlines()[-1]


def test_bench_read_against_refuses_a_calibration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "read", "--game", "triolet", "--against", str(tmp_path), "--calibration"])
    _, err = capsys.readouterr()
    assert code == 2 and "does not combine with --calibration" in err
