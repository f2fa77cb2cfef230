"""Game videos: every stable frame's labels equal the engine state obtained by replaying the truth
record with ``engine.core.Session``; records are legal; output is deterministic; MP4 is readable."""

from __future__ import annotations

import json
from typing import Any

import cv2
import pytest

from engine.core.record import parse_record
from engine.core.session import Session
from lab.render.video import GameVideo, VideoSpec, write_game_video

SMALL = (320, 180)


def _board_truth(game: str, board: dict[str, Any]) -> set[Any]:
    if game == "triolet":
        return {(t["square"], t["value"], bool(t.get("wild", False))) for t in board["tiles"]}
    if game == "trigon":
        return {(c["cell"], c["colour"]) for c in board["cells"]}
    return {(f["field"], tuple(t["cell"]), tuple(t["values"])) for f in board["fields"] for t in f["tiles"]}


def _label_truth(game: str, labels: dict[str, Any]) -> set[Any]:
    if game == "triolet":
        return {(c["square"], c["value"], c["wild"]) for c in labels["cells"]}
    if game == "trigon":
        return {(c["cell"], c["colour"]) for c in labels["cells"]}
    return {(t["field"], tuple(t["cell"]), tuple(t["values"])) for t in labels["tiles"]}


@pytest.mark.slow
@pytest.mark.parametrize("game", ["triolet", "trigon", "triominos", "trio_domino"])
def test_render_video_labels_match_replayed_record(game: str) -> None:
    spec = VideoSpec(game, seed=2, size=SMALL, fps=6, max_events=5, takeback_prob=0.5, nudge_prob=0.3,
                     light_change_prob=0.3)
    gv = GameVideo(spec)
    labels = [lab for _img, lab in gv.frames()]
    record, problems = parse_record(gv.record_text().splitlines())
    assert not problems and record is not None
    session = Session(record.header)
    boards = [_board_truth(game, session.state.board_json())]
    for ev in record.events:
        assert session.submit(ev).verdict.legal
        boards.append(_board_truth(game, session.state.board_json()))
    stable = [lab for lab in labels if lab["stable"]]
    assert stable and labels[-1]["stable"] and labels[-1]["events_applied"] == len(record.events)
    for lab in stable:
        assert _label_truth(game, lab) == boards[lab["events_applied"]], lab["frame"]
    # events are stamped with the frame that first shows them done, in order
    frames = [ev.meta.frame for ev in record.events]
    assert all(f is not None for f in frames) and frames == sorted(frames)
    for k, f in enumerate(frames):
        assert labels[f]["events_applied"] == k + 1


def test_render_video_takeback_shows_transient_tiles() -> None:
    gv = GameVideo(VideoSpec("triolet", seed=4, size=SMALL, fps=5, max_events=4, takeback_prob=1.0))
    labels = [lab for _img, lab in gv.frames()]
    takeback = [lab for lab in labels if lab["phase"] == "takeback"]
    assert takeback and not any(lab["stable"] for lab in takeback)


def test_render_video_deterministic_and_mp4(tmp_path: Any) -> None:
    spec = VideoSpec("triolet", seed=7, size=SMALL, fps=5, max_events=3)
    paths = write_game_video(spec, tmp_path)
    again = GameVideo(spec)
    labels2 = [json.dumps(lab, sort_keys=True) for _img, lab in again.frames()]
    lines = paths["labels"].read_text(encoding="utf-8").splitlines()
    assert [json.dumps(json.loads(x), sort_keys=True) for x in lines] == labels2
    assert paths["record"].read_text(encoding="utf-8") == again.record_text()
    cap = cv2.VideoCapture(str(paths["video"]))
    n = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        assert frame.shape[:2] == (SMALL[1], SMALL[0])
        n += 1
    assert n == len(lines)


def test_triolet_take_back_tiles_are_tiles_the_game_still_has_t_b3() -> None:
    """A wrong attempt lays other values on the same squares, never more of a value than T-B3 has."""
    import numpy as np

    from engine.triolet.tiles import VALUE_COUNTS
    from lab.render.difficulty import difficulty
    from lab.render.styles import StylePool
    from lab.render.triolet import TilePlacement
    from lab.render.video import _Triolet

    ad = _Triolet(VideoSpec(game="triolet", seed=3), None, np.random.default_rng(3), difficulty("easy"), StylePool())
    fifteens = [TilePlacement(f"{c}1", 15, False, 0, 0.0, (0.0, 0.0)) for c in "ABC"]
    on_table = [TilePlacement("H8", 14, False, 0, 0.0, (0.0, 0.0)), fifteens[0]]
    for _ in range(50):
        wrong = ad.wrong_items(fifteens[1:], on_table)
        assert [t.square for t in wrong] == ["B1", "C1"]
        values = [t.value for t in wrong]
        assert 15 not in values and 14 not in values  # the only 15 and 14 are on the table
        counts = np.bincount([t.value for t in on_table if not t.wild] + values, minlength=16)
        assert all(int(counts[v]) <= VALUE_COUNTS[v] for v in range(16))
