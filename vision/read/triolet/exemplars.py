"""The board's own tiles as exemplars: a tile partly under a hand is compared, where it shows, with
the tiles read surely elsewhere on the same board (the same typeface, ink and light), and the
values it matches better gain weight among its candidates.

Works on the rectified board (square ``(c, r)`` at ``[(MARGIN + c)·PITCH, …)``) and the class
probabilities of its 225 squares (row by row). A square is re-weighed only when every candidate
worth considering (``MIN_CANDIDATE``) has an exemplar: a value with none cannot be compared, and
a 6 matched by a 9 turned over (or a 9 by a 6) is no evidence unless both are on the board.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.locate import SIZE
from vision.read.triolet.blank_tiles import to_lab
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.geometry import MARGIN, PITCH

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]

#: An exemplar: a square read as one tile class at least this surely, with nothing over it.
EXEMPLAR_MIN = 0.97
#: ... whose face shows at least this share of its pixels (``shown_mask``).
EXEMPLAR_SHOWN = 0.98
#: Exemplars kept per class (the surest first).
MAX_EXEMPLARS = 3
#: A square is re-weighed when the nets hold it more likely a tile than not (below this "empty") ...
MAX_EMPTY = 0.5
#: ... and its candidates at least this probable all have exemplars.
MIN_CANDIDATE = 0.05
#: Pixels trimmed off each side of a square for the part compared (the tile's face).
TRIM = 4
#: How far (px) an exemplar may lie off its square's centre relative to the compared tile.
REACH = 5
#: The face's colour: the pixels within 5 L* of this percentile of a part's lightness.
FACE_PERCENTILE = 85.0
#: Pixels farther than this (CIELAB) from the face are ink or a hand ...
FACE_DIST = 18.0
#: ... a hand when they hold a disc this wide (px; the numerals' strokes are thinner).
STROKE_PX = 11
#: Fewest tile pixels (share of the part compared) for a comparison.
MIN_SHOWN = 0.35
#: Weight of the match scores: a class's probability is multiplied by exp(SHARPNESS · (score − best)).
SHARPNESS = 15.0
#: Width (px) of the square a hand's patch grows by (its shaded edge).
GROW = 3
#: Exemplars also turned by ± this (degrees; 0: quarter turns only).
ASKEW_DEG = 3.0


def _square(rect: U8, i: int, grow: int) -> U8:
    """Square ``i``'s pixels (row by row index), ``TRIM`` in from its sides, grown by ``grow``."""
    r, c = divmod(i, SIZE)
    o = round(MARGIN * PITCH)
    y, x = o + r * PITCH, o + c * PITCH
    a, b = TRIM - grow, PITCH - TRIM + grow
    return rect[y + a:y + b, x + a:x + b]


def shown_mask(part: U8) -> NDArray[np.uint8]:
    """The pixels of a tile's part that show the tile (1) rather than a hand over it (0): a hand is
    a large patch unlike the face (the brightest pixels' colour) that reaches in from beyond the
    part; ink makes strokes, which an opening by ``STROKE_PX`` removes, or patches clear of the
    part's border (a bold numeral under blur). The hand's patch grows by ``GROW`` (its shaded edge)."""
    lab = to_lab(np.ascontiguousarray(part))
    light = lab[..., 0] >= np.percentile(lab[..., 0], FACE_PERCENTILE) - 5.0
    face = np.median(lab[light], axis=0)
    unlike = (np.linalg.norm(lab - face, axis=-1) > FACE_DIST).astype(np.uint8)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (STROKE_PX, STROKE_PX))
    patch = cv2.morphologyEx(unlike, cv2.MORPH_OPEN, disc)
    n, labels = cv2.connectedComponents(patch)
    if n > 1:  # a hand reaches in from beyond the part: patches clear of its border are ink
        edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
        patch = np.isin(labels, edge[edge > 0]).astype(np.uint8)
    patch = cv2.dilate(patch, np.ones((GROW, GROW), np.uint8))
    return np.asarray(1 - patch, np.uint8)


