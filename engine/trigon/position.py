"""The pieces on a Trigon board as bit sets, with per-colour state kept up to date move by move.

The shared core (:class:`engine.polyform.position.Position`) holds B-L1..B-L3; this adds what is
Trigon's own: starting points any colour may take (B-L2), the symmetric start of a player's
second colour (B-L6) and the optional alternate-contact rule (B-L5). It knows nothing of turns,
passes or players; :mod:`engine.trigon.state` adds those.
"""

from __future__ import annotations

from engine.polyform.bits import bit_indices
from engine.polyform.position import Position as _SharedPosition

from .board import Board
from .pieces import MONOMINO
from .placements import PlacementTable, straight_rings


class Position(_SharedPosition):
    """The shared position plus, per colour, the first starting point taken and the B-L5 cells."""

    __slots__ = ("alt_forbidden", "alternate_contact", "board", "partner", "start_taken", "straight")

    def __init__(self, table: PlacementTable[Board], colours: int, *, alternate_contact: bool = False,
                 partner: tuple[int | None, ...] | None = None) -> None:
        super().__init__(table, colours)
        self.board: Board = table.board
        #: the starting point each colour's first piece covered
        self.start_taken: list[int | None] = [None] * colours
        #: B-L6: the colour whose first start this colour's first piece must mirror, if any
        self.partner: tuple[int | None, ...] = partner if partner is not None else (None,) * colours
        self.alternate_contact = alternate_contact
        self.straight: tuple[int, ...] = straight_rings(self.board.side) if alternate_contact else ()
        #: B-L5: cells next to a straight side of the colour's pieces, at a corner point
        self.alt_forbidden = [0] * colours

    def _copy_into(self, new: _SharedPosition) -> None:
        super()._copy_into(new)
        assert isinstance(new, Position)
        new.board = self.board
        new.start_taken = self.start_taken[:]
        new.partner = self.partner
        new.alternate_contact = self.alternate_contact
        new.straight = self.straight
        new.alt_forbidden = self.alt_forbidden[:]

    # -- where a colour may start ------------------------------------------------------------
    def allowed_starts(self, colour: int) -> int:
        """The starting points the colour's first piece may cover now (B-L2, B-L6).

        Under B-L6 a second colour must take the point opposite its partner's; if that point is
        already covered, any free starting point will do (house reading).
        """
        board = self.board
        free = board.start_mask & ~self.occupied
        partner = self.partner[colour]
        if partner is not None:
            taken = self.start_taken[partner]
            if taken is not None:
                mirror = 1 << board.opposite(taken)
                if mirror & free:
                    return mirror
        return free

    def others_unaffected(self, colour: int, other: int) -> bool:
        """Also false where the colour's first piece fixes ``other``'s starting point (B-L6)."""
        return colour != other and not (self.partner[other] == colour and self.own[colour] == 0)

    # -- legal placements ---------------------------------------------------------------------
    def legal_set(self, colour: int) -> int:
        """The placement numbers the colour may make now (B-L5 checked one by one when it is on)."""
        legal = super().legal_set(colour)
        if not self.alternate_contact or not legal:
            return legal
        masks = self.table.masks
        for p in bit_indices(legal):
            if not self._alternate_ok(colour, masks[p]):
                legal &= ~(1 << p)
        return legal

    def _alternate_ok(self, colour: int, mask: int) -> bool:
        """B-L5: no corner of the new piece at an own straight side, and no own corner at its."""
        if mask & self.alt_forbidden[colour]:
            return False
        pid = self.table.index_of_mask[mask]
        return not self.straight[pid] & self.own[colour]

    # -- playing -------------------------------------------------------------------------------
    def play(self, colour: int, placement: int) -> None:
        """Put placement number ``placement`` on the board for the colour (no legality check)."""
        if self.own[colour] == 0:
            starts = self.table.masks[placement] & self.board.start_mask
            if starts:
                self.start_taken[colour] = (starts & -starts).bit_length() - 1
        super().play(colour, placement)
        if self.alternate_contact:
            self.alt_forbidden[colour] |= self.straight[placement]

    # -- counting --------------------------------------------------------------------------------
    def triangles_left(self, colour: int) -> int:
        """Triangles of the colour's pieces not on the board."""
        return self.cells_left(colour)

    def ended_with_monomino(self, colour: int) -> bool:
        return self.unused[colour] == 0 and self.last_piece[colour] == MONOMINO
