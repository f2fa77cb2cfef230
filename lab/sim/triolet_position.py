"""Legal-looking Triolet positions without the engine: tiles added one at a time so that every
run stays legal (T-P4), no 3×3 block fills (T-P5), counts respect T-B3, play starts on H8 (T-P3)."""

from __future__ import annotations

import numpy as np

TILE_COUNTS = {0: 9, 1: 9, 2: 8, 3: 8, 4: 7, 5: 8, 6: 6, 7: 6, 8: 4, 9: 4, 10: 3, 11: 3, 12: 2, 13: 2, 14: 1, 15: 1}
COLUMNS = "ABCDEFGHIJKLMNO"

Board = dict[tuple[int, int], tuple[int, bool]]  # (col, row) -> (value, wild)


def _runs_ok(board: Board, c: int, r: int) -> bool:
    """T-P4 for the runs through (c, r)."""
    for dc, dr in ((1, 0), (0, 1)):
        cells = [(c, r)]
        x, y = c - dc, r - dr
        while (x, y) in board:
            cells.append((x, y))
            x, y = x - dc, y - dr
        x, y = c + dc, r + dr
        while (x, y) in board:
            cells.append((x, y))
            x, y = x + dc, y + dr
        if len(cells) > 3:
            return False
        total = sum(board[p][0] for p in cells)
        if len(cells) == 2 and total > 15:
            return False
        if len(cells) == 3 and total != 15:
            return False
    return True


def _block_ok(board: Board, c: int, r: int) -> bool:
    """T-P5: no completely filled 3×3 block containing (c, r)."""
    for x0 in range(c - 2, c + 1):
        for y0 in range(r - 2, r + 1):
            if all((x, y) in board for x in range(x0, x0 + 3) for y in range(y0, y0 + 3)):
                return False
    return True


def random_position(rng: np.random.Generator, n_tiles: int, wild_prob: float = 0.5) -> list[tuple[str, int, bool]]:
    """About ``n_tiles`` tiles as ``(square, value, wild)``; a wild's value is its declared value."""
    board: Board = {}
    left = dict(TILE_COUNTS)
    wilds = 2 if rng.random() < wild_prob else int(rng.integers(0, 2))
    attempts = 0
    while len(board) < n_tiles and attempts < n_tiles * 60:
        attempts += 1
        if not board:
            cand = (7, 7)
        else:
            frontier = sorted({(x + dx, y + dy) for (x, y) in board for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                               if 0 <= x + dx < 15 and 0 <= y + dy < 15 and (x + dx, y + dy) not in board})
            if not frontier:
                break
            cand = frontier[int(rng.integers(len(frontier)))]
        values = [v for v, k in left.items() if k > 0]
        rng.shuffle(values)
        use_wild = wilds > 0 and rng.random() < 0.08
        for v in values + ([int(rng.integers(0, 16))] if use_wild else []):
            board[cand] = (v, False)
            if _runs_ok(board, *cand) and _block_ok(board, *cand):
                break
            del board[cand]
        else:
            continue
        value = board[cand][0]
        if (use_wild and left.get(value, 0) > 0 and rng.random() < 0.5) or left.get(value, 0) == 0:
            board[cand] = (value, True)
            wilds -= 1
        else:
            left[value] -= 1
    ordered = sorted(board.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    return [(f"{COLUMNS[c]}{r + 1}", v, w) for (c, r), (v, w) in ordered]
