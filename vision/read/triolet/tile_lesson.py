"""``companion calibrate tiles --game triolet``: the edition's tiles learnt from one picture.

The players lay one tile of each value 0–15 and a wild, in value order, row by row (any rows,
reading order as the camera sees them), on the board or on the bare table, and take one picture.

- **On a board** the reader finds (``locate_board``): the squares it reads as tiles
  (``read_triolet``'s square probabilities, "empty" below one half) at the board's square
  positions, cut as the reader's crops (``features.square_crops``).
- **On the table** (no board found, or not 17 tiles on it): tiles are square blobs of one size
  (``table_tiles``: closed edges, a near-square outline filling its rotated box); each tile's
  outline is warped to a square as large in the crop as a tile on a rectified board.

The 17 are put in reading order (``reading_order``: rows along the tiles' own direction, so a
tilted picture still reads row by row), and learnt: the tile and ink colours, and the square CNN's
last layer fine-tuned on them (``edition``). ``typeface_match`` is the share of the 17 the
uncalibrated CNN reads right, ``mean_true_prob`` its mean probability of the true value,
``learnt_match`` the share the fine-tuned layer reads right.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import Profile, TileReference
from vision.locate import order_corners
from vision.read import TileLessonError
from vision.read.triolet.classifier import EMPTY, WILD
from vision.read.triolet.edition import CLASSES, learn_head
from vision.read.triolet.features import CROP, square_crops

F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]

EXPECTED = CLASSES
#: A table tile's side in the crop (px): as large as a tile on a rectified board (~89 % of a square).
TABLE_TILE_PX = 36
#: Table blobs: side ratio of their rotated box, and the share of it their outline fills.
MAX_ASPECT = 1.6
MIN_FILL = 0.8
#: Blobs of one size: within this factor of the chosen tile area.
SIZE_TOLERANCE = 1.45
#: How far rows may tilt in the picture (degrees), and how wide across a row may be (share of a tile).
MAX_ROW_TILT = 30.0
ROW_SPREAD = 0.6
#: Fewer than this share of the 17 read as their place says, the nets sure of their readings: the
#: tiles are not in value order (or another thing was taken for a tile), and nothing is learnt.
MIN_AGREEMENT = 0.35
#: On a board: squares read as tiles this surely ("empty" below) give the tiles' face colour, and
#: squares whose middle is farther than ``SAME_FACE`` from it (OpenCV 8-bit L*a*b*) are not tiles.
SURE_EMPTY = 0.05
SAME_FACE = 25.0
#: Smallest tile side in the picture (px).
MIN_SIDE = 12
#: Pixels this close to the tiles' face colour (OpenCV 8-bit L*a*b*) may be a tile's face.
FACE_DIST = 14.0
#: Edge maps whose outlines and closed regions are tile candidates: (channel, Canny's low threshold).
EDGE_PASSES = (("grey", 20), ("grey", 8), ("b", 6), ("a", 6))
#: A tile's marks: in the middle ``MARK_WINDOW`` of its side, a share ``MARK_SHARE`` of the pixels
#: lie a contrast or more grey levels from the middle's median; ``MARK_CONTRASTS`` are tried in
#: turn (faint engraved marks need the lower) until one finds the 17 tiles.
MARK_WINDOW = 0.6
MARK_CONTRASTS = (40.0, 25.0)
MARK_SHARE = (0.03, 0.5)


def _count_message(n: int, where: str) -> str:
    return (f"found {n} tiles{where}, expected {EXPECTED} (one of each value 0–15 and a wild, in value order, "
            "row by row)")


def reading_order(points: F64, size: float) -> list[int]:
    """Indices of ``points`` (n, 2; image x right, y down) in reading order: rows top to bottom,
    each left to right. The rows' direction is the angle (within ±``MAX_ROW_TILT``°) that splits
    the points into the fewest rows, each no wider across than ``ROW_SPREAD`` of ``size`` (a gap
    over half ``size`` starts a row), so a tilted picture still reads row by row;
    ``TileLessonError`` when no angle does."""
    if len(points) == 0:
        return []
    best: tuple[int, float, list[list[int]]] | None = None
    for deg in np.arange(-MAX_ROW_TILT, MAX_ROW_TILT + 0.25, 0.5):
        rows = _rows_at(points, float(np.radians(deg)), size)
        if rows is None:
            continue
        p = _levelled(points, float(np.radians(deg)))
        spread = sum(float(np.ptp(p[r, 1])) for r in rows)
        if best is None or (len(rows), spread) < best[:2]:
            best = (len(rows), spread, rows)
    if best is None:
        raise TileLessonError("the tiles' rows cannot be told apart: lay them in straight rows with a gap "
                              "between rows")
    return [k for row in best[2] for k in row]


def _levelled(points: F64, theta: float) -> F64:
    rot = np.array([[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]])
    return np.asarray(points @ rot.T, np.float64)


def _rows_at(points: F64, theta: float, size: float) -> list[list[int]] | None:
    """The rows of ``points`` seen along direction ``theta`` (each left to right), or ``None`` when
    one is wider across than ``ROW_SPREAD`` of ``size``."""
    p = _levelled(points, theta)
    rows: list[list[int]] = []
    for i in np.argsort(p[:, 1], kind="stable"):
        if rows and p[i, 1] - p[rows[-1][-1], 1] < 0.5 * size:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    if any(float(np.ptp(p[r, 1])) > ROW_SPREAD * size for r in rows):
        return None
    return [sorted(r, key=lambda k: float(p[k, 0])) for r in rows]


def table_tiles(image: U8, contrast: float = MARK_CONTRASTS[0]) -> tuple[list[F64], float]:
    """The tiles on a bare table: outlines (4×2 image px, clockwise from top-left) of the square
    blobs that carry marks (``_marked``), of the most common size, and that size (side, px). A blob
    is an outline of edges, or a region the edges close (a tile whose outline touches the table's
    own pattern still closes its face)."""
    gray = np.asarray(cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (0, 0), 1.0), np.uint8)
    lab = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2LAB), (0, 0), 1.0)
    contours: list[Any] = []
    for channel, low in EDGE_PASSES:
        src = gray if channel == "grey" else np.ascontiguousarray(lab[..., 2 if channel == "b" else 1])
        edges = cv2.morphologyEx(cv2.Canny(src, low, 3 * low), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        contours += cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]
        contours += cv2.findContours(np.asarray(255 - edges, np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]
    cands: list[tuple[float, F64, F64]] = []  # area, centre, box
    for c in contours:
        (cx, cy), (w, h), ang = cv2.minAreaRect(c)
        if min(w, h) < MIN_SIDE or max(w, h) > MAX_ASPECT * min(w, h) or max(w, h) > 0.25 * min(image.shape[:2]):
            continue
        hull = cv2.convexHull(c)
        if cv2.contourArea(hull) < MIN_FILL * w * h:
            continue
        box = np.asarray(cv2.boxPoints(((cx, cy), (w, h), ang)), np.float64)
        if not _marked(gray, box, contrast):
            continue
        cands.append((float(w * h), np.array([cx, cy]), box))
    if not cands:
        return [], 0.0
    tiles, side = _one_size(cands)
    if len(tiles) >= 3:  # the faces' colour finds the tiles whose outline is faint against the table
        tiles, side = _one_size(cands + _by_colour(image, gray, tiles, side, contrast))
    return [order_corners(b) for _, _, b in tiles], side


def _by_colour(image: U8, gray: U8, tiles: list[tuple[float, F64, F64]], side: float, contrast: float
               ) -> list[tuple[float, F64, F64]]:
    """Square blobs of the colour of the tiles found (``FACE_DIST`` in OpenCV 8-bit L*a*b*), their
    marks filled, of about ``side``: candidates like ``table_tiles``'s."""
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    faces = []
    for _, c, _ in tiles:
        x, y = int(c[0]), int(c[1])
        r = max(2, int(side * 0.3))
        faces.append(np.median(lab[max(y - r, 0):y + r, max(x - r, 0):x + r].reshape(-1, 3), axis=0))
    face = np.median(np.array(faces), axis=0)
    mask: Any = (np.linalg.norm(lab - face, axis=2) < FACE_DIST).astype(np.uint8)
    k = max(3, int(side / 3) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    k = max(3, int(side / 5) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    out = []
    for c in cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]:
        (cx, cy), (w, h), ang = cv2.minAreaRect(c)
        if min(w, h) < MIN_SIDE or max(w, h) > MAX_ASPECT * min(w, h):
            continue
        if cv2.contourArea(cv2.convexHull(c)) < MIN_FILL * w * h:
            continue
        box = np.asarray(cv2.boxPoints(((cx, cy), (w, h), ang)), np.float64)
        if _marked(gray, box, contrast):
            out.append((float(w * h), np.array([cx, cy]), box))
    return out


def _one_size(cands: list[tuple[float, F64, F64]]) -> tuple[list[tuple[float, F64, F64]], float]:
    """The candidates of the size most of them share, one per place (the largest outline), and
    that size (side, px)."""
    areas = np.array([a for a, _, _ in cands])
    # the size most blobs share (ties: the larger, a tile rather than its numeral)
    counts = [int(((areas >= a / SIZE_TOLERANCE) & (areas <= a * SIZE_TOLERANCE)).sum()) for a in areas]
    ref = max(range(len(cands)), key=lambda i: (counts[i], areas[i]))
    same = [cands[i] for i in range(len(cands))
            if areas[ref] / SIZE_TOLERANCE <= areas[i] <= areas[ref] * SIZE_TOLERANCE]
    same.sort(key=lambda t: -t[0])  # the outer outline of each tile first
    side = float(np.sqrt(areas[ref]))
    kept: list[tuple[float, F64, F64]] = []
    for t in same:
        if all(np.linalg.norm(t[1] - k[1]) > 0.5 * side for k in kept):
            kept.append(t)
    return kept, side


def _marked(gray: U8, box: F64, contrast: float) -> bool:
    """Whether the middle of a blob (``MARK_WINDOW`` of its side) holds marks: pixels far from its
    median (``contrast`` grey levels), between ``MARK_SHARE`` of them; an empty board square or a
    patch of table does not."""
    c = box.mean(axis=0)
    inner = c + (box - c) * MARK_WINDOW
    x0, y0 = np.floor(inner.min(axis=0)).astype(int)
    x1, y1 = np.ceil(inner.max(axis=0)).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    patch = gray[y0:y1, x0:x1]
    if patch.size < 16:
        return False
    far = np.abs(patch.astype(np.float32) - float(np.median(patch))) > contrast
    return bool(MARK_SHARE[0] <= float(far.mean()) <= MARK_SHARE[1])


def table_crops(image: U8, outlines: list[F64]) -> U8:
    """Each outline warped to a ``TABLE_TILE_PX`` square centred in a ``CROP`` px crop."""
    a = (CROP - TABLE_TILE_PX) / 2.0
    b = a + TABLE_TILE_PX
    dst = np.array([[a, a], [b, a], [b, b], [a, b]], np.float32)
    out = np.empty((len(outlines), CROP, CROP, 3), np.uint8)
    for k, q in enumerate(outlines):
        m = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
        out[k] = cv2.warpPerspective(image, m, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return out


def board_tiles(image: U8) -> tuple[U8, F64] | None:
    """On a board the reader finds: the crops of the squares read as tiles and their (col, row)
    (in the picture's own orientation); ``None`` when no board is found."""
    from vision.locate import SIZE, BoardNotLocatedError
    from vision.read.triolet.reader import read_triolet

    try:
        reading = read_triolet(image, keep_images=True)
    except BoardNotLocatedError:
        return None
    assert reading.rectified is not None
    probs = reading.probs.reshape(SIZE * SIZE, -1)
    idx = np.flatnonzero(probs[:, EMPTY] < 0.5)
    squares = [(int(i % SIZE), int(i // SIZE)) for i in idx]
    if not squares:
        return np.zeros((0, CROP, CROP, 3), np.uint8), np.zeros((0, 2))
    crops = square_crops(reading.rectified, squares)
    # the tiles share a face colour: a premium square or the centre star read as a tile does not
    faces = np.array([_face_lab(c) for c in crops])
    sure = probs[idx, EMPTY] < SURE_EMPTY
    ref = np.median(faces[sure] if sure.any() else faces, axis=0)
    same = np.linalg.norm(faces - ref, axis=1) <= SAME_FACE
    return crops[same], np.asarray(squares, np.float64).reshape(-1, 2)[same]


def _face_lab(crop: U8) -> F64:
    """The median CIE L*a*b* (OpenCV's 8-bit scale) of a crop's middle: its tile's face, mostly."""
    a = CROP // 4
    core = np.ascontiguousarray(crop[a:CROP - a, a:CROP - a])
    return np.asarray(np.median(cv2.cvtColor(core, cv2.COLOR_BGR2LAB).reshape(-1, 3), axis=0), np.float64)


def tile_colours(crops: U8) -> dict[str, Any]:
    """The tile face's and the ink's colour (CIE L*a*b*, sRGB): the two clusters of the tiles'
    central pixels, the larger the face."""
    from vision.read.triolet.blank_tiles import to_lab

    a = (CROP - TABLE_TILE_PX) // 2 + 3
    core = np.ascontiguousarray(crops[:, a:CROP - a, a:CROP - a])
    px = core.reshape(-1, 3).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    cv2.setRNGSeed(0)
    _, labels, centres = cv2.kmeans(px, 2, np.zeros((len(px), 1), np.int32), crit, 3, cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.ravel(), minlength=2)
    face, ink = (0, 1) if share[0] >= share[1] else (1, 0)

    def colour(k: int) -> dict[str, Any]:
        bgr = np.clip(np.round(centres[k]), 0, 255).astype(np.uint8).reshape(1, 1, 3)
        lab = to_lab(bgr).reshape(3)
        return {"lab": [round(float(v), 1) for v in lab], "rgb": [int(v) for v in bgr.reshape(3)[::-1]]}

    return {"tile": colour(face), "ink": colour(ink), "ink_share": round(float(share[ink] / share.sum()), 3)}


class TrioletTileLearner:
    """The Triolet edition learnt from one picture (``vision.read.TileLearner``)."""

    game = "triolet"

    def learn(self, image: U8, calibration: Profile | None = None) -> TileReference:
        """What ``image`` teaches the reader; ``TileLessonError`` when it does not show the 17 tiles."""
        found = find_tiles(image)
        crops, where = found.crops, found.laid
        probs = _nets_reading(crops)
        truth = np.arange(CLASSES)
        top = probs.argmax(axis=1)
        if float((top == truth).mean()) < MIN_AGREEMENT and float(probs.max(axis=1).mean()) > 0.8:
            raise TileLessonError("the tiles do not look laid in value order (read in reading order as "
                                  f"{', '.join(_name(int(k)) for k in top)}): lay 0 to 15, then the wild, "
                                  "row by row")
        edition = learn_head(crops)
        learnt = edition.reading(crops)
        h, w = image.shape[:2]
        summary = {"values": len(crops), "typeface_match": round(float((top == truth).mean()), 3),
                   "mean_true_prob": round(float(probs[truth, truth].mean()), 3),
                   "misread": [f"{_name(int(t))} as {_name(int(g))}"
                               for t, g in zip(truth, top, strict=True) if t != g],
                   "learnt_match": round(float((learnt.argmax(axis=1) == truth).mean()), 3),
                   "laid": where}
        learned = {**edition.to_json(), "colours": tile_colours(crops)}
        return TileReference("triolet", (w, h), summary=summary, learned=learned)


@dataclass(frozen=True)
class TilesFound:
    """The 17 tiles of a calibration picture in reading order: their crops as the reader sees a
    square, where each lies (board: (col, row) of the rectified board; table: image px), and where
    they were laid (``"board"`` or ``"table"``)."""

    crops: U8
    places: F64
    laid: str


def find_tiles(image: U8) -> TilesFound:
    """The calibration picture's 17 tiles in reading order, on a board or on the table;
    ``TileLessonError`` saying how many were found when not 17."""
    on_board = board_tiles(image)
    if on_board is not None and len(on_board[0]) == EXPECTED:
        crops, squares = on_board
        order = reading_order(squares, 1.0)
        return TilesFound(np.ascontiguousarray(crops[order]), squares[order], "board")
    counts = []
    for contrast in MARK_CONTRASTS:
        outlines, side = table_tiles(image, contrast)
        if len(outlines) == EXPECTED:
            centres = np.array([q.mean(axis=0) for q in outlines])
            order = reading_order(centres, side)
            return TilesFound(np.ascontiguousarray(table_crops(image, [outlines[k] for k in order])),
                              centres[order], "table")
        counts.append(len(outlines))
    if on_board is not None:
        raise TileLessonError(_count_message(len(on_board[0]), " on the board"))
    raise TileLessonError(_count_message(counts[0], ""))


def _name(k: int) -> str:
    return "wild" if k == WILD else str(k)


def _nets_reading(crops: U8) -> NDArray[np.float32]:
    """The uncalibrated nets' tile-class probabilities of the crops (the CNN in four quarter turns),
    renormalised over the tile classes."""
    from vision.read.triolet.cnn import load_cnn
    from vision.read.triolet.reader import turns_averaged

    p = turns_averaged(load_cnn().proba, crops)[:, :CLASSES]
    return np.asarray(p / np.maximum(p.sum(axis=1, keepdims=True), 1e-9), np.float32)

