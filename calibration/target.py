"""The default ChArUco calibration target (INTERFACES §4b): 7 × 5 squares, ``DICT_5X5_100``,
marker side 0.7 × square side."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class CharucoTarget:
    """A ChArUco board layout; lengths are in the caller's unit (millimetres in profiles)."""

    squares_x: int = 7
    squares_y: int = 5
    dictionary: str = "DICT_5X5_100"
    marker_ratio: float = 0.7

    def board(self, square_len: float = 1.0) -> cv2.aruco.CharucoBoard:
        """The OpenCV board object, squares ``square_len`` long."""
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard(
            (self.squares_x, self.squares_y), float(square_len), float(square_len) * self.marker_ratio, dictionary
        )

    @property
    def corner_count(self) -> int:
        """Number of inner chessboard corners (ChArUco corner ids 0 … n−1)."""
        return (self.squares_x - 1) * (self.squares_y - 1)

    def corner_points(self, square_len: float) -> NDArray[np.float64]:
        """Board-frame (x right, y down, z 0) positions of the ChArUco corners, by id, shape (n, 3)."""
        return np.asarray(self.board(square_len).getChessboardCorners(), dtype=np.float64).reshape(-1, 3)

    def to_json(self) -> dict[str, object]:
        return {
            "squares": [self.squares_x, self.squares_y],
            "dictionary": self.dictionary,
            "marker_ratio": self.marker_ratio,
        }


DEFAULT_TARGET = CharucoTarget()


def target_image(px_per_square: int = 100, margin_px: int | None = None, target: CharucoTarget = DEFAULT_TARGET
                 ) -> NDArray[np.uint8]:
    """The printable target: a greyscale image, ``px_per_square`` per square, white margin around.

    The board spans ``[margin, margin + squares·px_per_square)`` exactly, so the pixel
    ``(margin + x·s − 0.5, margin + y·s − 0.5)`` is the board point ``(x, y)`` in square units.
    """
    if px_per_square < 10:
        raise ValueError(f"px_per_square must be at least 10, got {px_per_square}")
    margin = px_per_square // 2 if margin_px is None else margin_px
    if margin < 0:
        raise ValueError(f"margin must not be negative, got {margin}")
    size = (target.squares_x * px_per_square + 2 * margin, target.squares_y * px_per_square + 2 * margin)
    image = target.board(1.0).generateImage(size, marginSize=margin, borderBits=1)
    return np.asarray(image, dtype=np.uint8)
