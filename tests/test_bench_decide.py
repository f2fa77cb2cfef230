"""``companion bench decide``: the Triolet reader's rules measured alone, paired on kept evidence."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import vision.read.triolet.reader as reader_module
from companion_api.cli.common import CliError
from lab.bench import decide as bench_decide
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.consistency import SquareChoice

#: ``--seed`` whose first two normal frames (20,100,000 and 20,100,001) are read perfectly.
SEED = 20_000_000
FRAMES = 2


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("decide_cache")
    bench_decide.paired_rows(folder, ["normal"], FRAMES, SEED, progress=False)
    return folder


def test_bench_decide_keeps_the_evidence_and_scores_it_paired(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = sorted((cache / "normal").glob("*.npz"))
    assert [p.stem for p in kept] == ["20100000", "20100001"]
    with np.load(kept[0]) as d:
        assert d["probs"].shape == (225, EMPTY + 1) and d["covered"].shape == (225,)

    def no_rendering(*_a: Any) -> None:
        raise AssertionError("kept evidence must be reused, not made again")

    monkeypatch.setattr(bench_decide, "make_evidence", no_rendering)
    r = bench_decide.paired_rows(cache, ["normal"], FRAMES, SEED, progress=False)["normal"]
    assert r.frames == FRAMES and r.located == FRAMES
    assert r.perfect_before == r.perfect_now == FRAMES  # the same rules decide the same cells
    assert r.gained == r.lost == [] and r.mended == r.spoilt == 0 and not r.changes


def test_bench_decide_measures_a_change_of_the_rules(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules that misread every tile by one lose every board and name each changed square."""
    real = reader_module.decide

    def off_by_one(*a: Any) -> list[SquareChoice]:
        choices = real(*a)
        for c in choices:
            if c.cls not in (EMPTY, WILD):
                c.cls = (c.cls + 1) % 16
        return choices

    monkeypatch.setattr(reader_module, "decide", off_by_one)
    r = bench_decide.paired_rows(cache, ["normal"], FRAMES, SEED, progress=False)["normal"]
    assert r.perfect_before == FRAMES and r.perfect_now == 0
    assert r.lost == [20_100_000, 20_100_001] and r.gained == []
    assert r.spoilt > 10 and r.mended == 0
    assert any(line.startswith("seed 20100000 ") and "before" in line for line in r.changes)


def test_bench_decide_refuses_evidence_of_another_reader(tmp_path: Path) -> None:
    (tmp_path / bench_decide.FINGERPRINT_FILE).write_text("0123456789abcdef\n", encoding="utf-8")
    with pytest.raises(CliError, match="another reader"):
        bench_decide.open_cache(tmp_path, bench_decide.reader_fingerprint())


def test_bench_decide_fingerprint_leaves_out_the_decision_step(tmp_path: Path) -> None:
    triolet = tmp_path / "read" / "triolet"
    triolet.mkdir(parents=True)
    (triolet / "consistency.py").write_text("A = 1\n", encoding="utf-8")
    (triolet / "reader.py").write_text("B = 1\n", encoding="utf-8")
    first = bench_decide.reader_fingerprint(tmp_path)
    (triolet / "consistency.py").write_text("A = 2\n", encoding="utf-8")
    assert bench_decide.reader_fingerprint(tmp_path) == first
    (triolet / "reader.py").write_text("B = 2\n", encoding="utf-8")
    assert bench_decide.reader_fingerprint(tmp_path) != first


def test_bench_decide_prints_its_table(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(cache=str(cache), frames=FRAMES, seed=SEED, rows="normal", errors=True, game="triolet")
    assert bench_decide.run(args) == 0
    out = capsys.readouterr().out
    assert "boards gained" in out and "perfect % now" in out
    assert out.splitlines()[3].split()[:2] == ["normal", str(FRAMES)]


def test_bench_decide_bad_rows_are_bad_usage(tmp_path: Path) -> None:
    args = argparse.Namespace(cache=str(tmp_path), frames=1, seed=0, rows="sideways", errors=False, game="triolet")
    with pytest.raises(CliError, match="unknown row"):
        bench_decide.run(args)


def test_bench_decide_never_writes_into_a_folder_of_other_things(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(CliError, match="holds other things"):
        bench_decide.open_cache(tmp_path, bench_decide.reader_fingerprint())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_bench_decide_spoilt_evidence_is_named_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "20100000.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(CliError, match="delete the file"):
        bench_decide.score_kept(bad, 20_100_000, bench_decide.Paired())
