"""Helpers for the camera page tests and bench: a rendered game video as a Y4M file that Chromium
plays as its fake camera (``--use-file-for-fake-video-capture``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray


def write_y4m(frames: Iterable[NDArray[np.uint8]], path: Path, fps: int) -> int:
    """Write BGR frames (all one size, even sides) as a 4:2:0 Y4M video; the number written."""
    count = 0
    with path.open("wb") as fh:
        for img in frames:
            h, w = img.shape[:2]
            if count == 0:
                fh.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode("ascii"))
            planes = cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420)  # Y, then U, then V, planar
            fh.write(b"FRAME\n")
            fh.write(np.ascontiguousarray(planes).tobytes())
            count += 1
    return count


def video_frames(video: Path) -> list[NDArray[np.uint8]]:
    """Every frame of a video file, BGR."""
    cap = cv2.VideoCapture(str(video))
    out = []
    while True:
        ok, img = cap.read()
        if not ok:
            break
        out.append(np.asarray(img, np.uint8))
    cap.release()
    return out


def with_rests(frames: list[NDArray[np.uint8]], before: int, after: int) -> list[NDArray[np.uint8]]:
    """The frames with the first one held ``before`` frames longer and the last ``after`` longer."""
    return [frames[0]] * before + frames + [frames[-1]] * after
