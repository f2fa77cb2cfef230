"""The pieces on a board as bit sets, with per-colour state kept up to date move by move.

The rules every polyomino and polyiamond game of the Blokus family shares: a piece covers free
cells only; a colour's first piece covers one of the cells it may start on; every later piece
touches its own colour at a corner and never along an edge; other colours may be touched freely.

Per colour two bit sets over *placement numbers* are kept besides the cell sets: ``reach``, the
placements covering a cell at a corner of the colour's pieces, and ``dead``, the placements it
can never make again (covering an occupied cell or a cell along its own edges, or of a piece it
has used). Both only grow, so a move updates them with a few ``|=`` of precomputed per-cell sets,
and the legal placements are ``reach & ~dead``: counting them is one ``bit_count``.
"""

from __future__ import annotations

from typing import Any, Self

from .bits import bit_indices
from .table import PlacementTable


class Position:
    """Occupied cells and, per colour (0-based): own cells, cells it may not cover, corner-contact
    cells, pieces not yet used, the last piece placed, and the placement sets ``reach``/``dead``."""

    __slots__ = ("attach", "dead", "forbidden", "last_piece", "occupied", "own", "reach", "starts", "table",
                 "unused")

    def __init__(self, table: PlacementTable[Any], colours: int, starts: tuple[int, ...] | None = None) -> None:
        """``starts[c]``: the cells colour ``c``'s first piece may cover (one must be covered);
        subclasses with starting points that change during play override :meth:`allowed_starts`."""
        self.table: PlacementTable[Any] = table
        self.starts: tuple[int, ...] = starts if starts is not None else (0,) * colours
        self.occupied = 0
        self.own = [0] * colours
        #: cells the colour may not cover: occupied ones and those along its own edges
        self.forbidden = [0] * colours
        #: free cells touching the colour's own pieces only at a corner
        self.attach = [0] * colours
        #: bit set of the pieces not yet placed
        self.unused = [(1 << table.piece_count) - 1] * colours
        self.last_piece: list[int | None] = [None] * colours
        #: placement numbers covering a cell at a corner of the colour's pieces (grows only)
        self.reach = [0] * colours
        #: placement numbers the colour can never make again (grows only)
        self.dead = [0] * colours

    @property
    def colours(self) -> int:
        return len(self.own)

    def copy(self) -> Self:
        new = self.__class__.__new__(self.__class__)
        self._copy_into(new)
        return new

    def _copy_into(self, new: Position) -> None:
        new.table = self.table
        new.starts = self.starts
        new.occupied = self.occupied
        new.own = self.own[:]
        new.forbidden = self.forbidden[:]
        new.attach = self.attach[:]
        new.unused = self.unused[:]
        new.last_piece = self.last_piece[:]
        new.reach = self.reach[:]
        new.dead = self.dead[:]

    # -- where a colour may start ------------------------------------------------------------
    def allowed_starts(self, colour: int) -> int:
        """The cells the colour's first piece may cover now (one of them must be covered)."""
        return self.starts[colour] & ~self.occupied

    def contact_cells(self, colour: int) -> int:
        """Cells one of which a legal placement of the colour must cover."""
        if self.own[colour] == 0:
            return self.allowed_starts(colour)
        return self.attach[colour]

    # -- legal placements ---------------------------------------------------------------------
    def legal_set(self, colour: int) -> int:
        """The placement numbers the colour may make now, as a bit set."""
        if self.own[colour] == 0:
            return self.table.covering_any(self.allowed_starts(colour)) & ~self.dead[colour]
        return self.reach[colour] & ~self.dead[colour]

    def legal_ids(self, colour: int) -> list[int]:
        """The placement numbers the colour may make now, ascending."""
        return bit_indices(self.legal_set(colour))

    def legal_masks(self, colour: int) -> list[int]:
        """The cell bit set of every legal placement of the colour, each distinct cell set once."""
        masks = self.table.masks
        return [masks[i] for i in self.legal_ids(colour)]

    def count_legal(self, colour: int) -> int:
        """How many legal placements the colour has."""
        return self.legal_set(colour).bit_count()

    def has_legal(self, colour: int) -> bool:
        """Whether the colour has any legal placement."""
        return self.legal_set(colour) != 0

    def others_unaffected(self, colour: int, other: int) -> bool:
        """Whether a piece of ``colour`` changes ``other``'s legal placements only by taking away
        those that share a cell with it (true in every rule here; a rule where one colour's move
        opens or moves another's starting point says otherwise)."""
        return colour != other

    def is_legal(self, colour: int, placement: int) -> bool:
        """Whether placement number ``placement`` is legal for the colour now."""
        return bool(self.legal_set(colour) >> placement & 1)

    # -- playing -------------------------------------------------------------------------------
    def play(self, colour: int, placement: int) -> None:
        """Put placement number ``placement`` on the board for the colour (no legality check)."""
        table = self.table
        m = table.masks[placement]
        piece = table.pieces[placement]
        covered = table.conflicting(placement)
        self.occupied |= m
        for c in range(len(self.own)):
            self.forbidden[c] |= m
            self.attach[c] &= ~m
            self.dead[c] |= covered
        self.own[colour] |= m
        new_forbidden = table.edge_rings[placement] & ~self.forbidden[colour]
        self.forbidden[colour] |= new_forbidden
        new_attach = table.corner_rings[placement] & ~self.forbidden[colour] & ~self.attach[colour]
        self.attach[colour] = (self.attach[colour] | new_attach) & ~self.forbidden[colour]
        self.dead[colour] |= table.covering_any(new_forbidden) | table.of_piece[piece]
        self.reach[colour] |= table.covering_any(new_attach)
        self.unused[colour] &= ~(1 << piece)
        self.last_piece[colour] = piece

    # -- counting --------------------------------------------------------------------------------
    def cells_left(self, colour: int) -> int:
        """Cells of the colour's pieces not on the board."""
        sizes = self.table.piece_sizes
        return sum(sizes[p] for p in bit_indices(self.unused[colour]))

    def all_placed(self, colour: int) -> bool:
        return self.unused[colour] == 0
