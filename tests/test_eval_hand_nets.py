"""The hand-net comparison script (``vision/models/eval_triolet_hand_nets.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.models.eval_triolet_hand_nets import BASE, compare, main, parse_variant, table
from vision.triolet import cnn as square_cnn


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
