"""``read_triolet(image) -> TrioletReading``: which squares hold tiles and what they show.

Stages (timed, chesscog-style): locate (``vision.locate``) → rectify at the tiles' top plane
(``geometry``) → per-square features (``features``) → MLP class probabilities (``classifier``), the
squares that may hold a tile re-read by a small CNN (``cnn``) in four quarter turns → blank
faces read as tiles of unknown value (``blank_tiles``), tiles under a fingertip flagged
(``occluded_tiles``), a tile where a hand is read only when surer (``hand_doubt``) and compared
with the board's own sure tiles where it shows (``exemplars``) → game-aware
decisions (``consistency``: T-B3/T-P7 counts, T-P4 runs). Every square keeps its top candidates
with probabilities so a move tracker can prefer a legal reading; a doubtful square is reported
with a low confidence, never silently guessed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import (
    IN_VIEW_FAINT,
    RING_LINES_MIN,
    SIZE,
    BoardLocation,
    locate_board,
    order_corners,
    side_line_shares,
    units_to_image,
)
from vision.read.triolet import cnn as square_cnn
from vision.read.triolet.blank_tiles import as_unknown_tiles, blank_tiles, board_lab, face_colour, square_cores
from vision.read.triolet.classifier import EMPTY, WILD, load_model
from vision.read.triolet.cnn import load_cnn
from vision.read.triolet.consistency import decide
from vision.read.triolet.dark_faces import INVERTED_CONFIDENCE, doubt_empties, light_on_dark
from vision.read.triolet.edition import EditionHead, active_edition, apply_edition
from vision.read.triolet.exemplars import reweigh_by_exemplars
from vision.read.triolet.features import ALL_SQUARES, features, square_crops
from vision.read.triolet.geometry import rectified_board
from vision.read.triolet.hand_doubt import doubt_tiles_under_hands
from vision.read.triolet.hand_net import reread_under_hands
from vision.read.triolet.occluded_tiles import fingertip_tiles, occluded_tiles, with_neighbours
from vision.read.triolet.six_nine import six_or_nine

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]
COLUMNS = "ABCDEFGHIJKLMNO"
#: Below this a reading is "low confidence" (listed in ``TrioletReading.low_confidence``).
LOW_CONFIDENCE = 0.6
#: Smallest clarity of the geometric 6/9 verdict that is allowed to decide.
SIX_NINE_MIN_MARGIN = 0.12
#: Squares whose "empty" probability is below this are also read in the other three quarter turns.
TTA_BELOW_EMPTY = 0.97
#: ... and, with the CNN, whose first reading's top probability is below this (a sure reading is kept).
TTA_BELOW_SURE = 0.999
#: Extra quarter turns in which the squares that may hold a tile are read again (averaged).
TTA_TURNS: tuple[int, ...] = (1, 2, 3)
#: Probability of "empty" given to squares outside the picture (unknown, not reported as tiles).
OUTSIDE_P_EMPTY = 0.55
#: A square two of whose sides show less grid line than this share of the board's median side is
#: covered (a hand, an arm: ``obscured_squares``); a tile read there gets at most ``OBSCURED_CONFIDENCE``.
#: The locator's rule for a square out of view (``locate.IN_VIEW_FAINT``).
OBSCURED_LINES = IN_VIEW_FAINT
OBSCURED_CONFIDENCE = 0.5
#: A square beside a covered one with two sides whose grid line is fainter than this share of the
#: median side is under the hand's edge too (a fingertip over a tile that leaves its lines partly in
#: view): its confidence is capped as well, though its reading is not doubted (``hand_squares``).
BESIDE_HAND_LINES = 0.45


@dataclass(frozen=True)
class ReaderOptions:
    """How the Triolet reader reads: its stages, switched on or off, and their thresholds.

    The defaults are the reader as measured (docs/READER.md); tests and experiments build their own,
    e.g. ``replace(ReaderOptions(), hand_net=False)``.
    """

    # -- square classifier ------------------------------------------------------------------------
    #: ``"mlp+cnn"`` (the MLP reads every square, the CNN re-reads the squares that may hold a tile:
    #: the most accurate, and cheaper than the CNN alone), ``"cnn"`` (the CNN alone, ``cnn.py``),
    #: ``"mlp"`` (HOG features + MLP alone, ``classifier.py``) or ``"both"`` (the two averaged).
    classifier: str = "mlp+cnn"
    #: Where the CNN is unsure (``TTA_BELOW_SURE``), the second CNN (``cnn.SECOND_CNN_PATH``) reads the
    #: square in the four quarter turns too and the two nets' readings are averaged (``False``: one net).
    second_opinion: bool = True
    # -- empties the CNN checks again ---------------------------------------------------------------
    #: Squares the MLP calls empty with a probability below this (but at least ``TTA_BELOW_EMPTY``) are
    #: checked by the CNN too: a tile the MLP missed (glare, a hand partly over it, a tile colour).
    recheck_below_empty: float = 0.9999
    #: ... and take the CNN's reading when its "empty" probability, averaged over the four quarter
    #: turns, is below this (the CNN is sure a tile is there); otherwise the MLP's "empty" stands.
    recheck_max_empty: float = 0.01
    #: A square under or beside a hand (``hand_squares``) that the MLP reads empty, however surely (a
    #: tile half under a finger looks empty to it), takes the CNN's four-turn reading when that gives
    #: "empty" less than this (the CNN learnt tiles partly under hands, and empty squares under them).
    hand_max_empty: float = 0.1
    #: ... and so does a square next to those (its eight neighbours): a sleeve over half a tile whose
    #: grid lines stay in view, the numeral's half in view, which the MLP reads empty at 1.0.
    hand_recheck_near: bool = True
    # -- closer look --------------------------------------------------------------------------------
    #: Squares that may hold a tile and whose reading's top probability is still below this get a
    #: closer look: per class the median of reads of crops shifted by ``look_shift_px`` (0: never).
    closer_below: float = 0.9
    #: A square whose first read gives "empty" less than this has its shifted crops read by the CNN
    #: even where the MLP calls them empty (0: never).
    closer_cnn_below_empty: float = 0.1
    #: Shift of the closer look's extra crops, rectified px (the square is ``geometry.PITCH`` px).
    look_shift_px: int = 5
    # -- tiles under hands, glare ---------------------------------------------------------------------
    #: Squares read empty that show a blank tile face (``blank_tiles``: marks washed out by glare)
    #: become tiles of unknown value.
    blank_tiles: bool = True
    #: Tiles with a blob unlike the tile faces across them (``occluded_tiles``: a fingertip the grid
    #: lines do not show) are flagged like obscured squares.
    occluded_tiles: bool = True
    #: Squares a hand touches (covered, beside it, a blob across the tile) that may hold a tile are
    #: read again by the two hand nets (``hand_net.py``, ``cnn.HAND_CNN_PATHS``), with the ``"mlp+cnn"``
    #: classifier and the committed nets.
    hand_net: bool = True
    #: Squares a hand touches are read as tiles only when the nets are surer of a tile there
    #: (``hand_doubt``: a finger's edge looks like a tile's).
    hand_doubt: bool = True
    #: Tiles next to a hand's squares whose own face shows a patch reaching in (``fingertip_tiles``) are
    #: flagged like obscured squares; their reading is left as the nets made it.
    fingertips: bool = True
    # -- light ink on dark tiles ------------------------------------------------------------------------
    #: Squares read empty whose centre shows more than this × the plain squares' median structure
    #: (``dark_faces.structured``) are read again with their brightness inverted, and hold a tile
    #: when the CNN is sure of one there (``recheck_max_empty``): black tiles with white ink (0: never).
    light_on_dark: float = 2.0
    #: Tiles a hand touches are compared, where they show, with the tiles read surely elsewhere on the
    #: board, and their candidates re-weighed by the match (``exemplars``).
    exemplars: bool = True


#: The reader as measured.
DEFAULT_OPTIONS = ReaderOptions()


@dataclass(frozen=True)
class Candidate:
    """One possible content of a square: a value (``None`` with ``wild`` for a star, ``None``
    without it for an empty square) and its probability."""

    value: int | None
    wild: bool
    prob: float

    @property
    def label(self) -> str:
        """``"0"``…``"15"``, ``"wild"`` or ``"empty"``."""
        return "wild" if self.wild else "empty" if self.value is None else str(self.value)


@dataclass(frozen=True)
class SquareReading:
    """Any square (occupied or not) with its top candidates, empty included, most likely first."""

    square: str
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True)
class CellReading:
    """An occupied square as read. ``value`` is ``None`` for a wild. ``confidence`` 0–1 covers both
    "a tile is there" and "it shows this"; ``rules`` names rules (T-P4, T-P7) that changed or
    doubted it; ``candidates`` are the top tile readings with joint probabilities."""

    square: str
    value: int | None
    wild: bool
    confidence: float
    candidates: tuple[Candidate, ...]
    p_occupied: float
    rules: tuple[str, ...] = ()
    obscured: bool = False
    """A hand over the square (no grid line on two or more of its sides, ``obscured_squares``) or
    at its edge (``hand_squares``' ``beside``), a blob across the tile's face
    (``occluded_tiles``) or a face without marks (``blank_tiles``): the confidence is capped below
    ``LOW_CONFIDENCE``, as its value may not be in view."""

    def to_json(self) -> dict[str, Any]:
        """The INTERFACES §3 cell object."""
        return {"square": self.square, "value": self.value, "wild": self.wild,
                "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class SquareEvidence:
    """What the picture says of the 225 squares (row by row) before the rules decide: the class
    probabilities (0–15 values, 16 wild, 17 empty) and which squares a hand covers (``covered``:
    grid lines lost), lies beside (``beside``), crosses as a blob (``occluded``), which show a
    blank face (``blank``) and which lie outside the picture (``outside``). ``decide_cells`` turns
    it into the occupied cells; the benchmark keeps it to measure the decision step alone."""

    probs: F32
    covered: NDArray[np.bool_]
    beside: NDArray[np.bool_]
    blank: NDArray[np.bool_]
    occluded: NDArray[np.bool_]
    outside: NDArray[np.bool_]
    #: squares read from their inverted face (``dark_faces``): a tile, its value unsure
    inverted: NDArray[np.bool_] | None = None

    @property
    def hidden(self) -> NDArray[np.bool_]:
        """Squares whose marks may not be in view: a tile read there is flagged (``OBSCURED_CONFIDENCE``)."""
        return np.asarray(self.covered | self.beside | self.blank | self.occluded, bool)


def decide_cells(evidence: SquareEvidence) -> tuple[CellReading, ...]:
    """The occupied squares, row by row, as the rules decide them from ``evidence``
    (``consistency.decide``: T-B3/T-P7 counts, T-P4 runs, T-P3 groups); a tile where the picture
    may hide its marks is flagged (confidence at most ``OBSCURED_CONFIDENCE``)."""
    # a blank tile's value may be anything its runs allow, like a covered square's
    choices = decide(evidence.probs, evidence.covered | evidence.blank, evidence.outside)
    hidden = evidence.hidden
    cells: list[CellReading] = []
    for i, ch in enumerate(choices):
        if ch.cls == EMPTY:
            continue
        row, col = divmod(i, SIZE)
        cands = tuple(Candidate(None if k == WILD else int(k), bool(k == WILD), float(pk * ch.p_occupied))
                      for k, pk in ch.candidates)
        conf = min(float(ch.confidence), OBSCURED_CONFIDENCE) if hidden[i] else float(ch.confidence)
        if evidence.inverted is not None and evidence.inverted[i]:
            conf = min(conf, INVERTED_CONFIDENCE)
        cells.append(CellReading(square_name(col, row), None if ch.cls == WILD else int(ch.cls), bool(ch.cls == WILD),
                                 conf, cands, ch.p_occupied, tuple(dict.fromkeys(ch.rules)), bool(hidden[i])))
    return tuple(cells)


@dataclass
class TrioletReading:
    """A read board: its location, the occupied squares (row by row), per-square class
    probabilities ``probs[row, col, class]`` (0–15 values, 16 wild, 17 empty), timings in ms."""

    board: BoardLocation
    cells: tuple[CellReading, ...]
    probs: F32
    timings_ms: dict[str, float] = field(default_factory=dict)
    rectified: U8 | None = None
    crops: U8 | None = None
    located_by: str = "search"
    """How the board was found: ``"search"`` (``locate_board``), ``"profile"`` (a calibration
    profile's stored corners, re-validated on this picture) or ``"given"`` (the caller's location)."""
    fit_reason: str = ""
    """With a calibration profile: why its stored corners were used or not (``calibration.fit``)."""
    evidence: SquareEvidence | None = None
    """What the picture said of each square before the rules decided (``decide_cells``)."""

    def to_json(self) -> dict[str, Any]:
        """Exactly the INTERFACES §3 shape."""
        return {"game": "triolet", "board": {"corners_px": [[round(x, 1), round(y, 1)]
                                                            for x, y in self.board.corners_px]},
                "cells": [c.to_json() for c in self.cells]}

    @property
    def low_confidence(self) -> tuple[str, ...]:
        """Occupied squares read with confidence below ``LOW_CONFIDENCE``."""
        return tuple(c.square for c in self.cells if c.confidence < LOW_CONFIDENCE)

    @property
    def squares(self) -> tuple[SquareReading, ...]:
        """All 225 squares (row by row) with their top candidates, "empty" among them."""
        out = []
        for i in range(SIZE * SIZE):
            row, col = divmod(i, SIZE)
            p = self.probs[row, col]
            order = np.argsort(-p)[:4]
            cands = tuple(Candidate(None if k in (WILD, EMPTY) else int(k), bool(k == WILD), float(p[k]))
                          for k in order)
            out.append(SquareReading(square_name(col, row), cands))
        return tuple(out)

    def p_occupied(self, square: str) -> float:
        """Probability that ``square`` holds a tile (empty squares included)."""
        col, row = COLUMNS.index(square[0].upper()), int(square[1:]) - 1
        return float(1.0 - self.probs[row, col, EMPTY])

    def board_values(self) -> dict[str, tuple[int | None, bool]]:
        """``{square: (value, wild)}`` of the occupied squares."""
        return {c.square: (c.value, c.wild) for c in self.cells}


def square_name(col: int, row: int) -> str:
    """``(7, 7)`` → ``H8`` (T-B1)."""
    return f"{COLUMNS[col]}{row + 1}"


def _profile_any(calibration: Any) -> Any:
    """A ``calibration.profile.Profile`` from a profile or its path."""
    from calibration.profile import Profile, load_profile

    return calibration if isinstance(calibration, Profile) else load_profile(Path(calibration))


def _profile(calibration: Any) -> Any:
    """A ``calibration.profile.Profile`` from a profile or its path; it must hold board corners."""
    profile = _profile_any(calibration)
    if profile.board is None:
        raise ValueError("the calibration profile holds no board corners (run: companion calibrate board)")
    return profile


def profile_still_fits(calibration: Any, image: U8) -> tuple[bool, str]:
    """Does the profile's stored board still lie where it was in ``image``? (``calibration.fit``,
    a few ms). A profile without colour or edge references (corners only) cannot be checked and is
    trusted; one whose colours hint at wrong corners (``colour_warnings``) is not."""
    from calibration.board_colours import colour_warnings
    from calibration.fit import fit_report

    profile = _profile(calibration)
    if not profile.board.colours and not profile.board.edges:
        return True, "no references to check (corners only): trusted"
    warnings = colour_warnings(profile.board)
    if warnings:
        return False, f"the profile looks wrong: {warnings[0]}"
    report = fit_report(profile, image)
    return report.fits, report.reason


def location_from_calibration(calibration: Any, image: U8) -> tuple[BoardLocation, U8]:
    """The board location stored in a calibration profile (path or ``calibration.profile.Profile``),
    and the image undistorted with its camera intrinsics when it has them (no search)."""
    profile = _profile(calibration)
    raw = np.asarray(profile.board.corners_px, np.float64)
    h, w = image.shape[:2]
    bw, bh = profile.board.image_size
    if (bw, bh) != (w, h):
        raw = raw * np.array([w / bw, h / bh])
    corners_raw = order_corners(raw)
    work = image
    corners_work = corners_raw
    if profile.camera is not None:
        from calibration.undistort import Undistorter

        und = Undistorter(profile)
        work = und.undistort(image)
        corners_work = und.undistort_points(corners_raw, (w, h))
    hom = units_to_image(corners_work)
    loc = BoardLocation(tuple((float(x), float(y)) for x, y in corners_raw), hom, 1.0, {})
    return loc, np.asarray(work, np.uint8)


def settle_six_nine(probs: F32, crops: U8) -> None:
    """Where 6 and 9 compete, let the count digit's corner and the loop decide (``six_nine``):
    their joint probability is shared by the geometric verdict, by how clear it is."""
    for i in np.where(probs[:, 6] + probs[:, 9] > 0.25 * (1.0 - probs[:, EMPTY]) + 0.02)[0]:
        verdict, margin = six_or_nine(crops[i])
        if verdict is None or margin < SIX_NINE_MIN_MARGIN:
            continue
        both = float(probs[i, 6] + probs[i, 9])
        share = min(0.98, 0.5 + 0.5 * margin / 0.25)
        other = 9 if verdict == 6 else 6
        probs[i, verdict] = both * share
        probs[i, other] = both * (1.0 - share)


def turns_averaged(fn: Callable[[U8], F32], crops: U8, first: F32 | None = None) -> F32:
    """``fn``'s readings of ``crops`` upright (``first``, when already read) and in the
    ``TTA_TURNS`` quarter turns, averaged; the turns are read in one call."""
    turns = TTA_TURNS if first is not None else (0, *TTA_TURNS)
    stack = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in turns])
    reads = list(fn(np.ascontiguousarray(stack)).reshape(len(turns), len(crops), -1))
    if first is not None:
        reads.insert(0, first)
    acc = reads[0].copy()
    for read in reads[1:]:
        acc += read
    return np.asarray(acc / (1.0 + len(TTA_TURNS)), np.float32)


def _hand_nets_reading(crops: U8) -> F32:
    """The hand nets' reading of ``crops`` (``cnn.HAND_CNN_PATHS``): each net's in the four quarter
    turns, the nets averaged."""
    reads = [turns_averaged(load_cnn(str(path)).proba, crops) for path in square_cnn.HAND_CNN_PATHS]
    return np.asarray(np.mean(reads, axis=0), np.float32)


def _recheck_empties(probs: F32, crops: U8, cnn: Callable[[U8], F32], hand: NDArray[np.bool_] | None = None,
                     options: ReaderOptions = DEFAULT_OPTIONS) -> None:
    """Squares the MLP calls empty, but not surely (``TTA_BELOW_EMPTY`` ≤ p < ``recheck_below_empty``),
    take in place the CNN's four-turn reading when the CNN is sure a tile is there
    (``recheck_max_empty``; a first read of "empty" at four times that or more cannot average
    below it, so only the others are read turned). Squares under or beside a hand (``hand``)
    are checked however sure the MLP is, and take the CNN's reading below ``hand_max_empty``."""
    hand = np.zeros(len(probs), bool) if hand is None else hand
    limit = np.where(hand, np.float32(options.hand_max_empty), np.float32(options.recheck_max_empty))
    p_empty = probs[:, EMPTY]
    band = np.flatnonzero((p_empty >= TTA_BELOW_EMPTY) & ((p_empty < options.recheck_below_empty) | hand))
    if not len(band):
        return
    first = cnn(crops[band])
    keep = first[:, EMPTY] < limit[band] * (1.0 + len(TTA_TURNS))
    band = band[keep]
    if not len(band):
        return
    acc = turns_averaged(cnn, crops[band], first[keep])
    sure = acc[:, EMPTY] < limit[band]
    probs[band[sure]] = acc[sure]


