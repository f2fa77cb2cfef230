"""Renderer B: tables ray-traced by POV-Ray (``docs/RENDERER_B.md``).

``povray_frame(seed, group, size, cache)`` returns a Triolet ``RenderedFrame`` labelled like the
project's renderer; ``tiles_frame(seed, game, group, size, cache)`` a Triominos or Trio Domino one
(``tiles.py``); ``faces.FACES`` lists the typefaces and the held-out group.
"""

from __future__ import annotations

from lab.render.povray.faces import FACES, GROUPS, faces
from lab.render.povray.render import PovrayMissing, povray_frame
from lab.render.povray.tiles import tiles_frame

__all__ = ["FACES", "GROUPS", "PovrayMissing", "faces", "povray_frame", "tiles_frame"]
