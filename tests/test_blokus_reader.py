"""Square Blokus reader (Classic 20×20, Duo 14×14): K-B1 names, reading rendered boards at any
rotation and perspective, the INTERFACES §3 JSON, exit codes, the ``bench real`` table."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion_api.cli import main
from lab.render.blokus import BlokusRender, render_blokus, table_texture
from vision.read.blokus import BoardNotLocatedError, read_blokus
from vision.read.blokus.geometry import board_size, square_name, square_position

#: share of squares a rendered board must at least read right
MIN_SQUARES = 0.99
#: ../shared/real/blokus beside the clone (or beside the folder of worktrees)
REAL = next((d / "shared" / "real" / "blokus" for d in Path(__file__).resolve().parents[2:4]
             if (d / "shared" / "real" / "blokus").is_dir()), Path("/nonexistent"))


@lru_cache(maxsize=8)
def rendered(seed: int, game: str = "blokus") -> BlokusRender:
    return render_blokus(seed, game)


def right_share(got: list[list[str | None]], truth: list[list[str | None]]) -> float:
    n = len(truth)
    return sum(got[r][c] == truth[r][c] for r in range(n) for c in range(n)) / (n * n)


def test_k_b1_square_names() -> None:
    """K-B1: column letter from the left, row number from 1 at the bottom; a20 top-left (classic)."""
    assert square_name(0, 0, 20) == "a20"
    assert square_name(19, 19, 20) == "t1"
    assert square_name(4, 10, 20) == "e10"
    assert square_name(13, 0, 14) == "n14"
    assert all(square_position(square_name(c, r, 14), 14) == (c, r) for r in range(14) for c in range(14))
    with pytest.raises(ValueError, match="not a square"):
        square_position("u1", 20)
    with pytest.raises(ValueError, match="unknown square Blokus game"):
        board_size("blokus_trigon")


@pytest.mark.parametrize(("seed", "game"), [(0, "blokus"), (1, "blokus"), (2, "blokus"), (100, "blokus_duo"),
                                            (101, "blokus_duo")])
def test_rendered_boards_are_located_and_read(seed: int, game: str) -> None:
    """Renders at any rotation, perspective, lamp colour and glare: located, ≥ 99 % squares right,
    corners within 1 % of the picture's size."""
    f = rendered(seed, game)
    r = read_blokus(f.image, game=game)
    assert right_share(r.grid(len(f.truth)), f.truth) >= MIN_SQUARES
    err = np.abs(np.array(r.corners_px) - f.corners_px).max()
    assert err < 0.01 * max(f.image.shape[:2]), err


def test_hard_render_is_read() -> None:
    """A 2–6 MP picture, steep camera, spare pieces against the rim, dim warm light."""
    f = render_blokus(5, "blokus", hard=True)
    r = read_blokus(f.image)
    assert right_share(r.grid(20), f.truth) >= MIN_SQUARES


def test_quarter_turned_picture_names_squares_from_its_top_edge() -> None:
    """INTERFACES §3: the board edge nearest the top of the picture is the top edge, so turning the
    picture a quarter turn turns the reading with it."""
    f = rendered(3)
    turned = np.ascontiguousarray(np.rot90(f.image, 1))  # counter-clockwise: the right edge comes on top
    truth = [[v for v in row] for row in np.rot90(np.array(f.truth, dtype=object), 1).tolist()]
    r = read_blokus(turned)
    assert right_share(r.grid(20), truth) >= MIN_SQUARES


def test_reading_json_shape() -> None:
    f = rendered(0)
    out = read_blokus(f.image).to_json()
    assert set(out) == {"game", "board", "cells"} and out["game"] == "blokus"
    corners = out["board"]["corners_px"]
    assert len(corners) == 4 and all(len(p) == 2 for p in corners)
    # clockwise on screen (y down): positive shoelace area
    xy = np.array(corners)
    assert 0.5 * np.sum(xy[:, 0] * np.roll(xy[:, 1], -1) - np.roll(xy[:, 0], -1) * xy[:, 1]) > 0
    covered = sum(v is not None for row in f.truth for v in row)
    assert abs(len(out["cells"]) - covered) <= 4
    names = set()
    for c in out["cells"]:
        assert set(c) == {"cell", "colour", "confidence"}
        assert c["colour"] in ("blue", "yellow", "red", "green")
        assert 0.0 <= c["confidence"] <= 1.0
        square_position(c["cell"], 20)
        names.add(c["cell"])
    assert len(names) == len(out["cells"])


