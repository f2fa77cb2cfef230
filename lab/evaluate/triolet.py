"""Scoring a Triolet reading against a rendered frame's truth (for the benchmark and tests).

A square's truth is one of 0–15, ``wild`` or ``empty``. Squares a hand hides are left out of the
accuracy: a tile less than half in view, or whose printed marks (numeral, count digit, star:
the label ``marks_visible``) are less than half in view, and an empty square whose centre is
under an occluder. Their value is not in the picture, so they may not be guessed silently either:
one listed as a tile it is not, with a confidence of ``LOW_CONFIDENCE`` or more, spoils the board.

A tile in view may still show only marks another value shows as well (a 13 whose "3" a finger
covers: the label ``marks_confusable``, ``lab.render.triolet_legibility``). It is scored all the
same; ``FrameScore.unreadable`` names the misreads of that kind, so that a benchmark can say how
many boards only those spoil.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import SIZE, apply_h, units_to_image
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.reader import LOW_CONFIDENCE, TrioletReading

COLUMNS = "ABCDEFGHIJKLMNO"
#: Share of a square's middle (0.2–0.8 of its side, where the numeral is) a hand must cover for a
#: misread there to count as "under a hand" in ``FrameScore.under_hand``.
UNDER_HAND = 0.1
#: A tile's value is in view when at least this share of its top and of its printed marks is.
IN_VIEW = 0.5


#: Why a board is not read perfectly, in the order ``FrameScore.cause`` tries them (one per board).
CAUSES = ("not located", "misread under a hand", "silent guess", "misread tile", "tile read empty", "phantom tile")


#: Edges (px) of the benchmark's board-size bands: how large a square the camera recorded.
SQUARE_PX_BANDS = (25.0, 30.0, 35.0)


def square_px_band_names(edges: Sequence[float] = SQUARE_PX_BANDS) -> list[str]:
    """The bands' names, smallest first: ``"< 25"``, ``"25–30"``, …, ``"≥ 35"``."""
    return [f"< {edges[0]:g}", *(f"{a:g}–{b:g}" for a, b in itertools.pairwise(edges)), f"≥ {edges[-1]:g}"]


def square_px_band(square_px: float, edges: Sequence[float] = SQUARE_PX_BANDS) -> str:
    """The name of the band ``square_px`` falls in (``square_px_band_names``)."""
    return square_px_band_names(edges)[bisect.bisect_right(list(edges), square_px)]


def true_squares(labels: dict[str, Any], occluders: NDArray[np.uint8] | None = None
                 ) -> tuple[dict[str, int], set[str], set[str]]:
    """Square name → true class (0–15, 16 wild, 17 empty); the squares a hand hides; and of those,
    the tiles hidden only because their printed marks are less than half in view (their top is
    not: the strict definition, ``perfect_strict``, scores them)."""
    out = {f"{COLUMNS[c]}{r + 1}": EMPTY for r in range(SIZE) for c in range(SIZE)}
    hidden: set[str] = set()
    marks_only: set[str] = set()
    seen = {c["square_view"]: (float(c.get("visible", 1.0)), float(c.get("marks_visible", 1.0)))
            for c in labels["cells"]}
    for c in labels["read"]["cells"]:
        sq = c["square"]
        out[sq] = WILD if c["wild"] else int(c["value"])
        top, marks = seen.get(sq, (1.0, 1.0))
        if min(top, marks) < IN_VIEW:
            hidden.add(sq)
            if top >= IN_VIEW:
                marks_only.add(sq)
    if occluders is not None:
        corners = np.asarray(labels["board"]["corners_px_view"], np.float64)
        h = units_to_image(corners)
        hh, ww = occluders.shape[:2]
        for r in range(SIZE):
            for c in range(SIZE):
                name = f"{COLUMNS[c]}{r + 1}"
                if out[name] != EMPTY:
                    continue
                x, y = apply_h(h, np.array([[c + 0.5, r + 0.5]]))[0]
                xi, yi = round(x), round(y)
                if (not (0 <= xi < ww and 0 <= yi < hh)
                        or occluders[max(0, yi - 2):yi + 3, max(0, xi - 2):xi + 3].max() > 0):
                    hidden.add(name)
    return out, hidden, marks_only


def confusable_squares(labels: dict[str, Any]) -> dict[str, set[int]]:
    """Square name (view) → the classes (0–15, 16 wild) whose marks a tile there shows in view as
    well as its own (the renderer's ``marks_confusable``); tiles with none are left out."""
    out: dict[str, set[int]] = {}
    for c in labels["cells"]:
        names = c.get("marks_confusable") or []
        if names:
            out[c["square_view"]] = {WILD if v == "wild" else int(v) for v in names}
    return out


