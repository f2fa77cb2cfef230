"""Placement legality, T-P1 to T-P7: every rule a placement breaks, as ``Reason``s players can read."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.verdict import Reason

from .board import CENTRE, COL_OF, NAMES, NEIGHBOURS, ROW_OF, SIZE
from .runs import EMPTY, Run, runs_through
from .tiles import MAX_VALUE, VALUE_COUNTS, WILDS

#: A tile on its way to the board: (square index, value, wild).
Tile = tuple[int, int, bool]


def names(squares: Sequence[int]) -> tuple[str, ...]:
    """Square names of indices, in board order."""
    return tuple(NAMES[s] for s in sorted(squares))


def label(value: int, wild: bool) -> str:
    """How a tile is written in a message: ``7`` or ``wild 7``."""
    return f"wild {value}" if wild else str(value)


def sum_text(run: Run, values: Sequence[int], wilds: Sequence[bool]) -> str:
    """``"7 + 9 = 16"`` for the run's tiles (wilds at their declared value, T-P4)."""
    total = sum(values[s] for s in run)
    return " + ".join(label(values[s], wilds[s]) for s in run) + f" = {total}"


def block_text(block: Sequence[int]) -> str:
    """``"F7–H9"``: a block of squares named by its corners."""
    return f"{NAMES[min(block)]}–{NAMES[max(block)]}"


# -- T-P1, T-P2, T-P3: where the tiles go -------------------------------------------------------
def geometry_reasons(values: Sequence[int], tiles: Sequence[Tile], rack_size: int, holder: str) -> list[Reason]:
    """T-P1 (1–3 tiles, no more than the rack holds, empty squares, one line) and T-P2 (no gap)."""
    squares = sorted(t[0] for t in tiles)
    reasons: list[Reason] = []
    if len(tiles) > 3:
        reasons.append(Reason("T-P1", "too_many_tiles",
                              f"{len(tiles)} tiles in one placement: a player places 1 to 3 tiles", names(squares)))
    elif len(tiles) > rack_size:
        reasons.append(Reason("T-P1", "more_than_rack",
                              f"{holder} holds {rack_size} tile{'s' if rack_size != 1 else ''}: "
                              f"a placement of {len(tiles)} is impossible", names(squares)))
    taken = [s for s in squares if values[s] != EMPTY]
    if taken:
        reasons.append(Reason("T-P1", "square_taken",
                              f"{', '.join(names(taken))} {'is' if len(taken) == 1 else 'are'} already covered",
                              names(taken)))
    rows = {ROW_OF[s] for s in squares}
    cols = {COL_OF[s] for s in squares}
    if len(rows) > 1 and len(cols) > 1:
        reasons.append(Reason("T-P1", "not_in_line",
                              "the tiles of one placement must lie in one row or one column", names(squares)))
    if reasons:
        return reasons
    step = 1 if len(rows) == 1 else SIZE
    placed = set(squares)
    gaps = [s for s in range(squares[0], squares[-1] + 1, step) if s not in placed and values[s] == EMPTY]
    if gaps:
        reasons.append(Reason("T-P2", "gap_in_line",
                              f"{', '.join(names(gaps))} between the placed tiles {'is' if len(gaps) == 1 else 'are'}"
                              " empty: the tiles must form one unbroken line", names(gaps)))
    return reasons


def contact_reasons(values: Sequence[int], squares: Sequence[int], board_empty: bool) -> list[Reason]:
    """T-P3: the first placement covers H8; later ones touch a tile already on the board."""
    if board_empty:
        if CENTRE not in squares:
            return [Reason("T-P3", "first_not_on_centre",
                           "the game's first placement must cover the centre square H8", names(squares))]
        return []
    if any(values[n] != EMPTY for s in squares for n in NEIGHBOURS[s]):
        return []
    return [Reason("T-P3", "not_touching",
                   "at least one placed tile must touch (side by side, not diagonally) a tile already on the board",
                   names(squares))]


# -- T-P4: runs ------------------------------------------------------------------------------
def run_reasons(after: Sequence[int], wilds_after: Sequence[bool], squares: Sequence[int]) -> list[Reason]:
    """T-P4 for the board ``after`` the placement: runs of ≤ 3, pairs ≤ 15, trios exactly 15."""
    reasons: list[Reason] = []
    for _horizontal, run in runs_through(after, squares):
        cells = names(run)
        if len(run) > 3:
            reasons.append(Reason("T-P4", "run_too_long",
                                  f"{len(run)} tiles side by side ({cells[0]}–{cells[-1]}): "
                                  "at most 3 tiles may stand side by side", cells))
            continue
        total = sum(after[s] for s in run)
        if len(run) == 2 and total > MAX_VALUE:
            reasons.append(Reason("T-P4", "pair_over_15",
                                  f"{sum_text(run, after, wilds_after)}: two tiles side by side may total at most 15",
                                  cells))
        elif len(run) == 3 and total != MAX_VALUE:
            text = sum_text(run, after, wilds_after)
            reasons.append(Reason("T-P4", "trio_not_15",
                                  f"{text}: three tiles side by side must total exactly 15", cells))
    return reasons


