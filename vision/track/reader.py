"""The real reader behind the ``BoardObserver`` protocol: ``vision.locate`` + ``vision.read.triolet``.

Locating uses ``locate_board(image, "triolet")``. Reading runs ``read_triolet`` with the
tracker's own board fix as the location (so square names follow the tracker's frame, which
stays fixed when the board is located again), and keeps the raw per-square class
probabilities of the cells asked for (the tracker applies the rules itself, with the engine).
A closer look (``effort`` > 0) takes per class the median of reads over the fix shifted by a
fraction of a square.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vision import locate as locate_mod
from vision.read.triolet import classifier
from vision.read.triolet import reader as reader_mod
from vision.track.layout import TRIOLET_LAYOUT, GridLayout
from vision.track.observer import EMPTY, WILD, BoardFix, CellRead, Frame

#: shifts (squares) of the extra reads of a closer look
LOOK_SHIFTS = ((0.07, 0.0), (-0.07, 0.0), (0.0, 0.07), (0.0, -0.07))
TOP = 4


class ReaderUnavailableError(RuntimeError):
    """The real reader for a game is not there (not built yet, or its model is missing)."""


def locate_triolet(frame: Frame, hint: BoardFix | None = None) -> BoardFix | None:
    """The board found by ``vision.locate.locate_board`` (no model needed), or ``None``."""
    from vision.locate import BoardNotLocatedError, locate_board

    try:
        loc = locate_board(frame.image, "triolet")
    except BoardNotLocatedError:
        return None
    return BoardFix.from_corners(loc.corners_px, 15, float(loc.confidence))


class ReaderObserver:
    """Locate with ``vision.locate.locate_board``, read with ``vision.read.triolet.reader.read_triolet``."""

    def __init__(self, game: str = "triolet", layout: GridLayout = TRIOLET_LAYOUT, model_path: str | None = None
                 ) -> None:
        if game != "triolet":
            raise ReaderUnavailableError(f"no reader adapter for {game!r} yet")
        self.game = game
        self.layout = layout
        self.model_path = model_path
        try:
            classifier.load_model(model_path)
        except RuntimeError as exc:  # ModelMissingError
            raise ReaderUnavailableError(f"the Triolet reader cannot run: {exc}") from None
        self.wild_class: int = int(classifier.WILD)
        self.empty_class: int = int(classifier.EMPTY)

    def locate(self, frame: Frame, hint: BoardFix | None = None) -> BoardFix | None:
        try:
            loc = locate_mod.locate_board(frame.image, self.game)
        except locate_mod.BoardNotLocatedError:
            return None
        return BoardFix.from_corners(loc.corners_px, self.layout.size, float(loc.confidence), location=loc)

    def _location(self, fix: BoardFix) -> tuple[Any, Any]:
        """The units → pixels mapping of ``fix`` and its lens: the locator's own (lens bending
        included) when ``fix`` is the located board, possibly turned to the tracker's frame; else
        the fix's corner homography."""
        loc = fix.extra.get("location")
        if loc is not None and getattr(loc, "lens", None) is not None:
            corner_h = BoardFix.from_corners(loc.corners_px, self.layout.size).homography
            t = np.linalg.solve(corner_h, fix.homography)  # fix units → located units
            n = self.layout.size
            unit = np.array([[0, 0, 1], [n, 0, 1], [n, n, 1], [0, n, 1]], np.float64)
            moved = unit @ t.T
            moved = moved[:, :2] / moved[:, 2:3]
            # the same board in a turned frame maps unit corners onto unit corners
            if all(np.min(np.hypot(*(unit[:, :2] - m).T)) < 0.02 for m in moved):
                return np.asarray(loc.homography, np.float64) @ t, loc.lens
        return fix.homography, None

    def _probs(self, image: Any, fix: BoardFix, squares: list[tuple[int, int]],
               shift: tuple[float, float] = (0.0, 0.0)) -> Any:
        """Class probabilities (n, classes) of ``squares`` (col, row) only."""
        h, lens = self._location(fix)
        if shift != (0.0, 0.0):
            h = h @ np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]], np.float64)
        loc = locate_mod.BoardLocation(fix.corners_px, h, fix.confidence, {}, lens=lens)
        # a shifted read is already one of a closer look's reads: no closer look within it
        probs = reader_mod.read_squares(image, loc, squares, model_path=self.model_path,
                                              closer=shift == (0.0, 0.0))
        return np.asarray(probs, np.float64)

    def read(self, frame: Frame, fix: BoardFix, cells: Sequence[str], effort: int = 0) -> dict[str, CellRead]:
        """The cells asked for, and only those, classified (top candidates with probabilities)."""
        names = list(dict.fromkeys(cells))
        squares = [self.layout.position(n) for n in names]
        probs = self._probs(frame.image, fix, squares)
        if effort > 0 and names:
            # per class the median over the reads: one read thrown off by its shift (a count digit
            # cut off, a neighbour's edge) must not outvote the others
            stack = np.stack([probs] + [self._probs(frame.image, fix, squares, s) for s in LOOK_SHIFTS])
            probs = np.median(stack, axis=0)
            probs = probs / np.maximum(probs.sum(axis=-1, keepdims=True), 1e-9)
        out: dict[str, CellRead] = {}
        for name, p in zip(names, probs, strict=True):
            order = np.argsort(-p)[:TOP]
            out[name] = CellRead(name, tuple((self._token(int(k)), float(p[k])) for k in order))
        return out

    def _token(self, k: int) -> str:
        if k == self.empty_class:
            return EMPTY
        if k == self.wild_class:
            return WILD
        return str(k)
