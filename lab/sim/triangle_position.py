"""Legal-looking Triominos / Trio Domino fields without the engine: tiles (a ≤ b ≤ c, M-B1) added
one at a time edge to edge, every shared corner showing the same number (M-P1)."""

from __future__ import annotations

import numpy as np

from engine.core.lattice import TriLattice

Cell = tuple[int, int]
LATTICE = TriLattice(up_parity=0)  # M-B2: cell (x, y) points up iff x + y is even


def all_tiles() -> list[tuple[int, int, int]]:
    """The 56 tiles of M-B1."""
    return [(a, b, c) for a in range(6) for b in range(a, 6) for c in range(b, 6)]


def rotations(t: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """The three clockwise readings of a tile printed ascending clockwise (never turned over)."""
    a, b, c = t
    return [(a, b, c), (b, c, a), (c, a, b)]


def grow_field(rng: np.random.Generator, n: int, pool: list[tuple[int, int, int]]
               ) -> list[tuple[Cell, tuple[int, int, int]]]:
    """One field of up to ``n`` tiles taken from ``pool`` (removed from it); values in M-B3 order."""
    if not pool:
        return []
    first = pool.pop(int(rng.integers(len(pool))))
    placed: dict[Cell, tuple[int, int, int]] = {(0, 0): rotations(first)[int(rng.integers(3))]}
    corner: dict[tuple[int, int], int] = dict(zip(LATTICE.vertices((0, 0)), placed[(0, 0)], strict=True))
    tries = 0
    while len(placed) < n and tries < n * 40 and pool:
        tries += 1
        frontier = sorted({nb for c in placed for nb in LATTICE.edge_neighbours(c) if nb not in placed})
        cell = frontier[int(rng.integers(len(frontier)))]
        verts = LATTICE.vertices(cell)
        # every corner touching a placed tile must match (M-P1)
        need = [corner.get(v) for v in verts]
        order = list(range(len(pool)))
        rng.shuffle(order)
        for i in order:
            hit = [r for r in rotations(pool[i]) if all(nv is None or nv == rv for nv, rv in zip(need, r, strict=True))]
            if hit:
                vals = hit[int(rng.integers(len(hit)))]
                placed[cell] = vals
                for v, val in zip(verts, vals, strict=True):
                    corner[v] = val
                pool.pop(i)
                break
    return list(placed.items())
