"""The pieces on the board as bit sets, with per-colour state kept up to date move by move.

This is the fast core of the rules (B-L1..B-L3, B-L5, B-L6): which placements a colour may make
now. It knows nothing of turns, passes or players; :mod:`engine.trigon.state` adds those.
"""

from __future__ import annotations

from collections.abc import Iterator

from .pieces import MONOMINO, PIECE_COUNT, all_pieces
from .placements import PlacementTable, straight_rings

_ALL_PIECES = (1 << PIECE_COUNT) - 1


class Position:
    """Occupied cells and, per colour (0-based): own cells, cells it may not cover, corner-contact
    cells, pieces used, and the first starting point taken."""

    __slots__ = ("alt_forbidden", "alternate_contact", "attach", "forbidden", "last_piece", "occupied", "own",
                 "partner", "start_taken", "straight", "table", "unused")

    def __init__(self, table: PlacementTable, colours: int, *, alternate_contact: bool = False,
                 partner: tuple[int | None, ...] | None = None) -> None:
        self.table = table
        self.occupied = 0
        self.own = [0] * colours
        #: cells the colour may not cover: occupied ones and those along its own edges (B-L1, B-L3)
        self.forbidden = [0] * colours
        #: free cells touching the colour's own pieces only at a corner (B-L3)
        self.attach = [0] * colours
        #: bit set of the pieces not yet placed
        self.unused = [_ALL_PIECES] * colours
        self.last_piece: list[int | None] = [None] * colours
        #: the starting point each colour's first piece covered
        self.start_taken: list[int | None] = [None] * colours
        #: B-L6: the colour whose first start this colour's first piece must mirror, if any
        self.partner: tuple[int | None, ...] = partner if partner is not None else (None,) * colours
        self.alternate_contact = alternate_contact
        self.straight: tuple[int, ...] = straight_rings(table.board.side) if alternate_contact else ()
        #: B-L5: cells next to a straight side of the colour's pieces, at a corner point
        self.alt_forbidden = [0] * colours

    @property
    def colours(self) -> int:
        return len(self.own)

    def copy(self) -> Position:
        new = Position.__new__(Position)
        new.table = self.table
        new.occupied = self.occupied
        new.own = self.own[:]
        new.forbidden = self.forbidden[:]
        new.attach = self.attach[:]
        new.unused = self.unused[:]
        new.last_piece = self.last_piece[:]
        new.start_taken = self.start_taken[:]
        new.partner = self.partner
        new.alternate_contact = self.alternate_contact
        new.straight = self.straight
        new.alt_forbidden = self.alt_forbidden[:]
        return new

    # -- where a colour may start ------------------------------------------------------------
    def allowed_starts(self, colour: int) -> int:
        """The starting points the colour's first piece may cover now (B-L2, B-L6).

        Under B-L6 a second colour must take the point opposite its partner's; if that point is
        already covered, any free starting point will do (house reading).
        """
        board = self.table.board
        free = board.start_mask & ~self.occupied
        partner = self.partner[colour]
        if partner is not None:
            taken = self.start_taken[partner]
            if taken is not None:
                mirror = 1 << board.opposite(taken)
                if mirror & free:
                    return mirror
        return free

    def contact_cells(self, colour: int) -> int:
        """Cells one of which a legal placement of the colour must cover (B-L2 or B-L3)."""
        if self.own[colour] == 0:
            return self.allowed_starts(colour)
        return self.attach[colour]

    # -- legal placements ---------------------------------------------------------------------
    def legal_masks(self, colour: int) -> list[int]:
        """The bit set of every legal placement of the colour, each distinct cell set once."""
        out: list[int] = []
        for masks, bad in self._candidates(colour):
            out.extend([m for m in masks if not m & bad])
        if self.alternate_contact:
            out = [m for m in out if self._alternate_ok(colour, m)]
        return out

    def count_legal(self, colour: int) -> int:
        """How many legal placements the colour has."""
        if self.alternate_contact:
            return len(self.legal_masks(colour))
        return sum(len([m for m in masks if not m & bad]) for masks, bad in self._candidates(colour))

    def _candidates(self, colour: int) -> Iterator[tuple[tuple[int, ...], int]]:
        """(placements of one unused piece over one contact cell, the cells they must avoid).

        A placement is found at its lowest contact cell only: lower contact cells are banned, so
        every distinct placement comes out once.
        """
        contact = self.contact_cells(colour)
        forbidden = self.forbidden[colour]
        unused = self.unused[colour]
        pieces = [p for p in range(PIECE_COUNT) if unused >> p & 1]
        by_cell_piece = self.table.by_cell_piece
        rest = contact
        while rest:
            low = rest & -rest
            rest ^= low
            bad = forbidden | (contact & (low - 1))
            lists = by_cell_piece[low.bit_length() - 1]
            for p in pieces:
                yield lists[p], bad

    def has_legal(self, colour: int) -> bool:
        """Whether the colour has any legal placement."""
        contact = self.contact_cells(colour)
        forbidden = self.forbidden[colour]
        unused = self.unused[colour]
        if not unused:
            return False
        pieces = [p for p in range(PIECE_COUNT) if unused >> p & 1]
        pieces.reverse()  # small pieces fit first
        by_cell_piece = self.table.by_cell_piece
        rest = contact
        while rest:
            low = rest & -rest
            rest ^= low
            lists = by_cell_piece[low.bit_length() - 1]
            for p in pieces:
                for m in lists[p]:
                    if not m & forbidden and (not self.alternate_contact or self._alternate_ok(colour, m)):
                        return True
        return False

    def _alternate_ok(self, colour: int, mask: int) -> bool:
        """B-L5: no corner of the new piece at an own straight side, and no own corner at its."""
        if mask & self.alt_forbidden[colour]:
            return False
        pid = self.table.index_of_mask[mask]
        return not self.straight[pid] & self.own[colour]

    # -- playing -------------------------------------------------------------------------------
    def play(self, colour: int, placement: int) -> None:
        """Put placement number ``placement`` on the board for the colour (no legality check)."""
        table = self.table
        m = table.masks[placement]
        piece = table.pieces[placement]
        if self.own[colour] == 0:
            starts = m & table.board.start_mask
            if starts:
                self.start_taken[colour] = (starts & -starts).bit_length() - 1
        self.occupied |= m
        for c in range(len(self.own)):
            self.forbidden[c] |= m
            self.attach[c] &= ~m
        self.own[colour] |= m
        self.forbidden[colour] |= table.edge_rings[placement]
        self.attach[colour] = (self.attach[colour] | table.corner_rings[placement]) & ~self.forbidden[colour]
        self.unused[colour] &= ~(1 << piece)
        self.last_piece[colour] = piece
        if self.alternate_contact:
            self.alt_forbidden[colour] |= self.straight[placement]

    # -- counting --------------------------------------------------------------------------------
    def triangles_left(self, colour: int) -> int:
        """Triangles of the colour's pieces not on the board."""
        return sum(p.size for p in all_pieces() if self.unused[colour] >> p.index & 1)

    def all_placed(self, colour: int) -> bool:
        return self.unused[colour] == 0

    def ended_with_monomino(self, colour: int) -> bool:
        return self.unused[colour] == 0 and self.last_piece[colour] == MONOMINO