def _ink(gray: F32, shown: NDArray[np.bool_] | None = None) -> F32:
    """How much ink each pixel holds, 0 (the face: the ``FACE_PERCENTILE`` lightness of the pixels
    ``shown``) to 1 (the darkest of them), so that light and contrast drop out of a comparison."""
    px = gray[shown] if shown is not None else gray.ravel()
    face = float(np.percentile(px, FACE_PERCENTILE))
    dark = float(np.percentile(px, 2.0))
    return np.asarray(np.clip((face - gray) / max(face - dark, 10.0), 0.0, 1.0), np.float32)


def sure_tiles(probs: F32, unseen: NDArray[np.bool_]) -> dict[int, list[int]]:
    """Tile class → every square (row by row index) read as it surely (``EXEMPLAR_MIN``) and not
    ``unseen`` (a hand, the picture's edge), surest first."""
    top = probs.argmax(axis=1)
    sure = (probs.max(axis=1) >= EXEMPLAR_MIN) & (top < EMPTY) & ~np.asarray(unseen, bool).reshape(-1)
    out: dict[int, list[int]] = {}
    for i in np.flatnonzero(sure)[np.argsort(-probs[sure].max(axis=1), kind="stable")]:
        out.setdefault(int(top[i]), []).append(int(i))
    return out


def _pick(squares: list[int], rect: U8 | None) -> list[int]:
    """The first ``MAX_EXEMPLARS`` of ``squares`` whose face shows no hand (with ``rect``)."""
    out: list[int] = []
    for e in squares:
        if len(out) == MAX_EXEMPLARS:
            break
        if rect is None or _clear(rect, e):
            out.append(e)
    return out


def exemplar_rows(probs: F32, unseen: NDArray[np.bool_], rect: U8 | None = None) -> dict[int, list[int]]:
    """Tile class → its exemplars: up to ``MAX_EXEMPLARS`` squares (row by row indices) that show
    it surely and wholly, surest first; with ``rect``, only those whose face shows no patch of a
    hand either (``EXEMPLAR_SHOWN``: a fingertip the grid lines did not reveal)."""
    picked = {k: _pick(v, rect) for k, v in sure_tiles(probs, unseen).items()}
    return {k: v for k, v in picked.items() if v}


def _clear(rect: U8, i: int) -> bool:
    """Whether square ``i``'s face shows no hand (``EXEMPLAR_SHOWN``)."""
    return shown_share(rect, i) >= EXEMPLAR_SHOWN


def shown_share(rect: U8, i: int) -> float:
    """The share of square ``i``'s face (row by row index, ``TRIM`` in from its sides) that shows
    the tile rather than a hand over it (``shown_mask``)."""
    return float(shown_mask(_square(rect, i, 0)).mean())


def match_scores(rect: U8, target: int, exemplars: dict[int, list[int]], classes: list[int],
                 windows: dict[int, tuple[F32, F32, int]] | None = None) -> dict[int, float] | None:
    """Each of ``classes``' best masked correlation with square ``target`` (a hand's pixels left
    out: ``shown_mask``), over its exemplars, their quarter turns (each also askew by
    ±``ASKEW_DEG``) and shifts up to ``REACH``; ``None`` when too little of the tile shows.
    ``windows``: the exemplars' turned ink maps (``exemplar_windows``) kept between calls."""
    part = _square(rect, target, 0)
    mask = shown_mask(part)
    if mask.mean() < MIN_SHOWN:
        return None
    ink = _ink(cv2.cvtColor(part, cv2.COLOR_BGR2GRAY).astype(np.float32), mask > 0)
    if float(ink[mask > 0].std()) < 0.05:
        return None
    if windows is None:
        windows = {}
    m = mask.astype(np.float32)
    n = float(m.sum())
    t = (ink - float((ink * m).sum()) / n) * m
    t_norm = float(np.sqrt((t * t).sum()))
    out: dict[int, float] = {}
    for k in classes:
        per_exemplar = []
        for e in exemplars[k]:
            if e not in windows:
                windows[e] = exemplar_windows(rect, e)
            per_exemplar.append(_best_masked_ncc(windows[e], t, t_norm, m, n))
        out[k] = max(per_exemplar)
    return out


