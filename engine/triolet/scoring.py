"""Scoring a legal placement, T-S1 to T-S6: pairs, trios, premium squares and the Triolet bonus."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.verdict import Multiplier, ScoreItem

from .board import FACTOR, NAMES
from .runs import Run, runs_through
from .tiles import point_value

TRIO_POINTS = 30  # 15 + 15 bonus (T-S3)
TRIOLET_BONUS = 50  # T-S5


def _pair_detail(run: Run, after: Sequence[int], wilds_after: Sequence[bool], square: int | None, factor: int) -> str:
    parts = []
    for s in run:
        text = "0 (wild)" if wilds_after[s] else str(after[s])
        if s == square:
            text += f"×{factor}"
        parts.append(text)
    total = sum(point_value(after[s], wilds_after[s]) * (factor if s == square else 1) for s in run)
    return " + ".join(parts) + f" = {total}"


def _trio_detail(run: Run, after: Sequence[int], wilds_after: Sequence[bool], factor: int) -> str:
    text = " + ".join(f"{after[s]} (wild)" if wilds_after[s] else str(after[s]) for s in run)
    text += f" = 15: trio {TRIO_POINTS}"
    if factor > 1:
        text += f" ×{factor} = {TRIO_POINTS * factor}"
    return text


def _gain(run: Run, square: int, factor: int, after: Sequence[int], wilds_after: Sequence[bool]) -> int:
    """What the multiplier adds if it goes to ``run`` (T-S4)."""
    if len(run) == 3:
        return TRIO_POINTS * (factor - 1)
    return point_value(after[square], wilds_after[square]) * (factor - 1)


def score_placement(after: Sequence[int], wilds_after: Sequence[bool], placed: Sequence[int]) -> tuple[ScoreItem, ...]:
    """The breakdown of a legal placement; ``after``/``wilds_after`` are the board once it is made.

    T-S1 every run of 2–3 through a placed tile scores; T-S2 a pair its point values (wild 0);
    T-S3 a trio 30; T-S4 a premium square's factor goes to the one run it gains most in (ties:
    the placement's own line first, a single tile's row before its column); T-S5 +50 for three
    placed tiles without a wild; T-S6 no run, no points.
    """
    runs = [run for _h, run in runs_through(after, placed) if len(run) <= 3]
    chosen: dict[Run, tuple[int, int]] = {}
    for s in sorted(placed):
        factor = FACTOR.get(s)
        if factor is None:
            continue
        best: Run | None = None
        best_gain = -1
        for run in runs:
            if s in run and run not in chosen:
                g = _gain(run, s, factor, after, wilds_after)
                if g > best_gain:
                    best, best_gain = run, g
        if best is not None:
            chosen[best] = (s, factor)
    items: list[ScoreItem] = []
    triolet = len(placed) == 3 and not any(wilds_after[s] for s in placed)
    for run in runs:
        square, factor = chosen.get(run, (-1, 1))
        mult = Multiplier(NAMES[square], factor, "T-S4") if square >= 0 else None
        cells = tuple(NAMES[s] for s in run)
        if len(run) == 3:
            items.append(ScoreItem("trio", TRIO_POINTS * factor, "T-S3", cells, mult,
                                   detail=_trio_detail(run, after, wilds_after, factor)))
            if triolet and set(run) == set(placed):
                items.append(ScoreItem("triolet_bonus", TRIOLET_BONUS, "T-S5", cells,
                                       detail="three tiles placed at once, no wild: +50, never multiplied"))
        else:
            points = sum(point_value(after[s], wilds_after[s]) * (factor if s == square else 1) for s in run)
            items.append(ScoreItem("pair", points, "T-S2", cells, mult,
                                   detail=_pair_detail(run, after, wilds_after, square, factor)))
    return tuple(items)