def square_probabilities(crops: U8, x: F32 | None = None, model_path: str | None = None,
                         cnn_path: str | None = None, by_cnn: NDArray[np.bool_] | None = None,
                         hand: NDArray[np.bool_] | None = None, options: ReaderOptions = DEFAULT_OPTIONS) -> F32:
    """Class probabilities (n, 18) of square crops by ``options.classifier``; squares that may hold a tile
    (empty probability below ``TTA_BELOW_EMPTY``) are also read in the ``TTA_TURNS`` quarter turns,
    averaged.
    ``x``: the crops' ``features`` when already computed (MLP). ``by_cnn``: crops read as ones that
    may hold a tile whatever the MLP says (squares a first read found to hold a tile). ``hand``:
    squares under or beside a hand, which the CNN re-checks however sure the MLP is of "empty"
    (``_recheck_empties``)."""

    def mlp(c: U8) -> F32:
        return load_model(model_path).proba(features(c))

    def cnn(c: U8) -> F32:
        return load_cnn(cnn_path).proba(c)

    # the CNN, or else the MLP, reads every square
    if options.classifier == "cnn":
        probs = cnn(crops)
    else:
        probs = load_model(model_path).proba(features(crops) if x is None else x)
    unsure = probs[:, EMPTY] < TTA_BELOW_EMPTY
    maybe = np.where(unsure if by_cnn is None else unsure | by_cnn)[0]
    if not len(maybe):  # the unsure empties are checked however few squares are read together
        if options.classifier == "mlp+cnn":
            _recheck_empties(probs, crops, cnn, hand, options)
        return probs
    some = crops[maybe]
    if options.classifier in ("cnn", "mlp"):
        probs[maybe] = turns_averaged(cnn if options.classifier == "cnn" else mlp, some, probs[maybe])
    elif options.classifier == "mlp+cnn":
        first = cnn(some)
        unsure = first.max(axis=1) < TTA_BELOW_SURE
        if unsure.any():
            doubt = some[unsure]
            first[unsure] = turns_averaged(cnn, doubt, first[unsure])
            if options.second_opinion and cnn_path is None:  # another CNN given: that net alone
                second = load_cnn(str(square_cnn.SECOND_CNN_PATH))
                first[unsure] = (first[unsure] + turns_averaged(second.proba, doubt)) / 2.0
        probs[maybe] = first
        _recheck_empties(probs, crops, cnn, hand, options)
    else:  # both
        probs[maybe] = (turns_averaged(mlp, some, probs[maybe]) + turns_averaged(cnn, some, cnn(some))) / 2.0
    return probs


