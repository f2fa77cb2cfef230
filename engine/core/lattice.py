"""The triangular lattice shared by Trigon, Triominos and Trio Domino.

Cells are ``(x, y)`` with ``y`` growing downward. A cell points up iff ``(x + y) % 2 == up_parity``.
Vertices are integer points ``(X, Y)`` with ``X`` counted in half edge-lengths:

* an up cell ``(x, y)`` has its apex at ``(x, y)`` and its base at ``(x - 1, y + 1)``, ``(x + 1, y + 1)``;
* a down cell ``(x, y)`` has its top edge at ``(x - 1, y)``, ``(x + 1, y)`` and its apex at ``(x, y + 1)``.

Two cells are edge neighbours when they share two vertices and corner neighbours when they share
exactly one (RULES.md B-B3, M-B2).
"""

from __future__ import annotations

from dataclasses import dataclass

Cell = tuple[int, int]
Vertex = tuple[int, int]


@dataclass(frozen=True)
class TriLattice:
    """Geometry of one triangular lattice (``up_parity`` fixes which cells point up)."""

    up_parity: int = 0

    def is_up(self, cell: Cell) -> bool:
        """Whether the cell's apex points up (toward smaller ``y``)."""
        return (cell[0] + cell[1]) % 2 == self.up_parity

    def vertices(self, cell: Cell) -> tuple[Vertex, Vertex, Vertex]:
        """The cell's corners clockwise from its apex (M-B3 order).

        Up: top, bottom-right, bottom-left. Down: bottom, top-left, top-right.
        """
        x, y = cell
        if self.is_up(cell):
            return (x, y), (x + 1, y + 1), (x - 1, y + 1)
        return (x, y + 1), (x - 1, y), (x + 1, y)

    def edge_neighbours(self, cell: Cell) -> tuple[Cell, Cell, Cell]:
        """The three cells sharing a side: left, right, and the one across the horizontal edge."""
        x, y = cell
        across = (x, y + 1) if self.is_up(cell) else (x, y - 1)
        return (x - 1, y), (x + 1, y), across

    def cells_at_vertex(self, v: Vertex) -> tuple[Cell, ...]:
        """The six cells around a lattice vertex."""
        vx, vy = v
        if (vx + vy) % 2 != self.up_parity:
            raise ValueError(f"{v} is not a vertex of this lattice")
        return ((vx, vy), (vx + 1, vy), (vx + 1, vy - 1), (vx, vy - 1), (vx - 1, vy - 1), (vx - 1, vy))

    def corner_neighbours(self, cell: Cell) -> tuple[Cell, ...]:
        """The nine cells sharing exactly one vertex with ``cell``."""
        edge = set(self.edge_neighbours(cell))
        seen: dict[Cell, None] = {}
        for v in self.vertices(cell):
            for c in self.cells_at_vertex(v):
                if c != cell and c not in edge:
                    seen[c] = None
        return tuple(seen)

    def shared_vertices(self, a: Cell, b: Cell) -> set[Vertex]:
        """The vertices two cells have in common (2 for edge neighbours, 1 at a corner)."""
        return set(self.vertices(a)) & set(self.vertices(b))

    def edge_between(self, a: Cell, b: Cell) -> tuple[Vertex, Vertex] | None:
        """The shared side of two edge neighbours as a pair of vertices, else ``None``."""
        shared = [v for v in self.vertices(a) if v in set(self.vertices(b))]
        return (shared[0], shared[1]) if len(shared) == 2 else None

    def vertex_xy(self, v: Vertex, side: float = 1.0) -> tuple[float, float]:
        """A vertex in Euclidean units (y downward) for drawing, with side length ``side``."""
        return v[0] * side / 2.0, v[1] * side * (3.0**0.5) / 2.0

    def centroid_xy(self, cell: Cell, side: float = 1.0) -> tuple[float, float]:
        """The cell's centre in Euclidean units (y downward)."""
        pts = [self.vertex_xy(v, side) for v in self.vertices(cell)]
        return sum(p[0] for p in pts) / 3.0, sum(p[1] for p in pts) / 3.0
