"""Renderer B: Triolet tables ray-traced by POV-Ray (``docs/RENDERER_B.md``).

``povray_frame(seed, group, size, cache)`` returns a ``RenderedFrame`` labelled like the project's
renderer; ``faces.FACES`` lists its typefaces and the held-out group.
"""

from __future__ import annotations

from lab.render.povray.faces import FACES, GROUPS, faces
from lab.render.povray.render import PovrayMissing, povray_frame

__all__ = ["FACES", "GROUPS", "PovrayMissing", "faces", "povray_frame"]
