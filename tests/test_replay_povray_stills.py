"""Renderer-B game stills (``lab.render.povray.blokus_game``) and ``companion bench replay
--renderer povray``: a laid piece keeps its pose from still to still, a still's digest follows
what shapes it, a wrong reading is put down to its cause, and the bench checks its arguments
before it renders anything. No picture is ray-traced here."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_api.cli import main
from lab.evaluate.stills import diagnose, reading_labels, score_stills_game
from lab.render.frame import RenderedFrame
from lab.render.povray.blokus import blokus_labels
from lab.render.povray.blokus_game import StillsGame, still_digest, stills_game
from vision.track.observer import Frame
from vision.track.picture_readers import blokus_from_labels, trigon_from_labels


@pytest.mark.parametrize(("game", "seed"), [("blokus_duo", 3), ("blokus", 5), ("trigon", 2)])
def test_a_laid_piece_keeps_its_pose_in_every_later_still(game: str, seed: int) -> None:
    sg = stills_game(seed, game, moves=6)
    assert len(sg.events) == 6 and len(sg) == 7
    poses = [(p.shift, p.turn_deg) for p in sg.full.pieces]
    assert len(set(poses)) == len(poses) and all(s != (0.0, 0.0) for s, _ in poses)  # posed, each its own way
    for k in range(len(sg) - 1):
        now, after = sg.scene(k), sg.scene(k + 1)
        assert len(now.pieces) == k and after.pieces[:k] == now.pieces
        assert (now.camera, now.lights, now.table, now.cups, now.spares) == \
               (after.camera, after.lights, after.table, after.cups, after.spares)
        new = after.pieces[k]
        assert (new.colour, new.cells) == (sg.events[k].colour, tuple(sg.events[k].cells))
    # a longer game of the same seed lays the same first pieces in the same poses
    longer = stills_game(seed, game, moves=9)
    assert longer.full.pieces[:6] == sg.full.pieces


def test_a_stills_digest_follows_the_scene_and_the_noise() -> None:
    sg = stills_game(3, "blokus_duo", moves=3)
    a = still_digest(sg.scene(2), [3, 2], "draft")
    assert a == still_digest(stills_game(3, "blokus_duo", moves=3).scene(2), [3, 2], "draft")
    assert a != still_digest(sg.scene(3), [3, 2], "draft")
    assert a != still_digest(sg.scene(2), [3, 3], "draft")
    assert a != still_digest(sg.scene(2), [3, 2], "normal")


@pytest.mark.parametrize("game", ["blokus_duo", "trigon"])
def test_a_wrong_reading_is_put_down_to_its_cause(game: str) -> None:
    sg = stills_game(4, game, moves=5)
    labels = reading_labels(blokus_labels(sg.scene(5), 4))
    read = trigon_from_labels if game == "trigon" else (lambda lab: blokus_from_labels(lab, game))
    right = read(labels)
    assert diagnose(game, right, labels)[0] == "right"
    assert diagnose(game, None, labels)[0] == "not located"
    other = {"purple": "orange", "orange": "purple", "blue": "red", "red": "blue", "yellow": "green", "green": "yellow"}
    first = right.cells[0]
    recoloured = dataclasses.replace(right, cells=(dataclasses.replace(first, colour=other[first.colour]),
                                                   *right.cells[1:]))
    cause, why = diagnose(game, recoloured, labels)
    assert cause == "cell colour" and why.startswith("1 cells:") and first.cell in why
    shifted = dataclasses.replace(right, corners_px=tuple((x + 40.0, y + 25.0) for x, y in right.corners_px))
    assert diagnose(game, shifted, labels)[0] == "registration"
    nudged = dataclasses.replace(right, corners_px=tuple((x + 1.0, y) for x, y in right.corners_px))
    assert diagnose(game, nudged, labels)[0] == "right"


@pytest.mark.parametrize(("argv", "words"), [
    (["--game", "triolet", "--renderer", "povray"], ["renderer B", "triolet"]),
    (["--game", "triominos", "--renderer", "povray"], ["renderer B", "triominos"]),
    (["--game", "blokus", "--renderer", "blender"], ["--renderer", "blender"]),
    (["--game", "blokus_duo", "--renderer", "povray", "--max-events", "0"], ["--max-events"]),
    (["--game", "trigon", "--renderer", "povray", "--videos", "0"], ["--videos"]),
])
def test_bench_replay_refuses_what_it_cannot_replay(argv: list[str], words: list[str], tmp_path: Path,
                                                    capfd: pytest.CaptureFixture[str]) -> None:
    """Exit 2 and one line naming the problem, before anything is rendered."""
    try:
        code: object = main(["bench", "replay", *argv, "--cache", str(tmp_path)])
    except SystemExit as exc:  # argparse's own refusals leave through SystemExit
        code = exc.code
    assert code == 2, code
    err = capfd.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert all(w in err for w in words), err
    assert not any(tmp_path.iterdir())


BGR = {"purple": (140, 30, 110), "orange": (20, 110, 250)}


def _drawn_stills(sg: StillsGame) -> list[RenderedFrame]:
    """Stand-ins for the ray-traced stills: each labelled square a disc of its colour at its place
    in the picture, on a textured grey table (no render)."""
    rng = np.random.default_rng(7)
    table = np.clip(128 + rng.normal(0, 12, (720, 960, 3)), 0, 255).astype(np.uint8)
    out = []
    for k in range(len(sg)):
        labels = blokus_labels(sg.scene(k), sg.seed)
        image = table.copy()
        for c in labels["cells"]:
            x, y = c["center_px"]
            cv2.circle(image, (round(x), round(y)), 9, BGR[c["colour"]], -1)
        out.append(RenderedFrame(image=image, labels=labels))
    return out


def test_the_stills_are_followed_and_a_lost_board_caught_up_with() -> None:
    """The oracle follows a drawn stills game exactly; with the board lost for three stills the
    pieces laid meanwhile are committed when it is found again, none missed, none false, and every
    move out of its place is put down to the board not found."""
    sg = stills_game(2, "blokus_duo", moves=8)
    stills = _drawn_stills(sg)
    res = score_stills_game(sg, stills, "oracle")
    assert (res.score.exact_moves, res.score.false_events, res.faults) == (8, 0, [])
    assert res.pieces_committed == 8

    def still_of(index: int) -> int:
        return 0 if index < 6 else 1 + (index - 6) // 8

    def lossy(frame: Frame) -> object:
        k = still_of(frame.index)
        return None if 2 <= k <= 5 else blokus_from_labels(reading_labels(stills[k].labels), "blokus_duo")

    lost = score_stills_game(sg, stills, "oracle", reader=lossy)
    places = [still_of(int(ln["frame"])) for ln in lost.score.lines if ln["type"] == "place"]
    assert places == [1, 6, 6, 6, 6, 6, 7, 8]  # moves 2–6 at the first still the board is found again
    assert (lost.score.missed, lost.score.false_events, lost.pieces_committed) == (0, 0, 8)
    assert all(f.cause == "out of order" and f.why.startswith("the board was not found") for f in lost.faults)
    assert lost.score.exact_moves == 8 - len(lost.faults)
