"""Does a stored board reference still fit a new picture? A cheap check to decide when to re-locate.

Two probes, both at the raw-image pixels stored in the profile:
- colours: each stored colour reference is compared (CIE76 ΔE) with the picture at the spots it
  was sampled from (the same patch of each named cell), after a per-channel gain that undoes a
  change of light (estimated from the board's main colour); tiles, pieces and hands cover some
  points, so each colour needs only a share of its points to match, and the colours' shares are averaged;
- border: the grey-level profile across each side of the board outline is correlated with the
  stored one; most sides must still show the same edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .board_colours import bgr_to_lab, cell_colours, delta_e, edge_profiles, sample_bgr
from .profile import BoardReference, Profile
from .undistort import Undistorter

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class FitReport:
    """The evidence behind ``profile_fits``."""

    fits: bool
    colour_share: float
    """Mean over colour references of the share of their points that still match."""
    sides_checked: int
    sides_matching: int
    reason: str


def fit_report(profile: Profile | BoardReference, image: NDArray[Any], colour_tolerance: float = 15.0,
               min_colour_share: float = 0.5, min_edge_correlation: float = 0.6) -> FitReport:
    """Probe ``image`` at the board reference's stored spots (see the module docstring)."""
    board = profile.board if isinstance(profile, Profile) else profile
    if board is None:
        return FitReport(False, 0.0, 0, 0, "the profile holds no board")
    size = (int(image.shape[1]), int(image.shape[0]))
    if size != tuple(board.image_size):
        return FitReport(False, 0.0, 0, 0, f"picture is {size[0]}x{size[1]}, board was calibrated at "
                                          f"{board.image_size[0]}x{board.image_size[1]}")
    undistorter = None
    if isinstance(profile, Profile) and profile.camera is not None:
        undistorter = Undistorter(profile.camera)
    probes = _colour_probes(board, image, undistorter)
    gain = _lighting_gain(board, probes)
    shares = []
    for name, bgr in probes.items():
        ref = board.colours[name]
        tol = max(colour_tolerance, 3.0 * ref.spread)
        lab = bgr_to_lab(np.clip(bgr * gain, 0.0, 255.0))
        shares.append(float(np.mean(delta_e(lab, ref.lab) <= tol)))
    colour_share = float(np.mean(shares)) if shares else 0.0

    checked = matching = 0
    if board.edges:
        now = edge_profiles(board.game, image, board.corners_px, undistorter)
        for stored, current in zip(board.edges, now, strict=False):
            s = np.asarray(stored, dtype=np.float64)
            if s.std() < 4.0:
                continue  # no edge to speak of on this side
            checked += 1
            c = np.asarray(current, dtype=np.float64)
            if c.std() > 1e-6 and float(np.corrcoef(s, c)[0, 1]) >= min_edge_correlation:
                matching += 1
    edges_ok = checked == 0 or matching >= max(1, int(np.ceil(0.6 * checked)))
    colours_ok = colour_share >= min_colour_share
    if colours_ok and edges_ok:
        reason = "fits"
    elif not colours_ok:
        reason = f"only {colour_share:.0%} of the colour probes match"
    else:
        reason = f"only {matching} of {checked} board sides show their edge where it was"
    return FitReport(colours_ok and edges_ok, colour_share, checked, matching, reason)


def _colour_probes(board: BoardReference, image: NDArray[Any], undistorter: Undistorter | None
                   ) -> dict[str, FloatArray]:
    """Today's colour (BGR) at each reference's samples.

    A reference that names its cells is probed as it was sampled: the median over the same patch of
    each cell (``cell_colours``; printed marks in a special square's middle do not count). Otherwise
    each stored point is probed as a 3×3 neighbourhood median (robust to noise, stray lines).
    """
    probes: dict[str, FloatArray] = {}
    by_cell: dict[str, FloatArray] = {}
    if any(ref.cells and len(ref.cells) == len(ref.points_px) for ref in board.colours.values()):
        names, _centres, bgr = cell_colours(board.game, image, board.corners_px, undistorter)
        by_cell = dict(zip(names, bgr, strict=True))
    offsets = np.array([(dx, dy) for dx in (-1.5, 0.0, 1.5) for dy in (-1.5, 0.0, 1.5)])
    for name, ref in board.colours.items():
        if ref.cells and len(ref.cells) == len(ref.points_px) and all(c in by_cell for c in ref.cells):
            probes[name] = np.array([by_cell[c] for c in ref.cells], dtype=np.float64)
        elif ref.points_px:
            pts = np.asarray(ref.points_px, dtype=np.float64)
            bgr_pts = sample_bgr(image, (pts[:, None, :] + offsets[None, :, :]).reshape(-1, 2))
            probes[name] = np.median(bgr_pts.reshape(len(pts), len(offsets), 3), axis=1)
    return probes


def _lighting_gain(board: BoardReference, probes: dict[str, FloatArray]) -> FloatArray:
    """Per-channel gain that brings today's light back to the calibration's, from the most common colour.

    The board's main colour (Triolet base, Trigon grey) covers most probes; its median now vs. then
    gives the gain (limited to ×0.5–×2). If the board moved, the probes mostly still see that
    colour, so the gain stays sensible while the special colours stop matching.
    """
    main = "base" if "base" in probes else "board" if "board" in probes else None
    if main is None or len(probes[main]) == 0:
        return np.ones(3)
    now = np.median(probes[main], axis=0)
    then = np.array(board.colours[main].rgb[::-1], dtype=np.float64)  # stored as RGB, probes are BGR
    return np.asarray(np.clip(then / np.maximum(now, 1.0), 0.5, 2.0), dtype=np.float64)


def profile_fits(profile: Profile | BoardReference, image: NDArray[Any]) -> bool:
    """True if the board still lies where ``profile`` says (else: locate it again)."""
    return fit_report(profile, image).fits
