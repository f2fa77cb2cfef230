"""The squares a hand touches are read again by the hand net (``hand_net``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import vision.read.triolet.reader as reader
from engine.triolet.board import INDEX, SIZE
from lab.evaluate.triolet import score_frame
from lab.render import random_frame
from lab.render.holdout import training_pool
from vision.read.triolet.classifier import EMPTY
from vision.read.triolet.cnn import HAND_CNN_PATHS, load_cnn
from vision.read.triolet.hand_net import HAND_NET_BELOW_EMPTY, reread_under_hands


def _probs(p_empty: list[float]) -> np.ndarray:
    """One row per square: ``p_empty`` empty, the rest on value 4."""
    p = np.zeros((len(p_empty), EMPTY + 1), np.float32)
    p[:, EMPTY] = p_empty
    p[:, 4] = 1.0 - np.asarray(p_empty)
    return p


def _reads_seven(crops: np.ndarray) -> np.ndarray:
    """A stand-in net that reads every crop as a 7, and counts the crops it was given."""
    _reads_seven.seen += len(crops)  # type: ignore[attr-defined]
    out = np.zeros((len(crops), EMPTY + 1), np.float32)
    out[:, 7] = 1.0
    return out


@pytest.mark.parametrize("weight", [1.0, 0.5])
def test_reader_hand_net_reads_touched_squares_that_may_hold_a_tile(weight: float) -> None:
    """Only squares a hand touches and that may hold a tile are read; the others keep their row."""
    p_empty = [0.1, 0.1, 0.95, 0.5]
    probs = _probs(p_empty)
    before = probs.copy()
    crops = np.zeros((4, 56, 56, 3), np.uint8)
    touched = np.array([True, False, True, True])
    _reads_seven.seen = 0  # type: ignore[attr-defined]
    rows = reread_under_hands(probs, crops, touched, _reads_seven, weight)
    assert list(rows) == [0, 3]  # square 2 is surely empty (≥ HAND_NET_BELOW_EMPTY), square 1 untouched
    assert _reads_seven.seen == 2  # type: ignore[attr-defined]
    assert HAND_NET_BELOW_EMPTY <= 0.95  # the premise of square 2
    np.testing.assert_array_equal(probs[[1, 2]], before[[1, 2]])
    assert probs[0, 7] == pytest.approx(weight)
    assert probs[0, 4] == pytest.approx((1 - weight) * 0.9)
    assert probs[3].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("path", HAND_CNN_PATHS)
def test_reader_hand_net_is_committed_and_reads_like_a_square_net(path: object) -> None:
    """The committed hand nets load from the repository and give 18 probabilities per crop."""
    net = load_cnn(str(path))
    rng = np.random.default_rng(3)
    out = net.proba(rng.integers(0, 255, (5, 56, 56, 3), dtype=np.uint8))
    assert out.shape == (5, EMPTY + 1)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-4)


def _misreading(square: str, value: int, misread: int):  # type: ignore[no-untyped-def]
    """``reader.closer_look``, the square nets' last look, but leaving ``square`` of a whole board
    read as ``misread`` rather than ``value`` (the larger of the two probabilities on ``misread``,
    the smaller on ``value``): forces the misreading, whichever square nets are committed."""
    real = reader.closer_look
    i = INDEX[square]

    def misreading(rect: np.ndarray, probs: np.ndarray, *args: object, **kwargs: object) -> None:
        real(rect, probs, *args, **kwargs)  # type: ignore[arg-type]
        if len(probs) == SIZE * SIZE:
            pair = probs[i, [value, misread]]
            probs[i, value], probs[i, misread] = pair.min(), pair.max()
    return misreading


@pytest.mark.parametrize(("seed", "square", "misread"), [(10_800_625, "H9", None), (10_800_356, "H15", 8)])
def test_reader_hand_net_reads_a_tile_at_the_hands_edge(monkeypatch: pytest.MonkeyPatch, seed: int, square: str,
                                                        misread: int | None) -> None:
    """(dev frames) a tile at the edge of a hand, its numeral in view: H9 a 1 that the two square
    nets read as a 3, H15 a 0 read as an 8 (both flagged; H15's misreading is forced,
    ``_misreading``, so that case does not depend on which square nets are committed). The hand
    nets read them right, and the board is read perfectly (squares the hand hides are not scored
    and may change). The board's own tiles (``exemplars``) mend H9 as well, so they are left out
    of the reading without the hand nets."""
    fr = random_frame("triolet", seed, "normal", pool=training_pool(), size=(1280, 720))
    truth = {c["square"]: c["value"] for c in fr.labels["read"]["cells"]}
    if misread is not None:
        monkeypatch.setattr(reader, "closer_look", _misreading(square, truth[square], misread))
    now = reader.read_triolet(fr.image)
    before = reader.read_triolet(fr.image, options=replace(reader.ReaderOptions(), hand_net=False, exemplars=False))
    occ = fr.masks.get("occluders")
    assert score_frame(now, fr.labels, occ).perfect
    lost = score_frame(before, fr.labels, occ)
    assert [e[0] for e in lost.errors] == [square]
    assert {c.square: c.value for c in now.cells}[square] == truth[square]


def test_reader_hand_net_training_pictures_all_have_a_hand() -> None:
    """The hand nets' training pictures (``data_triolet_hand_scenes``) put a hand over every board
    and split its squares into clear ones and ones under the hand, tiles among both; the normal
    preset is left as it was."""
    from lab.render.difficulty import DIFFICULTIES
    from lab.render.holdout import TRAIN_SEED_BASE
    from lab.train.data_triolet_hand_scenes import hand_scene_samples

    before = DIFFICULTIES["normal"]
    under_hands: list[int] = []
    for i in (600_000, 600_001):
        found = hand_scene_samples(TRAIN_SEED_BASE + i)
        assert found is not None
        rect, (clear, hand) = found
        assert rect.ndim == 3
        assert hand and any(y != EMPTY for _, y in clear)
        assert not {sq for sq, _ in clear} & {sq for sq, _ in hand}
        under_hands += [y for _, y in hand]
    assert any(y != EMPTY for y in under_hands)
    assert DIFFICULTIES["normal"] is before and before.hand_prob < 1.0


def test_reader_hand_net_training_pictures_can_be_far_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--board-fill`` and ``--size`` reach the renderer for that picture only (small, far boards
    for the nets), and bad values end the run with a usage error."""
    import lab.train.data_triolet_hand_scenes as scenes
    from lab.render.difficulty import DIFFICULTIES
    from lab.render.holdout import TRAIN_SEED_BASE

    seen: list[tuple[tuple[float, float], object, tuple[int, ...]]] = []
    real = random_frame  # what the training pictures call (``lab.render.random_frame``)

    def spy(*a: object, **kw: object) -> object:
        fr = real(*a, **kw)  # type: ignore[arg-type]
        seen.append((DIFFICULTIES["normal"].board_fill, kw.get("size"), fr.image.shape))
        return fr

    monkeypatch.setattr(scenes, "random_frame", spy)
    assert scenes.hand_scene_samples(TRAIN_SEED_BASE + 700_000, (0.45, 0.65), (1280, 720)) is not None
    assert seen == [((0.45, 0.65), (1280, 720), (720, 1280, 3))]
    assert DIFFICULTIES["normal"].board_fill == (0.55, 0.95)
    for bad in (["--board-fill", "0.6,0.4"], ["--board-fill", "half"], ["--size", "1280"]):
        with pytest.raises(SystemExit) as ended:
            scenes.main(["--start", "0", "--out", "/nonexistent", *bad])
        assert ended.value.code == 2
