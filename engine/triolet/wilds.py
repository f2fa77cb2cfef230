"""Wild inference for the camera: which declared values keep every run of a placement legal (T-P4, T-P6)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .board import INDEX
from .rules import run_reasons
from .tiles import MAX_VALUE

if TYPE_CHECKING:
    from .state import TrioletState


def wild_candidates(state: TrioletState, tiles: Sequence[tuple[str, int | None, bool]]) -> list[int]:
    """The values 0–15 a wild read without a value could have been declared as.

    ``tiles`` is the placement as read: ``(square, value, wild)`` with ``value`` ``None`` for
    exactly one tile (the wild). A value is a candidate when every run through the placement
    stays legal (T-P4); in a run of three the value is therefore fixed (15 minus the others).
    """
    unknown = [n for n, t in enumerate(tiles) if t[1] is None]
    if len(unknown) != 1:
        raise ValueError("exactly one tile of the placement must have an unknown value")
    squares = [INDEX[t[0]] for t in tiles]
    after = list(state.values)
    wilds_after = list(state.wilds)
    for (_sq, value, wild), s in zip(tiles, squares, strict=True):
        after[s] = 0 if value is None else value
        wilds_after[s] = wild
    target = squares[unknown[0]]
    out = []
    for v in range(MAX_VALUE + 1):
        after[target] = v
        if not run_reasons(after, wilds_after, squares):
            out.append(v)
    return out
