"""The tile benches: a reading is matched to the truth by tile centre and nearest corner, and the
renderer-B and real-photo tables print per edition / per picture."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_api.cli import main
from lab.bench.read_povray_tiles import score_reading
from vision.read.tritiles.reading import TileCorner, TileReading, TrianglesReading


def _tri(cx: float, cy: float, side: float = 60.0) -> list[list[float]]:
    """An upward triangle's corners, apex first, clockwise (y down)."""
    h = side * 3 ** 0.5 / 2
    return [[cx, cy - 2 * h / 3], [cx + side / 2, cy + h / 3], [cx - side / 2, cy + h / 3]]


def _truth(with_cells: bool = True) -> dict[str, object]:
    tiles = []
    for f, (cx, cy, vals) in enumerate(((100.0, 100.0, (0, 1, 2)), (300.0, 100.0, (3, 4, 5)))):
        t: dict[str, object] = {"center_px": [cx, cy],
                                "corners": [{"px": p, "value": v} for p, v in zip(_tri(cx, cy), vals, strict=True)]}
        if with_cells:
            t.update({"field": f, "cell": [0, 0], "values": list(vals)})
        tiles.append(t)
    return {"game": "trio_domino", "tiles": tiles}


def _read(cx: float, cy: float, vals: tuple[int, int, int], shift: float = 0.0, turn: int = 0,
          field: int = 0) -> TileReading:
    """A reading of the upward tile at (cx, cy) in ``field``, its centre moved by ``shift`` px, corners
    listed from another one (``turn``)."""
    pts = [(p[0] + shift, p[1]) for p in _tri(cx, cy)]
    corners = [TileCorner(pts[i], vals[i]) for i in range(3)]
    corners = corners[turn:] + corners[:turn]
    return TileReading((cx + shift, cy), (corners[0], corners[1], corners[2]), (0, 0), field, 0.9)


def test_a_found_a_missed_and_an_invented_tile_are_counted() -> None:
    reading = TrianglesReading("trio_domino", (
        _read(100, 100, (0, 1, 3), shift=8.0, turn=1),  # found (8 px off a 60 px side), one corner wrong
        _read(600, 400, (1, 1, 1)),  # nothing lies there: invented
    ))
    r = score_reading(reading, _truth())
    assert (r["tiles"], r["found"], r["extra"], r["corners"], r["values_ok"]) == (2, 1, 1, 6, 2)
    assert r["found_idx"] == {0} and not r["perfect"]


def test_a_tile_read_a_third_of_a_side_away_is_not_that_tile() -> None:
    reading = TrianglesReading("trio_domino", (_read(100, 100, (0, 1, 2), shift=25.0),))
    r = score_reading(reading, _truth())
    assert (r["found"], r["extra"], r["values_ok"]) == (0, 1, 0)


@pytest.mark.parametrize("with_cells", [True, False])
def test_every_tile_right_and_none_invented_is_perfect(with_cells: bool) -> None:
    reading = TrianglesReading("trio_domino", (_read(300, 100, (3, 4, 5), turn=2, field=1),
                                               _read(100, 100, (0, 1, 2))))
    r = score_reading(reading, _truth(with_cells))
    assert (r["found"], r["extra"], r["values_ok"]) == (2, 0, 6) and r["perfect"]
    if with_cells:  # two loose tiles read as one field: their cells cannot both be right
        one_field = TrianglesReading("trio_domino", (_read(300, 100, (3, 4, 5)), _read(100, 100, (0, 1, 2))))
        assert not score_reading(one_field, _truth())["perfect"]
    assert score_reading(None, _truth(with_cells))["perfect"] is False


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bench_real_scores_labelled_tile_photos(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cv2.imwrite(str(tmp_path / "Pict_a.jpg"), np.full((240, 320, 3), 200, np.uint8))
    (tmp_path / "Pict_a.json").write_text(json.dumps(_truth(False)), encoding="utf-8")
    code, out, _ = _run(["bench", "real", "--game", "trio_domino", "--dir", str(tmp_path)], capsys)
    assert code == 0
    row = next(ln for ln in out.splitlines() if ln.startswith("Pict_a (320×240)"))
    assert row.split()[2:6] == ["-", "1", "2", "0.000"]  # not calibrated; 2 tiles, none found on a blank picture
    assert any(ln.startswith("all ") for ln in out.splitlines())


def test_bench_real_refuses_another_games_truth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cv2.imwrite(str(tmp_path / "x.jpg"), np.full((24, 32, 3), 200, np.uint8))
    (tmp_path / "x.json").write_text(json.dumps(_truth(False)), encoding="utf-8")
    code, _, err = _run(["bench", "real", "--game", "triominos", "--dir", str(tmp_path)], capsys)
    assert code == 2 and "a trio_domino picture, not triominos" in err and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(shutil.which("povray") is None, reason="POV-Ray is not installed (.ci/run installs it)")
def test_bench_read_povray_tiles_prints_rows_per_edition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab.render.povray.tiles import tiles_cache_key, tiles_frame

    # a tiny fast render stands in, in the cache, for the full-size frame the bench would render
    fr = tiles_frame(0, "triominos", "train", (320, 240), quality="fast")
    fr.save(tmp_path, tiles_cache_key("triominos", 0, "train", None, "normal"), jpeg_quality=95)
    code, out, _ = _run(["bench", "read", "--game", "triominos", "--renderer", "povray", "--faces", "train",
                         "--frames", "1", "--cache", str(tmp_path)], capsys)
    assert code == 0
    edition = fr.labels["style"]["edition"]
    rows = [ln for ln in out.splitlines() if ln.startswith("povray train")]
    assert [r.startswith(f"povray train {edition}") for r in rows] == [True, False]
    assert rows[1].startswith("povray train all") and f" {len(fr.labels['tiles'])} " in rows[1]


def test_bench_real_calibrates_on_another_photo_of_the_group() -> None:
    from lab.bench.real_tiles import teacher_of

    names = ["Pict_1_1", "Pict_1_2", "Pict_1_3", "Pict_3_1"]
    assert [teacher_of(n, names) for n in names] == ["Pict_1_2", "Pict_1_3", "Pict_1_1", None]
