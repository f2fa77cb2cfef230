"""Whether the part of a tile's printed marks in view still tells its value (truth labels).

A tile partly under a hand may show only marks another value's tile would show as well: a 13
whose "3" is covered shows what a 12 shows there, a 6 whose count digit is covered may look like
a 9 turned over. Such a tile's value is not in the picture, whatever reads it.

On the upright face, sampled on an ``INK_GRID`` px grid, two tiles' marks differ where one shows
ink and the other paper with no edge of its own within a pixel (``marks_difference``), counted
over the part of the face in view, for the other tile in its likeliest quarter turn (a reader does
not know how a tile lies). A tile is *confusable* with every value whose marks in view differ
from its own by fewer than ``LEGIBLE_MIN_PX`` such pixels: fewer than the two least different
values of any typeface differ by when wholly in view (``least_pair_difference``), which a reader
must tell apart.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from lab.render.camera import CameraSpec
from lab.render.triolet_tiles import face_ink

F64 = NDArray[np.float64]
B = NDArray[np.bool_]

#: Side, px, of the upright face on which a tile's printed marks are sampled.
INK_GRID = 48
#: Marks in view differing from another value's by fewer pixels than this do not tell the two
#: apart: the least difference between two values wholly in view over the renderer's typefaces
#: (``ttf_liberation_narrow``'s 6 and 8 at the smallest numeral scale, 0.48; pinned by a test).
LEGIBLE_MIN_PX = 9
#: Every value a tile can show: 0–15, and ``None`` for a wild (a star).
FACES: tuple[int | None, ...] = (*range(16), None)

_NEAR = np.ones((3, 3), np.uint8)


class Marks(NamedTuple):
    """A face's ink, grown by a pixel (``near``), and shrunk by one (``solid``: ink all round)."""

    ink: B
    near: B
    solid: B

    def turned(self, q: int) -> Marks:
        """The same marks turned ``q`` quarter turns."""
        return Marks(np.rot90(self.ink, q), np.rot90(self.near, q), np.rot90(self.solid, q))


def face_seen(corners_mm: F64, z_mm: float, camera: CameraSpec, occ: NDArray[np.uint8],
              n: int = INK_GRID) -> B:
    """``n``×``n`` mask of a tile's upright face: where the picture shows it (inside the picture,
    no occluder). ``corners_mm``: the tile's corners in printed order at height ``z_mm``."""
    ys, xs = np.mgrid[0:n, 0:n]
    u, v = ((xs + 0.5) / n).ravel(), ((ys + 0.5) / n).ravel()
    c = np.asarray(corners_mm, np.float64)
    pts = c[0] + u[:, None] * (c[1] - c[0]) + v[:, None] * (c[2] - c[1])
    px = camera.project(np.concatenate([pts, np.full((len(pts), 1), z_mm)], axis=1))
    xi, yi = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
    h, w = occ.shape
    inside = (xi >= 0) & (yi >= 0) & (xi < w) & (yi < h)
    seen = np.zeros(len(xi), bool)
    seen[inside] = occ[yi[inside], xi[inside]] == 0
    return seen.reshape(n, n)


@lru_cache(maxsize=64)
def face_marks(typeface: str, numeral_scale: float, star_outline: bool) -> dict[int | None, Marks]:
    """Per value (``None``: a wild), its marks on the upright face."""
    out: dict[int | None, Marks] = {}
    for v in FACES:
        ink = face_ink(v, typeface, INK_GRID, numeral_scale, star_outline)
        out[v] = Marks(ink > 0, cv2.dilate(ink, _NEAR) > 0, cv2.erode(ink, _NEAR) > 0)
    return out


def _one_way(a: Marks, b: Marks, seen: B) -> int:
    """Pixels in view where ``a`` shows ink and ``b`` paper all round, or ``a`` paper and ``b``
    ink all round."""
    return int(np.count_nonzero(seen & a.ink & ~b.near)) + int(np.count_nonzero(seen & ~a.ink & b.solid))


def marks_difference(a: Marks, b: Marks, seen: B) -> int:
    """Pixels in view (``seen``) where one tile's marks show ink and the other's paper with no edge
    of its own within a pixel, counted both ways, for ``b`` in its likeliest quarter turn."""
    return min(_one_way(a, t, seen) + _one_way(t, a, seen) for t in (b.turned(q) for q in range(4)))


def confusable_values(value: int | None, typeface: str, numeral_scale: float, star_outline: bool,
                      seen: B) -> list[int | None]:
    """The other values (``None``: a wild) whose marks in the ``seen`` part of the face differ
    from this tile's by fewer than ``LEGIBLE_MIN_PX`` pixels."""
    marks = face_marks(typeface, numeral_scale, star_outline)
    return [v for v in FACES if v != value and marks_difference(marks[value], marks[v], seen) < LEGIBLE_MIN_PX]


def least_pair_difference(typeface: str, numeral_scale: float, star_outline: bool = False
                          ) -> tuple[int, int | None, int | None]:
    """The least ``marks_difference`` between two values wholly in view in ``typeface``, and
    which two."""
    marks = face_marks(typeface, numeral_scale, star_outline)
    seen = np.ones((INK_GRID, INK_GRID), bool)
    pairs = ((marks_difference(marks[a], marks[b], seen), a, b) for i, a in enumerate(FACES) for b in FACES[i + 1:])
    return min(pairs, key=lambda p: p[0])