def test_no_board_raises() -> None:
    rng = np.random.default_rng(7)
    table = table_texture(rng, 900, 700)
    with pytest.raises(BoardNotLocatedError):
        read_blokus(table)
    with pytest.raises(ValueError, match="colour picture"):
        read_blokus(np.zeros((50, 50), np.uint8))


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_read_prints_the_json_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = rendered(100, "blokus_duo")
    pic = tmp_path / "duo.png"
    cv2.imwrite(str(pic), f.image)
    code, out, _ = cli(capsys, "read", "--game", "blokus_duo", str(pic), "--debug", str(tmp_path / "dbg"))
    assert code == 0
    data = json.loads(out)
    assert data["game"] == "blokus_duo"
    got = {c["cell"]: c["colour"] for c in data["cells"]}
    want = {square_name(c, r, 14): v for r, row in enumerate(f.truth) for c, v in enumerate(row) if v}
    assert got == want
    assert (tmp_path / "dbg" / "blokus_board.png").is_file()


def test_cli_read_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "table.png"
    cv2.imwrite(str(table), table_texture(np.random.default_rng(3), 800, 600))
    code, out, err = cli(capsys, "read", "--game", "blokus", str(table))
    assert code == 3 and out == "" and len(err.strip().splitlines()) == 1 and "no 20×20 square Blokus board" in err
    code, _, err = cli(capsys, "read", "--game", "blokus", str(tmp_path / "missing.jpg"))
    assert code == 2 and "no such file" in err and "Traceback" not in err
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a picture at all")
    code, _, err = cli(capsys, "read", "--game", "blokus_duo", str(junk))
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_bench_real_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder of one labelled picture: one row for it, one total row."""
    f = rendered(1)
    cv2.imwrite(str(tmp_path / "g1.raw.png"), f.image)
    letters = {None: "W", "red": "R", "green": "G", "blue": "B", "yellow": "Y"}
    (tmp_path / "g1.txt").write_text("\n".join("".join(letters[v] for v in row) for row in f.truth) + "\n",
                                     encoding="utf-8")
    code, out, _ = cli(capsys, "bench", "real", "--game", "blokus", "--dir", str(tmp_path), "--renders", "0")
    assert code == 0
    rows = {ln.split("  ")[0].strip(): ln for ln in out.splitlines()}
    assert any(k.startswith("g1 raw") for k in rows) and "all raw" in rows
    assert "1/1" in rows["all raw"]
    (tmp_path / "g1.txt").write_text("WX\nWW\n", encoding="utf-8")
    code, _, err = cli(capsys, "bench", "real", "--dir", str(tmp_path), "--renders", "0")
    assert code == 2 and "unknown square letters X" in err
    code, _, err = cli(capsys, "bench", "real", "--dir", str(tmp_path / "none"))
    assert code == 2 and "no such folder" in err


def _real_pictures() -> list[tuple[Path, Path]]:
    if not REAL.is_dir():
        return []
    return [(p, REAL / (p.name.split(".cropped")[0] + ".txt")) for p in sorted(REAL.glob("*.cropped.jpg"))]


@pytest.mark.slow
@pytest.mark.skipif(not _real_pictures(), reason="extra check: the real photographs are not beside this clone")
def test_real_cropped_photographs_when_present() -> None:
    """Extra, where ../shared/real is present: the hand-straightened photos read ≥ 99 % right."""
    from lab.bench.real import read_truth
    from vision.sources import read_image_file

    for pic, truth_path in _real_pictures():
        truth: Any = read_truth(truth_path)
        r = read_blokus(read_image_file(pic))
        assert right_share(r.grid(20), truth) >= 0.99, pic.name
