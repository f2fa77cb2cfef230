"""``companion replay`` end to end (INTERFACES §4) on a short rendered game video, its exit codes,
and the frame sources of ``vision.sources``."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_api.cli import main
from engine.core.record import load_record
from lab.evaluate.videos import load_labels, same_placement, to_view, view_turns
from vision.sources import FolderSource, SourceError, VideoFileSource, open_source


@pytest.fixture(scope="module")
def game_video(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from lab.render.video import VideoSpec, write_game_video

    spec = VideoSpec(game="triolet", seed=4, fps=8.0, size=(640, 360), max_events=3, takeback_prob=0.0,
                     light_change_prob=0.0, nudge_prob=0.0)
    return write_game_video(spec, tmp_path_factory.mktemp("replay"))


def _replay(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, object]], str]:
    code = main(["replay", *args])
    cap = capsys.readouterr()
    lines = [json.loads(x) for x in cap.out.splitlines() if x.strip()]
    return code, lines, cap.err


def test_replay_prints_events_then_the_summary_with_the_oracle(game_video: dict[str, Path], tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.jsonl"
    code, lines, err = _replay(["--game", "triolet", "--players", "2", str(game_video["video"]),
                                "--labels", str(game_video["labels"]), "--record", str(out),
                                "--debug", str(tmp_path / "dbg")], capsys)
    assert code == 0, err
    truth = load_record(game_video["record"])
    q = view_turns(load_labels(game_video["labels"])[0])
    places = [ln for ln in lines if ln.get("type") == "place"]
    truth_places = [e for e in truth.events if e.type == "place"]
    assert len(places) == len(truth_places) == 3
    for line, ev in zip(places, truth_places, strict=True):
        assert {"frame", "ts", "score", "totals"} <= set(line)
        assert line["source"] == "vision"
        assert line["player"] == ev.player
    summary = lines[-1]
    assert summary["summary"] is True and "totals" in summary and summary["ended"] is False
    # the record holds the same placements, and check-able events (INTERFACES §1)
    rec = load_record(out)
    got = [e for e in rec.events if e.type == "place"]
    for ev, g in zip(truth_places, got, strict=True):
        assert same_placement(to_view(ev, q), g)  # type: ignore[arg-type]
    assert summary["totals"] == places[-1]["totals"]
    assert (tmp_path / "dbg" / "events.jsonl").exists()
    assert any(p.name.endswith("_after.png") for p in (tmp_path / "dbg").iterdir())


def test_replay_with_the_real_reader(game_video: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from vision.track.reader import ReaderObserver

    ReaderObserver("triolet")  # the committed model loads
    code, lines, err = _replay(["--game", "triolet", "--players", "2", str(game_video["video"])], capsys)
    assert code == 0, err
    assert lines[-1]["summary"] is True
    truth = load_record(game_video["record"])
    places = [ln for ln in lines if ln.get("type") == "place"]
    assert len(places) == sum(1 for e in truth.events if e.type == "place")


def test_unreadable_video_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "game.mp4"
    bad.write_text("not a video")
    code, lines, err = _replay(["--game", "triolet", "--players", "2", str(bad)], capsys)
    assert code == 2 and lines == []
    assert "not a video" in err and len(err.strip().splitlines()) == 1
    code, _lines, err = _replay(["--game", "triolet", "--players", "2", str(tmp_path / "missing.mp4")], capsys)
    assert code == 2 and "no such file" in err


def test_no_board_is_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(5):
        cv2.imwrite(str(frames / f"frame_{i:04d}.png"), np.full((120, 160, 3), 90, np.uint8))
    empty = tmp_path / "none.labels.jsonl"
    empty.write_text("")
    code, lines, err = _replay(["--game", "triolet", "--players", "2", str(frames), "--labels", str(empty)], capsys)
    assert code == 3 and lines == []
    assert "no triolet board" in err


def test_bad_players_is_exit_2(game_video: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, _lines, err = _replay(["--game", "triolet", "--players", "7", str(game_video["video"])], capsys)
    assert code == 2 and "--players" in err


def test_folder_source_orders_frames_numerically(tmp_path: Path) -> None:
    for n in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"f{n}.png"), np.full((8, 8, 3), n, np.uint8))
    (tmp_path / "notes.txt").write_text("x")
    got = [(i, t, int(img[0, 0, 0])) for i, t, img in FolderSource(tmp_path, fps=10)]
    assert got == [(0, 0.0, 1), (1, 0.1, 2), (9, pytest.approx(0.9), 10)]


def test_video_source_times_frames_by_the_file_rate(game_video: dict[str, Path]) -> None:
    src = open_source(f"video:{game_video['video']}")
    assert isinstance(src, VideoFileSource) and src.fps == pytest.approx(8.0)
    first = [(i, t) for (i, t, _img), _ in zip(src, range(3), strict=False)]
    assert first == [(0, 0.0), (1, 0.125), (2, 0.25)]


def test_sources_name_their_problems(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="camera must be a number"):
        open_source("camera:x")
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "nothing.mp4"))
    with pytest.raises(SourceError, match="no numbered image frames"):
        open_source(str(tmp_path))


def test_manual_events_keep_the_turn_order_T_E1(game_video: dict[str, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """An exchange tapped on the phone after the first move: the next tiles are A's again."""
    truth = load_record(game_video["record"])
    first = truth.events[0]
    assert first.type == "place" and first.meta.ts is not None
    manual = tmp_path / "manual.jsonl"
    manual.write_text(json.dumps({"type": "exchange", "player": 1 - int(first.player or 0), "count": 2,
                                  "ts": first.meta.ts + 0.6}) + "\n")
    code, lines, err = _replay(["--game", "triolet", "--players", "2", str(game_video["video"]),
                                "--labels", str(game_video["labels"]), "--manual", str(manual)], capsys)
    assert code == 0, err
    kinds = [(ln.get("type"), ln.get("player")) for ln in lines[:-1]]
    p0 = int(first.player or 0)
    assert kinds == [("place", p0), ("exchange", 1 - p0), ("place", p0), ("place", 1 - p0)]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "exchange", "player": 0, "count": 1}\n')
    code, _lines, err = _replay(["--game", "triolet", "--players", "2", str(game_video["video"]),
                                 "--labels", str(game_video["labels"]), "--manual", str(bad)], capsys)
    assert code == 2 and '"ts"' in err


def test_replay_format_table_for_people(game_video: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["replay", "--game", "triolet", "--players", "2", "--format", "table", str(game_video["video"]),
                 "--labels", str(game_video["labels"]), "--first-player", "0"])
    out = capsys.readouterr().out
    assert code == 0
    rows = out.splitlines()
    assert rows[0] == "triolet: P1, P2" and "time" in rows[1] and "player" in rows[1]
    moves = [r for r in rows if r.strip()[:1].isdigit()]
    assert len(moves) == 3 and all(" s " in r and ("P1" in r or "P2" in r) for r in moves)
    assert rows[-2].startswith("Totals: P1 ") and rows[-1] == "Game not over."
