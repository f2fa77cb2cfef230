"""What judging a placement shares across the Blokus family: the judgement itself and the words
for cells that form no piece or belong to another colour."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.core.verdict import Reason

from .position import Position


@dataclass(frozen=True)
class Judgement:
    """The placement number (``None`` if the cells form no piece) and every rule broken."""

    placement: int | None
    reasons: tuple[Reason, ...]

    @property
    def legal(self) -> bool:
        return not self.reasons


class EdgeBoard(Protocol):
    """A board's cell names and the cells sharing an edge with each cell."""

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def edge_neighbours(self) -> tuple[tuple[int, ...], ...]: ...


class NamedBoard(EdgeBoard, Protocol):
    """A board whose cells are found by name and gathered into bit sets."""

    @property
    def index_of_name(self) -> dict[str, int]: ...

    def mask_of(self, cells: list[int]) -> int: ...


@dataclass(frozen=True)
class PieceWords:
    """How a game speaks of its pieces: the cell noun, the largest piece, how cells join, the set."""

    noun: str
    largest: int
    joined: str
    piece_count: int


def locate(pos: Position, board: NamedBoard, names: tuple[str, ...], rule: str, words: PieceWords,
           where: str) -> Judgement | tuple[int, int]:
    """The placement number and cell bit set of the named cells, or the judgement (under ``rule``)
    that some are off the board (``where`` names the board) or that together they form no piece."""
    off = [n for n in names if n not in board.index_of_name]
    if off:
        what = words.noun if len(off) == 1 else f"{words.noun}s"
        return Judgement(None, (Reason(rule, "off_board", f"{', '.join(off)}: {what} not on the {where}",
                                       tuple(off)),))
    cells = [board.index_of_name[n] for n in names]
    mask = board.mask_of(cells)
    pid = pos.table.index_of_mask.get(mask)
    if pid is None:
        return Judgement(None, (Reason(rule, "not_a_piece", not_a_piece_message(board, cells, words), names),))
    return pid, mask


def not_a_piece_message(board: EdgeBoard, cells: list[int], words: PieceWords) -> str:
    """Why the cells form no piece: too many, not joined (in groups), or no piece's shape."""
    if len(cells) > words.largest:
        return f"{len(cells)} {words.noun}s: a piece has 1 to {words.largest}"
    groups = edge_groups(board, cells)
    if len(groups) > 1:
        parts = " | ".join(", ".join(board.names[c] for c in g) for g in groups)
        return f"the {words.noun}s are not joined {words.joined} ({parts})"
    return f"these {len(cells)} {words.noun}s form none of the {words.piece_count} pieces"


def edge_groups(board: EdgeBoard, cells: list[int]) -> list[list[int]]:
    """The cells split into groups joined edge to edge, each sorted, smallest first."""
    left = set(cells)
    groups = []
    while left:
        stack = [min(left)]
        left.discard(stack[0])
        group = []
        while stack:
            c = stack.pop()
            group.append(c)
            for n in board.edge_neighbours[c]:
                if n in left:
                    left.discard(n)
                    stack.append(n)
        groups.append(sorted(group))
    return groups


def owner_name(pos: Position, colours: Sequence[str], cell: int) -> str:
    """The colour covering the cell, or "another piece"."""
    for c, own in enumerate(pos.own):
        if own >> cell & 1:
            return colours[c]
    return "another piece"