def _best_masked_ncc(stack: tuple[F32, F32, int], t: F32, t_norm: float, m: F32, n: float) -> float:
    """The best correlation, over the shifts within each window of ``stack`` (the windows one above
    the other, their squares, the window height), of the masked template: ``t`` (zero off the mask,
    mean zero on it) and the mask ``m`` of ``n`` pixels; windows with no contrast under the mask
    score −1. The same as ``cv2.TM_CCOEFF_NORMED`` with a mask, in three unmasked passes."""
    win, win_sq, height = stack
    num = cv2.matchTemplate(win, t, cv2.TM_CCORR)
    s1 = cv2.matchTemplate(win, m, cv2.TM_CCORR)
    s2 = cv2.matchTemplate(win_sq, m, cv2.TM_CCORR)
    var = s2 - s1 * s1 / n
    ncc = np.where(var > 1e-3, num / (np.sqrt(np.maximum(var, 1e-3)) * max(t_norm, 1e-6)), -1.0)
    valid = height - t.shape[0] + 1  # rows of each window's own shifts (the rest straddle two windows)
    rows = (np.arange(ncc.shape[0]) % height) < valid
    return float(ncc[rows].max())


def exemplar_windows(rect: U8, e: int) -> tuple[F32, F32, int]:
    """Square ``e``'s ink map, ``REACH`` px wider than the compared part, in its turns (``_turns``)
    stacked one above the other; the stack squared; the height of one window."""
    turned = _turns(_ink(cv2.cvtColor(_square(rect, e, REACH), cv2.COLOR_BGR2GRAY).astype(np.float32)))
    win = np.ascontiguousarray(np.concatenate(turned, axis=0))
    return win, win * win, turned[0].shape[0]


def _turns(win: F32) -> list[F32]:
    """``win`` in its four quarter turns, each also turned by ±``ASKEW_DEG``."""
    out = []
    c = ((win.shape[1] - 1) / 2.0, (win.shape[0] - 1) / 2.0)
    for turn in range(4):
        q = np.ascontiguousarray(np.rot90(win, turn))
        out.append(q)
        for deg in ((-ASKEW_DEG, ASKEW_DEG) if ASKEW_DEG else ()):
            m = cv2.getRotationMatrix2D(c, deg, 1.0)
            out.append(np.asarray(cv2.warpAffine(q, m, (q.shape[1], q.shape[0]), flags=cv2.INTER_LINEAR,
                                                 borderMode=cv2.BORDER_REPLICATE), np.float32))
    return out


def reweigh_by_exemplars(rect: U8, probs: F32, rows: NDArray[np.intp], unseen: NDArray[np.bool_]) -> list[int]:
    """Re-weigh, in place, the tile classes of squares ``rows`` that likely hold a tile
    (``MAX_EMPTY``) by how well each candidate's exemplars match them (``match_scores``); returns
    the squares changed. ``unseen``: squares no exemplar is taken from (a hand, the picture's edge)."""
    if not len(rows):
        return []
    sure = sure_tiles(probs, unseen)
    exemplars: dict[int, list[int]] = {}  # picked when first needed: checking a face takes time
    changed = []
    windows: dict[int, tuple[F32, F32, int]] = {}
    for i in rows:
        p = probs[i]
        if p[EMPTY] >= MAX_EMPTY:
            continue
        classes = [int(k) for k in np.flatnonzero(p[:WILD + 1] >= MIN_CANDIDATE)]
        if len(classes) < 2 or any(not sure.get(k) for k in classes):
            continue
        for k in classes:
            if k not in exemplars:
                exemplars[k] = _pick(sure[k], rect)
        if not all(exemplars[k] for k in classes):
            continue
        scores = match_scores(rect, int(i), exemplars, classes, windows)
        if scores is None:
            continue
        best = max(scores.values())
        w = np.array([np.exp(SHARPNESS * (scores[k] - best)) for k in classes])
        mass = float(p[classes].sum())
        new = p[classes] * w
        p[classes] = (mass * new / new.sum()).astype(probs.dtype)
        changed.append(int(i))
    return changed