def closer_look(rect: U8, probs: F32, model_path: str | None = None, cnn_path: str | None = None,
                squares: Sequence[tuple[int, int]] = ALL_SQUARES, options: ReaderOptions = DEFAULT_OPTIONS) -> None:
    """Re-read in place the doubtful squares (may hold a tile, top probability below
    ``closer_below``) of ``probs`` (rows: ``squares``, all 225 by default) from crops shifted up,
    down, left and right: per class the median of the five reads (one read thrown off by its
    shift, a count digit cut off, must not outvote the others). The shifted crops of a square
    whose first read is nearly sure of a tile (empty below ``closer_cnn_below_empty``) are read by
    the CNN whatever the MLP says: a tile washed out by glare looks empty to the MLP, and its
    shifted reads must not outvote the CNN's first read (less sure squares keep the MLP's verdict,
    which also clears phantom tiles)."""
    if options.closer_below <= 0:
        return
    doubt = np.where((probs[:, EMPTY] < 0.5) & (probs.max(axis=1) < options.closer_below))[0]
    if not len(doubt):
        return
    picked = [squares[i] for i in doubt]
    tile = probs[doubt, EMPTY] < options.closer_cnn_below_empty
    d = options.look_shift_px
    shifts = ((d, 0), (-d, 0), (0, d), (0, -d))
    crops = np.concatenate([square_crops(rect, picked, offset=off) for off in shifts])  # read in one batch
    shifted = square_probabilities(crops, None, model_path, cnn_path, by_cnn=np.tile(tile, len(shifts)),
                                   options=options)
    med = np.median(np.concatenate([probs[doubt][None], shifted.reshape(len(shifts), len(doubt), -1)]), axis=0)
    probs[doubt] = med / np.maximum(med.sum(axis=1, keepdims=True), 1e-9)


