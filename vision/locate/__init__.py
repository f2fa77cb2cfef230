"""Board location without markers: ``locate_board(image, game) -> BoardLocation``.

Stages (each a function below, named after what it does):

1. ``candidate_quads`` — quadrilaterals from edge contours at several thresholds (gray and
   chroma), convex hulls simplified to 4 corners. No board colour is assumed.
2. ``fit_grid_in_quad`` — each candidate is rectified and searched for the 15×15 grid: a comb
   of 16 equally spaced lines matched against the median gradient profile along each axis
   (the candidate may be the playing area or the whole board with its border). The best comb
   gives a playing-area quad and a grid score.
3. ``refine_with_grid_lines`` — chesscog-style: the playing area is re-rectified with a margin,
   each of the 16+16 grid lines is found band by band near where it should be, lines are fitted
   robustly, their 256 crossings give a least-squares homography (``cv2.findHomography``);
   last, the lens bending (one division-model coefficient) and the homography are fitted
   jointly to all line samples (``locate_lens.fit_lens_to_grid``), so the corners follow the
   bent outer lines instead of a straight extrapolation. The checks after that fit sample the
   picture through the fitted lens (``rectify(…, lens)``) where it bends the grid noticeably.
4. ``premium_pattern_scores`` — the special squares (T-B2) must stand out from plain squares
   where the grid says they are (against the plain squares' median colour, or a plane fitted
   robustly to them when light falls off across the board); a shift by one square breaks that
   pattern. Among windows and shifts, the one whose squares of each kind (double, triple,
   replay) also look alike is preferred: tiles can fake the contrast, not the three kinds.

Every threshold of these stages is a field of a frozen options class, one class a stage
(``SearchOptions``, ``GridOptions``, ``PatternOptions``, ``ShiftOptions``, ``AcceptOptions``),
gathered in ``LocateOptions`` and passed in: ``locate_board(image, opts=LocateOptions(...))``.

Corners follow INTERFACES §3: clockwise from the one nearest the image's top-left; that corner
is A1, columns run to the second corner, rows to the fourth (row 1 nearest the top of the image).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.triolet.board import DOUBLE_SQUARES, NAMES, REPLAY_SQUARES, TRIPLE_SQUARES
from vision.locate.lens import LensFitOptions, fit_lens_to_grid

F64 = NDArray[np.float64]
# OpenCV's stubs do not carry dtypes: images are typed loosely, float64 geometry strictly.
F32 = NDArray[Any]
U8 = NDArray[Any]
Image = NDArray[Any]

#: squares a side of the playing area
SIZE = 15


@dataclass(frozen=True)
class SearchOptions:
    """Finding candidates: the lattice of square-like blobs and the comb search for the 15×15 grid (stages 1–2)."""

    #: longest side of the working image for the search
    work_side: int = 640
    #: rectified candidate size for the comb search
    cand_side: int = 256
    #: a lattice's seed blob is compared in size with this many nearest blobs ...
    seed_neighbours: int = 8
    #: ... and must be within this factor of their median size
    seed_size_ratio: float = 1.3
    #: blobs within this log size ratio of the seed may join its lattice
    lattice_size_log: float = 0.6
    #: a comb-search grid scoring less is no candidate (none left and no lattice: no board visible)
    min_grid_score: float = 0.30
    #: a comb-search grid scoring this much ends the search (a clear 15×15 grid)
    strong_grid_score: float = 1.7
    #: gradient units: flat regions cannot fake a grid (a comb over a weaker profile scores nothing)
    profile_floor: float = 6.0
    #: the contrast-normalised cell maps' gain (``local_contrast``): one neighbourhood standard
    #: deviation becomes this many grey levels
    contrast_gain: float = 40.0


@dataclass(frozen=True)
class GridOptions:
    """Refining a candidate on its grid lines and fitting the lens bending (stage 3)."""

    #: px per square when refining grid lines
    refine_pitch: int = 24
    #: grid lines refined at the peaks of this difference of Gaussians (``_ridges``)
    ridge_sigmas: tuple[float, ...] = (1.0, 3.0)
    #: lens bending and homography fitted jointly to the grid-line samples (locate_lens.py)
    fit_lens: bool = True
    #: squares: a lens bending the board more is followed by the checks after the lens fit
    lens_check_bend: float = 0.1
    #: focal lengths (the picture's longest side) from the centre the bending is followed
    lens_reach: float = 2.0
    #: px of the rectified board between the exactly bent samples of a lens-bent rectification
    lens_map_step: int = 8
    #: the lens fit's own settings (``locate_lens``)
    lens: LensFitOptions = field(default_factory=LensFitOptions)


@dataclass(frozen=True)
class PatternOptions:
    """Scoring the special squares' pattern (stage 4)."""

    #: weight of the kinds' colour spread against the special-square pattern
    kind_weight: float = 0.5
    #: special squares also scored against a plane fitted to the plain ones (a light gradient)
    plane_base: bool = True
    #: reweighting rounds of that fit
    plane_rounds: int = 3
    #: ... fitted only where no window's pattern is this clear against the median
    plane_below: float = 0.5
    #: pattern score counting fully (1) in a candidate's quality
    pattern_cap: float = 0.4
    #: the squares' frames scored as well as their centres (``cell_looks``: an edition that marks
    #: its special squares by a coloured frame only)
    frames: bool = True


@dataclass(frozen=True)
class ShiftOptions:
    """Moving a registration by whole squares to where the special squares and the grid lines say the board is."""

    #: squares: how far off a registration the special-square pattern may move it ...
    shift_reach: int = 4
    #: ... or this far when its grid lines are found on less than ...
    wide_shift_reach: int = 10
    #: ... this share (a window partly off the board: a lattice grown on part of it)
    wide_shift_below: float = 0.9
    #: share of grid lines a shift that far may explain fewer of
    wide_shift_line_loss: float = 0.0
    #: a shift must beat the registration found by this much (pattern − ring)
    shift_margin: float = 0.10
    #: weight of board-coloured squares around the grid against a registration
    ring_weight: float = 0.5
    #: L*a*b* distance under which a square has the board's base colour
    ring_near: float = 8.0
    #: a shift explaining this much more of the grid lines replaces the registration ...
    line_shift_gain: float = 0.1
    #: ... when its special-square pattern is at most this much less clear
    line_shift_pattern_loss: float = 0.15
    #: ... trying this many such shifts, most clear pattern first
    line_shift_tries: int = 3
    #: share of grid lines a shifted registration may explain fewer of ...
    shift_line_loss: float = 0.02
    #: ... but a shift that frames the board clearly better (the board-like share of the squares
    #: around the grid falls by ``framed_gain``) and raises the pattern by ``framed_pattern_gain``
    #: may lose up to ``framed_line_loss`` (a check cloth continuing the board's lattice explains the
    #: lines beside the board as well as the board's own).
    framed_gain: float = 0.15
    #: (see ``framed_gain``)
    framed_pattern_gain: float = 0.2
    #: (see ``framed_gain``)
    framed_line_loss: float = 0.07
    #: a square around the window looks like a playing square only with grid lines like theirs
    ring_lines: bool = True
    #: median L*a*b* grid-line contrast of a window's squares for lines to count
    ring_lines_min: float = 8.0
    #: ... and the share of it a square around the window needs to look like one
    ring_lines_share: float = 0.6


@dataclass(frozen=True)
class AcceptOptions:
    """Ranking the candidates and the checks a grid must pass to be reported as the board."""

    #: a candidate's quality: this × share of grid lines found + pattern strength (≤ 1)
    line_weight: float = 2.0
    #: Candidates rank by their pattern over the squares in view when that is clearer (``_ranking_pattern``).
    rank_in_view: bool = True
    #: special squares must stand out (T-B2)
    min_pattern_score: float = 0.06
    #: share of the 32 grid lines a board must show ...
    min_line_share: float = 0.4
    #: ... or this many when its special squares stand out clearly (an arm across it)
    arm_line_share: float = 0.25
    #: ... that is, a special-square pattern at least this clear
    clear_pattern_score: float = 0.5
    #: A grid whose special squares stand out less than this over the whole board is taken only when
    #: the special squares in view stand out at least ``in_view_min_pattern`` (``pattern_in_view``): an
    #: arm across the board lies over special and plain squares alike and hides their contrast, but
    #: among the squares in view it shows again; a check tablecloth, a notepad or another game's board
    #: whose lines make a 15×15 grid with a weak pattern by chance has none there (0: no check in
    #: view at all, ``in_view_floor`` included).
    weak_pattern: float = 0.2
    #: ... the in-view pattern such a grid needs
    in_view_min_pattern: float = 0.2
    #: However clear the pattern over the whole board, the special squares in view must stand out at
    #: least this much: a pattern made only by what hides the grid lines (a phone on a lined notepad,
    #: the coloured pieces of another game) is no board's (the least on boards found right among
    #: 1,924 dev frames: 0.12).
    in_view_floor: float = 0.05
    #: A grid that shows at least this share of its 32 lines has its special squares in view scored
    #: against a plane fitted to the plain squares in view as well (``pattern_in_view``'s ``plane``),
    #: as the whole board's pattern is: under a light falling off across the board the plain squares'
    #: median colour hides them (fresh seeds 13,030,305, 14,000,325 and 14,200,124: every line found,
    #: −0.04–0.15 in view against the median, 0.30–0.40 against the plane). Only there: on a grid that
    #: explains fewer lines (a wrong lattice, 0.56–0.88 of them) the plane fitted to the squares in
    #: view can make a pattern of what lies around the board (fresh seed 13,200,180: 0.22, 4 squares off).
    all_lines_share: float = 0.95
    #: A square's side showing less grid line than this share of the board's median side is hidden
    #: (``side_line_shares``): a square with two such sides is not in view for ``pattern_in_view``,
    #: and is covered for the reader (``reader.OBSCURED_LINES``).
    in_view_faint: float = 0.15
    #: A grid whose corners lie farther than this many picture sizes from the picture's middle is no
    #: board in view (a lattice fitted across the horizon).
    far_off_picture: float = 3.0
    #: A grid with more than this share of its 225 squares outside the picture is no board found: too
    #: few of its special squares are in view for their pattern to tell a board (two Trigon pictures,
    #: 77 % and 96 % outside, passed the in-view test on 8–50 squares once OpenCV 5.1 grew their
    #: lattices otherwise; no true board of 3,500 normal dev frames has any square outside).
    max_outside_share: float = 0.5


