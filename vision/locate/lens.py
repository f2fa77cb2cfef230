"""Lens bending from the whole grid: ``fit_lens_to_grid(samples, h_units, image_size)``.

The board's 16 + 16 grid lines are straight on the board; a barrel (or pincushion) lens bends them
in the picture, so a plain homography fitted to the interior crossings puts the playing area's
corners a few pixels off (up to a third of a square at k1 ≈ −0.2). Here one division-model
coefficient ``k`` (centre = image centre, as the renderer and most phone cameras have it) and the
board homography are fitted *jointly*: every line sample, undistorted and mapped to board units,
must land on its own line (``u = i`` for vertical line ``i``, ``v = j`` for horizontal line ``j``).
That asks for the whole grid to be one projective lattice, which pins ``k`` far better than the
straightness of each line alone. A strong bending that explains little of the samples' scatter
(``supported``) was fitted to stray samples, not to a lens, and is not reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]

SIZE = 15


@dataclass(frozen=True)
class LensFitOptions:
    """How the lens bending is fitted to the grid lines and when a fitted bending is believed."""

    #: spread of k expected before looking (a Gaussian prior: weak grids bend little)
    k_prior: float = 0.3
    #: |k| beyond this (division model, radius / longest image side) is not a lens
    k_limit: float = 1.5
    #: Grid-line samples whose straight fit leaves an rms above ``scattered`` squares hold stray points
    #: (an arm's edge, numerals; a clean grid leaves 0.012–0.018). A bending beyond ``k_small`` fitted
    #: to such samples must lower that rms by at least ``min_gain_per_k`` · |k| of it, or it was fitted
    #: to the stray points, not to a lens (16,501,613's k = +0.68, the renderer's −0.15, rms 0.074
    #: lowered by 6 %; of 1,999 dev fits the 4 off by more than 0.15 all left 0.036–0.074).
    scattered: float = 0.03
    #: (see ``scattered``)
    k_small: float = 0.1
    #: (see ``scattered``)
    min_gain_per_k: float = 0.3


DEFAULT_LENS_FIT = LensFitOptions()


@dataclass(frozen=True)
class GridLensFit:
    """Result of the joint fit: ``h_units`` maps board units to *undistorted* pixels; ``k`` is the
    division-model coefficient; residuals are rms distances of the line samples from their lines,
    in squares, with the lens (``rms``) and for a straight fit of the same samples (``rms_straight``)."""

    h_units: F64
    k: float
    rms: float
    rms_straight: float
    used: int


def _line_points(samples: list[F64], inner_only: bool) -> tuple[F64, F64, NDArray[np.bool_]]:
    """All samples stacked: points (n, 2), the line index each lies on, and whether the line is
    vertical (a column line: ``u`` = index)."""
    pts, idx, vert = [], [], []
    for n, p in enumerate(samples):
        k, vertical = n % (SIZE + 1), n <= SIZE
        if len(p) == 0 or (inner_only and not 0 < k < SIZE):
            continue
        pts.append(np.asarray(p, np.float64).reshape(-1, 2))
        idx.append(np.full(len(p), float(k)))
        vert.append(np.full(len(p), vertical))
    if not pts:
        return np.zeros((0, 2)), np.zeros(0), np.zeros(0, bool)
    return np.concatenate(pts), np.concatenate(idx), np.concatenate(vert).astype(bool)


def _residuals(params: F64, q: F64, idx: F64, vert: NDArray[np.bool_], prior: float = 0.0,
               jacobian: bool = False) -> tuple[F64, F64 | None]:
    """Board-unit misses of normalised distorted points ``q`` for ``params`` = 8 entries of the
    normalised image → units homography (last entry 1) and ``k``; last, ``prior · k`` (a lens
    bends little unless the lines say otherwise). With ``jacobian``, also d(residuals)/d(params)."""
    g = params  # g[0:3], g[3:6], g[6:8]: the homography's rows (its last entry 1)
    k = float(params[8])
    qx, qy = q[:, 0], q[:, 1]
    r2 = qx * qx + qy * qy
    s = 1.0 / (1.0 + k * r2)
    ux, uy = qx * s, qy * s
    # the row of the homography giving the board coordinate each sample fixes (u for vertical lines)
    rx, ry, r0 = np.where(vert, g[0], g[3]), np.where(vert, g[1], g[4]), np.where(vert, g[2], g[5])
    num = ux * rx + uy * ry + r0
    den = ux * g[6] + uy * g[7] + 1.0
    res = np.append(num / den - idx, prior * k)
    if not jacobian:
        return res, None
    n = len(q)
    jac = np.zeros((n + 1, 9))
    inv_den = 1.0 / den
    for col, d in enumerate((ux * inv_den, uy * inv_den, inv_den)):
        jac[:n, col] = np.where(vert, d, 0.0)
        jac[:n, 3 + col] = np.where(vert, 0.0, d)
    ratio = num * inv_den * inv_den
    jac[:n, 6] = -ratio * ux
    jac[:n, 7] = -ratio * uy
    du = -(r2 * s * s)  # d(u)/dk = du · q
    jac[:n, 8] = ((rx * inv_den - ratio * g[6]) * qx + (ry * inv_den - ratio * g[7]) * qy) * du
    jac[n, 8] = prior
    return res, jac


def _levenberg_marquardt(params: F64, q: F64, idx: F64, vert: NDArray[np.bool_], free_k: bool,
                         prior: float = 0.0, iters: int = 20) -> F64:
    """Least squares on ``_residuals`` (9 parameters, a few hundred samples)."""
    p = params.copy()
    n_par = 9 if free_k else 8
    lam = 1e-3
    res, jac = _residuals(p, q, idx, vert, prior, jacobian=True)
    cost = float(res @ res)
    for _ in range(iters):
        assert jac is not None
        j = jac[:, :n_par]
        a = j.T @ j
        b = j.T @ res
        improved = False
        for _ in range(8):
            try:
                delta = np.linalg.solve(a + lam * np.diag(np.diag(a) + 1e-12), -b)
            except np.linalg.LinAlgError:
                lam *= 10
                continue
            trial = p.copy()
            trial[:n_par] += delta
            r_t, _ = _residuals(trial, q, idx, vert, prior)
            c_t = float(r_t @ r_t)
            if np.isfinite(c_t) and c_t < cost:
                improved = cost - c_t > 1e-7 * cost
                p, cost, lam = trial, c_t, max(lam / 10, 1e-9)
                res, jac = _residuals(p, q, idx, vert, prior, jacobian=True)
                break
            lam *= 10
        if not improved:
            break
    return p


def fit_lens_to_grid(samples: list[F64], h_units: F64, image_size: tuple[int, int],
                     inner_only: bool = True, *, opts: LensFitOptions = DEFAULT_LENS_FIT) -> GridLensFit | None:
    """Joint fit of the division-model ``k`` and the board homography to grid-line samples (image
    pixels: 16 vertical lines, then 16 horizontal; ``h_units`` maps units to pixels, the start).
    ``None`` when there are too few samples, the fit fails, or the bending it finds is not borne
    out by the samples (``supported``)."""
    pts, idx, vert = _line_points(samples, inner_only)
    if len(pts) < 40 or vert.sum() < 15 or (~vert).sum() < 15:
        return None
    w, h = image_size
    c = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    f = float(max(w, h))
    norm = np.array([[1 / f, 0, -c[0] / f], [0, 1 / f, -c[1] / f], [0, 0, 1]])
    q = (pts - c) / f
    try:
        g0 = np.linalg.inv(norm @ np.asarray(h_units, np.float64))
    except np.linalg.LinAlgError:
        return None
    if abs(g0[2, 2]) < 1e-12:
        return None
    g0 = g0 / g0[2, 2]
    p0 = np.append(g0.ravel()[:8], 0.0)
    keep = np.ones(len(q), bool)
    straight = p0
    for _ in range(2):  # fit, drop samples far from their line (numerals, hands), fit again
        straight = _levenberg_marquardt(straight, q[keep], idx[keep], vert[keep], free_k=False)
        res = np.abs(_residuals(straight, q, idx, vert)[0][:-1])
        keep = res < max(0.06, 3.0 * float(np.median(res[keep])))
    if keep.sum() < 40:
        return None
    straight = _levenberg_marquardt(straight, q[keep], idx[keep], vert[keep], free_k=False)
    r_s = _residuals(straight, q[keep], idx[keep], vert[keep])[0][:-1]
    sigma = max(float(np.sqrt(np.mean(r_s * r_s))), 1e-3)
    bent = _levenberg_marquardt(straight, q[keep], idx[keep], vert[keep], free_k=True, prior=sigma / opts.k_prior)
    r_b = _residuals(bent, q[keep], idx[keep], vert[keep])[0][:-1]
    if not np.all(np.isfinite(r_b)) or abs(float(bent[8])) > opts.k_limit:
        return None
    g = np.append(bent[:8], 1.0).reshape(3, 3)
    try:
        h_img = np.linalg.inv(norm) @ np.linalg.inv(g)
    except np.linalg.LinAlgError:
        return None
    fit = GridLensFit(np.asarray(h_img / h_img[2, 2], np.float64), float(bent[8]),
                      float(np.sqrt(np.mean(r_b * r_b))), float(np.sqrt(np.mean(r_s * r_s))), int(keep.sum()))
    return fit if supported(fit, opts=opts) else None


def supported(fit: GridLensFit, *, opts: LensFitOptions = DEFAULT_LENS_FIT) -> bool:
    """Whether the samples bear out the fit's bending: a small one, or any fitted to samples that
    are not ``scattered``, always; a strong one fitted to scattered samples only when it lowers the
    straight fit's rms by ``min_gain_per_k`` · |k| of it or more."""
    if abs(fit.k) <= opts.k_small or fit.rms_straight <= opts.scattered:
        return True
    return 1.0 - fit.rms / max(fit.rms_straight, 1e-12) >= opts.min_gain_per_k * abs(fit.k)

