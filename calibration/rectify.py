"""A top-down view of the board from a raw camera picture and the stored board reference.

One ``cv2.remap`` straight from the raw (distorted) picture: each output pixel is a board point,
mapped through the board homography and, with a camera calibration, through the lens model.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from .board_colours import units_to_raw
from .board_geometry import corner_units
from .profile import BoardReference, Profile
from .undistort import Undistorter


def rectify_board(image: NDArray[Any], profile: Profile | BoardReference, px_per_unit: int = 40,
                  margin_units: float = 0.0) -> NDArray[Any]:
    """The board seen from straight above.

    ``triolet``: ``15·px_per_unit`` square, square A1 at the top-left (a square is
    ``px_per_unit`` pixels). ``trigon``: one triangle side is ``px_per_unit`` pixels; the image
    spans the whole side-9 hexagon (18 × 18·√3/2 units). ``margin_units`` adds board border around.
    Output pixel ``(i, j)`` shows board point ``((i + 0.5) / px_per_unit − margin, …)``.
    """
    board = profile.board if isinstance(profile, Profile) else profile
    if board is None:
        raise ValueError("the profile holds no board (run: companion calibrate board)")
    camera = profile.camera if isinstance(profile, Profile) else None
    undistorter = Undistorter(camera) if camera is not None else None
    if board.game == "trigon":
        width_units, height_units = 18.0, float(corner_units("trigon")[2, 1])
    else:
        width_units = height_units = float(corner_units(board.game)[2, 0])
    w = round((width_units + 2 * margin_units) * px_per_unit)
    h = round((height_units + 2 * margin_units) * px_per_unit)
    us = (np.arange(w, dtype=np.float64) + 0.5) / px_per_unit - margin_units
    vs = (np.arange(h, dtype=np.float64) + 0.5) / px_per_unit - margin_units
    units = np.stack(np.meshgrid(us, vs), axis=-1)
    size = (int(image.shape[1]), int(image.shape[0]))
    raw = units_to_raw(board.game, board.corners_px, units, undistorter, size).astype(np.float32)
    return np.asarray(cv2.remap(image, raw[..., 0], raw[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT))
