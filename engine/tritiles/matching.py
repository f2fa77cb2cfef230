"""M-P1 / D-P1: a new tile shares a side with the field and every corner it touches shows its number."""

from __future__ import annotations

from engine.core.lattice import Cell
from engine.core.verdict import Reason

from .geometry import cell_text, corner_names, vertices
from .table import Table
from .tiles import Values


def matching_reasons(table: Table, cell: Cell, values: Values, rule: str) -> list[Reason]:
    """Why ``values`` cannot lie on ``cell`` of a non-empty ``table`` (empty list: it can)."""
    if cell in table.cells:
        return [Reason(rule, "cell_taken", f"{cell_text(cell)} already holds a tile", (cell,))]
    if not table.occupied_edge_neighbours(cell):
        return [Reason(rule, "no_edge_contact",
                       f"a tile on {cell_text(cell)} would share no side with the tiles on the table; "
                       "a new tile must share at least one full side", (cell,))]
    reasons: list[Reason] = []
    for v, n, name in zip(vertices(cell), values, corner_names(cell), strict=True):
        shown = table.corners.get(v)
        if shown is None or shown == n:
            continue
        others = table.tiles_at_corner(v)
        reasons.append(Reason(
            rule, "corner_mismatch",
            f"the {n} at the {name} corner of {cell_text(cell)} meets a {shown} on the tile at "
            f"{cell_text(others[0])}; touching corners must show the same number",
            (cell, *others)))
    return reasons

