"""Second looks: the CNN at squares the MLP calls empty without being sure (``_recheck_empties``),
and the second CNN where the first is unsure (``SECOND_OPINION``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from reader_helpers import TEST_SEEDS, frame

import vision.read.triolet.cnn as square_cnn
import vision.read.triolet.reader as reader
from engine.triolet.board import INDEX, SIZE
from lab.render import random_frame
from lab.render.holdout import training_pool
from vision.locate import locate_board
from vision.read.triolet.classifier import EMPTY, load_model
from vision.read.triolet.cnn import CnnMissingError
from vision.read.triolet.features import ALL_SQUARES

N = EMPTY + 1


def _probs(p_empty: list[float]) -> np.ndarray:
    p = np.zeros((len(p_empty), N), np.float32)
    for i, e in enumerate(p_empty):
        p[i, EMPTY] = e
        p[i, 3] = 1.0 - e
    return p


def _cnn_saying(value: int, p_empty: float, calls: list[int]):  # type: ignore[no-untyped-def]
    def cnn(crops: np.ndarray) -> np.ndarray:
        calls.append(len(crops))
        out = np.zeros((len(crops), N), np.float32)
        out[:, EMPTY] = p_empty
        out[:, value] = 1.0 - p_empty
        return out
    return cnn


class _MlpCallingEmpty:
    """The committed MLP, but for one square of a whole board's batch, which it calls empty at
    ``p_empty`` (the rest shared as the MLP shares it): forces the mistake a second look must
    mend, whichever MLP weights are committed."""

    def __init__(self, square: str, p_empty: float) -> None:
        self.mlp, self.index, self.p_empty = load_model(), INDEX[square], p_empty

    def proba(self, x: np.ndarray) -> np.ndarray:
        out = self.mlp.proba(x)
        if len(out) == SIZE * SIZE:
            row = out[self.index]
            row[:EMPTY] *= (1.0 - self.p_empty) / max(float(row[:EMPTY].sum()), 1e-9)
            row[EMPTY] = self.p_empty
        return out


def _force_mlp_empty(monkeypatch: pytest.MonkeyPatch, square: str, p_empty: float) -> None:
    """The reader's MLP calls ``square`` empty at ``p_empty`` (``_MlpCallingEmpty``)."""
    forced = _MlpCallingEmpty(square, p_empty)
    monkeypatch.setattr(reader, "load_model", lambda path=None: forced)


def test_a_sure_cnn_overrules_an_unsure_empty_only_inside_the_band() -> None:
    probs = _probs([0.5, 0.98, 0.99999])  # read by the CNN already / in the band / surely empty
    before = probs.copy()
    calls: list[int] = []
    reader._recheck_empties(probs, np.zeros((3, 56, 56, 3), np.uint8), _cnn_saying(9, 0.001, calls))
    assert calls == [1, 3]  # only the band square, then its three other quarter turns in one batch
    assert probs[1].argmax() == 9 and probs[1, EMPTY] < reader.DEFAULT_OPTIONS.recheck_max_empty
    assert np.array_equal(probs[[0, 2]], before[[0, 2]])


def test_an_unsure_cnn_leaves_the_empty_reading_and_skips_the_turns() -> None:
    probs = _probs([0.98])
    calls: list[int] = []
    reader._recheck_empties(probs, np.zeros((1, 56, 56, 3), np.uint8), _cnn_saying(9, 0.2, calls))
    assert calls == [1]
    assert probs[0, EMPTY] == pytest.approx(0.98)


@pytest.mark.parametrize(("seed", "square"), [(500_117, "F3")])
def test_a_clear_tile_the_mlp_missed_is_read(monkeypatch: pytest.MonkeyPatch, seed: int, square: str) -> None:
    """(500,117) a 1, a hand over half of it, that the square MLP calls empty at 0.998 (the premise
    is forced, ``_force_mlp_empty``, so the test does not depend on which MLP is committed): the
    CNN's second look reads it, and so does the look under a hand (``hand_max_empty``) alone;
    without either it stays empty. The square's own class probabilities are checked, before the
    game's rules (T-P4 may mend the column at this square from the 11 above it)."""
    fr = random_frame("triolet", seed, "normal", pool=training_pool(), size=(1280, 720))
    truth = {c["square"]: c["value"] for c in fr.labels["read"]["cells"]}
    assert truth[square] == 1
    _force_mlp_empty(monkeypatch, square, 0.998)
    row, col = divmod(INDEX[square], SIZE)
    assert int(np.argmax(reader.read_triolet(fr.image).probs[row, col])) == 1
    no_second_look = replace(reader.ReaderOptions(), recheck_below_empty=reader.TTA_BELOW_EMPTY)
    # ... but for the hand over the square (``hand_max_empty``)
    assert int(np.argmax(reader.read_triolet(fr.image, options=no_second_look).probs[row, col])) == 1
    no_hand_look = replace(no_second_look, hand_max_empty=0.0)
    assert int(np.argmax(reader.read_triolet(fr.image, options=no_hand_look).probs[row, col])) == EMPTY


