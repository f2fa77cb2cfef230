"""Assemble tiles seen in a picture into lattice fields (M-B2, M-B3, D-B1).

Input: each tile's three corners in image pixels. Tiles sharing a side (two corners close
together) are edge neighbours; edge-connected groups are fields. In each field the lattice's
"horizontal" is the tile side most nearly horizontal in the image, so rows run as level as the
picture allows. Anchor (a still picture does not show which tile came first): the field's
top-most tile in the image (smallest centre y, then smallest x) sits on (0, 0) if it points up,
on (1, 0) if it points down (M-B3). Fields are numbered by size (largest first), then by their
anchor's position (top first).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
Cell = tuple[int, int]


@dataclass(frozen=True)
class Placed:
    """A tile's lattice cell and field, by the index of the tile in the input."""

    index: int
    cell: Cell
    field: int


def _side_len(tri: F64) -> float:
    return float(np.mean(np.linalg.norm(np.roll(tri, -1, axis=0) - tri, axis=1)))


def _shared_side(a: F64, b: F64, tol: float) -> tuple[int, int] | None:
    """Indices (i, i+1 mod 3) of ``a``'s side shared with ``b``, if two corners coincide."""
    near = [i for i in range(3) if float(np.linalg.norm(b - a[i], axis=1).min()) < tol]
    if len(near) != 2:
        return None
    i, j = near
    return (i, j) if (j - i) % 3 == 1 else (j, i)


def _horizontal_side(tri: F64, ref: F64) -> tuple[int, int]:
    """The side (i, i+1) most parallel to direction ``ref``."""
    best, pick = -1.0, (0, 1)
    for i in range(3):
        d = tri[(i + 1) % 3] - tri[i]
        c = abs(float(d @ ref)) / (float(np.linalg.norm(d)) + 1e-9)
        if c > best:
            best, pick = c, (i, (i + 1) % 3)
    return pick


def assemble(tiles: list[F64], gap_tol: float = 0.3) -> list[Placed]:
    """Cells and fields for tiles given as 3×2 corner arrays (image pixels)."""
    n = len(tiles)
    if n == 0:
        return []
    side = float(np.median([_side_len(t) for t in tiles]))
    tol = gap_tol * side
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if float(np.linalg.norm(tiles[i].mean(0) - tiles[j].mean(0))) > 1.2 * side:
                continue
            if _shared_side(tiles[i], tiles[j], tol) is not None:
                nbrs[i].append(j)
                nbrs[j].append(i)
    seen = [False] * n
    groups: list[list[int]] = []
    for i in range(n):
        if seen[i]:
            continue
        comp, dq = [], deque([i])
        seen[i] = True
        while dq:
            k = dq.popleft()
            comp.append(k)
            for m in nbrs[k]:
                if not seen[m]:
                    seen[m] = True
                    dq.append(m)
        groups.append(comp)
    anchors = [min(g, key=lambda k: (float(tiles[k].mean(0)[1]), float(tiles[k].mean(0)[0]))) for g in groups]
    order = sorted(range(len(groups)), key=lambda g: (-len(groups[g]), float(tiles[anchors[g]].mean(0)[1])))
    out: list[Placed] = []
    for fnum, g in enumerate(order):
        out.extend(_field_cells(tiles, nbrs, anchors[g], fnum, tol))
    # a tile the walk from its field's anchor did not reach starts a field of its own: no tile found
    # in the picture is dropped
    placed = {p.index for p in out}
    for k in range(n):
        if k not in placed:
            more = _field_cells(tiles, [[m for m in nb if m not in placed] for nb in nbrs], k,
                                len({p.field for p in out}), tol)
            out.extend(more)
            placed.update(p.index for p in more)
    return sorted(out, key=lambda p: p.index)


def _field_cells(tiles: list[F64], nbrs: list[list[int]], anchor: int, fnum: int, tol: float) -> list[Placed]:
    t0 = tiles[anchor]
    # the anchor's most horizontal side fixes the lattice's horizontal direction
    best, href = -1.0, np.array([1.0, 0.0])
    for i in range(3):
        d = t0[(i + 1) % 3] - t0[i]
        c = abs(float(d[0])) / (float(np.linalg.norm(d)) + 1e-9)
        if c > best:
            best, href = c, d / (float(np.linalg.norm(d)) + 1e-9)
    if href[0] < 0:
        href = -href
    cells: dict[int, Cell] = {}
    dirs: dict[int, F64] = {anchor: href}
    i, j = _horizontal_side(t0, href)
    apex = t0[3 - i - j]
    base_mid = (t0[i] + t0[j]) / 2
    down_dir = np.array([-href[1], href[0]])  # image "down" across rows (perpendicular, y-down frame)
    if down_dir[1] < 0:
        down_dir = -down_dir
    up0 = float((apex - base_mid) @ down_dir) < 0
    cells[anchor] = (0, 0) if up0 else (1, 0)
    dq = deque([anchor])
    while dq:
        k = dq.popleft()
        x, y = cells[k]
        up = (x + y) % 2 == 0
        hk = dirs[k]
        a, b = _horizontal_side(tiles[k], hk)
        hb = (tiles[k][a] + tiles[k][b]) / 2
        for m in nbrs[k]:
            if m in cells:
                continue
            cm = tiles[m].mean(0)
            shared = _shared_side(tiles[k], tiles[m], tol)  # the tolerance that made them neighbours
            if shared is None:
                continue
            mid = (tiles[k][shared[0]] + tiles[k][shared[1]]) / 2
            if float(np.linalg.norm(mid - hb)) < 0.2 * _side_len(tiles[k]):
                cells[m] = (x, y + 1) if up else (x, y - 1)
            else:
                cells[m] = (x + 1, y) if float((cm - tiles[k].mean(0)) @ hk) > 0 else (x - 1, y)
            dirs[m] = hk
            dq.append(m)
    return [Placed(k, c, fnum) for k, c in cells.items()]


def clockwise(tri: F64) -> F64:
    """The three corners ordered clockwise in the image (y down), starting from the top-most."""
    c = tri.mean(axis=0)
    ang = np.arctan2(tri[:, 1] - c[1], tri[:, 0] - c[0])
    t = tri[np.argsort(ang)]
    start = int(np.argmin(t[:, 1]))
    return np.roll(t, -start, axis=0)