@dataclass(frozen=True)
class LocateOptions:
    """How the locator searches and what it accepts as a board, stage by stage; the defaults are the
    locator as measured (``companion bench read``). Tests and experiments build their own, e.g.
    ``replace(LocateOptions(), accept=replace(AcceptOptions(), rank_in_view=False))``."""

    search: SearchOptions = field(default_factory=SearchOptions)
    grid: GridOptions = field(default_factory=GridOptions)
    pattern: PatternOptions = field(default_factory=PatternOptions)
    shift: ShiftOptions = field(default_factory=ShiftOptions)
    accept: AcceptOptions = field(default_factory=AcceptOptions)


DEFAULT_LOCATE_OPTIONS = LocateOptions()
#: The locator's rule for a square out of view, for the reader (``AcceptOptions.in_view_faint``).
IN_VIEW_FAINT = DEFAULT_LOCATE_OPTIONS.accept.in_view_faint
#: A window's squares' grid-line contrast for lines to count, for the reader (``ShiftOptions.ring_lines_min``).
RING_LINES_MIN = DEFAULT_LOCATE_OPTIONS.shift.ring_lines_min

#: the special squares (T-B2) by name, as the engine has them: double, triple and replay
DOUBLE = tuple(NAMES[i] for i in sorted(DOUBLE_SQUARES))
TRIPLE = tuple(NAMES[i] for i in sorted(TRIPLE_SQUARES))
REPLAY = tuple(NAMES[i] for i in sorted(REPLAY_SQUARES))


class BoardNotLocatedError(RuntimeError):
    """No board of the game could be found in the picture."""


@dataclass(frozen=True)
class BoardLocation:
    """Where the playing area lies: ``corners_px`` (INTERFACES §3 order), ``homography`` mapping
    board units (one unit = one square, A1 at ``[0,1]²``) to image pixels, and a confidence 0–1."""

    corners_px: tuple[tuple[float, float], ...]
    homography: F64
    confidence: float
    timings_ms: dict[str, float] = field(default_factory=dict)
    lens: Lens | None = None
    """Lens bending found from the grid lines; when set, ``homography`` maps to undistorted pixels."""

    def project(self, units: F64) -> F64:
        """Board units (n, 2) → image pixels, lens bending included."""
        p = apply_h(self.homography, units)
        return p if self.lens is None else self.lens.distort(p)

    def to_json(self) -> dict[str, Any]:
        """``{"corners_px": [[x, y], …4]}`` as in INTERFACES §3."""
        return {"corners_px": [[round(x, 1), round(y, 1)] for x, y in self.corners_px]}


def _square_mask(names: Sequence[str]) -> NDArray[np.bool_]:
    """15×15 mask (row, column) of the named squares (``"H8"``…)."""
    m = np.zeros((SIZE, SIZE), bool)
    for name in names:
        m[int(name[1:]) - 1, "ABCDEFGHIJKLMNO".index(name[0])] = True
    return m


PREMIUM = _square_mask(DOUBLE + TRIPLE + REPLAY)
#: The special squares by kind (double, triple, replay): squares of one kind look alike.
KINDS = [_square_mask(kind) for kind in (DOUBLE, TRIPLE, REPLAY)]


# ---------------------------------------------------------------------------------------------
# corner order and homographies


def order_corners(points: F64) -> F64:
    """The 4 points clockwise in the image (y down), starting nearest the image's top-left."""
    pts = np.asarray(points, np.float64).reshape(4, 2)
    c = pts.mean(axis=0)
    ring = pts[np.argsort(np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]), kind="stable")]
    start = int(np.argmin(np.hypot(ring[:, 0], ring[:, 1])))
    return np.roll(ring, -start, axis=0)


def units_to_image(corners: F64) -> F64:
    """Homography from board units (playing area ``[0,15]²``) to the image, given ordered corners."""
    src = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32)), np.float64)