def _unseen_squares(probs: F32, loc: BoardLocation, width: int, height: int,
                    squares: Sequence[tuple[int, int]] = ALL_SQUARES) -> NDArray[np.bool_]:
    """Squares (``(col, row)``, all 225 row by row by default) whose centre falls outside the picture
    cannot be read: they get an uninformative distribution (slightly more likely empty, so they are
    not reported as tiles). Returns which they are."""
    rc = np.array([[c + 0.5, r + 0.5] for c, r in squares], np.float64).reshape(-1, 2)
    px = loc.project(rc)
    outside = (px[:, 0] < 0) | (px[:, 1] < 0) | (px[:, 0] > width - 1) | (px[:, 1] > height - 1)
    if outside.any():
        probs[outside] = (1.0 - OUTSIDE_P_EMPTY) / EMPTY
        probs[outside, EMPTY] = OUTSIDE_P_EMPTY
    return np.asarray(outside, bool)


def _board_mask(flags: NDArray[np.bool_], squares: Sequence[tuple[int, int]]) -> NDArray[np.bool_]:
    """Per-square ``flags`` of the squares ``(col, row)`` as a mask over all 225 (row by row)."""
    mask = np.zeros(SIZE * SIZE, bool)
    mask[[r * SIZE + c for c, r in squares]] = flags
    return mask