@dataclass
class FrameScore:
    """How one reading compares with the truth."""

    located: bool
    corner_err_px: float
    squares: int = 0
    correct: int = 0
    errors: list[tuple[str, int, int, float]] = field(default_factory=list)  # square, truth, read, confidence
    under_hand: set[str] = field(default_factory=set)
    """Misread squares whose middle (where the numeral is) a hand covers by ``UNDER_HAND`` or more."""
    guesses: list[tuple[str, int, int, float]] = field(default_factory=list)
    """Hidden squares listed as a tile they do not hold, with a confidence of ``LOW_CONFIDENCE`` or
    more (square, truth, read, confidence): silent guesses."""
    marks_hidden_errors: int = 0
    """Misread tiles at least half in view whose printed marks are not (left out of ``errors``)."""
    hand_over_board: bool = False
    """Some occluder (a hand, an arm) lies over the playing area in the picture."""
    unreadable: set[str] = field(default_factory=set)
    """Misread squares whose tile shows in view only marks the value read shows as well."""
    square_px: float = 0.0
    """The board's square in the picture, px (the mean side of the true playing area / 15)."""
    readings: list[tuple[float, bool]] = field(default_factory=list)
    """Per square in view that holds a tile or is read as one: (the reading's confidence, right)."""

    @property
    def perfect(self) -> bool:
        """Located, every square in view read right, no silent guess where a hand hides one."""
        return self.located and self.correct == self.squares and not self.guesses

    @property
    def perfect_strict(self) -> bool:
        """Located, and every square in view read right, tiles whose printed marks a hand covers
        included (the benchmark's older, strict definition)."""
        return self.located and self.correct == self.squares and not self.marks_hidden_errors

    @property
    def spoilt_only_where_unreadable(self) -> bool:
        """Not perfect, but only through misreads of tiles whose marks in view are the reading's too."""
        return (self.located and not self.perfect and not self.guesses
                and all(sq in self.unreadable for sq, *_ in self.errors))

    @property
    def cause(self) -> str | None:
        """Why the board is not perfect (``None`` if it is): the first of ``CAUSES`` that applies."""
        if not self.located:
            return "not located"
        if self.perfect:
            return None
        if self.under_hand:
            return "misread under a hand"
        if self.guesses:
            return "silent guess"
        if any(t != EMPTY and g != EMPTY for _, t, g, _ in self.errors):
            return "misread tile"
        if any(g == EMPTY for _, _, g, _ in self.errors):
            return "tile read empty"
        return "phantom tile"

    @property
    def flagged_errors(self) -> int:
        """Errors the reader itself marked as low confidence (< 0.6)."""
        return sum(1 for *_, conf in self.errors if conf < 0.6)


def read_classes(reading: TrioletReading) -> dict[str, tuple[int, float]]:
    """Square name → (class read, confidence); empty squares with their empty probability."""
    out: dict[str, tuple[int, float]] = {}
    for r in range(SIZE):
        for c in range(SIZE):
            out[f"{COLUMNS[c]}{r + 1}"] = (EMPTY, float(reading.probs[r, c, EMPTY]))
    return _with_cells(out, ((c.square, c.value, c.wild, c.confidence) for c in reading.cells))


def _with_cells(out: dict[str, tuple[int, float]], cells: Iterable[tuple[str, int | None, bool, float]]
                ) -> dict[str, tuple[int, float]]:
    """``out`` with each occupied square ``(square, value, wild, confidence)`` set to its class read."""
    for square, value, wild, confidence in cells:
        out[square] = (WILD if wild else int(value or 0), float(confidence))
    return out


def tied_start(got: NDArray[np.float64], truth: NDArray[np.float64], tol: float) -> int:
    """0, or ±1 when the reader began its corners (INTERFACES §3: clockwise from the one nearest
    the image's top-left) at a neighbour of the truth's first corner that is as near the top-left
    within ``tol`` px (a board turned 45°: which of two tied corners comes first is chance). The
    value rolls ``got`` onto ``truth``."""
    d = np.hypot(truth[:, 0], truth[:, 1])
    for turn in (1, -1):
        start = turn % 4  # the truth corner the reader began at
        if abs(d[start] - d[0]) < tol and np.max(np.hypot(*(np.roll(got, turn, axis=0) - truth).T)) < tol:
            return turn
    return 0


def _renamed(got: dict[str, tuple[int, float]], truth_c: NDArray[np.float64], turn: int
             ) -> dict[str, tuple[int, float]]:
    """A reading's squares named from the truth's first corner instead of the reader's."""
    to_truth = np.linalg.inv(units_to_image(truth_c)) @ units_to_image(np.roll(truth_c, -turn, axis=0))
    out: dict[str, tuple[int, float]] = {}
    for name, v in got.items():
        c, r = COLUMNS.index(name[0]), int(name[1:]) - 1
        u, w = np.floor(apply_h(to_truth, np.array([[c + 0.5, r + 0.5]]))[0]).astype(int)
        out[f"{COLUMNS[u]}{w + 1}"] = v
    return out


