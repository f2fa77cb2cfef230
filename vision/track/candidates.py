"""Joint readings of several cells, most probable first (the basis of the legal-reading preference)."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence

from vision.track.observer import EMPTY, CellRead

Combo = tuple[tuple[str, str], ...]  # ((cell, token), ...)


def tile_candidates(read: CellRead, keep: int = 4, floor: float = 0.005) -> list[tuple[str, float]]:
    """A cell's non-empty candidates renormalised (the cell is known to hold a tile)."""
    tiles = [(t, p) for t, p in read.candidates if t != EMPTY and p >= floor]
    total = sum(p for _t, p in tiles)
    if total <= 0:
        return []
    return [(t, p / total) for t, p in tiles[:keep]]


def joint_readings(reads: Sequence[CellRead], limit: int = 200) -> Iterator[tuple[Combo, float]]:
    """Every combination of the cells' tile candidates, by decreasing joint probability."""
    lists = [tile_candidates(r) for r in reads]
    if not reads or any(not lst for lst in lists):
        return
    cells = [r.cell for r in reads]

    def prob(idx: tuple[int, ...]) -> float:
        p = 1.0
        for lst, i in zip(lists, idx, strict=True):
            p *= lst[i][1]
        return p

    start = tuple(0 for _ in lists)
    heap: list[tuple[float, tuple[int, ...]]] = [(-prob(start), start)]
    seen = {start}
    produced = 0
    while heap and produced < limit:
        neg, idx = heapq.heappop(heap)
        yield tuple((c, lst[i][0]) for c, lst, i in zip(cells, lists, idx, strict=True)), -neg
        produced += 1
        for k in range(len(idx)):
            if idx[k] + 1 < len(lists[k]):
                nxt = (*idx[:k], idx[k] + 1, *idx[k + 1:])
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (-prob(nxt), nxt))
