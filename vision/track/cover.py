"""Hands and arms over the board, told from tiles by where the change comes from.

A hand or an arm reaches the board from outside: its change (skin, sleeve or shadow, whatever
their colour) is one connected region that crosses the outer margin ring (or runs off the
picture). A placed tile changes only a few cells inside the playing area. So a frame is
*covered* when a connected changed region touches the entry ring and reaches the playing area,
or when a region inside is too big to be tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

B = NDArray[np.bool_]


@dataclass(frozen=True)
class Cover:
    """Whether the board is covered, and the cells of the covering regions (G×G)."""

    covered: bool
    cells: B

    @property
    def count(self) -> int:
        return int(self.cells.sum())


def entry_ring(valid: B) -> B:
    """Cells a reach from outside must cross: the outermost ring and cells next to invalid ones."""
    g = valid.shape[0]
    ring = np.zeros((g, g), bool)
    ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = True
    invalid = (~valid).astype(np.uint8)
    near_invalid = cv2.dilate(invalid, np.ones((3, 3), np.uint8)).astype(bool) & valid
    return (ring & valid) | near_invalid


def find_cover(changed: B, valid: B, margin: int, size: int, big_blob: int = 10) -> Cover:
    """Regions of ``changed`` cells that look like hands or arms (see the module docstring)."""
    g = changed.shape[0]
    playing = np.zeros((g, g), bool)
    playing[margin:margin + size, margin:margin + size] = True
    n, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
    ring = entry_ring(valid)
    cells = np.zeros((g, g), bool)
    covered = False
    for k in range(1, n):
        region = labels == k
        inside = int((region & playing).sum())
        if inside == 0:
            continue
        touches = bool((region & ring).any())
        if touches or inside >= big_blob:
            covered = True
            cells |= region
    return Cover(covered, cells)