def test_a_square_reads_the_same_alone_as_among_others() -> None:
    """(900,449) a faint 3 the MLP calls empty at 0.992: read with the other 224 squares, the CNN's
    second look finds it; read alone (the closer look's shifted crops, a tracker's re-read of a few
    squares) it was skipped when no square of the batch was a likely tile, and the closer look's
    shifted reads outvoted the 3 with "empty"."""
    fr = random_frame("triolet", 900_449, "normal", pool=training_pool(), size=(1280, 720))
    r = reader.read_triolet(fr.image, keep_images=True)
    assert r.crops is not None
    i = ALL_SQUARES.index((7, 10))  # H11
    together = reader.square_probabilities(r.crops)[i]
    alone = reader.square_probabilities(r.crops[i:i + 1])[0]
    assert np.allclose(together, alone, atol=1e-5)
    assert alone.argmax() == 3
    assert r.board_values().get("H11") == (3, False)


def test_the_second_cnn_changes_only_squares_the_first_is_unsure_of() -> None:
    fr = frame(TEST_SEEDS[1])
    loc = locate_board(fr.image)
    squares = list(ALL_SQUARES)
    one = reader.read_squares(fr.image, loc, squares, closer=False,
                              options=replace(reader.ReaderOptions(), second_opinion=False))
    two = reader.read_squares(fr.image, loc, squares, closer=False)
    changed = np.abs(two - one).max(axis=1) > 1e-6
    assert changed.any()
    # squares the MLP surely calls empty never reach a CNN; sure CNN readings are not re-read
    assert not changed[one[:, EMPTY] >= reader.ReaderOptions().recheck_below_empty].any()
    assert (one[changed].max(axis=1) < reader.TTA_BELOW_SURE + 1e-3).all()


def test_a_missing_second_cnn_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fr = frame(TEST_SEEDS[1])
    monkeypatch.setattr(square_cnn, "SECOND_CNN_PATH", tmp_path / "none.npz")
    with pytest.raises(CnnMissingError, match=r"none\.npz"):
        reader.read_triolet(fr.image)


def test_a_square_under_a_hand_is_rechecked_however_sure_the_mlp_is() -> None:
    probs = _probs([0.99999, 0.99999, 0.99999])  # all surely empty to the MLP; the last two under a hand
    before = probs.copy()
    hand = np.array([False, True, True])
    calls: list[int] = []
    crops = np.zeros((3, 56, 56, 3), np.uint8)
    reader._recheck_empties(probs, crops, _cnn_saying(12, 0.05, calls), hand)
    assert calls == [2, 6]  # the two hand squares, then their other quarter turns
    assert np.array_equal(probs[0], before[0])
    assert (probs[1:].argmax(axis=1) == 12).all()
    # a CNN that is not sure enough of a tile under a hand leaves "empty" (a hand over an empty square)
    probs = _probs([0.99999])
    unsure = _cnn_saying(12, reader.DEFAULT_OPTIONS.hand_max_empty * 2, [])
    reader._recheck_empties(probs, crops[:1], unsure, np.array([True]))
    assert probs[0].argmax() == EMPTY


def test_a_tile_half_under_a_hand_the_mlp_calls_empty_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """(5,900,024, hard) a 7 at L4, its square among those a hand covers, which the MLP calls
    empty at 1.0 (forced, ``_force_mlp_empty``, so the test does not depend on which MLP is
    committed): the CNN, which learnt tiles under hands, reads the 7; without the re-check under
    hands it stays empty. (Read without the hand nets, which come after this step. 5,900,028's K8,
    here before, is read a 1 by the committed CNN under its hand.)"""
    no_nets = replace(reader.ReaderOptions(), hand_net=False)
    fr = random_frame("triolet", 5_900_024, "hard", pool=training_pool(), size=(1280, 720))
    truth = {c["square"]: c["value"] for c in fr.labels["read"]["cells"]}
    assert truth["L4"] == 7
    _force_mlp_empty(monkeypatch, "L4", 1.0)
    reading = reader.read_triolet(fr.image, options=no_nets)
    assert reading.evidence is not None and reading.evidence.covered[INDEX["L4"]]
    assert reading.board_values().get("L4") == (7, False)
    no_recheck = replace(no_nets, hand_max_empty=0.0)  # no re-check under hands
    assert "L4" not in reader.read_triolet(fr.image, options=no_recheck).board_values()


def test_a_tile_next_to_a_hand_the_mlp_calls_empty_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """(40,100,988, normal) a red sleeve over the right half of I13's 3, the square's grid lines in
    view (not under or beside the hand by the lines) but next to squares that are. The MLP calls
    it empty at 1.0 (forced, ``_force_mlp_empty``, so the test does not depend on which MLP is
    committed); rechecked as a neighbour of the hand's squares, the CNN reads the 3."""
    from lab.bench.read import row_style
    from lab.evaluate.triolet import score_frame

    diff, pool = row_style("normal")
    fr = random_frame("triolet", 40_100_988, diff, pool=pool, size=(1280, 720))
    _force_mlp_empty(monkeypatch, "I13", 1.0)
    errors = {}
    for near in (False, True):
        # the light-on-dark pass off: it finds this tile too (its inked half), by another way
        options = replace(reader.ReaderOptions(), hand_recheck_near=near, light_on_dark=0.0)
        fs = score_frame(reader.read_triolet(fr.image, options=options), fr.labels, fr.masks.get("occluders"))
        errors[near] = [e[:3] for e in fs.errors]
    assert errors[False] == [("I13", 3, EMPTY)]
    assert errors[True] == []