def apply_h(h: F64, pts: F64) -> F64:
    """Apply a homography to points of shape (n, 2)."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ h.T
    return np.asarray(q[:, :2] / q[:, 2:3], np.float64)


def rectify(image: Image, h_units_to_img: F64, pitch: float, margin: float, lens: Lens | None = None, *,
            opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> Image:
    """The board warped so one square is ``pitch`` px, with ``margin`` squares around the playing area;
    with ``lens``, ``h_units_to_img`` maps to undistorted pixels and the picture is sampled through
    the lens's bending."""
    side = round((SIZE + 2 * margin) * pitch)
    s = np.array([[pitch, 0, margin * pitch], [0, pitch, margin * pitch], [0, 0, 1]], np.float64)
    m = h_units_to_img @ np.linalg.inv(s)
    if lens is None:
        return np.asarray(cv2.warpPerspective(image, m, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                              borderMode=cv2.BORDER_REPLICATE))
    # the bending is smooth: bend every lens_map_step-th pixel exactly and interpolate between
    # (the samples sit where cv2.resize's pixel-centre convention puts them, one step beyond each side)
    step = opts.grid.lens_map_step
    n = -(-side // step) + 2
    g = (np.arange(n, dtype=np.float64) - 0.5) * step - 0.5
    xx, yy = np.meshgrid(g, g)
    src = lens.distort(_near_lens(lens, apply_h(m, np.stack([xx.ravel(), yy.ravel()], axis=1)), opts=opts))
    src = src.reshape(n, n, 2).astype(np.float32)
    big = cv2.resize(src, (n * step, n * step), interpolation=cv2.INTER_LINEAR)[step:step + side, step:step + side]
    return np.asarray(cv2.remap(image, np.ascontiguousarray(big), None, cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE))


def _cross2(a: F64, b: F64) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _convex(q: F64) -> bool:
    cr = [_cross2(q[(i + 1) % 4] - q[i], q[(i + 2) % 4] - q[(i + 1) % 4]) for i in range(4)]
    return all(c > 0 for c in cr) or all(c < 0 for c in cr)


# ---------------------------------------------------------------------------------------------
# 1. candidates


def _edge_maps(gray: U8, lab: U8) -> list[U8]:
    g = cv2.GaussianBlur(gray, (5, 5), 0)
    chroma = cv2.addWeighted(lab[..., 1], 1.0, lab[..., 2], 1.0, 0)
    chroma = cv2.GaussianBlur(chroma, (5, 5), 0)
    maps = [cv2.Canny(g, 20, 60), cv2.Canny(g, 50, 150), cv2.Canny(chroma, 10, 30)]
    k = np.ones((3, 3), np.uint8)
    return [cv2.dilate(m, k) for m in maps]


def _quads_from_contour(cnt: NDArray[Any]) -> list[F64]:
    hull = cv2.convexHull(cnt)
    peri = cv2.arcLength(hull, True)
    out: list[F64] = []
    for eps in (0.02, 0.035, 0.05, 0.08):
        ap = cv2.approxPolyDP(hull, eps * peri, True)
        if len(ap) == 4:
            q = ap.reshape(4, 2).astype(np.float64)
            if _convex(q):
                out.append(q)
            break
        if len(ap) < 4:
            break
    if not out:
        # fall back: the minimum-area rectangle (affine-ish boards, broken corners)
        box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        out.append(box)
    return out


def _scaled(q: F64, f: float) -> F64:
    c = q.mean(axis=0)
    return np.asarray(c + (q - c) * f, np.float64)


def small_convex_quads(contours: Sequence[NDArray[Any]], min_area: float, max_area: float, eps: float
                       ) -> Iterator[tuple[float, NDArray[Any], NDArray[Any]]]:
    """(area, 4×2 corners, contour) of each contour whose area lies strictly between the bounds and
    that simplifies (``eps`` × perimeter) to a convex quadrilateral: candidate board squares."""
    for cnt in contours:
        if len(cnt) < 4:
            continue
        a = cv2.contourArea(cnt)
        if not min_area < a < max_area:
            continue
        ap = cv2.approxPolyDP(cnt, eps * cv2.arcLength(cnt, True), True)
        if len(ap) != 4 or not cv2.isContourConvex(ap):
            continue
        yield a, ap.reshape(4, 2), cnt


def cell_cluster_quads(edges: U8) -> list[F64]:
    """Quads around the cluster of small square regions the grid lines enclose (the empty
    squares): robust to a hand or clutter touching the board's outline."""
    h, w = edges.shape
    contours, _ = cv2.findContours(255 - edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    min_a, max_a = (min(h, w) / 15.0 * 0.25) ** 2 * 0.5, (min(h, w) / 15.0 * 1.3) ** 2
    cells = [(a, quad) for a, quad, _ in small_convex_quads(contours, min_a, max_a, 0.12)]
    if len(cells) < 12:
        return []
    areas = np.log(np.array([a for a, _ in cells]))
    hist, edges_ = np.histogram(areas, bins=24)
    # the densest window of about ±0.5 in log area
    best_i = int(np.argmax(np.convolve(hist, np.ones(5), mode="same")))
    centre = 0.5 * (edges_[best_i] + edges_[best_i + 1])
    pts = [q for a, q in cells if abs(math.log(a) - centre) < 0.6]
    if len(pts) < 12:
        return []
    allp = np.concatenate(pts).astype(np.float32)
    hull = cv2.convexHull(allp)
    out: list[F64] = []
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.07):
        ap = cv2.approxPolyDP(hull, eps * peri, True)
        if len(ap) == 4:
            q = ap.reshape(4, 2).astype(np.float64)
            out += [q, _scaled(q, 1.08), _scaled(q, 1.16)]
            break
    if not out:
        box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
        out += [box, _scaled(box, 1.08)]
    return out


def cell_maps(gray: U8, *, normalised: bool = False, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> list[U8]:
    """Binary maps whose white blobs are squares: lighter than their surroundings (dark lines)
    and darker (light lines), by adaptive thresholds. ``normalised``: the same on the picture with
    its local contrast normalised (``local_contrast``), for a board whose lines differ from its
    squares by a few grey levels only (faint grey lines on a dark board in dim light); the search
    reads those only when the plain maps give no lattice at all (on a board they do find, the
    normalised maps' extra blobs can grow a wrong lattice that outranks the right one)."""
    g = cv2.GaussianBlur(gray, (3, 3), 0)
    block = max(15, (min(gray.shape) // 24) | 1)
    if normalised:
        g = local_contrast(g, block, opts.search.contrast_gain)
    light = cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -4)
    dark = cv2.adaptiveThreshold(g, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 4)
    k = np.ones((2, 2), np.uint8)
    return [cv2.morphologyEx(m, cv2.MORPH_OPEN, k) for m in (light, dark)]


def local_contrast(gray: U8, block: int, gain: float) -> U8:
    """``gray`` with each pixel's departure from its ``block``-px neighbourhood's mean divided by
    the neighbourhood's standard deviation (+1 grey level), times ``gain``, about 128: every
    region's texture at one contrast, whatever the board's brightness and ink."""
    g = gray.astype(np.float32)
    mean = cv2.blur(g, (block, block))
    sd = np.sqrt(np.maximum(cv2.blur(g * g, (block, block)) - mean * mean, 0.0))
    return np.asarray(np.clip(128.0 + gain * (g - mean) / (sd + 1.0), 0, 255), np.uint8)


def _cells(blobs: U8) -> tuple[F64, F64]:
    """Small convex quads among white blobs (empty squares, tile faces): areas and projective
    centres (diagonal crossings)."""
    h, w = blobs.shape
    contours, _ = cv2.findContours(blobs, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    min_a, max_a = (min(h, w) / 15.0 * 0.2) ** 2, (min(h, w) / 15.0 * 1.4) ** 2
    areas, cents = [], []
    for a, quad, cnt in small_convex_quads(contours, min_a, max_a, 0.1):
        q = quad.astype(np.float64)
        if a < 0.75 * cv2.contourArea(cv2.convexHull(cnt)):
            continue
        d1, d2 = q[2] - q[0], q[3] - q[1]
        den = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(den) < 1e-9:
            continue
        t = ((q[1][0] - q[0][0]) * d2[1] - (q[1][1] - q[0][1]) * d2[0]) / den
        areas.append(a)
        cents.append(q[0] + t * d1)
    return np.array(areas, np.float64), np.array(cents, np.float64).reshape(-1, 2)


def lattice_fits(bgr_small: Image, edge_maps: list[U8], max_fits: int = 3, *,
                 opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> list[tuple[float, F64, bool]]:
    """Board homographies (units → working image) grown from the lattice of square centres,
    chesscog-style, placed on the 15×15 board by the special-square pattern; with a score, and
    whether the lattice was two rows wider than the board (grown onto a check cloth: its window
    is less sure, so such a fit never ends the search on its own).

    Several lattices may be in view (a check tablecloth): each is grown from the most regular
    seed left (most same-size neighbours about one square away), its cells removed, and the next
    grown from what is left."""
    out: list[tuple[float, F64, bool]] = []
    for edges in edge_maps:
        areas, cents = _cells(edges)
        if len(areas) < 12:
            continue
        size = np.sqrt(areas) / 0.9
        dist = np.hypot(cents[:, None, 0] - cents[None, :, 0], cents[:, None, 1] - cents[None, :, 1])
        ratio = size[:, None] / size[None, :]
        near = (dist > 0.7 * size[:, None]) & (dist < 1.5 * size[:, None]) & (ratio > 0.7) & (ratio < 1.43)
        typical = _typical_size(size, dist, opts=opts)
        alive = np.ones(len(areas), bool)
        for _ in range(6):
            if alive.sum() < 12:
                break
            reg = (near & alive[None, :]).sum(axis=1) * alive * typical
            seed = int(np.argmax(reg))
            if reg[seed] < 3:
                break
            same = alive & (np.abs(np.log(size / size[seed])) < opts.search.lattice_size_log)
            idx = np.where(same)[0]
            grown = _grow_lattice(cents[idx], float(size[seed]), cents[seed])
            if grown is None:
                alive[seed] = False
                continue
            h_lat, ij, used = grown
            alive[idx[used]] = False
            alive[seed] = False
            placed = _place_window(bgr_small, h_lat, ij, opts=opts)
            if placed is not None:
                out.append(placed)
                if placed[0] > 0.35 and not placed[2]:
                    break
        if any(sc > 0.35 and not wide for sc, _, wide in out):
            break
    out.sort(key=lambda t: -t[0])
    return out[:max_fits]


def _typical_size(size: F64, dist: F64, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> NDArray[np.bool_]:
    """Which blobs are the size of their nearest neighbours (within ``seed_size_ratio``): a lattice
    grows from a square, not from two squares run together or a tile face with its square, whose
    size would set the lattice's step wrong. All, if none is."""
    k = min(opts.search.seed_neighbours, len(size) - 1)
    if k < 3:
        return np.ones(len(size), bool)
    nearest = np.argsort(dist, axis=1)[:, 1:k + 1]
    typical = np.abs(np.log(size / np.median(size[nearest], axis=1))) < math.log(opts.search.seed_size_ratio)
    return typical if typical.any() else np.ones(len(size), bool)


def _grow_lattice(cents: F64, cell_px: float, seed: F64) -> tuple[F64, NDArray[np.int64], NDArray[np.bool_]] | None:
    """Homography lattice → image from square centres, flood-grown from ``seed`` (a centre joins
    when it lies on a lattice point within two steps of the grown region, keeping the region
    within 16×16): the lattice cells of the members, and which centres it used (the seed's
    surroundings if it fails)."""
    fail = (np.eye(3), np.zeros((0, 2), np.int64), np.hypot(*(cents - seed).T) < 2.5 * cell_px)
    d = cents - seed
    dist = np.hypot(*d.T)
    nb = (dist > 0.6 * cell_px) & (dist < 1.8 * cell_px)
    if nb.sum() < 2:
        return fail
    v1 = d[nb][int(np.argmin(dist[nb]))]
    cosang = np.abs(d[nb] @ v1) / (dist[nb] * np.hypot(*v1) + 1e-9)
    cand = np.where(cosang < 0.5)[0]
    if len(cand) == 0:
        return fail
    v2 = d[nb][cand[int(np.argmin(dist[nb][cand]))]]
    h = np.array([[v1[0], v2[0], seed[0]], [v1[1], v2[1], seed[1]], [0, 0, 1]], np.float64)
    off = 40
    member = np.zeros(len(cents), bool)
    member[int(np.argmin(dist))] = True
    ij = np.zeros((len(cents), 2), np.int64)
    kernel = np.ones((5, 5), np.uint8)
    for _ in range(40):
        before = (member.copy(), h)
        if not np.all(np.isfinite(h)) or abs(float(np.linalg.det(h))) < 1e-6 * cell_px * cell_px:
            return fail  # degenerate steps, or a refit on centres nearly in one line: no lattice
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = apply_h(np.asarray(np.linalg.inv(h), np.float64), cents)
        finite = np.all(np.isfinite(uv), axis=1) & np.all(np.abs(uv) < 1e6, axis=1)
        uv = np.where(finite[:, None], uv, 1e6)  # a centre on the horizon line is on no lattice point
        r = np.rint(uv)
        res = np.where(finite, np.max(np.abs(uv - r), axis=1), np.inf)
        ij = r.astype(np.int64)
        grid = np.zeros((2 * off, 2 * off), np.uint8)
        mi = ij[member]
        if len(mi) == 0 or np.any(np.abs(mi) >= off - 3):
            break
        grid[mi[:, 1] + off, mi[:, 0] + off] = 1
        reach = cv2.dilate(grid, kernel)
        inside = np.all(np.abs(ij) < off - 3, axis=1)
        lo, hi = mi.min(axis=0), mi.max(axis=0)
        fits_box = np.all((np.maximum(hi, ij) - np.minimum(lo, ij)) <= SIZE, axis=1)
        new = ~member & inside & (res < 0.27) & fits_box
        new[new] = reach[ij[new, 1] + off, ij[new, 0] + off] > 0
        if not new.any():
            break
        member |= new
        if member.sum() >= 6:
            src = ij[member].astype(np.float64)
            if len(np.unique(src[:, 0])) >= 2 and len(np.unique(src[:, 1])) >= 2:
                hm, _ = cv2.findHomography(src, cents[member], 0)
                if hm is not None:
                    h = np.asarray(hm, np.float64)
                    err = np.hypot(*(apply_h(h, src) - cents[member]).T)
                    member[np.where(member)[0][err > 0.2 * cell_px]] = False
        if np.array_equal(member, before[0]) and np.array_equal(h, before[1]):
            break  # the centres it adds are dropped again by the refit: nothing more will change
    if member.sum() < 12:
        return fail[0], fail[1], fail[2] | member
    # one code per lattice point (duplicates: tile face and square both seen)
    return h, np.unique(ij[member], axis=0), member


def _place_window(bgr_small: Image, h_lat: F64, ij: NDArray[np.int64], *,
                  opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[float, F64, bool] | None:
    """Which 15×15 window of the lattice is the board: the one whose special squares stand out;
    its score, homography, and whether the lattice is two rows wider than the board. Lattice cell
    ``(i, j)`` has its centre at lattice point ``(i, j)``."""
    if len(ij) < 12:
        return None
    lo, hi = ij.min(axis=0), ij.max(axis=0)
    extra = int(np.max(hi - lo)) - (SIZE - 1)  # rows beyond the board's 15 (tile faces, cloth squares)
    if extra > 2:
        return None
    first = np.minimum(lo, hi - (SIZE - 1))  # window origins from first to last
    last = np.maximum(lo, hi - (SIZE - 1))
    x0, y0 = int(first[0]), int(first[1])
    nx, ny = int(last[0] - first[0]) + SIZE, int(last[1] - first[1]) + SIZE
    pitch = 12
    # rectify lattice cells x0..x0+nx-1 (their squares span [i − 0.5, i + 0.5])
    s = np.array([[1.0 / pitch, 0, x0 - 0.5], [0, 1.0 / pitch, y0 - 0.5], [0, 0, 1]], np.float64)
    m = h_lat @ s
    rect = cv2.warpPerspective(bgr_small, m, (nx * pitch, ny * pitch),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    scores, choice = pattern_scores(cell_looks(rect, pitch), opts=opts)
    oy, ox = (int(v) for v in np.unravel_index(int(np.argmax(choice)), choice.shape))
    sc = float(scores.max())  # the lattice ranks by its clearest window; placed by the choice score
    # board units u ↦ lattice point (u − 0.5 + x0 + ox)
    t = np.array([[1, 0, x0 + ox - 0.5], [0, 1, y0 + oy - 0.5], [0, 0, 1]], np.float64)
    return sc, np.asarray(h_lat @ t, np.float64), extra == 2


def _plausible(q: F64, w: int, h: int) -> bool:
    """A board seen from at most ~60° tilt: opposite sides within a factor ~3, not tiny."""
    sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
    if sides.min() < 0.06 * min(w, h):
        return False
    return bool(sides.max() / max(sides.min(), 1e-6) < 3.5)


def candidate_quads(gray: U8, lab: U8, maps: list[U8] | None = None, max_candidates: int = 16) -> list[F64]:
    """Candidate board quadrilaterals (working-image pixels), biggest first, near-duplicates merged."""
    h, w = gray.shape
    min_area = 0.02 * h * w
    found: list[tuple[float, F64]] = []
    maps = maps if maps is not None else _edge_maps(gray, lab)
    for q in cell_cluster_quads(maps[0]) + cell_cluster_quads(maps[1]):
        found.append((1e12, q))  # tried first
    for edges in maps:
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for cnt in contours:
            if len(cnt) < 20:
                continue
            area = cv2.contourArea(cv2.convexHull(cnt))
            if area < min_area or area > 0.98 * h * w:
                continue
            for q in _quads_from_contour(cnt):
                found.append((float(cv2.contourArea(q.astype(np.float32))), q))
    found.sort(key=lambda t: -t[0])
    found = [f for f in found if _plausible(f[1], w, h)]
    out: list[F64] = []
    for _, q in found:
        oq = order_corners(q)
        side = math.sqrt(max(1.0, cv2.contourArea(oq.astype(np.float32))))
        if any(np.max(np.hypot(*(oq - o).T)) < 0.03 * side for o in out):
            continue
        out.append(oq)
        if len(out) >= max_candidates:
            break
    return out


# ---------------------------------------------------------------------------------------------
# 2. comb search


def _profiles(rect: U8) -> tuple[F32, F32]:
    g = rect.astype(np.float32)
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
    # median across the other axis: long straight lines survive, numerals and hands do not
    px = np.median(gx, axis=0)
    py = np.median(gy, axis=1)
    px = cv2.GaussianBlur(px.reshape(1, -1), (0, 0), 0.8).ravel()
    py = cv2.GaussianBlur(py.reshape(-1, 1), (0, 0), 0.8).ravel()
    return px.astype(np.float32), py.astype(np.float32)


def comb_fit(profile: F32, pmin: float, pmax: float, *,
             opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[float, float, float]:
    """Best ``(offset, pitch, score)`` of 16 lines ``offset + k·pitch`` on a 1-D edge profile.

    Score: mean profile on the lines (the weakest lines weigh more) minus the median half-way
    between, over the profile's mean."""
    n = len(profile)
    prof = (profile / (float(profile.mean()) + opts.search.profile_floor)).astype(np.float64)
    xs = np.arange(n, dtype=np.float64)
    pitches = np.arange(pmin, pmax, 0.15)
    offs = np.arange(-0.2 * pmax, n - 1 - SIZE * pmin + 0.2 * pmax, 0.5)
    k = np.arange(SIZE + 1, dtype=np.float64)
    km = np.arange(SIZE, dtype=np.float64) + 0.5
    pos = offs[None, :, None] + pitches[:, None, None] * k[None, None, :]
    posm = offs[None, :, None] + pitches[:, None, None] * km[None, None, :]
    on = np.interp(pos, xs, prof, left=0.0, right=0.0)
    mid = np.interp(posm, xs, prof, left=0.0, right=0.0)
    on_s = np.sort(on, axis=2)
    score = on_s[..., 2:].mean(axis=2) * 0.5 + on_s[..., :4].mean(axis=2) * 0.5 - np.median(mid, axis=2)
    valid = (pos[..., 0] >= -0.2 * pitches[:, None]) & (pos[..., -1] <= n - 1 + 0.2 * pitches[:, None])
    score = np.where(valid, score, -1e9)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    return float(offs[j]), float(pitches[i]), float(score[i, j])


@dataclass(frozen=True)
class GridFit:
    """A playing-area quad found inside a candidate, and how well a 15×15 grid explains it."""

    corners: F64  # working-image pixels, ordered
    score: float


def fit_grid_in_quad(gray: U8, quad: F64, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> GridFit | None:
    """Search the rectified candidate for the 15×15 grid (candidate = playing area or whole board)."""
    n = opts.search.cand_side
    dst = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    rect = cv2.warpPerspective(gray, m, (n, n), flags=cv2.INTER_AREA)
    px, py = _profiles(rect)
    pmin, pmax = (n - 1) / 18.0, (n - 1) / 14.6
    ox, pxp, sx = comb_fit(px, pmin, pmax, opts=opts)
    oy, pyp, sy = comb_fit(py, pmin, pmax, opts=opts)
    if pxp <= 0 or pyp <= 0:
        return None
    inner = np.array([[ox, oy], [ox + SIZE * pxp, oy], [ox + SIZE * pxp, oy + SIZE * pyp], [ox, oy + SIZE * pyp]])
    back = np.asarray(np.linalg.inv(m), np.float64)
    corners = apply_h(back, inner)
    return GridFit(order_corners(corners), min(sx, sy))


# ---------------------------------------------------------------------------------------------
# 3. refinement with the grid lines


def _ridges(rect: F32, axis: int, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> F32:
    """Line strength across ``axis`` (1: vertical lines, x varies): the difference of two Gaussian
    blurs (``ridge_sigmas``), which peaks in a line's middle whether the line is thin or thick,
    light or dark (a gradient peaks at a thick line's two edges, one or the other)."""
    s1, s2 = opts.grid.ridge_sigmas

    def blur(sigma: float) -> F32:
        return np.asarray(cv2.GaussianBlur(rect, (0, 0), sigmaX=sigma if axis == 1 else 0.1,
                                           sigmaY=sigma if axis == 0 else 0.1), np.float32)

    return np.asarray(np.abs(blur(s1) - blur(s2)), np.float32)


def _line_samples(strength: F32, pitch: int, margin: int, axis: int) -> tuple[F64, F64, NDArray[np.bool_]]:
    """Where each of the 16 lines across ``axis`` (0: vertical lines, x varies) is found in each
    band of one square: the 15 band middles ``along``, ``across`` (16, 15) where each line peaks
    in each band (sub-pixel), and ``ok`` (16, 15) where a clear peak was found."""
    g = strength if axis == 0 else strength.T
    lo_r, hi_r = margin * pitch, (margin + SIZE) * pitch
    bands = g[lo_r:hi_r].reshape(SIZE, pitch, g.shape[1]).sum(axis=1)  # (15, side)
    half = pitch // 3
    alongs = ((np.arange(SIZE) + margin + 0.5) * pitch).astype(np.float64)
    lo = (margin + np.arange(SIZE + 1)) * pitch - half  # (16,)
    w = 2 * half + 1
    prof = bands[:, lo[:, None] + np.arange(w)[None, :]].transpose(1, 0, 2)  # (16 lines, 15 bands, w)
    i = np.argmax(prof, axis=2)
    peak = np.take_along_axis(prof, i[..., None], axis=2)[..., 0]
    base = np.partition(prof, half, axis=2)[..., half] + 1e-6  # the median (w = 2·half + 1 values)
    ok = (peak > 2.0 * base) & (i > 0) & (i < w - 1)
    ic = np.clip(i, 1, w - 2)
    y0 = np.take_along_axis(prof, (ic - 1)[..., None], axis=2)[..., 0]
    y2 = np.take_along_axis(prof, (ic + 1)[..., None], axis=2)[..., 0]
    den = y0 - 2 * peak + y2
    d = np.where(np.abs(den) > 1e-9, 0.5 * (y0 - y2) / np.where(np.abs(den) > 1e-9, den, 1.0), 0.0)
    return alongs, (lo[:, None] + i + d).astype(np.float64), np.asarray(ok, bool)


def _fit_line(along: F64, across: F64) -> tuple[float, float] | None:
    """Robust ``across = a·along + b`` (least squares with two rounds of residual trimming)."""
    return _fit_lines(along, across[None, :], np.ones((1, len(along)), bool))[0]


def _fit_lines(along: F64, across: F64, ok: NDArray[np.bool_]) -> list[tuple[float, float] | None]:
    """Robust ``across = a·along + b`` for each row of ``across`` (lines, samples) against
    ``along`` (samples), over the samples ``ok`` marks, all lines at once: least squares, then two
    rounds keeping the samples within 2.5 × the median residual (at least 1 px); ``None`` for a
    line with fewer than four samples kept."""
    x = np.broadcast_to(along, across.shape)
    keep = ok.copy()
    alive = ok.sum(axis=1) >= 4
    a = np.zeros(len(across))
    b = np.zeros(len(across))
    for _ in range(3):
        cnt = keep.sum(axis=1)
        alive &= cnt >= 4
        n = np.maximum(cnt, 1)
        mx = np.where(keep, x, 0.0).sum(axis=1) / n
        my = np.where(keep, across, 0.0).sum(axis=1) / n
        dx, dy = x - mx[:, None], across - my[:, None]
        vx = np.where(keep, dx * dx, 0.0).sum(axis=1)
        cov = np.where(keep, dx * dy, 0.0).sum(axis=1)
        a = np.where(vx > 1e-9, cov / np.where(vx > 1e-9, vx, 1.0), 0.0)
        b = my - a * mx
        res = np.abs(across - (a[:, None] * x + b[:, None]))
        rk = np.sort(np.where(keep, res, np.inf), axis=1)
        mid = np.take_along_axis(rk, (cnt // 2)[:, None], axis=1)[:, 0]
        keep = ok & (res < np.maximum(1.0, 2.5 * mid)[:, None])
    return [(float(a[k]), float(b[k])) if alive[k] else None for k in range(len(across))]


def refine_with_grid_lines(image_gray: U8, h_units: F64, rounds: int = 2, lens: Lens | None = None, *,
                           opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[F64, float, list[F64]]:
    """Refined units→image homography, the share of grid lines found (0–1) and the line samples
    of the last round in image pixels (16 vertical lines, then 16 horizontal); with ``lens``, the
    picture is sampled through its bending and all of these are in undistorted pixels."""
    pitch, margin = opts.grid.refine_pitch, 1
    found_share = 0.0
    last_round: tuple[list[tuple[F64, F64]], list[tuple[F64, F64]], F64] | None = None  # its lines and frame
    for _round in range(rounds):
        rect = cv2.GaussianBlur(rectify(image_gray, h_units, pitch, margin, lens, opts=opts).astype(np.float32),
                                (3, 3), 0)
        along_v, across_v, ok_v = _line_samples(_ridges(rect, 1, opts=opts), pitch, margin, 0)  # x = a·y + b
        along_h, across_h, ok_h = _line_samples(_ridges(rect, 0, opts=opts), pitch, margin, 1)  # y = a·x + b
        vert = [(along_v[ok_v[k]], across_v[k][ok_v[k]]) for k in range(SIZE + 1)]
        horz = [(along_h[ok_h[k]], across_h[k][ok_h[k]]) for k in range(SIZE + 1)]
        last_round = (vert, horz, h_units)
        vl = _fit_lines(along_v, across_v, ok_v)
        hl = _fit_lines(along_h, across_h, ok_h)
        good_v = [i for i, ln in enumerate(vl) if ln is not None]
        good_h = [i for i, ln in enumerate(hl) if ln is not None]
        found_share = (len(good_v) + len(good_h)) / (2.0 * (SIZE + 1))
        if len(good_v) < 6 or len(good_h) < 6:
            break
        inner_v = [i for i in good_v if 0 < i < SIZE] if sum(0 < i < SIZE for i in good_v) >= 6 else good_v
        inner_h = [j for j in good_h if 0 < j < SIZE] if sum(0 < j < SIZE for j in good_h) >= 6 else good_h
        src, dst = [], []
        for i in inner_v:
            av, bv = vl[i] or (0.0, 0.0)
            for j in inner_h:
                ah, bh = hl[j] or (0.0, 0.0)
                x = (av * bh + bv) / (1 - av * ah)
                y = ah * x + bh
                src.append([i, j])
                dst.append([x / pitch - margin, y / pitch - margin])
        hm, _ = cv2.findHomography(np.array(src, np.float64), np.array(dst, np.float64), cv2.RANSAC, 0.08)
        if hm is None:
            break
        h_units = h_units @ hm
    if last_round is None:
        return h_units, found_share, []
    vert, horz, h_seen = last_round
    return h_units, found_share, _samples_in_image(vert, horz, pitch, margin, h_seen)


def _samples_in_image(vert: list[tuple[F64, F64]], horz: list[tuple[F64, F64]], pitch: int, margin: int,
                      h_units: F64) -> list[F64]:
    """The line samples ``(along, across)`` of the rectified board (16 vertical lines, then 16
    horizontal) as image pixels, one (n, 2) array per line."""
    units = [np.stack([ac, al], axis=1) for al, ac in vert] + [np.stack([al, ac], axis=1) for al, ac in horz]
    flat = apply_h(h_units, np.concatenate(units) / pitch - margin)
    return np.split(flat, np.cumsum([len(u) for u in units])[:-1])


# ---------------------------------------------------------------------------------------------
# 3b. lens bending (one-parameter division model, centre = image centre)


@dataclass(frozen=True)
class Lens:
    """Radial distortion by the division model: ``p_u = c + (p_d − c) / (1 + k·|p_d − c|²/f²)``."""

    k: float
    centre: tuple[float, float]
    f: float

    def undistort(self, pts: F64) -> F64:
        c = np.asarray(self.centre)
        d = np.asarray(pts, np.float64).reshape(-1, 2) - c
        r2 = (d * d).sum(axis=1, keepdims=True) / (self.f * self.f)
        return np.asarray(c + d / (1.0 + self.k * r2), np.float64)

    def distort(self, pts: F64) -> F64:
        c = np.asarray(self.centre)
        u = np.asarray(pts, np.float64).reshape(-1, 2) - c
        d = u.copy()
        for _ in range(6):
            r2 = (d * d).sum(axis=1, keepdims=True) / (self.f * self.f)
            d = u * (1.0 + self.k * r2)
        return np.asarray(c + d, np.float64)


def _near_lens(lens: Lens, pts: F64, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> F64:
    """Undistorted points moved in to within ``lens_reach`` focal lengths of the lens centre (far off
    the picture the division model's bending is meaningless; non-finite points go to the centre)."""
    c = np.asarray(lens.centre, np.float64)
    reach = opts.grid.lens_reach * lens.f
    p = np.nan_to_num(np.asarray(pts, np.float64), nan=0.0, posinf=reach, neginf=-reach)
    return np.asarray(np.clip(p, c - reach, c + reach), np.float64)


def lens_bend(lens: Lens, h_units: F64, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> float:
    """How far (in squares, the largest over the 16×16 grid crossings) the lens moves the board
    ``h_units`` maps to undistorted pixels from where that homography alone puts it."""
    jj, ii = np.mgrid[0:SIZE + 1, 0:SIZE + 1]
    straight = _near_lens(lens, apply_h(h_units, np.stack([ii.ravel(), jj.ravel()], axis=1).astype(np.float64)),
                          opts=opts)
    pitch = _square_px(straight[[0, SIZE, -1, -1 - SIZE]])
    return float(np.max(np.hypot(*(lens.distort(straight) - straight).T)) / max(pitch, 1e-9))


def _square_px(corners: F64) -> float:
    """The side of one square (px) of the playing area with these four corners (from its area)."""
    return math.sqrt(abs(cv2.contourArea(np.asarray(corners, np.float32)))) / SIZE


# ---------------------------------------------------------------------------------------------
# 4. special-square pattern


def squares_lab_sums(bgr_rect: Image, pitch: int) -> NDArray[np.int32]:
    """The integral image (summed-area table) of the whole squares of a rectified image (``pitch``
    px squares, the image starting on a square boundary) in OpenCV's 8-bit CIELAB: what
    ``cell_colours`` and ``square_sides`` read, by exact integer sums."""
    n_r, n_c = bgr_rect.shape[0] // pitch, bgr_rect.shape[1] // pitch
    lab = cv2.cvtColor(np.ascontiguousarray(bgr_rect[:n_r * pitch, :n_c * pitch]), cv2.COLOR_BGR2LAB)
    return np.asarray(cv2.integral(lab), np.int32)


def cell_colours(bgr_rect: Image, pitch: int, sums: NDArray[np.int32] | None = None) -> F32:
    """Mean L*a*b* of the centre half of every square of a rectified image (``pitch`` px squares,
    the image starting on a square boundary), shape (rows, cols, 3); ``sums``: its
    ``squares_lab_sums`` when already computed."""
    n_r, n_c = bgr_rect.shape[0] // pitch, bgr_rect.shape[1] // pitch
    ii = squares_lab_sums(bgr_rect, pitch) if sums is None else sums
    c = pitch // 4
    return _segment_means(ii, np.arange(n_r) * pitch + c, np.arange(n_c) * pitch + c, pitch - 2 * c, pitch - 2 * c)


def square_bands(bgr_rect: Image, pitch: int, sums: NDArray[np.int32] | None = None) -> F32:
    """Mean L*a*b* of the band around every square's centre half, inside its grid lines (from
    ``pitch``/16 px, at least 1, in from its sides to the centre half's edge), shape (rows, cols, 3):
    an edition that marks its special squares with a coloured frame, not a fill, shows them here
    (``cell_looks``). ``sums``: the image's ``squares_lab_sums`` when already computed."""
    n_r, n_c = bgr_rect.shape[0] // pitch, bgr_rect.shape[1] // pitch
    ii = squares_lab_sums(bgr_rect, pitch) if sums is None else sums
    a, c = max(1, pitch // 16), pitch // 4
    outer = _segment_means(ii, np.arange(n_r) * pitch + a, np.arange(n_c) * pitch + a, pitch - 2 * a, pitch - 2 * a)
    inner = _segment_means(ii, np.arange(n_r) * pitch + c, np.arange(n_c) * pitch + c, pitch - 2 * c, pitch - 2 * c)
    n_outer, n_inner = float((pitch - 2 * a) ** 2), float((pitch - 2 * c) ** 2)
    return np.asarray((outer * n_outer - inner * n_inner) / (n_outer - n_inner), np.float32)


def cell_looks(bgr_rect: Image, pitch: int, sums: NDArray[np.int32] | None = None) -> F32:
    """What the special-square pattern is read from, per square, shape (rows, cols, 6): its
    centre's colour (``cell_colours``) and its frame, the band's colour (``square_bands``) less the
    centre's. A special square is a filled square, a disc or a printed label (its centre) or a
    coloured frame round a plain centre (its frame). A uniform square, plain or filled, has no
    frame; nor has a check cloth's square seen at the board's period, while one seen at another
    period straddles the checks' edges everywhere, plain squares too, so its frames make no
    pattern."""
    ii = squares_lab_sums(bgr_rect, pitch) if sums is None else sums
    centre = cell_colours(bgr_rect, pitch, ii)
    return np.concatenate([centre, square_bands(bgr_rect, pitch, ii) - centre], axis=2)


def premium_pattern_scores(cells: F32, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> F32:
    """For every 15×15 window of a cell-colour array, indexed by the window's top-left square
    (shape (rows − 14, cols − 14)): how much more the special squares (T-B2) differ from the
    board's base colour than plain squares do (about 0 when misregistered, large when right).
    The base is the plain squares' median colour or, with ``plane_base``, whichever of that and a
    plane fitted to them (a light falling off across the board) makes the pattern clearer."""
    return pattern_scores(cells, opts=opts)[0]


def pattern_scores(cells: F32, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[F32, F32]:
    """``premium_pattern_scores`` and, to choose among windows, the same less ``kind_weight`` ×
    the kinds' colour spread (``_kind_spread``): tiles and special squares three squares off can
    stand out from a dark board as clearly as its own special squares, but they are not a pattern
    of three kinds each of one colour. ``cells`` with six channels (``cell_looks``): the centres
    and the frames scored apart, the clearer kept per window, the frames by their choice score in
    both (an edition frames each kind in one colour; frames a grid off the board shows by chance,
    at its edge or over an arm, are no three kinds of one colour each)."""
    if cells.shape[-1] > 3:
        raw, choice = pattern_scores(np.ascontiguousarray(cells[..., :3]), opts=opts)
        if not opts.pattern.frames:
            return raw, choice
        frames = pattern_scores(np.ascontiguousarray(cells[..., 3:]), opts=opts)[1]
        return np.asarray(np.maximum(raw, frames), np.float32), np.asarray(np.maximum(choice, frames), np.float32)
    win = _windows(cells)
    spread = opts.pattern.kind_weight * _kind_spread(win)
    raw, choice = _contrast(np.linalg.norm(win - np.median(win[..., _PLAIN], axis=-1)[..., None], axis=2), spread)
    if opts.pattern.plane_base and raw.max() < opts.pattern.plane_below:
        by_square = np.moveaxis(win, 2, -1)  # (R, C, 225, 3)
        raw_p, choice_p = _contrast(np.linalg.norm(by_square - _plane_base(by_square, opts=opts), axis=-1), spread)
        raw, choice = np.maximum(raw, raw_p), np.maximum(choice, choice_p)
    return np.asarray(raw, np.float32), np.asarray(choice, np.float32)


#: the special squares and the plain ones, as indices into a window's 225 squares (row by row)
_SPECIAL = np.flatnonzero(PREMIUM)
_PLAIN = np.flatnonzero(~PREMIUM)
_KIND_SQUARES = [np.flatnonzero(m) for m in KINDS]


def _windows(cells: F32) -> F64:
    """Every 15×15 window of a cell-colour array (rows, cols, 3), channels first and squares last,
    row by row: (R, C, 3, 225), contiguous (medians over squares run along the last axis)."""
    win = np.lib.stride_tricks.sliding_window_view(cells, (SIZE, SIZE), axis=(0, 1))  # (R, C, 3, 15, 15)
    return np.ascontiguousarray(win.reshape(*win.shape[:3], SIZE * SIZE), np.float64)


def _kind_spread(win: F64) -> F64:
    """Per window (R, C): how far the squares of one kind (double, triple, replay) lie from their
    kind's median colour, averaged over the kinds (small where the grid is right: squares of a
    kind look alike; a shifted grid puts its special squares on a mix of kinds, tiles and plain);
    ``win`` as ``_windows`` lays it out."""
    out = np.zeros(win.shape[:2])
    for idx in _KIND_SQUARES:
        sq = win[..., idx]  # (R, C, 3, n)
        out += np.median(np.linalg.norm(sq - np.median(sq, axis=-1, keepdims=True), axis=2), axis=-1)
    return np.asarray(out / len(KINDS), np.float64)


def _contrast(d: F64, spread: F64) -> tuple[F64, F64]:
    """Special against plain squares' median distance from the base per window (R, C; ``d``:
    (R, C, 225) distances, row by row), and the same less the kinds' ``spread``."""
    prem = np.median(d[..., _SPECIAL], axis=-1)
    plain = np.median(d[..., _PLAIN], axis=-1)
    return (np.asarray(_standing_out(prem, plain), np.float64),
            np.asarray(_standing_out(prem, plain, spread), np.float64))


def _standing_out(special: F64 | float, plain: F64 | float, spread: F64 | float = 0.0) -> F64 | float:
    """How much the special squares' median distance from the base exceeds the plain squares'
    (less the kinds' ``spread``), relative to both (plus 10 ΔE: a dim board's noise)."""
    return (special - plain - spread) / (special + plain + 10.0)


def _plane_design() -> tuple[F64, F64, F64]:
    """The plane's design rows (1, row, column, centred) at all 225 squares, at the plain squares,
    and the plain rows' outer products (N, 9)."""
    jj, ii = np.mgrid[0:SIZE, 0:SIZE]
    xa = np.stack([np.ones(SIZE * SIZE), (jj.ravel() - 7) / 7.0, (ii.ravel() - 7) / 7.0], axis=1)
    xp = xa[~PREMIUM.ravel()]
    return xa, xp, (xp[:, :, None] * xp[:, None, :]).reshape(len(xp), 9)


_PLANE_ALL, _PLANE_PLAIN, _PLANE_OUTER = _plane_design()


def _plane_base(win: F64, fit_to: NDArray[np.intp] | None = None, *,
                opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> F64:
    """Per window, the base colour as a plane over the board (a light gradient) fitted robustly
    to the plain squares (tiles on them weigh little), or to the squares ``fit_to`` (indices, row
    by row), at every square: shape of ``win``, the windows' squares row by row (R, C, 225, 3)."""
    xa, xp, outer = _PLANE_ALL, _PLANE_PLAIN, _PLANE_OUTER
    if fit_to is not None:
        xp = xa[fit_to]
        outer = (xp[:, :, None] * xp[:, None, :]).reshape(len(xp), 9)
    vp = win[:, :, _PLAIN if fit_to is None else fit_to]  # (R, C, N, 3)
    wts = np.ones(vp.shape[:3])
    coef = np.zeros((*vp.shape[:2], 3, 3))
    for _ in range(opts.pattern.plane_rounds):  # iteratively reweighted least squares (Cauchy weights)
        a = (wts @ outer).reshape(*wts.shape[:2], 3, 3) + 1e-6 * np.eye(3)
        b = np.swapaxes(wts[..., None] * xp, -1, -2) @ vp  # (R, C, 3, 3)
        coef = np.linalg.solve(a, b)
        res = np.linalg.norm(vp - xp @ coef, axis=-1)
        scale = 1.5 * np.median(res, axis=2, keepdims=True) + 1.0
        wts = 1.0 / (1.0 + (res / scale) ** 2)
    return np.asarray((xa @ coef).reshape(win.shape), np.float64)


def square_sides(bgr_rect: Image, pitch: int, cells: F32, sums: NDArray[np.int32] | None = None) -> F32:
    """Grid-line evidence on the four sides (left, right, top, bottom) of every square of a
    rectified image (``pitch`` px squares, ``cells`` its ``cell_colours``), shape (rows, cols, 4):
    how far a band across the side (4 px, the side's middle half) departs from the mean colour of
    the two squares it parts, L*a*b*; NaN for a side on the image's edge. ``sums``: the image's
    ``squares_lab_sums`` when already computed."""
    n_r, n_c = cells.shape[:2]
    ii = squares_lab_sums(bgr_rect, pitch) if sums is None else sums
    q = pitch // 4
    offsets = np.array([-2, -1, 0, 1])[:, None]
    # the 4-px bands across the inner sides: one column or row of pixels near each x or y = k·pitch,
    # over the middle half of each square's side
    band = pitch - 2 * q
    xs = (np.arange(1, n_c) * pitch + offsets).ravel()
    ys = (np.arange(1, n_r) * pitch + offsets).ravel()
    cols = _segment_means(ii, np.arange(n_r) * pitch + q, xs, band, 1)
    rows = _segment_means(ii, ys, np.arange(n_c) * pitch + q, 1, band)
    ref_v = (cells[:, :-1] + cells[:, 1:]) / 2.0
    ref_h = (cells[:-1] + cells[1:]) / 2.0
    v = np.linalg.norm(cols.reshape(n_r, len(offsets), n_c - 1, 3) - ref_v[:, None], axis=3).max(axis=1)
    h = np.linalg.norm(rows.reshape(len(offsets), n_r - 1, n_c, 3) - ref_h[None], axis=3).max(axis=0)
    out = np.full((n_r, n_c, 4), np.nan, np.float32)
    out[:, 1:, 0] = v
    out[:, :-1, 1] = v
    out[1:, :, 2] = h
    out[:-1, :, 3] = h
    return out


def _segment_means(ii: NDArray[np.integer[Any]], ys: NDArray[np.int64], xs: NDArray[np.int64], y_len: int,
                   x_len: int) -> F32:
    """Mean colour of the ``y_len``×``x_len`` pixel blocks starting at every (``ys``, ``xs``),
    from the image's integral ``ii`` (exact integer sums: the float32 means of the pixels)."""
    y0, x0 = ys[:, None], xs[None, :]
    sums = ii[y0 + y_len, x0 + x_len] - ii[y0, x0 + x_len] - ii[y0 + y_len, x0] + ii[y0, x0]
    return np.asarray(sums.astype(np.float32) / np.float32(y_len * x_len), np.float32)


def square_lines(bgr_rect: Image, pitch: int, cells: F32, sums: NDArray[np.int32] | None = None) -> F32:
    """Mean grid-line evidence over the sides of every square (``square_sides``; sides on the
    image's edge left out), shape (rows, cols). A playing square has lines on all four sides; a
    board's frame beside the playing area only on one. ``sums``: the image's ``squares_lab_sums``."""
    return np.asarray(np.nanmean(square_sides(bgr_rect, pitch, cells, sums), axis=2), np.float32)


def board_like_ring(cells: F32, r: int, c: int, lines: F32 | None = None, *,
                    opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> float:
    """Share of the 64 squares just around the 15×15 window at row ``r``, column ``c`` of a cell
    colour array that look like the window's plain squares (0 for a board seen whole: its frame
    surrounds the playing area): their colour, and with ``lines`` (``square_lines``), where the
    window's squares show clear grid lines, lines nearly as clear (a frame the colour of the
    playing squares has none across it)."""
    win = cells[r:r + SIZE, c:c + SIZE]
    base = np.median(win[~PREMIUM], axis=0)
    plain = float(np.median(np.linalg.norm(win[~PREMIUM] - base, axis=1)))
    ring = cells[r - 1:r + SIZE + 1, c - 1:c + SIZE + 1]
    edge = np.ones(ring.shape[:2], bool)
    edge[1:-1, 1:-1] = False
    d = np.linalg.norm(ring[edge] - base, axis=1)
    alike = d < max(opts.shift.ring_near, 3.0 * plain)
    if lines is not None:
        inner = float(np.median(lines[r:r + SIZE, c:c + SIZE]))
        if inner >= opts.shift.ring_lines_min:
            alike &= lines[r - 1:r + SIZE + 1, c - 1:c + SIZE + 1][edge] >= opts.shift.ring_lines_share * inner
    return float(np.mean(alike))


def outside_share(h_units: F64, width: int, height: int) -> float:
    """Share of the 225 square centres a units → pixels mapping puts outside the picture (a grid
    hanging off the picture is less likely than one inside it: its unseen part cannot be checked)."""
    jj, ii = np.mgrid[0:SIZE, 0:SIZE]
    pts = apply_h(h_units, np.stack([ii.ravel() + 0.5, jj.ravel() + 0.5], axis=1).astype(np.float64))
    out = (pts[:, 0] < 0) | (pts[:, 1] < 0) | (pts[:, 0] > width - 1) | (pts[:, 1] > height - 1)
    return float(np.mean(out))


# ---------------------------------------------------------------------------------------------
# the entry point


def locate_board(image: Image, game: str = "triolet", *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> BoardLocation:
    """Find the playing area of ``game``'s board in a BGR picture (no markers).

    Raises ``BoardNotLocatedError`` when no candidate is explained by the board's grid."""
    import time

    if game != "triolet":
        raise BoardNotLocatedError(f"no board locator for {game}")
    if image is None or image.ndim != 3 or image.shape[0] < 32 or image.shape[1] < 32:
        raise BoardNotLocatedError("the picture is empty")
    t0 = time.perf_counter()
    h, w = image.shape[:2]
    scale = min(1.0, opts.search.work_side / max(h, w))
    small = image
    if scale < 1:
        small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    gray_small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    to_full = np.diag([1.0 / scale, 1.0 / scale, 1.0])
    scored: list[tuple[float, F64, float, float]] = []
    lattices = lattice_fits(small, cell_maps(gray_small, opts=opts), opts=opts)
    if not lattices:
        lattices = lattice_fits(small, cell_maps(gray_small, normalised=True, opts=opts), opts=opts)
    for _pattern, h_lat, wide in lattices:
        h1, share1, _ = refine_with_grid_lines(gray, to_full @ h_lat, rounds=2, opts=opts)
        h1, prem1, share1 = _checked_shift(image, gray, h1, share1, opts=opts)
        # a lattice wider than the board ranks behind any candidate as good, and never ends the search
        prem_seen = _ranking_pattern(image, h1, prem1, opts=opts)
        quality = _quality(share1, prem_seen, h1, w, h, opts=opts) + (0.0 if wide else 0.25)
        scored.append((quality, h1, share1, prem_seen))
        if share1 > 0.9 and prem1 > 0.5 and not wide:
            break
    t1 = time.perf_counter()
    if scored and max(q for q, *_ in scored) > opts.accept.line_weight * 0.9 + 1.0 + 0.25 - 0.01:
        cands: list[F64] = []
    else:
        lab_small = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
        cands = candidate_quads(gray_small, lab_small, _edge_maps(gray_small, lab_small))
    fits: list[GridFit] = []
    for q in cands:
        f = fit_grid_in_quad(gray_small, q, opts=opts)
        if f is None:
            continue
        fits.append(f)
        if f.score >= opts.search.strong_grid_score:
            break  # a clear 15×15 grid: no need to look further
    fits.sort(key=lambda f: -f.score)
    t2 = time.perf_counter()
    if not scored and (not fits or fits[0].score < opts.search.min_grid_score):
        raise BoardNotLocatedError("no board visible in the picture")
    tried: list[F64] = []
    for fit in fits[:8]:
        if fit.score < opts.search.min_grid_score:
            break
        corners = fit.corners / scale
        side = math.sqrt(max(1.0, abs(cv2.contourArea(corners.astype(np.float32)))))
        if any(np.max(np.hypot(*(corners - o).T)) < 0.04 * side for o in tried):
            continue
        tried.append(corners)
        h1, share1, _ = refine_with_grid_lines(gray, units_to_image(corners), rounds=2, opts=opts)
        h1, prem1, share1 = _checked_shift(image, gray, h1, share1, opts=opts)
        prem_seen = _ranking_pattern(image, h1, prem1, opts=opts)
        quality = _quality(share1, prem_seen, h1, w, h, opts=opts) + 0.25 * min(1.0, fit.score)
        scored.append((quality, h1, share1, prem_seen))
        if (share1 > 0.9 and prem1 > 0.55) or len(tried) >= 4:
            break
    scored.sort(key=lambda t: -_rank(t[0], t[3], opts=opts))
    _, h_ref, _, _ = scored[0]
    h_ref, share, samples = refine_with_grid_lines(gray, h_ref, rounds=1, opts=opts)
    lens: Lens | None = None
    if samples and opts.grid.fit_lens:
        bent = fit_lens_to_grid(samples, h_ref, (w, h), opts=opts.grid.lens)
        if bent is not None:
            h_ref = bent.h_units
            lens = Lens(bent.k, ((w - 1) / 2.0, (h - 1) / 2.0), float(max(w, h)))
    seen_through = lens if lens is not None and lens_bend(lens, h_ref, opts=opts) > opts.grid.lens_check_bend else None
    h_ref, prem, share = _checked_shift(image, gray, h_ref, share, seen_through, opts=opts)
    conf = float(np.clip(0.5 * share + 0.5 * _pattern_strength(prem, opts=opts), 0, 1))
    t3 = time.perf_counter()
    accept = opts.accept
    enough_lines = share >= accept.min_line_share or (share >= accept.arm_line_share
                                                      and prem >= accept.clear_pattern_score)
    if enough_lines and opts.accept.in_view_min_pattern > 0:
        in_view = pattern_in_view(image, h_ref, plane=share >= accept.all_lines_share, lens=seen_through, opts=opts)
        if in_view < (accept.in_view_min_pattern if prem < accept.weak_pattern else accept.in_view_floor):
            raise BoardNotLocatedError("no board visible in the picture (a 15×15 grid, but its special squares "
                                       "do not stand out where it is in view)")
        if prem < opts.accept.weak_pattern:
            prem = max(prem, in_view)
            conf = float(np.clip(0.5 * share + 0.5 * _pattern_strength(prem, opts=opts), 0, 1))
    if not enough_lines or prem < opts.accept.min_pattern_score:
        raise BoardNotLocatedError("no board visible in the picture (no 15×15 grid with its special squares)")
    unit = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], float)
    raw = apply_h(h_ref, unit) if lens is None else lens.distort(apply_h(h_ref, unit))
    if not _seen_in_front(h_ref, raw, w, h, opts=opts):
        raise BoardNotLocatedError("no board visible in the picture (the grid found is not a board in view)")
    if outside_share(h_ref, w, h) > opts.accept.max_outside_share:
        raise BoardNotLocatedError("no board visible in the picture (a 15×15 grid, but most of it lies outside "
                                   "the picture)")
    corners_img = order_corners(raw)
    h_final = _reframe(h_ref, corners_img)
    timings = {"candidates": (t1 - t0) * 1e3, "grid_search": (t2 - t1) * 1e3, "refine": (t3 - t2) * 1e3}
    return BoardLocation(tuple((float(x), float(y)) for x, y in corners_img), h_final, conf, timings, lens)


def _seen_in_front(h_units: F64, corners_px: F64, width: int, height: int, *,
                   opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> bool:
    """Whether a grid's playing area lies wholly in front of the camera (its four corners on one
    side of the horizon: a grid that crosses it is no flat board) with finite corners near the
    picture (within ``far_off_picture`` picture sizes)."""
    unit = np.array([[0, 0, 1], [SIZE, 0, 1], [SIZE, SIZE, 1], [0, SIZE, 1]], float)
    depth = (np.asarray(h_units, np.float64) @ unit.T)[2]
    if not (np.all(depth > 0) or np.all(depth < 0)):
        return False
    reach = opts.accept.far_off_picture * max(width, height)
    return bool(np.all(np.isfinite(corners_px)) and np.all(np.abs(corners_px - (width / 2, height / 2)) < reach))


def side_line_shares(image: Image, h_units: F64, margin: int, lens: Lens | None = None, *,
                     opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[F32, F32, float]:
    """The playing squares' mean L*a*b* colours (15, 15, 3), the grid-line evidence of their four
    sides (``square_sides``, (15, 15, 4)) as shares of the board's median side, and that median;
    the board rectified at 16 px a square with ``margin`` squares around it (0: the outer sides,
    at the picture's edge, are NaN); with ``lens``, sampled through its bending."""
    looks, shares, median = _looks_and_sides(image, h_units, margin, lens, opts=opts)
    return np.ascontiguousarray(looks[..., :3]), shares, median


def _looks_and_sides(image: Image, h_units: F64, margin: int, lens: Lens | None = None, *,
                     opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[F32, F32, float]:
    """``side_line_shares`` with the squares' ``cell_looks`` (15, 15, 6) for their colours."""
    rect = rectify(image, h_units, 16, margin, lens, opts=opts)
    sums = squares_lab_sums(rect, 16)
    looks = cell_looks(rect, 16, sums)
    sides = square_sides(rect, 16, np.ascontiguousarray(looks[..., :3]), sums)
    if margin:
        looks, sides = looks[margin:-margin, margin:-margin], sides[margin:-margin, margin:-margin]
    median = float(np.nanmedian(sides))
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.asarray(sides / median, np.float32)
    return looks, shares, median


def pattern_in_view(image: Image, h_units: F64, plane: bool = False, lens: Lens | None = None, *,
                    opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> float:
    """The special-square pattern score (``premium_pattern_scores``' contrast, base: the plain
    squares' median colour) over the squares in view only: those with fewer than two sides whose
    grid line is fainter than ``in_view_faint`` of the board's median side (a hand or an arm hides
    the others); 0 when fewer than a third of the special or plain squares are in view. ``plane``:
    the clearer of that and the pattern against a plane fitted to the plain squares in view (a
    light falling off across the board). ``lens``: the picture's bending (``h_units`` then maps to
    undistorted pixels). Centres and frames (``cell_looks``) are scored apart, the clearer kept."""
    looks, shares, _ = _looks_and_sides(image, h_units, 0, lens, opts=opts)
    faint = np.nan_to_num(shares, nan=np.inf) < opts.accept.in_view_faint
    seen = (faint.sum(axis=2) < 2).ravel()
    special, plain = PREMIUM.ravel() & seen, ~PREMIUM.ravel() & seen
    if special.sum() < PREMIUM.sum() / 3 or plain.sum() < (~PREMIUM).sum() / 3:
        return 0.0
    scores = []
    for k in (0, 3) if opts.pattern.frames else (0,):
        colour = looks[..., k:k + 3].reshape(-1, 3).astype(np.float64)
        bases = [np.median(colour[plain], axis=0)]
        if plane:
            bases.append(_plane_base(colour[None, None], np.flatnonzero(plain), opts=opts)[0, 0])
        for base in bases:
            d = np.linalg.norm(colour - base, axis=1)
            scores.append(float(_standing_out(float(np.median(d[special])), float(np.median(d[plain])))))
    return max(scores)


def _quality(share: float, prem: float, h_units: F64, width: int, height: int, *,
             opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> float:
    """How well a candidate board frame is explained: grid lines found (weighted ``line_weight``:
    a grid whose lines are all there beats one half off the board whose special squares happen to
    look clearer, under a lighting gradient), special-square pattern (capped at 1), minus the share
    of squares outside the picture."""
    return opts.accept.line_weight * share + _pattern_strength(prem, opts=opts) - outside_share(h_units, width, height)


def _ranking_pattern(image: Image, h_units: F64, prem: float, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> float:
    """The special-square pattern a candidate ranks by: its pattern over the whole board or, when
    clearer, over the squares in view (``pattern_in_view``, with ``rank_in_view``): an arm over the
    special squares dims the board's own pattern, while a lattice of the wrong period or a grid
    hanging off the board has no clearer pattern where it is in view."""
    return max(prem, pattern_in_view(image, h_units, opts=opts)) if opts.accept.rank_in_view else prem


def _pattern_strength(prem: float, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> float:
    """A special-square pattern score as 0–1 (full from ``pattern_cap`` on)."""
    return float(np.clip(prem / opts.pattern.pattern_cap, 0, 1))


def _rank(quality: float, prem: float, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> float:
    """Order of candidates: their quality, and beyond the pattern's cap in it (``pattern_cap``) a
    clearer special-square pattern still counts (a grid a square or so off can find more lines
    than the board's own; its pattern is far weaker). Not used to end the search early."""
    return quality + max(0.0, prem - opts.pattern.pattern_cap)


def _reframe(h_ref: F64, corners_img: F64) -> F64:
    """``h_ref`` with its unit frame turned (by a symmetry of the square) so that unit corner
    (0,0) lies at the first ordered corner and (15,0) at the second."""
    unit = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], float)
    img = apply_h(h_ref, unit)
    best_m: F64 | None = None
    best_e = 1e18
    for rot in range(4):
        for flip in (False, True):
            order = [(i + rot) % 4 for i in range(4)]
            if flip:
                order = [order[0], order[3], order[2], order[1]]
            e = float(np.sum((img[order] - corners_img) ** 2))
            if e < best_e:
                best_e = e
                best_m = np.asarray(cv2.getPerspectiveTransform(unit.astype(np.float32),
                                                                unit[order].astype(np.float32)), np.float64)
    assert best_m is not None
    return np.asarray(h_ref @ best_m, np.float64)


def _checked_shift(image: Image, gray: U8, h_units: F64, share: float, lens: Lens | None = None,
                   *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[F64, float, float]:
    """Correct a registration off by up to ``shift_reach`` whole squares by the special-square
    pattern (T-B2, ``_pattern_shift``), unless the shifted grid explains fewer grid lines than
    ``share`` by more than ``shift_line_loss`` (a hand or an arm over the special squares can fake
    a better pattern one square off; the board's outer lines cannot be faked that way), or by more
    than ``framed_line_loss`` for a shift that frames the board clearly better; a registration
    with less than ``wide_shift_below`` of its grid lines found may first move further
    (``_far_shift``). Also the pattern score of the result, and its share of grid lines found
    (``share`` unless it moved that far: its candidate ranks by the lines of the board it found).
    ``lens``: the picture's bending, when ``h_units`` maps to undistorted pixels; every grid is then
    seen through it, and ``share`` is measured again that way before it is compared with a moved grid's."""
    measured_through = False  # whether ``share`` has been measured through ``lens`` yet
    if lens is not None and share < opts.shift.wide_shift_below:
        share, measured_through = _share_through(gray, h_units, lens, opts=opts), True
    if share < opts.shift.wide_shift_below:
        far = _far_shift(image, gray, h_units, share, lens, opts=opts)
        if far is not None:
            return far
    (dx, dy), prem, prem_here, framed, near = _pattern_shift(image, h_units, lens=lens, opts=opts)
    if (dx, dy) == (0, 0) and not (opts.shift.line_shift_gain > 0 and near):
        return h_units, prem_here, share
    if lens is not None and not measured_through:
        share = _share_through(gray, h_units, lens, opts=opts)
    if (dx, dy) == (0, 0):
        return (*_line_shift(gray, h_units, share, prem_here, near, lens, opts=opts), share)
    shifted = _shifted(h_units, dx, dy)
    _, share_shifted, _ = refine_with_grid_lines(gray, shifted, rounds=1, lens=lens, opts=opts)
    allowed = opts.shift.shift_line_loss
    if framed >= opts.shift.framed_gain and prem - prem_here >= opts.shift.framed_pattern_gain:
        allowed = opts.shift.framed_line_loss
    if share_shifted >= share - allowed:
        return shifted, prem, share
    return h_units, prem_here, share


def _share_through(gray: U8, h_units: F64, lens: Lens, *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> float:
    """The share of grid lines found on the grid ``h_units`` (to undistorted pixels) seen through ``lens``."""
    return refine_with_grid_lines(gray, h_units, rounds=1, lens=lens, opts=opts)[1]


def _far_shift(image: Image, gray: U8, h_units: F64, share: float, lens: Lens | None = None,
               *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[F64, float, float] | None:
    """The registration moved by more than ``shift_reach`` and up to ``wide_shift_reach`` whole
    squares, with its pattern score and share of grid lines found, when the special squares stand
    out best there and the moved grid explains as many grid lines (``wide_shift_line_loss``); else
    ``None``. The case: a lattice grown on part of the board (under a hand, glare) whose window was
    placed on the table beside it."""
    (dx, dy), prem, _, _, _ = _pattern_shift(image, h_units, opts.shift.wide_shift_reach, lens, opts=opts)
    if max(abs(dx), abs(dy)) <= opts.shift.shift_reach:
        return None
    shifted = _shifted(h_units, dx, dy)
    _, share_shifted, _ = refine_with_grid_lines(gray, shifted, rounds=1, lens=lens, opts=opts)
    return (shifted, prem, share_shifted) if share_shifted >= share - opts.shift.wide_shift_line_loss else None


def _line_shift(gray: U8, h_units: F64, share: float, prem_here: float,
                near: list[tuple[int, int, float]], lens: Lens | None = None, *,
                opts: LocateOptions = DEFAULT_LOCATE_OPTIONS) -> tuple[F64, float]:
    """Among the shifts ``near`` (``(dx, dy, pattern score)``, whose special-square pattern stands
    out almost as clearly as the registration's own), the one whose grid explains the most grid
    lines, if by ``line_shift_gain`` more than ``share``: a grid grown off the board's edge onto
    its frame and the table, with an arm hiding the special squares that would pull it back."""
    best = (h_units, prem_here)
    best_share = share + opts.shift.line_shift_gain
    for dx, dy, p in near[:opts.shift.line_shift_tries]:
        shifted = _shifted(h_units, dx, dy)
        _, s, _ = refine_with_grid_lines(gray, shifted, rounds=1, lens=lens, opts=opts)
        if s >= best_share:
            best, best_share = (shifted, p), s
    return best


def _shifted(h_units: F64, dx: int, dy: int) -> F64:
    """``h_units`` with its board frame moved by whole squares."""
    return np.asarray(h_units @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64), np.float64)


def _pattern_shift(image: Image, h_units: F64, reach: int | None = None, lens: Lens | None = None,
                   *, opts: LocateOptions = DEFAULT_LOCATE_OPTIONS
                   ) -> tuple[tuple[int, int], float, float, float, list[tuple[int, int, float]]]:
    """The whole-square shift (within ``reach``) under which the special squares stand out
    clearly best and the squares just outside the grid do not look like the board's own (a board
    has its frame there; a grid registered a few squares off has playing squares), ``(0, 0)``
    unless it beats no shift by ``shift_margin`` (shifts compared by ``pattern_scores``' choice
    score); its pattern score, the unshifted one, how much less the squares around the grid
    look like playing squares after the shift than before, and the other shifts whose choice score
    is within ``line_shift_pattern_loss`` of no shift's, best first, with their pattern scores."""
    reach = opts.shift.shift_reach if reach is None else reach
    m = reach + 1  # one more square each way for the ring outside the window
    rect = rectify(image, h_units, 16, m, lens, opts=opts)
    sums = squares_lab_sums(rect, 16)
    cells = cell_colours(rect, 16, sums)  # (15 + 2m)² squares
    lines = square_lines(rect, 16, cells, sums) if opts.shift.ring_lines else None
    looks = np.concatenate([cells, square_bands(rect, 16, sums) - cells], axis=2)
    scores, choice = pattern_scores(looks[1:-1, 1:-1], opts=opts)  # window (dy, dx) at [reach + dy, reach + dx]
    pick = {(dx, dy): float(choice[reach + dy, reach + dx])
            for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1)}
    ring_here = board_like_ring(cells, m, m, lines, opts=opts)
    here = pick[(0, 0)] - opts.shift.ring_weight * ring_here
    best, best_merit, best_ring = (0, 0), here + opts.shift.shift_margin, ring_here
    ranked = sorted(pick.items(), key=lambda kv: -kv[1])
    for (dx, dy), p in ranked:
        if p < best_merit:
            break  # the ring can only lower a shift's merit below its pattern score
        ring = board_like_ring(cells, m + dy, m + dx, lines, opts=opts)
        merit = p - opts.shift.ring_weight * ring
        if merit >= best_merit and (dx, dy) != (0, 0):
            best, best_merit, best_ring = (dx, dy), merit, ring
    dx, dy = best
    near = [(sx, sy, float(scores[reach + sy, reach + sx]))
            for (sx, sy), p in ranked
            if (sx, sy) != (0, 0) and p >= pick[(0, 0)] - opts.shift.line_shift_pattern_loss]
    return (best, float(scores[reach + dy, reach + dx]), float(scores[reach, reach]),
            ring_here - best_ring, near)
