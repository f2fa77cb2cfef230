"""Decoding every tile of a picture at once: the set holds each triple once (M-B1, D-B1).

A table shows at most one tile of each of the 56 triples ``a ≤ b ≤ c``. Tiles decoded one by one
(``values.decode_tile``) can come out as the same triple when one of them is misread; decoded
together, each tile takes the triple and turn that make the whole table most likely with no triple
twice (an assignment solved exactly, ``min_cost_assignment``). A tile left on its own best reading
keeps the confidence ``decode_tile`` gives it (its margin over every other reading); a tile moved
off it gets its margin over the readings still free for it, at most ``MOVED_CONFIDENCE``: flagged.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from vision.read.tritiles.values import decode_tile, margin_confidence, valid_triples

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


@lru_cache(maxsize=1)
def _turns() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every clockwise reading M-B1 allows (``valid_triples``, 3 columns) and its kind (index in
    ``tile_kinds``)."""
    index = {k: i for i, k in enumerate(tile_kinds())}
    turns = np.array(valid_triples(), np.int64)
    return turns, np.array([index[tuple(sorted(t))] for t in valid_triples()], np.int64)  # type: ignore[index]


def decode_table(scores: list[list[F64]]) -> list[tuple[Triple, float]]:
    """Each tile's clockwise triple and confidence, no triple twice on the table (M-B1). More
    tiles than the set holds (false tiles among them) are decoded one by one."""
    n, m = len(scores), len(tile_kinds())
    if n == 0 or n > m:
        return [decode_tile(s) for s in scores]
    turns, kind_of = _turns()
    # every tile's score for every turn, and for every kind its best turn's
    ts = np.array([s[0][turns[:, 0]] + s[1][turns[:, 1]] + s[2][turns[:, 2]] for s in scores])
    table = np.full((n, m), -np.inf)
    np.maximum.at(table, (np.arange(n)[:, None], kind_of[None, :]), ts)
    picks = min_cost_assignment(-(table - table.max(axis=1, keepdims=True)))
    taken = np.zeros(m, dtype=bool)
    taken[picks] = True
    out: list[tuple[Triple, float]] = []
    for k, j in enumerate(picks):
        if j == int(np.argmax(table[k])):  # left on its own best reading
            out.append(decode_tile(scores[k]))
            continue
        turn = int(np.argmax(np.where(kind_of == j, ts[k], -np.inf)))
        # rivals: the turns of the kinds still free, the chosen kind's other turns among them
        free = ~taken[kind_of] | (kind_of == j)
        free[turn] = False
        margin = float(ts[k, turn] - ts[k][free].max()) if free.any() else 10.0
        a, b, c = (int(v) for v in turns[turn])
        out.append(((a, b, c), min(margin_confidence(margin), MOVED_CONFIDENCE)))
    return out