# -- T-P5: filled blocks -----------------------------------------------------------------------
def _blocks_containing(size: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    out = []
    for s in range(SIZE * SIZE):
        r0, c0 = ROW_OF[s], COL_OF[s]
        out.append(tuple(
            tuple((top + dr) * SIZE + left + dc for dr in range(size) for dc in range(size))
            for top in range(max(0, r0 - size + 1), min(r0, SIZE - size) + 1)
            for left in range(max(0, c0 - size + 1), min(c0, SIZE - size) + 1)))
    return tuple(out)


#: For block size 2 and 3: the blocks holding each square.
BLOCKS = {2: _blocks_containing(2), 3: _blocks_containing(3)}


#: The same blocks as bit masks over the 225 squares (bit ``i`` = square ``i``), for fast tests.
BLOCK_MASKS = {size: tuple(tuple(sum(1 << b for b in block) for block in per_square) for per_square in blocks)
               for size, blocks in BLOCKS.items()}


def fills_block(occupied: int, squares: Sequence[int], size: int) -> bool:
    """Whether the occupancy mask ``occupied`` (after a placement) fills a ``size``×``size`` block
    holding one of ``squares``."""
    masks = BLOCK_MASKS[size]
    for s in squares:
        for m in masks[s]:
            if occupied & m == m:
                return True
    return False


def filled_blocks(after: Sequence[int], squares: Sequence[int], size: int) -> list[tuple[int, ...]]:
    """Every completely filled ``size``×``size`` block holding a placed square."""
    found: list[tuple[int, ...]] = []
    for s in squares:
        # a filled block through s covers at least two of its orthogonal neighbours
        if sum(1 for n in NEIGHBOURS[s] if after[n] != EMPTY) < 2:
            continue
        for block in BLOCKS[size][s]:
            if block not in found and all(after[b] != EMPTY for b in block):
                found.append(block)
    return found


def block_reasons(after: Sequence[int], squares: Sequence[int], opening: bool) -> list[Reason]:
    """T-P5: no filled 3×3 block ever; no filled 2×2 block during the opening round."""
    reasons = [Reason("T-P5", "filled_3x3",
                      f"this fills the 3×3 block {block_text(b)}: no 3×3 block may be completely filled", names(b))
               for b in filled_blocks(after, squares, 3)]
    if opening:
        reasons.extend(Reason("T-P5", "filled_2x2_opening",
                              f"this fills the 2×2 block {block_text(b)}: during the opening round "
                              "no 2×2 block may be completely filled", names(b))
                       for b in filled_blocks(after, squares, 2))
    return reasons


# -- T-P6, T-P7: wilds and tile counts ---------------------------------------------------------
def wild_reasons(tiles: Sequence[Tile]) -> list[Reason]:
    """T-P6: one placement holds at most one wild."""
    wild_squares = [t[0] for t in tiles if t[2]]
    if len(wild_squares) > 1:
        return [Reason("T-P6", "two_wilds", "both wilds in one placement: a turn may place only one wild",
                       names(wild_squares))]
    return []


def count_reasons(board_counts: Sequence[int], board_wilds: int, tiles: Sequence[Tile]) -> list[Reason]:
    """T-P7: no value on the board more often than T-B3 allows; at most 2 wilds (a misread)."""
    reasons: list[Reason] = []
    by_value: dict[int, list[int]] = {}
    wild_squares: list[int] = []
    for s, v, w in tiles:
        if w:
            wild_squares.append(s)
        else:
            by_value.setdefault(v, []).append(s)
    for v, squares in sorted(by_value.items()):
        have = board_counts[v]
        if have + len(squares) > VALUE_COUNTS[v]:
            reasons.append(Reason("T-P7", "too_many_of_value",
                                  f"the game has only {VALUE_COUNTS[v]} tile{'s' if VALUE_COUNTS[v] > 1 else ''} "
                                  f"showing {v} and {have} {'is' if have == 1 else 'are'} on the board already: "
                                  "this reading must be wrong", names(squares)))
    if wild_squares and board_wilds + len(wild_squares) > WILDS:
        reasons.append(Reason("T-P7", "too_many_wilds",
                              f"the game has only {WILDS} wilds and {board_wilds} {'is' if board_wilds == 1 else 'are'}"
                              " on the board already: this reading must be wrong", names(wild_squares)))
    return reasons
