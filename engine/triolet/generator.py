"""Every legal placement for a rack, with its score: exactly the placements ``check`` accepts.

Candidate lines are windows of 1–3 squares through an anchor (an empty square beside a tile;
on an empty board, the centre). Each window is pruned by run length (T-P4) and filled blocks
(T-P5) before any value is tried; values are then limited per square by the crossing run's
sum (a pair totals ≤ 15, a trio exactly 15) and by the line's own sum.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import permutations, product
from typing import TYPE_CHECKING

from engine.core.verdict import ScoreItem

from .board import CENTRE, NAMES, NEIGHBOURS, RAYS, WINDOWS_THROUGH
from .events import Place, PlacedTile
from .rack import check_rack
from .rules import fills_block
from .runs import EMPTY
from .scoring import score_placement
from .tiles import MAX_VALUE, RACK_SIZE, VALUE_COUNTS, WILD, WILDS

if TYPE_CHECKING:
    from .state import TrioletState

ALL_VALUES = tuple(range(MAX_VALUE + 1))


def _windows(values: Sequence[int], board_empty: bool) -> list[tuple[bool, tuple[int, ...]]]:
    """Candidate lines ``(horizontal, squares)`` whose end squares are empty and that hold an anchor."""
    if board_empty:
        anchors = [CENTRE]
    else:
        anchors = [s for s, v in enumerate(values)
                   if v == EMPTY and any(values[n] != EMPTY for n in NEIGHBOURS[s])]
    found: set[tuple[bool, tuple[int, ...]]] = set()
    for a in anchors:
        for w in WINDOWS_THROUGH[a]:
            squares = w[1]
            if values[squares[0]] == EMPTY and values[squares[-1]] == EMPTY:
                found.add(w)
    return sorted(found, key=lambda w: (w[1], not w[0]))


def _side(values: Sequence[int], square: int, horizontal: bool, forward: bool) -> tuple[int, int]:
    """(count, sum) of the occupied squares next to ``square`` going one way along a line.

    Counting stops after 3: a longer run is illegal whatever the count.
    """
    count = total = 0
    for s in RAYS[horizontal][forward][square]:
        v = values[s]
        if v == EMPTY or count == 3:
            break
        count += 1
        total += v
    return count, total


def _allowed(values: Sequence[int], square: int, horizontal: bool) -> tuple[int, ...] | None:
    """Values a tile on ``square`` may take given its crossing run (``None``: no value fits)."""
    b_count, b_sum = _side(values, square, not horizontal, False)
    a_count, a_sum = _side(values, square, not horizontal, True)
    length = 1 + b_count + a_count
    existing = b_sum + a_sum
    if length == 1:
        return ALL_VALUES
    if length == 2:
        hi = MAX_VALUE - existing
        return tuple(range(hi + 1)) if hi >= 0 else None
    if length == 3:
        need = MAX_VALUE - existing
        return (need,) if 0 <= need <= MAX_VALUE else None
    return None


def generate(state: TrioletState, rack: object) -> Iterator[tuple[Place, tuple[ScoreItem, ...]]]:
    """Every legal placement of tiles from ``rack`` for the player to move, with its breakdown.

    ``rack`` holds values 0–15 and ``"W"`` (a wild: every declared value is tried). Placements
    are distinct (two equal rack tiles give one placement); tiles are listed in board order.
    """
    tiles_in_rack = check_rack(rack)
    if state.end_rule is not None:
        return
    seat = state.player
    held = state.racks[seat]
    if len(tiles_in_rack) > held:
        raise ValueError(f"{state.name(seat)} holds {held} tile{'s' if held != 1 else ''}, "
                         f"but the rack names {len(tiles_in_rack)}")
    k_max = min(len(tiles_in_rack), RACK_SIZE)
    values = state.values
    counts = state.board_counts
    wilds_left = WILDS - state.board_wilds
    opening = state.opening
    label_sets: dict[int, list[tuple[int | str, ...]]] = {
        k: sorted((lab for lab in set(permutations(tiles_in_rack, k)) if lab.count(WILD) <= 1), key=str)  # T-P6
        for k in range(1, k_max + 1)
    }
    scratch = (list(values), list(state.wilds))
    occupied = sum(1 << s for s, v in enumerate(values) if v != EMPTY)
    for horizontal, window in _windows(values, state.board_empty):
        placed = [s for s in window if values[s] == EMPTY]
        k = len(placed)
        if k > k_max:
            continue
        before_n, before_sum = _side(values, window[0], horizontal, False)
        after_n, after_sum = _side(values, window[-1], horizontal, True)
        run_len = len(window) + before_n + after_n
        if run_len > 3:
            continue
        line_existing = before_sum + after_sum + sum(values[s] for s in window if values[s] != EMPTY)
        allowed: list[tuple[int, ...]] = []
        for s in placed:
            a = _allowed(values, s, horizontal)
            if a is None:
                break
            allowed.append(a)
        if len(allowed) < k:
            continue
        occ = occupied
        for s in placed:
            occ |= 1 << s
        if fills_block(occ, placed, 3) or (opening and fills_block(occ, placed, 2)):
            continue
        yield from _assign(seat, placed, allowed, label_sets[k], run_len, line_existing, counts, wilds_left, scratch)
        for s in placed:
            scratch[0][s] = EMPTY
            scratch[1][s] = False


def _assign(seat: int, placed: list[int], allowed: list[tuple[int, ...]], labels: list[tuple[int | str, ...]],
            run_len: int, line_existing: int, counts: Sequence[int], wilds_left: int,
            scratch: tuple[list[int], list[bool]]) -> Iterator[tuple[Place, tuple[ScoreItem, ...]]]:
    """Every value assignment of rack tiles to ``placed`` that keeps the line and the counts legal.

    ``scratch`` is a copy of the board (values, wild flags) the placed tiles are written into.
    """
    after, wilds_after = scratch
    seen: set[tuple[tuple[int, bool], ...]] = set()
    for label in labels:
        options: list[list[tuple[int, bool]]] = []
        for t, ok in zip(label, allowed, strict=True):
            if t == WILD:
                options.append([(v, True) for v in ok])
            elif t in ok:
                options.append([(int(t), False)])
            else:
                break
        if len(options) < len(label):
            continue
        for combo in product(*options):
            total = line_existing + sum(v for v, _w in combo)
            if (run_len == 2 and total > MAX_VALUE) or (run_len == 3 and total != MAX_VALUE):
                continue
            if combo in seen:
                continue
            if not _counts_ok(combo, counts, wilds_left):
                continue
            seen.add(combo)
            for s, (v, w) in zip(placed, combo, strict=True):
                after[s] = v
                wilds_after[s] = w
            items = score_placement(after, wilds_after, placed)
            tiles = tuple(PlacedTile(NAMES[s], v, w) for s, (v, w) in zip(placed, combo, strict=True))
            yield Place(player=seat, tiles=tiles), items


def _counts_ok(combo: Sequence[tuple[int, bool]], counts: Sequence[int], wilds_left: int) -> bool:
    """T-P7: the placement leaves no value on the board more often than the set holds."""
    wild_n = 0
    used: dict[int, int] = {}
    for v, w in combo:
        if w:
            wild_n += 1
        else:
            used[v] = used.get(v, 0) + 1
    if wild_n > wilds_left:
        return False
    return all(counts[v] + n <= VALUE_COUNTS[v] for v, n in used.items())
