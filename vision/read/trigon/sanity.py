"""Game-aware checks on a Trigon reading (B-B5, B-L3): at most 110 triangles of a colour, and no
edge-connected group of one colour larger than a piece (6), since a colour's pieces never share
an edge. Cells breaking them keep their colour but lose confidence."""

from __future__ import annotations

from vision.read.trigon.geometry import edge_adjacency

MAX_PER_COLOUR = 110
MAX_PIECE = 6


def edge_groups(colours: list[str | None], side: int = 9) -> list[list[int]]:
    """Edge-connected groups of equal, non-empty colour (cell indices of ``board_cells(side)``)."""
    adj = edge_adjacency(side)
    seen = [False] * len(colours)
    groups = []
    for i, c in enumerate(colours):
        if c is None or seen[i]:
            continue
        stack, group = [i], []
        seen[i] = True
        while stack:
            j = stack.pop()
            group.append(j)
            for k in adj[j]:
                if not seen[k] and colours[k] == c:
                    seen[k] = True
                    stack.append(k)
        groups.append(group)
    return groups


def sanity_penalties(colours: list[str | None], side: int = 9) -> dict[int, float]:
    """Confidence factors (< 1) for cells in implausible groups or over-full colours."""
    out: dict[int, float] = {}
    for g in edge_groups(colours, side):
        if len(g) > MAX_PIECE:
            for i in g:
                out[i] = 0.5
    for name in set(c for c in colours if c is not None):
        idx = [i for i, c in enumerate(colours) if c == name]
        if len(idx) > MAX_PER_COLOUR:
            for i in idx:
                out[i] = min(out.get(i, 1.0), 0.6)
    return out
