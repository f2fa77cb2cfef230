"""The hand-net comparison script (``lab/train/eval_triolet_hand_nets.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.train.eval_triolet_hand_nets import (
    BASE,
    VariantScore,
    compare,
    compare_parallel,
    main,
    parse_variant,
    split,
    table,
)
from vision.read.triolet import cnn as square_cnn


def test_parse_variant_expands_base_and_rejects_bad_text(tmp_path: Path) -> None:
    net = tmp_path / "n.npz"
    net.write_bytes(b"x")
    name, paths = parse_variant(f"mix=base+{net}")
    assert name == "mix"
    assert paths == (*square_cnn.HAND_CNN_PATHS, net)
    for bad in ("nothing", "=x.npz", "a=", f"{BASE}={net}", f"a={tmp_path / 'missing.npz'}"):
        with pytest.raises(ValueError):
            parse_variant(bad)


def test_compare_reads_hand_frames_with_each_variant_and_restores_the_pair(tmp_path: Path) -> None:
    # seed 23,000,000 renders a hand over the board (the seeds just after it do not).
    committed = square_cnn.HAND_CNN_PATHS
    out = tmp_path / "rows.jsonl"
    scores = compare({BASE: committed, "same": committed}, 23_000_000, 2, out, progress=False)
    assert committed == square_cnn.HAND_CNN_PATHS
    assert 1 <= scores[BASE].frames <= 2
    assert scores["same"].frames == scores[BASE].frames
    assert scores["same"].perfect_seeds == scores[BASE].perfect_seeds
    assert scores["same"].wrong == scores[BASE].wrong
    assert len(out.read_text().splitlines()) == scores[BASE].frames
    assert "| same |" in table(scores) and "+0 -0" in table(scores)


def test_main_refuses_a_missing_net(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--seed", "1", "--count", "1", "--variant", "x=/no/such/net.npz"])
    assert exc.value.code == 2
    assert "no such net file" in capsys.readouterr().err


def test_split_covers_the_seeds_once_in_contiguous_parts() -> None:
    assert split(10, 7, 3) == [(10, 3), (13, 2), (15, 2)]
    assert split(10, 2, 5) == [(10, 1), (11, 1)]
    assert split(10, 5, 1) == [(10, 5)]
    for count, parts in ((1, 1), (9, 4), (100, 7)):
        ranges = split(0, count, parts)
        assert [s for first, n in ranges for s in range(first, first + n)] == list(range(count))


def test_variant_scores_add_up() -> None:
    a = VariantScore(frames=2, wrong=3, guesses=0, perfect_seeds={5})
    a.add(VariantScore(frames=3, wrong=1, guesses=1, perfect_seeds={7, 8}))
    assert (a.frames, a.perfect, a.wrong, a.guesses, a.perfect_seeds) == (5, 3, 4, 1, {5, 7, 8})


def test_workers_give_the_single_process_scores_and_lines(tmp_path: Path) -> None:
    # seeds 23,000,000 (a hand over the board) … 23,000,003, in two processes of two seeds each
    variants = {BASE: square_cnn.HAND_CNN_PATHS}
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    serial = compare(variants, 23_000_000, 4, one, progress=False)
    parallel = compare_parallel(variants, 23_000_000, 4, 2, two)
    assert serial[BASE] == parallel[BASE] and serial[BASE].frames >= 1
    assert two.read_text() == one.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.jsonl", "two.jsonl"]
