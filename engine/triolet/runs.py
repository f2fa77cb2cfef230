"""Runs: maximal horizontal or vertical lines of occupied squares through a placed tile (T-P4, T-S1).

A board is a flat list of 225 values, ``-1`` for an empty square.
"""

from __future__ import annotations

from collections.abc import Sequence

from .board import COL_OF, ROW_OF, SIZE

EMPTY = -1
Run = tuple[int, ...]


def run_along(values: Sequence[int], index: int, horizontal: bool) -> Run:
    """The maximal run of occupied squares through ``index`` (itself occupied), in board order."""
    if horizontal:
        step, pos, limit = 1, COL_OF[index], SIZE - 1
    else:
        step, pos, limit = SIZE, ROW_OF[index], SIZE - 1
    lo, p = index, pos
    while p > 0 and values[lo - step] != EMPTY:
        lo -= step
        p -= 1
    hi, p = index, pos
    while p < limit and values[hi + step] != EMPTY:
        hi += step
        p += 1
    return tuple(range(lo, hi + 1, step))


def main_axis_horizontal(squares: Sequence[int]) -> bool:
    """Whether the placement's own line is a row (a single tile counts as lying in its row)."""
    if len(squares) < 2:
        return True
    return len({ROW_OF[s] for s in squares}) == 1


def runs_through(values: Sequence[int], placed: Sequence[int]) -> list[tuple[bool, Run]]:
    """Every run of 2 or more squares holding a placed square, as ``(horizontal, squares)``.

    ``values`` is the board after the placement. The runs along the placement's own line come
    first, then the crossing runs in board order of their placed square.
    """
    order = sorted(placed)
    main = main_axis_horizontal(order)
    out: list[tuple[bool, Run]] = []
    seen: set[Run] = set()
    for horizontal in (main, not main):
        for s in order:
            run = run_along(values, s, horizontal)
            if len(run) >= 2 and run not in seen:
                seen.add(run)
                out.append((horizontal, run))
    return out