def score_frame(reading: TrioletReading | None, labels: dict[str, Any],
                occluders: NDArray[np.uint8] | None = None) -> FrameScore:
    """Compare a reading (``None``: no board found) with the frame's labels."""
    if reading is None:
        return _score(None, {}, labels, occluders)
    return _score(np.asarray(reading.board.corners_px, np.float64), read_classes(reading), labels, occluders)


def score_cells(corners_px: Sequence[Sequence[float]] | None, cells: Iterable[Mapping[str, Any]],
                labels: dict[str, Any], occluders: NDArray[np.uint8] | None = None) -> FrameScore:
    """``score_frame`` for a reading given as data (another process's, another checkout's): the
    corners (``None``: no board found) and the occupied squares as INTERFACES §3 cells (square,
    value, wild, confidence)."""
    if corners_px is None:
        return _score(None, {}, labels, occluders)
    empty = {f"{COLUMNS[c]}{r + 1}": (EMPTY, 1.0) for r in range(SIZE) for c in range(SIZE)}
    got = _with_cells(empty, ((str(c["square"]), c["value"], bool(c["wild"]), c["confidence"]) for c in cells))
    return _score(np.asarray(corners_px, np.float64), got, labels, occluders)


def _score(got_c: NDArray[np.float64] | None, got: dict[str, tuple[int, float]], labels: dict[str, Any],
           occluders: NDArray[np.uint8] | None) -> FrameScore:
    """The score of corners ``got_c`` (``None``: no board) and squares read ``got`` (name → class,
    confidence) against the frame's labels."""
    truth_c = np.asarray(labels["board"]["corners_px_view"], np.float64)
    pitch = float(np.mean(np.hypot(*(np.roll(truth_c, -1, axis=0) - truth_c).T))) / SIZE
    over = hand_over_board(labels, occluders)
    if got_c is None:
        return FrameScore(False, float("inf"), hand_over_board=over, square_px=pitch)
    turn = tied_start(got_c, truth_c, 0.25 * pitch)
    err = float(np.max(np.hypot(*(np.roll(got_c, turn, axis=0) - truth_c).T)))
    truth, hidden, marks_only = true_squares(labels, occluders)
    if turn:
        got = _renamed(got, truth_c, turn)
    fs = FrameScore(err < 0.25 * pitch, err, hand_over_board=over, square_px=pitch)
    if not fs.located:
        return fs
    for name, t in truth.items():
        g, conf = got[name]
        if name in hidden:
            if g != t and g != EMPTY and conf >= LOW_CONFIDENCE:
                fs.guesses.append((name, t, g, conf))
            if g != t and name in marks_only:
                fs.marks_hidden_errors += 1
            continue
        fs.squares += 1
        if t != EMPTY or g != EMPTY:
            fs.readings.append((conf, g == t))
        if g == t:
            fs.correct += 1
        else:
            fs.errors.append((name, t, g, conf))
    confusable = confusable_squares(labels)
    fs.unreadable = {sq for sq, _, g, _ in fs.errors if g in confusable.get(sq, ())}
    if occluders is not None and fs.errors:
        h = units_to_image(truth_c)
        fs.under_hand = {sq for sq, *_ in fs.errors if _middle_covered(h, occluders, sq) >= UNDER_HAND}
    return fs


def hand_over_board(labels: dict[str, Any], occluders: NDArray[np.uint8] | None) -> bool:
    """Some occluder (a hand, an arm) lies over the frame's true playing area."""
    if occluders is None:
        return False
    return _occluded_share(np.asarray(labels["board"]["corners_px_view"], np.float64), occluders) > 0


def _middle_covered(h: NDArray[np.float64], occluders: NDArray[np.uint8], square: str) -> float:
    """Share of the middle of ``square`` (0.2–0.8 of its side; ``h`` maps board units to the
    picture) under an occluder."""
    c, r = COLUMNS.index(square[0]), int(square[1:]) - 1
    pts = apply_h(h, np.array([[c + 0.2, r + 0.2], [c + 0.8, r + 0.2], [c + 0.8, r + 0.8], [c + 0.2, r + 0.8]]))
    return _occluded_share(pts, occluders)


def _occluded_share(polygon_px: NDArray[np.float64], occluders: NDArray[np.uint8]) -> float:
    """Share of the pixels inside ``polygon_px`` (image px) under an occluder (0 for an empty one)."""
    mask = np.zeros(occluders.shape[:2], np.uint8)
    cv2.fillPoly(mask, [polygon_px.round().astype(np.int32)], 1)
    inside = mask > 0
    return float((occluders[inside] > 0).mean()) if inside.any() else 0.0