def _side_lines(image: U8, location: BoardLocation) -> NDArray[np.float32] | None:
    """(row, col, 4) grid-line evidence of every square's sides as a share of the board's median
    side (``locate.side_line_shares`` on the board plane), or ``None`` when the board's lines are faint."""
    _, shares, median = side_line_shares(image, location.homography, 1)
    return None if median < RING_LINES_MIN else shares


def obscured_squares(image: U8, location: BoardLocation) -> NDArray[np.bool_]:
    """(row, col) mask of the squares something lies over, a hand or an arm, though the board's
    lines are clear elsewhere (a side shows no line below ``OBSCURED_LINES`` of the median side):
    two or more sides without a line, or one beside such a square (the edge of the hand). All
    False when the board's lines are faint."""
    return hand_squares(image, location)[0]


def hand_squares(image: U8, location: BoardLocation) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(covered, beside)`` (row, col) masks: ``obscured_squares``, and the squares two of whose
    sides show faint lines (below ``BESIDE_HAND_LINES`` of the median), one of them the side
    shared with a covered square: the hand's edge, a fingertip over a tile whose lines stay
    partly in view."""
    lines = _side_lines(image, location)
    if lines is None:
        return np.zeros((SIZE, SIZE), bool), np.zeros((SIZE, SIZE), bool)
    lost = (lines < OBSCURED_LINES).sum(axis=2)
    near = cv2.dilate((lost >= 2).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)))
    covered = np.asarray((lost >= 2) | ((near > 0) & (lost >= 1)), bool)
    faint = np.nan_to_num(lines, nan=1.0) < BESIDE_HAND_LINES
    # a covered square across each side (left, right, top, bottom)
    across = np.zeros((SIZE, SIZE, 4), bool)
    across[:, 1:, 0] = covered[:, :-1]
    across[:, :-1, 1] = covered[:, 1:]
    across[1:, :, 2] = covered[:-1, :]
    across[:-1, :, 3] = covered[1:, :]
    beside = (faint.sum(axis=2) >= 2) & (faint & across).any(axis=2) & ~covered
    return covered, np.asarray(beside, bool)


def read_squares(image: U8, location: BoardLocation, squares: Sequence[tuple[int, int]],
                 model_path: str | None = None, cnn_path: str | None = None, closer: bool = True,
                 options: ReaderOptions = DEFAULT_OPTIONS) -> F32:
    """Class probabilities (n, 18) of the squares ``(col, row)`` only, the board at ``location``
    (a tracker re-reading what changed: the other squares are not classified). Same classifier
    and rules as ``read_triolet``, without the consistency step; ``closer=False`` skips the
    closer look (a caller taking its own median over shifted reads)."""
    sq = list(squares)
    if not sq:
        return np.zeros((0, EMPTY + 1), np.float32)
    rect = rectified_board(image, location)
    crops = square_crops(rect, sq)
    probs = square_probabilities(crops, None, model_path, cnn_path, options=options)
    if options.classifier == "mlp":
        settle_six_nine(probs, crops)
    if closer:
        closer_look(rect, probs, model_path, cnn_path, sq, options)
    edition = active_edition()
    if edition is not None:
        apply_edition(probs, crops, edition)
    outside = _unseen_squares(probs, location, image.shape[1], image.shape[0], sq)
    if options.light_on_dark > 0 and options.classifier != "mlp":
        _taken, doubted = light_on_dark(probs, rect, crops, load_cnn(cnn_path).proba, turns_averaged,
                                        factor=options.light_on_dark, max_empty=options.recheck_max_empty,
                                        squares=[r * SIZE + c for c, r in sq], skip=_board_mask(outside, sq))
        doubt_empties(probs, doubted)
    return probs


def read_triolet(image: U8, calibration: Any = None, *, location: BoardLocation | None = None,
                 keep_images: bool = False, model_path: str | None = None,
                 cnn_path: str | None = None, options: ReaderOptions = DEFAULT_OPTIONS,
                 edition: EditionHead | None = None) -> TrioletReading:
    """Read a Triolet board from one BGR picture.

    ``calibration``: a profile path or ``Profile``; when the picture still fits its stored board
    (``profile_still_fits``), its corners and intrinsics replace the search, else the board is searched
    for (``located_by``, ``fit_reason`` and the ``validate`` timing say which and why).
    ``location``: a board already located in this picture (e.g. by a tracker).
    ``model_path`` / ``cnn_path``: other MLP / CNN weight files than the committed ones.
    ``options``: the reader's stages and thresholds (``ReaderOptions``).
    ``edition``: the players' own tiles (``edition.EditionHead``, from ``calibrate tiles``); without it, the one
    set for the process (``edition.use_edition``), if any. A profile without board corners (tiles
    only) leaves the board to the search.
    Raises ``vision.locate.BoardNotLocatedError`` when no board is visible."""
    t0 = time.perf_counter()
    located_by, fit_reason = "search", ""
    fits = False
    edition = edition if edition is not None else active_edition()
    if calibration is not None:  # read once; a profile of tiles only leaves the board to the search
        calibration = _profile_any(calibration)
        if calibration.board is None:
            calibration = None
    if location is None and calibration is not None:
        fits, fit_reason = profile_still_fits(calibration, image)
    tv = time.perf_counter()
    if location is not None:
        loc, loc_work, work = location, location, image
        located_by = "given"
    elif fits:
        loc, work = location_from_calibration(calibration, image)
        # the stored corners are in raw pixels; the mapping used below is the undistorted one
        loc_work = BoardLocation(loc.corners_px, loc.homography, 1.0, {})
        located_by = "profile"
    else:
        loc = locate_board(image, "triolet")
        loc_work, work = loc, image
    t1 = time.perf_counter()
    rect = rectified_board(work, loc_work)
    t2 = time.perf_counter()
    crops = square_crops(rect)
    x = features(crops) if options.classifier != "cnn" else None
    t3 = time.perf_counter()
    covered, beside = (np.asarray(a).reshape(-1) for a in hand_squares(work, loc_work))
    hand = covered | beside
    probs = square_probabilities(crops, x, model_path, cnn_path,
                                 hand=with_neighbours(hand) if options.hand_recheck_near else hand, options=options)
    if options.classifier == "mlp":  # the CNN tells 6 from 9 better than the geometric verdict
        settle_six_nine(probs, crops)
    closer_look(rect, probs, model_path, cnn_path, options=options)
    if edition is not None:
        apply_edition(probs, crops, edition)
    outside = _unseen_squares(probs, loc_work, work.shape[1], work.shape[0])
    inverted = np.zeros_like(outside)
    doubted = np.zeros(0, np.intp)
    if options.light_on_dark > 0 and options.classifier != "mlp":
        taken, doubted = light_on_dark(probs, rect, crops, load_cnn(cnn_path).proba, turns_averaged,
                                       factor=options.light_on_dark, max_empty=options.recheck_max_empty,
                                       skip=outside | hand)
        inverted[taken] = True
    blank, occluded = np.zeros_like(outside), np.zeros_like(outside)
    if options.blank_tiles or options.occluded_tiles:
        lab = board_lab(rect)
        cores = square_cores(lab)
        unseen = hand | outside
        face = face_colour(cores, probs, unseen)
        if options.blank_tiles:
            blank = blank_tiles(cores, probs, unseen, face)
            as_unknown_tiles(probs, blank)
        if options.occluded_tiles:
            occluded = occluded_tiles(lab, probs, face)
    touched = (hand | occluded) & ~blank  # a hand over, beside or across
    if options.hand_net and options.classifier == "mlp+cnn" and cnn_path is None:
        reread_under_hands(probs, crops, touched, _hand_nets_reading)
    if options.hand_doubt:
        doubt_tiles_under_hands(probs, touched)
    if options.fingertips:  # flagged only: the nets' reading stands
        occluded = occluded | fingertip_tiles(rect, probs, hand, hand | outside | blank | occluded)
    evidence = SquareEvidence(probs, covered, beside, blank, occluded, outside, inverted & ~blank)
    if options.exemplars:
        reweigh_by_exemplars(rect, probs, np.flatnonzero(touched & ~outside), evidence.hidden | outside)
    t4 = time.perf_counter()
    cells = decide_cells(evidence)
    if len(doubted):  # decided empty, the ink unexplained: reported as not sure (the rules decided without it)
        occupied = {c.square for c in cells}
        probs = probs.copy()
        empty = [i for i in doubted.tolist() if square_name(i % SIZE, i // SIZE) not in occupied]
        doubt_empties(probs, np.asarray(empty, np.intp))
    t5 = time.perf_counter()
    timings = {"validate": (tv - t0) * 1e3, "locate": (t1 - tv) * 1e3, "rectify": (t2 - t1) * 1e3,
               "features": (t3 - t2) * 1e3,
               "classify": (t4 - t3) * 1e3, "consistency": (t5 - t4) * 1e3, "total": (t5 - t0) * 1e3}
    return TrioletReading(loc, cells, probs.reshape(SIZE, SIZE, -1), timings,
                          rect if keep_images else None, crops if keep_images else None, located_by, fit_reason,
                          evidence)


def write_debug(reading: TrioletReading, folder: str | Path) -> list[Path]:
    """``rectified.png`` and one crop per square named ``<square>_<reading>_<confidence>.png``
    (reading: a value, ``wild`` or ``empty``); returns the files written."""
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    if reading.rectified is not None:
        p = d / "rectified.png"
        cv2.imwrite(str(p), reading.rectified)
        out.append(p)
    if reading.crops is None:
        return out
    by_square = {c.square: c for c in reading.cells}
    for i in range(SIZE * SIZE):
        row, col = divmod(i, SIZE)
        name = square_name(col, row)
        c = by_square.get(name)
        if c is None:
            label = f"empty_{float(reading.probs[row, col, EMPTY]):.2f}"
        else:
            label = f"{'wild' if c.wild else c.value}_{c.confidence:.2f}"
        p = d / f"{name}_{label}.png"
        cv2.imwrite(str(p), reading.crops[i])
        out.append(p)
    return out
