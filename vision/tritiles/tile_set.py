"""Decoding every tile of a picture at once: the set holds each triple once (M-B1, D-B1).

A table shows at most one tile of each of the 56 triples ``a ≤ b ≤ c``. Tiles decoded one by one
(``values.decode_tile``) can come out as the same triple when one of them is misread; decoded
together, each tile takes the triple and turn that make the whole table most likely with no triple
twice (an assignment solved exactly, ``min_cost_assignment``). A tile left on its own best reading
keeps the confidence ``decode_tile`` gives it (its margin over every other reading); a tile moved
off it gets its margin over the readings still free for it, at most ``MOVED_CONFIDENCE``: flagged.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from .values import valid_triples

F64 = NDArray[np.float64]
#: Highest confidence of a tile whose reading the one-of-each rule changed.
MOVED_CONFIDENCE = 0.5
Triple = tuple[int, int, int]


@lru_cache(maxsize=1)
def tile_kinds() -> tuple[tuple[int, int, int], ...]:
    """The 56 tiles of the set (M-B1), as sorted triples."""
    return tuple(sorted({tuple(sorted(t)) for t in valid_triples()}))  # type: ignore[misc]


def min_cost_assignment(cost: F64) -> list[int]:
    """For an (n, m) cost matrix with n ≤ m, the column of each row in a one-to-one assignment of
    least total cost (the Hungarian method with potentials, O(n²m))."""
    n, m = cost.shape
    if n > m:
        raise ValueError("more rows than columns")
    inf = float("inf")
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    owner = np.zeros(m + 1, dtype=np.int64)  # row (1-based) holding each column; 0 = free
    way = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = np.full(m + 1, inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = owner[j0]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            cand = np.where(free, minv[1:], inf)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            u[owner[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = int(way[j0])
            owner[j0] = owner[j1]
            j0 = j1
    out = [0] * n
    for j in range(1, m + 1):
        if owner[j]:
            out[int(owner[j]) - 1] = j - 1
    return out


def best_turns(scores: list[F64]) -> tuple[F64, list[Triple]]:
    """Per tile kind (``tile_kinds``), the score of its best clockwise turn given one tile's corner
    scores (3 × 6 log-likelihoods), and that turn."""
    kinds = tile_kinds()
    best = np.full(len(kinds), -np.inf)
    turn: list[Triple] = [(0, 0, 0)] * len(kinds)
    index = {k: i for i, k in enumerate(kinds)}
    for t in valid_triples():
        s = float(scores[0][t[0]] + scores[1][t[1]] + scores[2][t[2]])
        i = index[tuple(sorted(t))]  # type: ignore[index]
        if s > best[i]:
            best[i], turn[i] = s, t
    return best, turn


def _confidence(margin: float) -> float:
    return float(1.0 - math.exp(-max(margin, 0.0) / 2.0))


def decode_table(scores: list[list[F64]]) -> list[tuple[Triple, float]]:
    """Each tile's clockwise triple and confidence, no triple twice on the table (M-B1). More
    tiles than the set holds (false tiles among them) are decoded one by one."""
    if not scores:
        return []
    rows = [best_turns(s) for s in scores]
    table = np.array([r[0] for r in rows])
    n, m = table.shape
    if n > m:
        picks = [int(np.argmax(r)) for r in table]
    else:
        picks = min_cost_assignment(-(table - table.max(axis=1, keepdims=True)))
    taken = np.zeros(m, dtype=bool)
    taken[picks] = True
    out: list[tuple[Triple, float]] = []
    for k, j in enumerate(picks):
        moved = j != int(np.argmax(table[k]))
        others = ~taken if moved else np.ones(m, dtype=bool)
        others[j] = False
        # the other turns of the chosen kind are rivals too
        own = [float(scores[k][0][t[0]] + scores[k][1][t[1]] + scores[k][2][t[2]])
               for t in valid_triples() if tuple(sorted(t)) == tile_kinds()[j] and t != rows[k][1][j]]
        rivals = [*table[k][others].tolist(), *own]
        conf = _confidence(table[k, j] - max(rivals) if rivals else 10.0)
        out.append((rows[k][1][j], min(conf, MOVED_CONFIDENCE) if moved else conf))
    return out
